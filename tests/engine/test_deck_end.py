"""R90-R95 (A14, A15, A16, A25): exhaustions, reshuffles and the end of the game."""

import pytest
from helpers import card_count, duo, has_event, load, of_type, player, run, solo

import engine

END = {"type": "end_phase"}
BOSSES = {"al": ["RU", 1], "don": ["BR", 1]}


def test_r90_r91_last_card_drawn_in_phase_6_reshuffles_at_once():
    """R90/A15: the pile is used up when its last card is taken; R91/A14: the reshuffle is immediate and takes
    the discard and set-aside piles; the display, hands, fields, bosses and coins are untouched."""
    pos = duo(
        phase="use",
        p0=player(hand=["FI"], fields=(["KI", 2], None), coins=["PU"]),
        deck=["BL", "FR"],
        discard=["KI", "KI", "PU"],
        set_aside=["FI", "FI", "BL", "BL"],
        display=["FI"],
        **BOSSES,
    )
    _, events, after = run(pos, END)
    assert after["exhaustions"] == 1
    assert after["players"][0]["hand"] == ["FI", "BL", "FR"]
    assert sorted(after["deck"]) == sorted(["KI", "KI", "PU", "FI", "FI", "BL", "BL"])
    assert after["discard"] == [] and after["set_aside"] == []
    assert after["display"] == ["FI"]
    assert after["players"][0]["fields"] == [["KI", 2], None] and after["players"][0]["coins"] == ["PU"]
    assert after["bosses"] == {"al": ["RU", 1], "don": ["BR", 1]}
    assert of_type(events, "reshuffle") == [{"type": "reshuffle", "deck_size": 7, "pass": 2}]
    assert after["phase"] == "leftovers" and after["active"] == 1
    assert engine.view(load(after), None)["pass"] == 2


def test_r91_second_exhaustion_starts_the_third_pass():
    pos = duo(phase="use", deck=["BL"], discard=["KI", "FI"], exhaustions=1, **BOSSES)
    _, events, after = run(pos, END)
    assert after["exhaustions"] == 2
    assert len(after["deck"]) == 1 and after["players"][0]["hand"][0] == "BL"
    assert of_type(events, "reshuffle")[0]["pass"] == 3
    assert after["phase"] != "over"


def test_r91_reshuffle_order_comes_from_the_seed():
    """docs/protocol.md §4: the seed drives every later shuffle: same position, same deck; another
    seed may differ."""
    base = dict(
        phase="use", deck=["BL", "FR"], discard=["KI", "FI", "PU", "BR", "RU", "FR", "BL", "KI"], **BOSSES
    )
    decks = {tuple(run(duo(seed=s, **base), END)[2]["deck"]) for s in range(12)}
    assert len(decks) > 1
    assert run(duo(seed=5, **base), END)[2] == run(duo(seed=5, **base), END)[2]


def test_r92_a25_empty_reshuffles_count_as_exhaustions_up_to_the_end():
    """R92: drawing the last card with empty discard and set-aside piles: 1st exhaustion, empty reshuffle =
    2nd, empty again = 3rd, and R94 ends the game at once."""
    pos = duo(phase="use", deck=["BL", "FR"], **BOSSES)
    _, events, after = run(pos, END)
    assert after["exhaustions"] == 3
    assert after["phase"] == "over" and after["result"] is not None
    assert [e["exhaustions"] for e in of_type(events, "exhausted")] == [1, 2, 3]


def test_r92_r94_empty_reshuffle_on_the_first_draw_skips_the_second():
    pos = duo(phase="use", deck=["BL"], exhaustions=1, **BOSSES)
    _, events, after = run(pos, END)
    assert after["exhaustions"] == 3 and after["phase"] == "over"
    assert after["players"][0]["hand"] == ["BL"]
    assert len(of_type(events, "draw")) == 1


def test_r92_r93_empty_reshuffle_during_the_reveal():
    pos = duo(phase="plant", deck=["BL", "FI"], exhaustions=1, **BOSSES)
    _, _, after = run(pos, END)
    assert after["exhaustions"] == 3
    assert after["last_turn"] is True and after["phase"] == "use"
    assert after["display"] == ["BL", "FI"]


def test_r93_third_exhaustion_in_phase_4_stops_the_reveal_then_phase_5_then_the_end():
    """R93/A16: stop turning up, do R76, play phase 5, then the game ends without phase 6."""
    pos = duo(
        phase="plant", deck=["BL"], discard=["BL", "FI"], exhaustions=2, p1=player(hand=["KI"]), **BOSSES
    )
    state, _, after = run(pos, END)
    assert after["exhaustions"] == 3
    assert after["display"] == ["BL", "BL"]
    assert after["discard"] == ["FI"]
    assert (after["phase"], after["last_turn"]) == ("use", True)
    assert END in engine.legal_actions(state)
    _, events, final = run(state, {"type": "plant_display", "bean": "BL", "field": 0}, END)
    assert final["phase"] == "over" and final["result"] is not None
    assert of_type(events, "draw") == [] and of_type(events, "turn") == []
    assert final["active"] == 0
    assert final["players"][1]["hand"] == ["KI"]
    assert has_event(events, "game_over", result=final["result"])


