"""R79-R85: phase 5, using the revealed cards and giving to the Mafia."""

import pytest
from helpers import duo, load, of_type, player, run, solo

import engine

END = {"type": "end_phase"}


def give(index, boss):
    return {"type": "give_hand", "index": index, "boss": boss}


@pytest.mark.parametrize(
    ("phase", "action", "where"),
    [
        ("use", {"type": "plant_display", "bean": "BL", "field": 0}, "field"),
        ("use", {"type": "give_display", "bean": "BL", "boss": "don"}, "boss"),
        ("leftovers", {"type": "plant_display", "bean": "BL", "field": 1}, "field"),
        ("leftovers", {"type": "discard_display", "bean": "BL"}, "discard"),
    ],
)
def test_r16_a6_a_display_bundle_always_moves_whole(phase, action, where):
    pos = duo(phase=phase, display=["BL", "FI", "BL", "BL"], al=["RU", 1], don=None, discard=["KI"])
    state = load(pos)
    assert action in engine.legal_actions(state)
    _, _, after = run(state, action)
    assert after["display"] == ["FI"]
    if where == "field":
        assert after["players"][0]["fields"][action["field"]] == ["BL", 3]
    elif where == "boss":
        assert after["bosses"]["don"] == ["BL", 3]
    else:
        assert after["discard"] == ["BL", "BL", "BL", "KI"]


def test_r79_plant_give_or_leave_each_bundle():
    pos = duo(
        phase="use",
        display=["BL", "FI", "BL", "KI"],
        al=None,
        don=["RU", 1],
        p0=player(fields=(["BL", 1], None)),
    )
    state, events, after = run(
        pos,
        {"type": "plant_display", "bean": "BL", "field": 0},
        {"type": "give_display", "bean": "FI", "boss": "al"},
        END,
    )
    assert after["players"][0]["fields"][0] == ["BL", 3]
    assert after["bosses"]["al"] == ["FI", 1]
    assert after["display"] == ["KI"]  # left for the opponent (R85)
    assert of_type(events, "plant") == [
        {"type": "plant", "seat": 0, "source": "display", "bean": "BL", "count": 2, "field": 0}
    ]


def test_r79_r13_r14_bundles_follow_the_placement_rules():
    pos = duo(
        phase="use", display=["BL", "FI"], al=["KI", 1], don=None, p0=player(fields=(["FI", 2], ["KI", 1]))
    )
    state = load(pos)
    legal = engine.legal_actions(state)
    assert {"type": "plant_display", "bean": "FI", "field": 0} in legal
    assert {"type": "plant_display", "bean": "BL", "field": 0} not in legal
    assert {"type": "plant_display", "bean": "BL", "field": 1} not in legal
    assert {"type": "give_display", "bean": "BL", "boss": "al"} not in legal
    assert {"type": "give_display", "bean": "BL", "boss": "don"} in legal
    for action in (
        {"type": "plant_display", "bean": "BL", "field": 0},
        {"type": "give_display", "bean": "BL", "boss": "al"},
        {"type": "plant_display", "bean": "PU", "field": 0},
    ):
        with pytest.raises(engine.IllegalAction):
            engine.apply(state, action)


def test_r80_r81_gift_from_any_hand_position_keeps_the_order():
    pos = duo(phase="use", al=["KI", 1], don=["RU", 1], p0=player(hand=["BL", "KI", "FI", "KI"]))
    _, events, after = run(pos, give(3, "al"), give(1, "al"))
    assert after["players"][0]["hand"] == ["BL", "FI"]
    assert after["bosses"]["al"] == ["KI", 3]
    assert of_type(events, "give")[0] == {
        "type": "give",
        "seat": 0,
        "source": "hand",
        "bean": "KI",
        "count": 1,
        "boss": "al",
        "index": 3,
    }


