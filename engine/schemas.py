"""JSON Schemas (2020-12, as OpenAPI 3.1 reads them) of what the engine gives out: views, results,
actions and events, built from the engine's own tables (engine.actions.PARAMS, engine.events.EVENTS,
engine.cards, engine.state.PHASES) and kept equal to engine.view by tests/engine/test_events.py.

`components(ref)` returns named schemas that refer to each other through `ref(name)`: the OpenAPI
document (api.http.openapi) puts them under components/schemas, the websocket schema (api.live.ws_schema)
under $defs, so both describe the same objects in the same words. Every object is closed
(additionalProperties false): a field the engine starts to send must be added here, or the tests fail.
Unions of several object types carry a `discriminator` on `type` for client generators.
"""

from __future__ import annotations

from collections.abc import Callable

from . import events
from .actions import PARAMS
from .cards import BEANS, BOSS_COUNT, BOSSES, DECK_SIZE
from .state import FORMAT, PHASES

Ref = Callable[[str], str]


def _obj(description: str, properties: dict, required=None, **more) -> dict:
    return {"type": "object", "description": description, "properties": properties,
            "required": list(properties) if required is None else list(required),
            "additionalProperties": False, **more}


def _null_or(schema: dict) -> dict:
    """`schema` or null, in the form OpenAPI 3.1 generators read (no enum that contains null)."""
    return {"oneOf": [schema, {"type": "null"}]}


def _camel(name: str) -> str:
    return "".join(part.capitalize() for part in name.split("_"))


def event_name(kind: str) -> str:
    """The schema name of an event type: turn -> TurnEvent."""
    return _camel(kind) + "Event"


def action_name(kind: str) -> str:
    """The schema name of an action type: plant_hand -> PlantHandAction."""
    return _camel(kind) + "Action"


def _union(description: str, names: dict[str, str], ref: Ref) -> dict:
    """A oneOf of the object schemas `names` ({type value: schema name}) told apart by `type`."""
    return {"description": description, "oneOf": [{"$ref": ref(n)} for n in names.values()],
            "discriminator": {"propertyName": "type", "mapping": {k: ref(n) for k, n in names.items()}}}


