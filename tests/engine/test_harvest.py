"""R11, R12, R20-R24: harvesting your own fields."""

import pytest
from helpers import duo, load, of_type, player, run

import engine

HARVEST0 = {"type": "harvest", "field": 0}

PHASE_POSITIONS = {
    "leftovers": duo(p0=player(fields=(["BL", 3], None)), phase="leftovers", display=["KI"]),
    "protection": duo(p0=player(fields=(["BL", 3], ["FI", 2])), phase="protection", al=["FI", 1]),
    "plant": duo(p0=player(hand=["KI"], fields=(["BL", 3], None)), phase="plant"),
    "use": duo(p0=player(fields=(["BL", 3], None)), phase="use", al=["RU", 1], don=["FI", 1]),
}


@pytest.mark.parametrize("phase", sorted(PHASE_POSITIONS))
def test_r20_harvest_is_offered_in_every_decision_phase(phase):
    """R20/R61/A12: harvesting is allowed in phases 1, 2, 3 and 5 of one's own turn."""
    state = load(PHASE_POSITIONS[phase])
    assert HARVEST0 in engine.legal_actions(state)
    _, _, after = run(state, HARVEST0)
    assert after["players"][0]["fields"][0] is None


def test_r20_harvest_acts_on_the_active_players_fields_only():
    """R20: the action names no seat; it always harvests a field of the active player."""
    pos = duo(p0=player(fields=(["BL", 4], None)), p1=player(fields=(["FI", 3], None)), active=1)
    _, events, after = run(pos, HARVEST0)
    assert after["players"][0]["fields"][0] == ["BL", 4]
    assert after["players"][1]["fields"][0] is None
    assert after["players"][1]["coins"] == ["FI"]
    assert of_type(events, "harvest")[0]["seat"] == 1


def test_r20_r95_no_harvest_once_the_game_is_over():
    pos = duo(
        phase="over",
        p0=player(coins=["BL"]),
        exhaustions=3,
        result={"scores": [1, 0], "mafia": 0, "winners": [0]},
    )
    state = load(pos)
    assert engine.legal_actions(state) == []
    with pytest.raises(engine.IllegalAction):
        engine.apply(state, HARVEST0)


def test_r21_harvest_moves_coins_to_the_stack_and_the_rest_onto_the_discard_pile():
    """R21 (R11): c cards go on top of the coin stack, n-c on top of the discard pile, the field empties."""
    pos = duo(p0=player(fields=(["FI", 8], ["BL", 2]), coins=["KI"]), discard=["PU", "RU"])
    _, events, after = run(pos, HARVEST0)
    me = after["players"][0]
    assert me["fields"] == [None, ["BL", 2]]
    assert me["coins"] == ["FI", "FI", "FI", "KI"]  # 8 FI = 3 coins, on top of the old coin
    assert after["discard"] == ["FI"] * 5 + ["PU", "RU"]
    assert of_type(events, "harvest") == [
        {"type": "harvest", "seat": 0, "field": 0, "bean": "FI", "count": 8, "coins": 3}
    ]


def test_r11_discard_pile_keeps_its_order_under_new_cards():
    pos = duo(p0=player(fields=(["KI", 2], ["BR", 2])), discard=["FR", "RU", "BL"])
    _, _, after = run(pos, HARVEST0, {"type": "harvest", "field": 1})
    assert after["discard"] == ["BR", "BR", "KI", "KI", "FR", "RU", "BL"]


def test_r12_an_emptied_field_has_no_type():
    """R12: after a harvest the field takes any type (here the front card of another type)."""
    pos = duo(p0=player(hand=["RU"], fields=(["BL", 3], ["FI", 2])))
    state = load(pos)
    assert {"type": "plant_hand", "field": 0} not in engine.legal_actions(state)
    _, _, after = run(state, HARVEST0, {"type": "plant_hand", "field": 0})
    assert after["players"][0]["fields"] == [["RU", 1], ["FI", 2]]


# fields of the active player -> set of fields that may be harvested
R22_CASES = [
    ((["BL", 1], ["FI", 2]), {1}),
    ((["BL", 1], ["FI", 1]), {0, 1}),
    ((["BL", 1], None), {0}),
    ((None, ["BL", 1]), {1}),
    ((["BL", 1], None, ["FI", 3]), {2}),
    ((["BL", 1], ["KI", 1], ["FI", 1]), {0, 1, 2}),
    ((["BL", 1], ["KI", 1], ["FI", 2]), {2}),
    ((["BL", 2], ["KI", 5], None), {0, 1}),
]


@pytest.mark.parametrize(("fields", "allowed"), R22_CASES)
def test_r22_single_card_protection(fields, allowed):
    """R22: a 1-card field may not be harvested while another own field holds 2 or more cards."""
    state = load(duo(p0=player(fields=fields)))
    legal = {a["field"] for a in engine.legal_actions(state) if a["type"] == "harvest"}
    assert legal == allowed
    for f in range(len(fields)):
        action = {"type": "harvest", "field": f}
        if f in allowed:
            engine.apply(state, action)
        else:
            with pytest.raises(engine.IllegalAction) as info:
                engine.apply(state, action)
            assert "R22" in str(info.value) or "R23" in str(info.value)


def test_r23_zero_coin_harvest_is_legal():
    _, events, after = run(duo(p0=player(fields=(["BL", 3], None))), HARVEST0)
    assert after["players"][0]["coins"] == []
    assert after["discard"] == ["BL"] * 3
    assert of_type(events, "harvest")[0]["coins"] == 0


def test_r23_empty_field_cannot_be_harvested():
    state = load(duo(p0=player(fields=(None, ["BL", 3]))))
    with pytest.raises(engine.IllegalAction) as info:
        engine.apply(state, HARVEST0)
    assert "R23" in str(info.value) or "R12" in str(info.value)


def test_r24_field_cards_are_never_given_in_phase_5():
    """R24/R80: in phase 5 nothing moves field cards to a boss; `pay` is a phase-2 action only."""
    pos = duo(p0=player(hand=["KI"], fields=(["BL", 3], None)), phase="use", al=["BL", 1], don=["FI", 1])
    state = load(pos)
    for a in engine.legal_actions(state):
        assert a["type"] in {
            "harvest",
            "buy_field",
            "give_hand",
            "give_display",
            "plant_display",
            "end_phase",
        }
    with pytest.raises(engine.IllegalAction):
        engine.apply(state, {"type": "pay", "field": 0})