def test_r80_hand_cards_are_not_planted_in_phase_5():
    state = load(duo(phase="use", al=["KI", 1], don=["RU", 1], p0=player(hand=["BL"])))
    assert not any(a["type"] == "plant_hand" for a in engine.legal_actions(state))
    with pytest.raises(engine.IllegalAction):
        engine.apply(state, {"type": "plant_hand", "field": 0})


def test_r82_r83_boss_emptied_by_a_gift_must_be_filled_again():
    pos = duo(phase="use", al=["RU", 4], don=["BR", 1], p0=player(hand=["RU", "KI", "BR"]))
    state, events, after = run(pos, give(0, "al"))
    assert after["bosses"]["al"] is None and after["treasury"] == ["RU"] * 3
    assert END not in engine.legal_actions(state)
    with pytest.raises(engine.IllegalAction) as info:
        engine.apply(state, END)
    assert "R83" in str(info.value)
    # BR is Don's type, so only KI may fill Al
    gifts = [a for a in engine.legal_actions(state) if a["type"] == "give_hand" and a["boss"] == "al"]
    assert gifts == [give(0, "al")]
    state, _, after = run(state, give(0, "al"))
    assert after["bosses"]["al"] == ["KI", 1]
    assert END in engine.legal_actions(state)


# bosses, hand, display -> may phase 5 end right away?
R83_CASES = [
    ({"al": None, "don": ["BL", 1]}, ["BL"], [], True),  # the only card is Don's type
    ({"al": None, "don": ["BL", 1]}, ["KI"], [], False),
    ({"al": None, "don": ["BL", 1]}, [], ["FI"], False),  # a display bundle can fill Al
    ({"al": None, "don": None}, [], [], True),  # nothing to give: the bosses stay empty (A24)
    ({"al": None, "don": ["BL", 1]}, ["BL"], ["BL"], True),  # the bundle is Don's type too
    ({"al": None, "don": None}, ["KI"], [], False),
    ({"al": ["KI", 1], "don": ["BL", 1]}, ["FI"], ["PU"], True),
]


@pytest.mark.parametrize(("bosses", "hand", "display", "may_end"), R83_CASES)
def test_r83_every_boss_must_hold_a_card_if_possible(bosses, hand, display, may_end):
    state = load(duo(phase="use", display=display, p0=player(hand=hand), **bosses))
    assert (END in engine.legal_actions(state)) == may_end
    if not may_end:
        with pytest.raises(engine.IllegalAction) as info:
            engine.apply(state, END)
        assert "R83" in str(info.value)


def test_r83_a10_player_picks_the_source():
    """A10: Al may be filled from the display or from the hand; planting the bundle also frees the player."""
    pos = duo(phase="use", al=None, don=["BL", 1], display=["FI"], p0=player(hand=["KI"]))
    for first in ({"type": "give_display", "bean": "FI", "boss": "al"}, give(0, "al")):
        state, _, _ = run(pos, first)
        assert END in engine.legal_actions(state)
    # after planting the FI bundle the KI hand card still can (and so must) fill Al
    state, _, _ = run(pos, {"type": "plant_display", "bean": "FI", "field": 0})
    assert END not in engine.legal_actions(state)


def test_r84_solo_display_must_be_emptied():
    pos = solo(
        phase="use",
        al=["RU", 1],
        don=["BR", 1],
        joe=["FR", 1],
        display=["BL", "BL"],
        p0=player(fields=(["KI", 2], ["FI", 2], ["PU", 2])),
    )
    state = load(pos)
    assert END not in engine.legal_actions(state)
    with pytest.raises(engine.IllegalAction) as info:
        engine.apply(state, END)
    assert "R84" in str(info.value)
    state, _, after = run(
        state, {"type": "harvest", "field": 1}, {"type": "plant_display", "bean": "BL", "field": 1}
    )
    assert after["display"] == []
    assert END in engine.legal_actions(state)


def test_r84_does_not_apply_in_duo():
    state = load(duo(phase="use", al=["RU", 1], don=["BR", 1], display=["BL"]))
    assert END in engine.legal_actions(state)