def components(ref: Ref) -> dict[str, dict]:
    """Return every schema by name; `ref(name)` is the reference to a schema of this set."""
    r = lambda name: {"$ref": ref(name)}  # noqa: E731 - a one-line helper
    bean = r("Bean")
    seat = {"type": "integer", "minimum": 0, "maximum": 1}
    out: dict[str, dict] = {
        "Bean": {"type": "string", "enum": list(BEANS), "description": "A bean code (docs/protocol.md §1)."},
        "Boss": {"type": "string", "enum": list(BOSSES), "description": "A Mafia boss."},
        "Pile": {"type": "array", "description": "[bean, count]: cards of one bean on a field or a boss.",
                 "prefixItems": [bean, {"type": "integer", "minimum": 1}], "minItems": 2, "maxItems": 2},
    }
    pile_or_null = _null_or(r("Pile"))
    count = {"type": "integer", "minimum": 0}
    out["PlayerView"] = _obj("One seat at the table as the viewer may see it.", {
        "fields": {"type": "array", "items": pile_or_null, "minItems": 2, "maxItems": 3,
                   "description": "Per owned field: [bean, count], or null (empty)."},
        "harvest_values": {"type": "array", "items": {"type": ["integer", "null"], "minimum": 0},
                           "minItems": 2, "maxItems": 3,
                           "description": "Per field: the coins a harvest would earn now (R3); null for an "
                                          "empty field."},
        "coins": {**count, "description": "The coin stack (a count only)."},
        "hand_size": {**count, "description": "Cards in the hand."},
        "third_field": {"type": "boolean", "description": "Owns the third field."},
        "hand": {"oneOf": [{"type": "array", "items": bean}, {"type": "null"}],
                 "description": "The hand, front first, in the viewer's own entry; else null."},
    })
    out["Bosses"] = _obj("Each boss of the game: [bean, count] it grows, or null (empty). Duo has al and "
                         "don, solo all three.", {b: pile_or_null for b in BOSSES},
                         required=BOSSES[:min(BOSS_COUNT.values())])
    out["PlayerBreakdown"] = _obj("How one seat's score came about.", {
        "coins_before": {**count, "description": "Coins before the final harvest."},
        "final_harvest": {**count, "description": "What the final harvest of its fields paid (R100)."}})
    out["MafiaBreakdown"] = _obj("How the Mafia's score came about.", {
        "treasury_before": {**count, "description": "The treasury before the final harvest (coins, not yet "
                                                    "doubled)."},
        "final_harvest": {**count, "description": "What the bosses' final harvest added (R100)."},
        "factor": {"type": "integer", "enum": [1, 2],
                   "description": "2 in solo (R101), else 1: mafia = factor x (treasury_before + "
                                  "final_harvest)."}})
    out["Breakdown"] = _obj("How the scores came about.", {
        "players": {"type": "array", "items": r("PlayerBreakdown"), "minItems": 1, "maxItems": 2,
                    "description": "Per seat: scores[seat] = coins_before + final_harvest."},
        "mafia": r("MafiaBreakdown")})
    out["Result"] = _obj("The end of the game (R101-R103).", {
        "scores": {"type": "array", "items": count, "minItems": 1, "maxItems": 2,
                   "description": "Each seat's final coins."},
        "mafia": {**count, "description": "The Mafia's score: the treasury, doubled in solo."},
        "winners": {"type": "array", "minItems": 1, "maxItems": 2,
                    "items": {"oneOf": [seat, {"type": "string", "const": "mafia"}]},
                    "description": "The winning seats (both when tied above the Mafia), or [\"mafia\"]."},
        "tie_to_mafia": {"type": "boolean", "description": "True when the Mafia won only by equalling the "
                                                          "best player (A17). Absent in games finished "
                                                          "before it existed."},
        "breakdown": {**r("Breakdown"), "description": "Absent in games finished before it existed."},
    }, required=("scores", "mafia", "winners"))
    field_schemas = {
        "field": {"type": "integer", "minimum": 0, "maximum": 2, "description": "An own field: 0, 1 or 2."},
        "bean": {**bean, "description": "A bean code."},
        "boss": {**r("Boss"), "description": "A boss."},
        "index": {"type": "integer", "minimum": 0, "maximum": DECK_SIZE - 1,
                  "description": "A hand card (0 = the front card)."},
    }
    for kind, params in PARAMS.items():
        out[action_name(kind)] = _obj(f"The action {kind} (docs/protocol.md §3).", {
            "type": {"type": "string", "const": kind}, **{p: field_schemas[p] for p in params}})
    out["Action"] = _union("A well-formed action: a type and exactly its fields (docs/protocol.md §3). "
                           "Whether it is legal now is the view's legal_actions.",
                           {k: action_name(k) for k in PARAMS}, ref)
    out["View"] = _obj("What one seat (or the table, seat null) may see (engine.view, docs/protocol.md §5): "
                       "its own hand and public information, never the seed, the deck order or another "
                       "hand.", {
        "mode": {"type": "string", "enum": ["duo", "solo"]},
        "phase": {"type": "string", "enum": list(PHASES)},
        "active": {**seat, "description": "The seat whose turn it is."},
        "seat": {"type": ["integer", "null"], "minimum": 0, "maximum": 1,
                 "description": "The viewer's seat; null for the table view."},
        "players": {"type": "array", "items": r("PlayerView"), "minItems": 1, "maxItems": 2},
        "bosses": r("Bosses"),
        "display": {"type": "array", "items": bean, "description": "The display's cards in arrival order."},
        "discard_top": {**_null_or(bean), "description": "The discard pile's top card; null when empty."},
        "discard_size": {**count, "description": "Cards on the discard pile."},
        "deck_size": {**count, "description": "Cards left in the draw pile."},
        "treasury": {**count, "description": "The Mafia's coins (a count)."},
        "set_aside": {**count, "description": "Coins paid for third fields, waiting for the next reshuffle "
                                              "(R42)."},
        "exhaustions": {"type": "integer", "minimum": 0, "maximum": 3,
                        "description": "How often the draw pile ran out; the third ends the game."},
        "pass": {"type": "integer", "minimum": 1, "maximum": 3,
                 "description": "The trip through the draw pile (exhaustions + 1, at most 3)."},
        "planted": {"type": "integer", "minimum": 0, "maximum": 2,
                    "description": "Hand cards planted in this plant phase."},
        "settled": {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 2},
                    "description": "Fields whose protection pair was settled in this protection phase."},
        "last_turn": {"type": "boolean", "description": "This use phase is the game's last (R93)."},
        "result": {**_null_or(r("Result")), "description": "null until the game is over."},
        "legal_actions": {"type": "array", "items": r("Action"),
                          "description": "The viewer's legal actions when it is the viewer's turn, else []."},
    })
    pile = {"type": "array", "items": bean}
    out["PositionPlayer"] = _obj("One seat in a position: its secrets too.", {
        "hand": {**pile, "description": "The hand, front first."},
        "fields": {"type": "array", "items": pile_or_null, "minItems": 2, "maxItems": 3,
                   "description": "Per owned field: [bean, count], or null (empty); 3 entries with the "
                                  "third field."},
        "coins": {**pile, "description": "The coin stack as cards, top first."},
        "third_field": {"type": "boolean", "description": "Owns the third field (always in solo)."},
    }, required=())
    out["Position"] = _obj("A whole game, secrets included (docs/protocol.md §4; engine.to_position and "
                           "from_position): piles top first, a hand front first. Missing members take "
                           "their defaults (empty, null, 0, false; a seed derived from the rest).", {
        "format": {"type": "integer", "const": FORMAT, "description": "This format."},
        "mode": {"type": "string", "enum": ["duo", "solo"]},
        "phase": {"type": "string", "enum": list(PHASES)},
        "active": {**seat, "description": "The seat whose turn it is (after the end: whose turn ended it)."},
        "players": {"type": "array", "items": r("PositionPlayer"), "minItems": 1, "maxItems": 2},
        "bosses": r("Bosses"),
        "treasury": {**pile, "description": "The Mafia's coins as cards, top first."},
        "display": {**pile, "description": "The display's cards in arrival order."},
        "discard": {**pile, "description": "The discard pile, top first."},
        "deck": {**pile, "description": "The draw pile, top first."},
        "set_aside": {**pile, "description": "Coins paid for third fields, top first (R42)."},
        "exhaustions": {"type": "integer", "minimum": 0, "maximum": 3},
        "planted": {"type": "integer", "minimum": 0, "maximum": 2},
        "settled": {"type": "array", "items": {"type": "integer", "minimum": 0, "maximum": 2}},
        "last_turn": {"type": "boolean"},
        "seed": {"type": ["integer", "null"], "description": "The game's random seed (null: derived)."},
        "result": {**_null_or(r("Result")), "description": "Set only when the phase is over."},
    }, required=("mode", "phase"))
    kinds = {}
    for kind, spec in events.EVENTS.items():
        props = {"type": {"type": "string", "const": kind}}
        for name, f in spec.fields.items():
            schema = r(f.schema) if isinstance(f.schema, str) else dict(f.schema)
            if f.doc:
                schema["description"] = f.doc
            props[name] = schema
        required = ["type", *(name for name, f in spec.fields.items() if f.required)]
        out[event_name(kind)] = _obj(spec.description, props, required=required)
        kinds[kind] = event_name(kind)
    out["Event"] = _union("Something that happened (docs/protocol.md §8), as the receiving seat may see it. "
                          "Clients ignore event types they do not know.", kinds, ref)
    return out
