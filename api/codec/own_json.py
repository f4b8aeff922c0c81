"""Our own JSON: the compact text this server writes (a move's document, log entry, answers and socket
frames) and the documents it reads back from its store, by orjson. Never for what a client sent: that
is api.codec.untrusted_json.

orjson writes the same text as `json.dumps(obj, separators=(",", ":"), ensure_ascii=False)` for
everything we write (checked over random games by tests/api/test_own_json.py) in a fraction of the
time (docs/architecture.md, "Measured notes"): a move encodes its document and two or three frames,
and other workers decode the document (`loads`). Values orjson refuses (an integer beyond 64 bits
from a client's action, say) go through the standard library, so the result never depends on which
encoder ran.
"""

from __future__ import annotations

import json

import orjson

_OPTIONS = orjson.OPT_NON_STR_KEYS


def dumps(obj) -> str:
    """Return the compact JSON text of `obj` (UTF-8 kept as is). Raises TypeError or ValueError for
    what JSON cannot hold."""
    try:
        return orjson.dumps(obj, option=_OPTIONS).decode()
    except orjson.JSONEncodeError:
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def loads(text: str | bytes):
    """Return the value of JSON `text` that this server wrote from its own values (a game document);
    raises ValueError (json.JSONDecodeError) when it is not JSON.

    Never for what a client sent, log entries included (they hold the client's action): orjson reads
    an integer beyond 64 bits as a float, where the standard library keeps it exact.
    """
    try:
        return orjson.loads(text)
    except orjson.JSONDecodeError:
        # What orjson refuses but the standard library reads (NaN, integers beyond 64 bits) reads as
        # it always did; anything else raises the standard library's error, as before.
        return json.loads(text)
