"""R86, R87 (and R10, R60): phase 6, drawing two cards, and the change of turn."""

from helpers import duo, of_type, player, run, solo

END = {"type": "end_phase"}


def test_r86_r10_draw_two_cards_to_the_back_of_the_hand():
    pos = duo(phase="use", al=["RU", 1], don=["BR", 1], p0=player(hand=["BL", "FI"]), deck=["KI", "PU", "FR"])
    _, events, after = run(pos, END)
    assert after["players"][0]["hand"] == ["BL", "FI", "KI", "PU"]
    assert after["deck"] == ["FR"]
    assert of_type(events, "draw") == [
        {"type": "draw", "seat": 0, "bean": "KI"},
        {"type": "draw", "seat": 0, "bean": "PU"},
    ]


def test_r86_a18_solo_draws_two_as_well():
    pos = solo(
        phase="use",
        al=["RU", 1],
        don=["BR", 1],
        joe=["FR", 1],
        p0=player(hand=[], fields=(None,) * 3),
        deck=["KI", "PU", "BL"],
    )
    _, events, after = run(pos, END)
    assert after["players"][0]["hand"] == ["KI", "PU"]
    assert len(of_type(events, "draw")) == 2


def test_r87_duo_turn_passes_to_the_other_player():
    pos = duo(phase="use", active=1, al=["RU", 1], don=["BR", 1], deck=["KI", "PU", "FR"])
    _, events, after = run(pos, END)
    assert after["active"] == 0
    assert after["phase"] == "plant"
    assert after["players"][1]["hand"] == ["KI", "PU"]
    assert of_type(events, "turn") == [{"type": "turn", "seat": 0}]


def test_r87_r60_solo_next_turn_starts_without_phase_1():
    pos = solo(phase="use", al=["RU", 1], don=["BR", 1], joe=["FR", 1], deck=["KI", "PU", "BL"])
    _, events, after = run(pos, END)
    assert (after["active"], after["phase"]) == (0, "plant")
    assert of_type(events, "turn") == [{"type": "turn", "seat": 0}]
    assert "leftovers" not in [e.get("phase") for e in events]
