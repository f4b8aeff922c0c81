"""R69-R72 (and R10, R13): phase 3, planting from the hand."""

import pytest
from helpers import duo, load, of_type, player, run

import engine

END = {"type": "end_phase"}


def plant(f):
    return {"type": "plant_hand", "field": f}


# fields, front card -> fields the front card may be planted on
R13_CASES = [
    ((["BL", 2], None), "BL", {0}),
    ((["BL", 2], None), "FI", {1}),
    ((None, None), "FI", {0, 1}),
    ((["BL", 2], ["FI", 1]), "KI", set()),
    ((None, ["KI", 1], None), "KI", {1}),
    ((None, ["KI", 1], None), "RU", {0, 2}),
]


@pytest.mark.parametrize(("fields", "front", "allowed"), R13_CASES)
def test_r13_r69_front_card_goes_to_a_field_of_its_type_or_an_empty_one(fields, front, allowed):
    """R13: never the same type on two own fields; R69: only the front card is planted."""
    state = load(duo(p0=player(hand=[front, "PU"], fields=fields)))
    legal = {a["field"] for a in engine.legal_actions(state) if a["type"] == "plant_hand"}
    assert legal == allowed
    for f in range(len(fields)):
        if f not in allowed:
            with pytest.raises(engine.IllegalAction) as info:
                engine.apply(state, plant(f))
            assert "R13" in str(info.value)


def test_r69_must_make_room_when_no_field_fits():
    """R69: with all fields occupied by other types, harvesting is required before planting; no end yet."""
    state = load(duo(p0=player(hand=["RU"], fields=(["BL", 3], ["FI", 2]))))
    legal = engine.legal_actions(state)
    assert END not in legal
    assert {a["type"] for a in legal} == {"harvest"}
    with pytest.raises(engine.IllegalAction) as info:
        engine.apply(state, END)
    assert "R69" in str(info.value)


def test_r69_r70_plant_one_then_optionally_a_second():
    state = load(duo(p0=player(hand=["BL", "BL", "FI", "KI"]), al=["RU", 1], don=["BR", 1]))
    assert END not in engine.legal_actions(state)
    state, events, after = run(state, plant(0))
    assert after["players"][0]["hand"] == ["BL", "FI", "KI"]
    assert after["planted"] == 1
    assert END in engine.legal_actions(state)
    state, _, after = run(state, plant(0))
    assert after["players"][0]["fields"][0] == ["BL", 2]
    assert after["planted"] == 2
    assert not any(a["type"] == "plant_hand" for a in engine.legal_actions(state))
    with pytest.raises(engine.IllegalAction) as info:
        engine.apply(state, plant(1))
    assert "R70" in str(info.value)
    assert of_type(events, "plant") == [
        {"type": "plant", "seat": 0, "source": "hand", "bean": "BL", "count": 1, "field": 0}
    ]


def test_r70_planting_stops_after_one_if_the_player_ends():
    _, _, after = run(duo(p0=player(hand=["BL", "FI"]), al=["RU", 1], don=["BR", 1]), plant(0), END)
    assert after["phase"] == "use"
    assert after["players"][0]["hand"] == ["FI"]
    assert after["planted"] == 0


def test_r71_nothing_goes_to_the_mafia_in_phase_3():
    state = load(duo(p0=player(hand=["BL", "FI"]), al=None, don=None))
    assert not any(a["type"].startswith("give") for a in engine.legal_actions(state))
    with pytest.raises(engine.IllegalAction):
        engine.apply(state, {"type": "give_hand", "index": 0, "boss": "al"})


def test_r72_empty_hand_still_waits_and_a_harvest_feeds_r76():
    """R72: phase 3 rests with an empty hand; harvesting before the reveal sets the discard top for R76."""
    pos = duo(
        p0=player(hand=[], fields=(["BL", 2], None)),
        al=["RU", 1],
        don=["BR", 1],
        deck=["BL", "FI", "KI", "PU"],
    )
    state = load(pos)
    assert set(map(lambda a: a["type"], engine.legal_actions(state))) == {"harvest", "end_phase"}
    _, _, after = run(state, {"type": "harvest", "field": 0}, END)
    assert after["display"] == ["BL", "FI", "KI", "BL", "BL"]
    assert after["discard"] == []


def test_r10_hand_order_is_kept_when_planting():
    _, _, after = run(duo(p0=player(hand=["KI", "BL", "KI", "FI"])), plant(0), plant(1))
    assert after["players"][0]["hand"] == ["KI", "FI"]
    assert after["players"][0]["fields"] == [["KI", 1], ["BL", 1]]
