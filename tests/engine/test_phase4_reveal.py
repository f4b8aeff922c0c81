"""R73-R78: phase 4, the automatic reveal (entered by ending phase 3)."""

import pytest
from helpers import duo, load, of_type, player, run, solo

import engine

END = {"type": "end_phase"}


def reveal(**kw):
    """Run phase 4 from a phase-3 position with an empty hand; return (events, position after)."""
    kw.setdefault("p0", player(hand=[]))
    _, events, after = run(duo(phase="plant", **kw), END)
    return events, after


def test_r73_turn_up_until_three_cards_stay():
    events, after = reveal(al=["RU", 1], don=["BR", 1], deck=["BL", "FI", "KI", "PU", "FR"])
    assert after["display"] == ["BL", "FI", "KI"]
    assert after["deck"] == ["PU", "FR"]
    assert after["phase"] == "use"
    assert [e["bean"] for e in of_type(events, "reveal")] == ["BL", "FI", "KI"]


def test_r74_captured_cards_go_to_the_boss_and_do_not_count():
    events, after = reveal(al=["PU", 1], don=["BR", 1], deck=["PU", "BL", "BR", "FI", "PU", "KI", "FR"])
    assert after["bosses"] == {"al": ["PU", 3], "don": ["BR", 2]}
    assert after["display"] == ["BL", "FI", "KI"]
    assert after["deck"] == ["FR"]
    assert of_type(events, "capture") == [
        {"type": "capture", "boss": "al", "bean": "PU"},
        {"type": "capture", "boss": "don", "bean": "BR"},
        {"type": "capture", "boss": "al", "bean": "PU"},
    ]


def test_r74_r32_boss_emptied_by_its_harvest_captures_nothing_more():
    """R74/R32: Al (4 RU) captures a RU, reaches 3 coins and harvests; the next RU stays in the display.
    R76 then pulls the two harvested RU from the discard pile onto the RU bundle."""
    events, after = reveal(al=["RU", 4], don=["BR", 1], deck=["RU", "RU", "BL", "FI", "KI"])
    assert after["bosses"]["al"] is None
    assert after["treasury"] == ["RU"] * 3
    assert after["display"] == ["RU", "BL", "FI", "RU", "RU"]
    assert after["discard"] == []
    assert after["deck"] == ["KI"]
    kinds = [e["type"] for e in events if e["type"] in {"reveal", "capture", "boss_harvest", "from_discard"}]
    assert kinds == ["capture", "boss_harvest", "reveal", "reveal", "reveal", "from_discard", "from_discard"]
    assert of_type(events, "boss_harvest") == [
        {"type": "boss_harvest", "boss": "al", "bean": "RU", "count": 5, "coins": 3}
    ]


def test_r75_same_types_form_one_bundle():
    events, after = reveal(al=["RU", 1], don=["BR", 1], deck=["BL", "FI", "BL", "PU"])
    assert after["display"] == ["BL", "FI", "BL"]
    state = load(after)
    plants = [a for a in engine.legal_actions(state) if a["type"] == "plant_display" and a["field"] == 0]
    assert sorted(a["bean"] for a in plants) == ["BL", "FI"]
    _, _, after2 = run(state, {"type": "plant_display", "bean": "BL", "field": 0})
    assert after2["players"][0]["fields"][0] == ["BL", 2]
    assert after2["display"] == ["FI"]


@pytest.mark.parametrize(
    ("discard", "display", "rest"),
    [
        (["FI", "FI", "BL", "FI"], ["FI", "KI", "PU", "FI", "FI"], ["BL", "FI"]),
        (["KI", "FI", "PU"], ["FI", "KI", "PU", "KI", "FI", "PU"], []),
        (["BL", "FI"], ["FI", "KI", "PU"], ["BL", "FI"]),
        ([], ["FI", "KI", "PU"], []),
    ],
)
def test_r76_discard_top_joins_matching_bundles_while_it_matches(discard, display, rest):
    """R76/A7: after the reveal, the discard top moves onto a matching bundle, repeatedly."""
    events, after = reveal(al=["RU", 1], don=["BR", 1], deck=["FI", "KI", "PU", "FR"], discard=discard)
    assert after["display"] == display
    assert after["discard"] == rest
    moved = len(display) - 3
    assert [e["bean"] for e in of_type(events, "from_discard")] == display[3:]
    assert len(of_type(events, "from_discard")) == moved


