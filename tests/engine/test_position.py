"""docs/protocol.md §4: the position format, taken literally and round-tripped."""

import copy
import json

import pytest
from helpers import card_count, duo, player, solo

import engine

EXAMPLE = {  # the example of docs/protocol.md §4
    "format": 1,
    "mode": "duo",
    "phase": "use",
    "active": 0,
    "players": [
        {"hand": ["BL", "FI"], "fields": [["BL", 4], None], "coins": ["BR", "BR"], "third_field": False},
        {"hand": ["RU"], "fields": [None, ["PU", 1]], "coins": [], "third_field": False},
    ],
    "bosses": {"al": ["FR", 2], "don": None},
    "treasury": ["RU", "RU"],
    "display": ["PU", "PU", "RU"],
    "discard": ["BR", "KI"],
    "deck": ["FR", "BL", "FI"],
    "set_aside": [],
    "exhaustions": 0,
    "planted": 0,
    "settled": [],
    "last_turn": False,
    "seed": 12345,
    "result": None,
}


@pytest.mark.parametrize(
    "pos",
    [
        EXAMPLE,
        duo(
            phase="protection",
            p0=player(fields=(["BL", 3], ["FI", 3])),
            al=["BL", 1],
            don=["FI", 1],
            settled=[0],
        ),
        duo(phase="plant", p0=player(hand=["BL", "KI"], fields=(["BL", 1], None)), planted=1, exhaustions=2),
        duo(
            phase="use",
            last_turn=True,
            exhaustions=3,
            deck=[],
            p1=player(coins=["BL"] * 4, fields=(None,) * 3),
        ),
        duo(
            phase="over",
            exhaustions=3,
            deck=[],
            result={"scores": [1, 0], "mafia": 0, "winners": [0]},
            p0=player(coins=["KI"]),
        ),
        solo(phase="use", al=["RU", 2], don=None, joe=["BR", 1], display=["FI"]),
    ],
    ids=["protocol-example", "protection", "plant", "last-turn", "over", "solo"],
)
def test_position_is_taken_literally_and_round_trips(pos):
    state = engine.from_position(copy.deepcopy(pos))
    out = engine.to_position(state)
    assert out == pos
    assert json.loads(json.dumps(out)) == out
    assert engine.from_position(out) == state
    assert engine.to_position(engine.from_position(json.loads(json.dumps(out)))) == pos


def test_new_game_positions_round_trip_through_json():
    for mode in ("duo", "solo"):
        state = engine.new_game(mode, 99)
        pos = engine.to_position(state)
        assert engine.from_position(json.loads(json.dumps(pos))) == state
        assert card_count(pos) == 116


def test_from_position_does_not_keep_a_reference_to_its_input():
    pos = copy.deepcopy(EXAMPLE)
    state = engine.from_position(pos)
    pos["players"][0]["hand"].append("KI")
    pos["deck"].clear()
    assert engine.to_position(state) == EXAMPLE


def test_missing_keys_take_their_defaults():
    """docs/protocol.md §4: missing keys default to empty lists, null fields, 0, false and a derived seed."""
    small = {
        "mode": "duo",
        "phase": "plant",
        "active": 0,
        "players": [{"hand": ["BL"]}, {}],
        "bosses": {"al": ["RU", 1]},
        "deck": ["KI", "FI", "PU"],
    }
    pos = engine.to_position(engine.from_position(copy.deepcopy(small)))
    assert pos["players"][0]["hand"] == ["BL"]
    assert pos["players"][1]["fields"] == [None, None] and pos["players"][1]["coins"] == []
    assert pos["bosses"]["al"] == ["RU", 1] and pos["bosses"]["don"] is None
    assert (pos["exhaustions"], pos["planted"], pos["settled"], pos["last_turn"]) == (0, 0, [], False)
    assert pos["discard"] == [] and pos["result"] is None
    assert isinstance(pos["seed"], int)
    # the derived seed depends on the position only (no global random source)
    assert engine.to_position(engine.from_position(copy.deepcopy(small)))["seed"] == pos["seed"]


def _bad(**changes):
    pos = copy.deepcopy(EXAMPLE)
    for key, value in changes.items():
        pos[key] = value
    return pos


BAD = [
    "not a dict",
    _bad(mode="trio"),
    _bad(phase="reveal"),
    _bad(active=2),
    _bad(active=True),
    _bad(deck=["XX"]),
    _bad(format=2),
    _bad(exhaustions=4),
    _bad(exhaustions=-1),
    _bad(bosses={"al": ["FR", 2], "don": None, "joe": ["BL", 1]}),  # joe in duo
    _bad(bosses={"al": ["FR", 2], "don": ["FR", 1]}),  # R14
    _bad(bosses={"al": ["FR", 0], "don": None}),
    _bad(players=[EXAMPLE["players"][0]]),
    _bad(players=[{**EXAMPLE["players"][0], "fields": [["BL", 1], ["BL", 2]]}, EXAMPLE["players"][1]]),  # R13
    _bad(players=[{**EXAMPLE["players"][0], "fields": [None, None, None, None]}, EXAMPLE["players"][1]]),
    _bad(players=[{**EXAMPLE["players"][0], "fields": [["BL", -1], None]}, EXAMPLE["players"][1]]),
]


@pytest.mark.parametrize("pos", BAD, ids=range(len(BAD)))
def test_bad_positions_raise_invalid_position(pos):
    with pytest.raises(engine.InvalidPosition) as info:
        engine.from_position(pos)
    assert info.value.code == "invalid_position"
