"""The game log: what was done, one short line per version; everything else is derived by replay.

The engine is deterministic and the seed is part of the game, so a game is its start (mode, seed,
options) and the list of what was done: the state and the events of any version come back by replaying
the moves (a whole game of some 400 moves takes a few milliseconds). The log therefore keeps no events,
and an idempotency record keeps no answer: both are rendered again from a replay.

Entries, one line each, one per version from 2 on (version 1 is the creation):

    "<cc>"            a move: two characters of MOVE_DIGITS standing for `code * 2 + seat`, where
                      `seat` took the action whose engine code is `code` (engine.actions), e.g. "B8"
                      (two bytes where the action and its events took some 200: a game's log is a
                      budget, docs/architecture.md "What is stored")
    "<seat>:<code>"   the same move as written up to release 0.2.1, e.g. "0:62" (still read; a
                      worker of that release cannot read the two characters: upgrade every worker
                      of a deployment together)
    {"seat": ..., "change": ..., ...}
                      a change at the table, as compact JSON (`Change.events` tells its event):
                      "joined" or "transferred" with the seat's `name` after it (and `was`, the name
                      before, and `code`, the join code used, where a replay needs them), or "rematch"
                      with the next `game`

An idempotency record (api.store.base.remember) keeps of its key only `key_digest(key)`: a few bytes
whatever the length of the key a client chose (up to IDEMPOTENCY_KEY_MAX characters).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field

from api.codec import own_json
from api.game import records
from engine import actions

# The highest version a request may name (HTTP and websocket): 2**53, the largest integer a JSON number
# still holds exactly in JavaScript, far above any game's (a version per move, a few hundred a game).
MAX_VERSION = 2**53

# The event of a change of seats (GET /events, websocket state frames).
SEAT_EVENT = {"joined": "seat_joined", "transferred": "seat_transferred"}

# The longest Idempotency-Key (HTTP header) or websocket message id a move may carry, in characters.
IDEMPOTENCY_KEY_MAX = 255


def key_digest(key: str) -> str:
    """Return what an idempotency record keeps of `key`: 16 hex digits of its SHA-256 (64 bits). Two keys
    with one digest would be taken for one; among the few keys a game remembers that happens by chance
    about once in 2**60, and keys chosen to collide only confuse their own sender's retries (an answer
    is replayed only to the same request, seat included: the fingerprint)."""
    return hashlib.sha256(key.encode("utf-8", "surrogatepass")).hexdigest()[:16]


@dataclass(frozen=True)
class Move:
    """A move: `seat` took `action` (a canonical action dict)."""

    seat: int
    action: dict


@dataclass(frozen=True)
class Change:
    """A change at the table: `kind` ("joined", "transferred") of `seat`, with its other fields."""

    seat: int
    kind: str
    fields: dict = field(default_factory=dict)

    def events(self) -> list[dict]:
        """Return the events this change shows (nothing secret: the same for every seat): a seat taken
        or moved, with the seat's name; or the rematch made, with the next game's id."""
        if self.kind == "rematch":
            return [{"type": "rematch", "seat": self.seat, "game_id": self.fields["game"]}]
        return [{"type": SEAT_EVENT[self.kind], "seat": self.seat, "name": self.fields.get("name")}]


# The digits of a move entry (base64url's): no "{" (a change), ":" (the old form) or newline among them.
MOVE_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_DIGIT = {c: i for i, c in enumerate(MOVE_DIGITS)}
_BASE = len(MOVE_DIGITS)


def move(seat: int, action: dict) -> str:
    """Return the entry of a move (`action` already accepted by the engine): two characters for every
    move of a game of two seats (the engine's codes are below 2048)."""
    code = actions.parse(action)
    number = code * 2 + seat
    if seat not in (0, 1) or number >= _BASE * _BASE:  # pragma: no cover - no such seat or code today
        return f"{seat}:{code}"
    return MOVE_DIGITS[number // _BASE] + MOVE_DIGITS[number % _BASE]


def change(seat: int, kind: str, **fields) -> str:
    """Return the entry of a change at the table."""
    return own_json.dumps({"seat": seat, "change": kind, **fields})


def parse(text: str) -> Move | Change:
    """Return the entry `text` stands for. Raises ValueError for text that is no entry."""
    if text.startswith("{"):
        fields = json.loads(text)
        return Change(fields.pop("seat"), fields.pop("change"), fields)
    if len(text) == 2 and text[0] in _DIGIT and text[1] in _DIGIT:
        number = _DIGIT[text[0]] * _BASE + _DIGIT[text[1]]
        return Move(number % 2, actions.to_dict(number // 2))
    seat, sep, code = text.partition(":")
    if not sep:
        raise ValueError(f"not a log entry: {text!r}")
    return Move(int(seat), actions.to_dict(int(code)))


@dataclass(frozen=True)
class Step:
    """One version of a replayed game: its entry, the state after it and its events (unredacted)."""

    version: int
    entry: Move | Change
    state: object
    events: list[dict]


def replay(start, entries: list[tuple[int, str]]) -> Iterator[Step]:
    """Yield the Step of every (version, entry) of `entries` (the log from version 2 on, in order),
    replaying the moves from `start`, the engine state of version 1 (with api.game.records.replay, the one
    replay loop). Raises ValueError when the log does not follow on from version 1 or a move does not
    apply (a log that is not this game's)."""

    def numbered():
        for expected, (version, text) in enumerate(entries, start=2):
            if version != expected:
                raise ValueError(f"the log skips from version {expected - 1} to {version}")
            yield version, parse(text)

    def move_of(item, _state):
        version, entry = item
        return None if isinstance(entry, Change) else (f"version {version}", entry.action)

    for (version, entry), _before, state, events in records.replay(start, numbered(), move_of):
        yield Step(version, entry, state, entry.events() if isinstance(entry, Change) else events)