def test_r93_last_card_as_the_third_display_card():
    pos = duo(phase="plant", deck=["BL", "FI", "KI"], discard=["KI"], exhaustions=2, **BOSSES)
    _, _, after = run(pos, END)
    assert (after["phase"], after["last_turn"], after["exhaustions"]) == ("use", True, 3)
    assert after["display"] == ["BL", "FI", "KI", "KI"]  # R76 still runs: no reshuffle after the 3rd


def test_r93_last_card_captured_by_a_boss():
    pos = duo(phase="plant", deck=["BL", "RU"], exhaustions=2, al=["RU", 1], don=["BR", 1])
    _, events, after = run(pos, END)
    assert (after["phase"], after["last_turn"]) == ("use", True)
    assert after["display"] == ["BL"]
    assert after["bosses"]["al"] == ["RU", 2]
    assert of_type(events, "capture") == [{"type": "capture", "boss": "al", "bean": "RU"}]


def test_r93_r84_solo_last_turn_must_still_empty_the_display():
    pos = solo(phase="plant", deck=["BL"], exhaustions=2, al=["RU", 1], don=["BR", 1], joe=["FR", 1])
    state, _, after = run(pos, END)
    assert after["last_turn"] is True
    assert END not in engine.legal_actions(state)
    _, _, final = run(state, {"type": "plant_display", "bean": "BL", "field": 0}, END)
    assert final["phase"] == "over"


def test_r94_third_exhaustion_in_phase_6_ends_at_once():
    pos = duo(phase="use", deck=["BL"], discard=["FI"], exhaustions=2, p0=player(hand=["KI"]), **BOSSES)
    _, events, after = run(pos, END)
    assert after["phase"] == "over"
    assert after["players"][0]["hand"] == ["KI", "BL"]
    assert len(of_type(events, "draw")) == 1
    assert of_type(events, "turn") == []
    assert after["active"] == 0
    assert events[-1]["type"] == "game_over"


def test_r95_nothing_happens_after_the_end():
    pos = duo(
        phase="use", deck=["BL"], exhaustions=2, p0=player(hand=["KI", "FI"], coins=["PU"] * 5), **BOSSES
    )
    state, _, after = run(pos, END)
    assert engine.legal_actions(state) == []
    for action in (
        {"type": "end_phase"},
        {"type": "buy_field"},
        {"type": "harvest", "field": 0},
        {"type": "give_hand", "index": 0, "boss": "al"},
        {"type": "plant_hand", "field": 0},
    ):
        with pytest.raises(engine.IllegalAction) as info:
            engine.apply(state, action)
        assert "R95" in str(info.value) or "over" in str(info.value)
    view = engine.view(state, 0)
    assert view["phase"] == "over" and view["result"] == after["result"] and view["legal_actions"] == []
    assert card_count(after) == card_count(pos)


def test_r4_coins_and_treasury_never_return_to_play():
    """R4: earned coins (and the Mafia's) stay face down through reshuffles; only set-aside coins return."""
    pos = duo(
        phase="use",
        p0=player(coins=["BL", "KI", "FI"]),
        p1=player(coins=["PU"]),
        treasury=["RU", "BR"],
        deck=["FR", "FR"],
        discard=["KI", "KI"],
        set_aside=["BL", "FI", "PU", "BR"],
        **BOSSES,
    )
    _, _, after = run(pos, END)
    assert after["exhaustions"] == 1
    assert [p["coins"] for p in after["players"]] == [["BL", "KI", "FI"], ["PU"]]
    assert after["treasury"] == ["RU", "BR"]
    assert sorted(after["deck"]) == sorted(["KI", "KI", "BL", "FI", "PU", "BR"])


def test_r91_r92_set_aside_alone_makes_a_non_empty_reshuffle():
    """R91/R92: with no discards the set-aside coins alone form the new pile (no extra exhaustion)."""
    pos = duo(phase="use", deck=["BL", "FR"], set_aside=["KI", "FI", "PU", "BR"], **BOSSES)
    _, events, after = run(pos, END)
    assert after["exhaustions"] == 1 and sorted(after["deck"]) == ["BR", "FI", "KI", "PU"]
    assert after["phase"] != "over"
    assert [e["exhaustions"] for e in of_type(events, "exhausted")] == [1]
