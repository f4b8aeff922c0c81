"""docs/protocol.md §3: malformed actions raise InvalidAction, forbidden ones IllegalAction;
neither changes the state."""

import copy
import re

import pytest
from helpers import RULE_RE, assert_unchanged, duo, load, player

import engine

# A phase-5 position where most action types are otherwise possible.
USE = duo(
    phase="use",
    display=["BL", "FI"],
    al=["RU", 1],
    don=None,
    p0=player(hand=["KI", "RU"], fields=(["PU", 2], None), coins=["BR"] * 5),
)

MALFORMED = [
    None,
    "harvest",
    ["harvest", 0],
    5,
    True,
    ("type", "end_phase"),
    {},
    {"type": "fly"},
    {"type": 3},
    {"type": None},
    {"type": "HARVEST", "field": 0},
    {"field": 0},
    {"type": "harvest"},
    {"type": "plant_display", "bean": "BL"},
    {"type": "give_hand", "boss": "al"},
    {"type": "give_display", "boss": "al"},
    {"type": "pay"},
    {"type": "give_hand", "index": 0},
    {"type": "end_phase", "field": 0},
    {"type": "harvest", "field": 0, "x": 1},
    {"type": "buy_field", "seat": 0},
    {"type": "discard_display", "bean": "BL", "field": 0},
    {"type": "harvest", "field": "0"},
    {"type": "harvest", "field": True},
    {"type": "harvest", "field": False},
    {"type": "harvest", "field": 0.5},
    {"type": "harvest", "field": 1.0},
    {"type": "harvest", "field": None},
    {"type": "harvest", "field": [0]},
    {"type": "give_hand", "index": True, "boss": "al"},
    {"type": "give_hand", "index": "0", "boss": "al"},
    {"type": "discard_display", "bean": 1},
    {"type": "give_display", "bean": "BL", "boss": ["al"]},
    {"type": "harvest", "field": 3},
    {"type": "harvest", "field": -1},
    {"type": "plant_hand", "field": 7},
    {"type": "plant_display", "bean": "XX", "field": 0},
    {"type": "plant_display", "bean": "bl", "field": 0},
    {"type": "give_display", "bean": "BL", "boss": "mafia"},
    {"type": "give_display", "bean": "BL", "boss": "Al"},
    {"type": "give_hand", "index": -1, "boss": "al"},
    {"type": []},
    {"type": {}},
    {1: "harvest"},
    {"type": "give_hand", "index": 0, "boss": None},
    {"type": "plant_display", "bean": ["BL"], "field": 0},
    {"type": "pay", "field": -2},
]


@pytest.mark.parametrize("action", MALFORMED, ids=repr)
def test_malformed_action_raises_invalid_action_and_changes_nothing(action):
    state = load(USE)
    before, twin = engine.to_position(state), copy.deepcopy(state)
    with pytest.raises(engine.InvalidAction) as info:
        engine.apply(state, action)
    err = info.value
    assert err.code == "invalid_action"
    assert isinstance(err, engine.EngineError) and isinstance(err, ValueError)
    assert not isinstance(err, engine.IllegalAction)
    assert_unchanged(state, before, twin)


# (position, action, rule ids the message may name)
ILLEGAL = [
    (USE, {"type": "harvest", "field": 2}, "R40|R43|R12"),  # field 2 not owned
    (USE, {"type": "give_hand", "index": 0, "boss": "joe"}, "R6|R5|R14"),  # joe in duo
    (USE, {"type": "give_hand", "index": 2, "boss": "don"}, "R80|R10"),  # index past the hand
    (USE, {"type": "give_hand", "index": 99, "boss": "don"}, "R80|R10"),
    (USE, {"type": "give_hand", "index": 10**30, "boss": "don"}, "R80|R10"),
    (USE, {"type": "plant_hand", "field": 1}, "R80|R69"),  # wrong phase
    (USE, {"type": "pay", "field": 0}, "R24|R65|R66|R67"),
    (USE, {"type": "discard_display", "bean": "BL"}, "R63|R79|R85"),
    (USE, {"type": "plant_display", "bean": "KI", "field": 1}, "R79|R16"),  # no such bundle
    (USE, {"type": "give_display", "bean": "KI", "boss": "don"}, "R79|R16"),
    (USE, {"type": "harvest", "field": 1}, "R23|R12"),  # empty field
    (duo(p0=player(hand=["KI"])), {"type": "plant_display", "bean": "KI", "field": 0}, "R69|R79|R63"),
    (duo(p0=player(hand=["KI"])), {"type": "end_phase"}, "R69"),
    (duo(p0=player(hand=[])), {"type": "discard_display", "bean": "KI"}, "R63|R64"),
    (duo(phase="leftovers", display=["KI"]), {"type": "end_phase"}, "R61|R63|R64"),
    (duo(phase="leftovers", display=["KI"]), {"type": "plant_hand", "field": 0}, "R63|R69"),
]


@pytest.mark.parametrize(
    ("pos", "action", "rules"), ILLEGAL, ids=lambda x: repr(x) if len(repr(x)) < 60 else ""
)
def test_forbidden_action_raises_illegal_action_naming_a_rule(pos, action, rules):
    state = load(pos)
    assert action not in engine.legal_actions(state)
    before, twin = engine.to_position(state), copy.deepcopy(state)
    with pytest.raises(engine.IllegalAction) as info:
        engine.apply(state, action)
    err = info.value
    assert err.code == "illegal_action"
    assert isinstance(err, engine.EngineError) and isinstance(err, ValueError)
    assert RULE_RE.search(str(err)), str(err)
    assert re.search(rf"\b(?:{rules})\b", str(err)), str(err)
    assert_unchanged(state, before, twin)


def test_every_legal_action_is_well_formed_json():
    state = load(USE)
    for action in engine.legal_actions(state):
        assert set(action) >= {"type"}
        assert all(type(v) in (str, int) for v in action.values())


def test_r1_position_with_more_cards_of_a_type_than_the_deck_is_refused():
    """R1: 20 BL exist; a position holding 21 cannot describe a game."""
    pos = engine.to_position(engine.new_game("duo", 3))
    pos["discard"] = pos["discard"] + ["BL"]
    with pytest.raises(engine.InvalidPosition, match="R1"):
        engine.from_position(pos)


def test_r64_giving_a_leftover_to_a_boss_names_r64():
    """R64: leftovers never go to a boss in phase 1."""
    pos = duo(phase="leftovers", display=["KI"], al=["BL", 1], don=None)
    with pytest.raises(engine.IllegalAction, match="R64"):
        engine.apply(load(pos), {"type": "give_display", "bean": "KI", "boss": "don"})


def test_r101_an_over_position_without_result_is_refused():
    pos = duo(phase="over")
    with pytest.raises(engine.InvalidPosition, match="result"):
        engine.from_position(pos)
