"""The event vocabulary (docs/protocol.md §8): every event type, its fields and their types.

This is the one list the docs, the JSON Schemas of the API (engine.schemas builds them from it) and the
clients follow. The engine's transitions (play.py, mafia.py) emit the game events; the API's game log
emits the three table events (a seat taken or moved, a rematch), which are listed here too so that every
event a client can meet has one home. tests/engine/test_events.py plays seeded games and checks that
every event emitted, and every redacted event a seat sees, matches this vocabulary exactly.

A field's type is a JSON Schema fragment (the kinds below); a `Result` field refers to the result of a
finished game (engine.schemas.RESULT). `required` False marks the few fields that are present only
sometimes, each with the rule saying when.
"""

from __future__ import annotations

from typing import NamedTuple

from .cards import BEANS, BOSSES
from .state import PHASES

SEAT = {"type": "integer", "minimum": 0, "maximum": 1, "description": "A seat (0, or 1 in duo)."}
FIELD = {"type": "integer", "minimum": 0, "maximum": 2, "description": "A field index: 0, 1 or 2."}
BEAN = {"type": "string", "enum": list(BEANS), "description": "A bean code (docs/protocol.md §1)."}
BOSS = {"type": "string", "enum": list(BOSSES), "description": "A Mafia boss."}
COUNT = {"type": "integer", "minimum": 1, "description": "How many cards."}
COINS = {"type": "integer", "minimum": 0, "description": "How many of them became coins."}
# Written as a boolean (always true when present), not as `const: true`, which client generators mishandle.
FINAL = {"type": "boolean", "description": "true, and only in the final harvest at the end (R100); absent "
                                          "otherwise."}
SOURCE = {"type": "string", "enum": ["hand", "display"],
          "description": "hand: one card from the hand; display: a whole bundle of the display."}
NAME = {"type": ["string", "null"], "description": "The seat's player name (plain text), null when none."}
GAME_ID = {"type": "string", "minLength": 1, "description": "A game id."}
RESULT = "Result"  # the result of a finished game: a reference, resolved by engine.schemas


class Field(NamedTuple):
    """One field of an event: its JSON Schema (or RESULT) and whether every event of the type has it."""

    schema: dict | str
    required: bool = True
    doc: str = ""


def _f(schema, doc: str = "", required: bool = True) -> Field:
    return Field(schema, required, doc)


class EventType(NamedTuple):
    description: str
    fields: dict[str, Field]
    source: str = "engine"  # "engine": engine.apply emits it; "table": the API's game log does


EVENTS: dict[str, EventType] = {
    "turn": EventType("A turn begins (R87).", {"seat": _f(SEAT)}),
    "phase": EventType("The game comes to rest in a decision phase, or `over`; `seat` is the active seat.", {
        "phase": _f({"type": "string", "enum": list(PHASES)}), "seat": _f(SEAT)}),
    "harvest": EventType("A field is harvested: `count` cards, `coins` of them became coins (R21).", {
        "seat": _f(SEAT), "field": _f(FIELD), "bean": _f(BEAN), "count": _f(COUNT), "coins": _f(COINS),
        "final": _f(FINAL, required=False)}),
    "buy_field": EventType("The third field was bought; `field` is its index (2).", {
        "seat": _f(SEAT), "field": _f(FIELD)}),
    "plant": EventType("Cards planted on a field: one hand card, or a whole bundle of the display.", {
        "seat": _f(SEAT), "source": _f(SOURCE), "bean": _f(BEAN), "count": _f(COUNT), "field": _f(FIELD)}),
    "discard": EventType("A leftover bundle thrown onto the discard pile (R63).", {
        "seat": _f(SEAT), "bean": _f(BEAN), "count": _f(COUNT)}),
    "give": EventType("A gift to a boss: a bundle of the display, or one hand card.", {
        "seat": _f(SEAT), "source": _f(SOURCE), "bean": _f(BEAN), "count": _f(COUNT), "boss": _f(BOSS),
        "index": _f({"type": "integer", "minimum": 0}, "Where the card was in the hand (0 = the front): "
                    "present when `source` is hand, absent for the display.", required=False)}),
    "pay": EventType("One card paid from a field to a boss (R66a).", {
        "seat": _f(SEAT), "field": _f(FIELD), "boss": _f(BOSS), "bean": _f(BEAN)}),
    "boss_harvest": EventType("A boss harvested `count` cards, `coins` of them to the treasury (R32).", {
        "boss": _f(BOSS), "bean": _f(BEAN), "count": _f(COUNT), "coins": _f(COINS),
        "final": _f(FINAL, required=False)}),
    "reveal": EventType("A card turned up stayed in the display (R73).", {"bean": _f(BEAN)}),
    "capture": EventType("A turned-up card went to the boss growing its bean (R74).", {
        "boss": _f(BOSS), "bean": _f(BEAN)}),
    "from_discard": EventType("The discard pile's top card joined its bundle in the display (R76).", {
        "bean": _f(BEAN)}),
    "draw": EventType("A card drawn to the back of the hand (R86).", {
        "seat": _f(SEAT),
        "bean": _f(BEAN, "The card drawn: shown only to the drawing seat (engine.redact_events removes it "
                   "for every other seat and the table).", required=False)}),
    "exhausted": EventType("The draw pile ran out; `exhaustions` is the new count (R90).", {
        "exhaustions": _f({"type": "integer", "minimum": 1, "maximum": 3})}),
    "reshuffle": EventType("A new draw pile of `deck_size` cards for the `pass` (R91, R92).", {
        "deck_size": _f({"type": "integer", "minimum": 0}), "pass": _f({"type": "integer", "minimum": 2,
                                                                        "maximum": 3})}),
    "game_over": EventType("The game ended (R100-R103).", {"result": _f(RESULT)}),
    "seat_joined": EventType("A player took a free seat.", {"seat": _f(SEAT), "name": _f(NAME)}, "table"),
    "seat_transferred": EventType("A seat moved to another device.", {"seat": _f(SEAT), "name": _f(NAME)},
                                  "table"),
    "rematch": EventType("`seat` asked for a rematch; `game_id` is the next game.", {
        "seat": _f(SEAT), "game_id": _f(GAME_ID)}, "table"),
}


def mismatches(event: object) -> list[str]:
    """Return what keeps `event` from matching the vocabulary by its keys (an unknown type, a missing
    required field, a field the type does not have); [] when it matches. Values are checked by the
    JSON Schemas (engine.schemas)."""
    if type(event) is not dict or type(event.get("type")) is not str:
        return [f"not an event object with a type: {event!r}"]
    kind = EVENTS.get(event["type"])
    if kind is None:
        return [f"unknown event type {event['type']!r}"]
    out = [f"{event['type']}: missing {name}" for name, f in kind.fields.items()
           if f.required and name not in event]
    out += [f"{event['type']}: unknown field {name}" for name in event if name != "type" and
            name not in kind.fields]
    return out