def test_r76_a8_discard_cards_never_go_to_a_boss():
    events, after = reveal(al=["BR", 1], don=["RU", 1], deck=["FI", "KI", "PU", "FR"], discard=["BR", "RU"])
    assert after["bosses"] == {"al": ["BR", 1], "don": ["RU", 1]}
    assert after["discard"] == ["BR", "RU"]
    assert of_type(events, "from_discard") == []


def test_r77_r91_draw_pile_runs_out_during_the_reveal():
    """R77/R90/R91: the pile runs out on the 2nd card; discard is reshuffled, the reveal goes on."""
    events, after = reveal(
        al=["RU", 1],
        don=["BR", 1],
        deck=["BL", "FI"],
        discard=["KI", "PU", "FR"],
        set_aside=["BL", "BL", "BL", "BL"],
    )
    assert after["exhaustions"] == 1
    assert after["display"][:2] == ["BL", "FI"]
    assert len(after["display"]) == 3
    assert after["set_aside"] == []
    # 7 reshuffled cards, one of them turned up as the 3rd display card (no R76: the discard pile is empty)
    assert len(after["deck"]) == 6 and after["discard"] == []
    assert sorted(after["deck"] + after["display"][2:]) == sorted(["KI", "PU", "FR"] + ["BL"] * 4)
    assert of_type(events, "exhausted") == [{"type": "exhausted", "exhaustions": 1}]
    assert of_type(events, "reshuffle") == [{"type": "reshuffle", "deck_size": 7, "pass": 2}]
    assert engine.view(load(after), 0)["pass"] == 2


def test_r78_phase_4_is_never_a_resting_point():
    """R78/docs/protocol.md §2: ending phase 3 runs the reveal and rests in phase 5; "reveal" is no phase."""
    _, after = reveal(al=["RU", 1], don=["BR", 1])
    assert after["phase"] == "use"
    with pytest.raises(engine.InvalidPosition):
        engine.from_position({**duo(), "phase": "reveal"})
    with pytest.raises(engine.InvalidPosition):
        engine.from_position({**duo(), "phase": "draw"})


def test_r90_a14_last_card_as_third_display_card_reshuffles_before_r76():
    """R90/R91/A14: the pile is used up by the 3rd revealed card; the reshuffle happens at once, so the
    discard pile is already in the new draw pile when R76 looks at it."""
    events, after = reveal(al=["RU", 1], don=["BR", 1], deck=["BL", "FI", "KI"], discard=["KI", "PU"])
    assert after["exhaustions"] == 1
    assert after["display"] == ["BL", "FI", "KI"]
    assert after["discard"] == []
    assert sorted(after["deck"]) == ["KI", "PU"]
    assert of_type(events, "from_discard") == []


def test_r90a_capture_and_boss_harvest_resolve_before_the_reshuffle():
    """R90a: the last card is captured, Al harvests, then the exhaustion counts and the reshuffle takes the
    harvested cards; the reveal continues from the new pile."""
    events, after = reveal(al=["RU", 4], don=["BR", 1], deck=["BL", "FI", "RU"])
    assert after["treasury"] == ["RU"] * 3
    assert after["bosses"]["al"] is None
    assert after["exhaustions"] == 1
    assert after["display"] == ["BL", "FI", "RU"]
    assert after["deck"] == ["RU"]
    order = [e["type"] for e in events if e["type"] in {"capture", "boss_harvest", "exhausted", "reshuffle"}]
    assert order == ["capture", "boss_harvest", "exhausted", "reshuffle"]
    assert of_type(events, "reshuffle")[0]["deck_size"] == 2


def test_r74_solo_captures_with_three_bosses():
    pos = solo(
        phase="plant", al=["RU", 1], don=["BR", 1], joe=["FR", 1], deck=["FR", "BL", "RU", "FI", "KI", "PU"]
    )
    _, events, after = run(pos, END)
    assert after["bosses"]["al"] == ["RU", 2]
    # joe: 2 FR = 0 coins, no harvest
    assert after["bosses"]["joe"] == ["FR", 2]
    assert after["display"] == ["BL", "FI", "KI"]
    assert after["deck"] == ["PU"]
    assert len(of_type(events, "capture")) == 2
