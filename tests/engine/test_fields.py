"""R6, R40-R43: buying the third bean field."""

import pytest
from helpers import duo, has_event, load, mixed, of_type, player, run, solo

import engine

BUY = {"type": "buy_field"}


def test_r40_r42_third_field_costs_four_coins_which_go_to_the_set_aside_pile():
    coins = ["BL", "KI", "FI", "PU", "BR"]
    _, events, after = run(duo(p0=player(coins=coins), set_aside=["RU"]), BUY)
    me = after["players"][0]
    assert me["third_field"] is True
    assert me["fields"] == [None, None, None]
    assert me["coins"] == ["BR"]  # the top four coins are spent
    assert sorted(after["set_aside"]) == sorted(["BL", "KI", "FI", "PU", "RU"])
    assert "BL" not in after["discard"]
    assert len(of_type(events, "buy_field")) == 1
    assert has_event(events, "buy_field", seat=0)


def test_r40_third_field_needs_four_coins():
    state = load(duo(p0=player(coins=mixed(3))))
    assert BUY not in engine.legal_actions(state)
    with pytest.raises(engine.IllegalAction) as info:
        engine.apply(state, BUY)
    assert "R4" in str(info.value)


def test_r40_only_once_and_at_most_three_fields():
    state, _, after = run(duo(p0=player(coins=mixed(9))), BUY)
    assert BUY not in engine.legal_actions(state)
    with pytest.raises(engine.IllegalAction):
        engine.apply(state, BUY)
    assert len(after["players"][0]["fields"]) == 3


def test_r40_third_field_can_be_used_at_once():
    pos = duo(p0=player(hand=["RU"], fields=(["BL", 2], ["FI", 2]), coins=mixed(4)))
    state = load(pos)
    assert {"type": "plant_hand", "field": 2} not in engine.legal_actions(state)
    _, _, after = run(state, BUY, {"type": "plant_hand", "field": 2})
    assert after["players"][0]["fields"] == [["BL", 2], ["FI", 2], ["RU", 1]]


POSITIONS = {
    "leftovers": duo(phase="leftovers", display=["KI"], p0=player(coins=mixed(4))),
    "protection": duo(phase="protection", al=["FI", 1], p0=player(fields=(["FI", 2], None), coins=mixed(4))),
    "plant": duo(phase="plant", p0=player(hand=["BL"], coins=mixed(4))),
    "use": duo(phase="use", al=["RU", 1], don=["BR", 1], p0=player(coins=mixed(4))),
}


@pytest.mark.parametrize("phase", sorted(POSITIONS))
def test_r41_buy_at_any_decision_point_of_ones_own_turn(phase):
    state = load(POSITIONS[phase])
    assert BUY in engine.legal_actions(state)
    _, _, after = run(state, BUY)
    assert after["players"][0]["third_field"] is True


def test_r6_a13_both_duo_players_may_buy_a_third_field():
    """R6: Joe's card serves as the second third-field card; one purchase does not block the other."""
    pos = duo(p0=player(coins=mixed(4)), p1=player(coins=mixed(4, 1), third_field=False), active=1)
    pos["players"][0] = player(fields=(None, None, None), coins=[])
    _, _, after = run(pos, BUY)
    assert [p["third_field"] for p in after["players"]] == [True, True]


def test_r43_solo_player_cannot_buy_another_field():
    state = load(solo(p0=player(fields=(None, None, None), coins=mixed(8))))
    assert BUY not in engine.legal_actions(state)
    with pytest.raises(engine.IllegalAction):
        engine.apply(state, BUY)


def test_r42_set_aside_coins_return_at_the_next_reshuffle():
    """R42/R91: the spent coins join the new draw pile at the reshuffle (here in phase 6)."""
    pos = duo(
        phase="use", al=["RU", 1], don=["BR", 1], p0=player(coins=mixed(4)), deck=["BL", "BL"], discard=["FR"]
    )
    _, _, after = run(pos, BUY, {"type": "end_phase"})
    assert after["set_aside"] == []
    assert sorted(after["deck"]) == sorted(mixed(4) + ["FR"])
    assert after["exhaustions"] == 1
