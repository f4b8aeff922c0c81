"""Untrusted JSON: reading what a client sent (HTTP bodies, websocket messages) with the standard
library's reader, bounded in depth. (What this server wrote itself is api.codec.own_json.)

Python's reader recurses once per level of nesting, so some 1,000 levels raise RecursionError (a 500,
and on a socket's reader thread a dead thread); and a value just under that depth would recurse again
in every later step (schema, engine, error text, encoders). Nothing we accept nests more than a few
levels (an action is an object of strings, numbers and short lists), so deeper text is malformed.

JSON may also escape half a UTF-16 surrogate pair ("\\ud800"), which no UTF-8 text can hold: such a
string would fail wherever it is written again (a frame echoing a message id, a Redis key), so text
holding one is malformed as well.
"""

from __future__ import annotations

import json

# Levels of arrays and objects a client's JSON may nest (an action message needs 3).
MAX_DEPTH = 32


def loads(text: str | bytes):
    """Return the value of `text`; raise json.JSONDecodeError (a ValueError) when it is not JSON,
    cannot be decoded as UTF-8, or nests deeper than MAX_DEPTH."""
    if isinstance(text, (bytes, bytearray)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise json.JSONDecodeError(f"Bytes decoding error: {exc.reason}", "?", exc.start) from None
    try:
        value = json.loads(text)
    except RecursionError:
        value = None
        too_deep = True
    else:
        too_deep = _deeper_than(value, MAX_DEPTH)
    if too_deep:
        raise json.JSONDecodeError(f"JSON nested deeper than {MAX_DEPTH} levels", text or "?", 0)
    # Only an escape can make a surrogate (the text itself is valid UTF-8): look only then.
    if ("\\ud" in text or "\\uD" in text) and not _is_unicode(value):
        raise json.JSONDecodeError("JSON string holding half a surrogate pair (not Unicode text)", text, 0)
    return value


def _is_unicode(value) -> bool:
    """Return False when a string of `value` (a key or a value, at any depth) holds a lone surrogate."""
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            items = [item]
        elif isinstance(item, dict):
            items = list(item)
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)
            continue
        else:
            continue
        for text in items:
            try:
                text.encode("utf-8")
            except UnicodeEncodeError:
                return False
    return True


def _deeper_than(value, limit: int) -> bool:
    """Return True when `value` nests more than `limit` arrays/objects (iteratively: no recursion)."""
    if not isinstance(value, (dict, list)):
        return False
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if depth > limit:
            return True
        children = item.values() if isinstance(item, dict) else item
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False
