"""R14, R15, R30-R35: the bosses as fields and their automatic harvest."""

import pytest
from helpers import duo, load, of_type, player, run, solo

import engine


def give(index, boss):
    return {"type": "give_hand", "index": index, "boss": boss}


# bosses, hand -> the legal (index, boss) gifts
R14_CASES = [
    ({"al": ["BL", 1], "don": None}, ["BL", "FI"], {(0, "al"), (1, "don")}),
    ({"al": None, "don": ["BL", 2]}, ["BL", "FI"], {(0, "don"), (1, "al")}),
    ({"al": ["BL", 1], "don": ["FI", 1]}, ["BL", "FI", "KI"], {(0, "al"), (1, "don")}),
    ({"al": None, "don": None}, ["BL"], {(0, "al"), (0, "don")}),
]


@pytest.mark.parametrize(("bosses", "hand", "allowed"), R14_CASES)
def test_r14_no_two_bosses_grow_the_same_type(bosses, hand, allowed):
    """R14 (R30): a card may go to a boss holding its type, or to an empty boss if no other boss holds it."""
    state = load(duo(p0=player(hand=hand), phase="use", **bosses))
    legal = {(a["index"], a["boss"]) for a in engine.legal_actions(state) if a["type"] == "give_hand"}
    assert legal == allowed
    for i in range(len(hand)):
        for boss in ("al", "don"):
            if (i, boss) not in allowed:
                with pytest.raises(engine.IllegalAction) as info:
                    engine.apply(state, give(i, boss))
                assert "R14" in str(info.value)


def test_r15_player_field_may_share_a_type_with_a_boss():
    state = load(duo(p0=player(hand=["BL"]), al=["BL", 2], don=["FI", 1]))
    assert {"type": "plant_hand", "field": 0} in engine.legal_actions(state)
    _, _, after = run(state, {"type": "plant_hand", "field": 0})
    assert after["players"][0]["fields"][0] == ["BL", 1] and after["bosses"]["al"] == ["BL", 2]


def test_r30_a_boss_is_a_field_that_grows():
    _, events, after = run(
        duo(p0=player(hand=["BL", "BL"]), phase="use", al=["BL", 1], don=["FI", 1]),
        give(0, "al"),
        give(0, "al"),
    )
    assert after["bosses"]["al"] == ["BL", 3]  # 3 BL = 0 coins: no harvest
    assert [e["boss"] for e in of_type(events, "give")] == ["al", "al"]


@pytest.mark.parametrize("boss", ["al", "don"])
def test_r31_no_gifts_outside_phases_2_4_5(boss):
    """R31/R64/R71: bosses receive nothing in phases 1 and 3."""
    for phase, display in (("plant", []), ("leftovers", ["KI"])):
        state = load(duo(p0=player(hand=["KI"]), phase=phase, display=display))
        assert not any(a["type"].startswith("give") for a in engine.legal_actions(state))
        for action in (give(0, boss), {"type": "give_display", "bean": "KI", "boss": boss}):
            with pytest.raises(engine.IllegalAction):
                engine.apply(state, action)


def test_r32_a4_bundle_is_one_addition_and_the_check_is_at_least():
    """R32/A4: 7 BL + a bundle of 3 BL = 10 BL = 4 coins >= 3: Al harvests all at once (4 coins).
    One card at a time would have harvested at 8 (3 coins); a test for equality would never harvest."""
    pos = duo(phase="use", display=["BL", "BL", "BL"], al=["BL", 7], don=["FI", 1], discard=["KI"])
    _, events, after = run(pos, {"type": "give_display", "bean": "BL", "boss": "al"})
    assert after["bosses"]["al"] is None
    assert after["treasury"] == ["BL"] * 4
    assert after["discard"] == ["BL"] * 6 + ["KI"]
    assert after["display"] == []
    assert of_type(events, "give") == [
        {"type": "give", "seat": 0, "source": "display", "bean": "BL", "count": 3, "boss": "al"}
    ]
    assert of_type(events, "boss_harvest") == [
        {"type": "boss_harvest", "boss": "al", "bean": "BL", "count": 10, "coins": 4}
    ]


def test_r32_check_in_phase_2_after_a_payment():
    """R32/A3: paying protection can trigger the harvest (Don: 5 FI + 1 = 6 FI = 2 coins)."""
    pos = duo(p0=player(fields=(["FI", 3], None)), phase="protection", don=["FI", 5], al=["BL", 1])
    _, events, after = run(pos, {"type": "pay", "field": 0})
    assert after["bosses"]["don"] is None
    assert after["treasury"] == ["FI", "FI"]
    assert after["discard"][:4] == ["FI"] * 4
    assert of_type(events, "boss_harvest")[0]["coins"] == 2


def test_r33_bosses_never_harvest_by_choice():
    """R33: no action harvests a boss, and a boss below its threshold just waits (A3: only an addition
    triggers the check); R22 never holds a boss back (see the final harvest, R100)."""
    state = load(duo(phase="use", al=["BL", 7], don=["FI", 1], deck=["PU", "KI", "FR"]))
    assert all(set(a) <= {"type", "field"} for a in engine.legal_actions(state) if a["type"] == "harvest")
    _, events, after = run(state, {"type": "end_phase"})
    assert after["bosses"] == {"al": ["BL", 7], "don": ["FI", 1]}
    assert of_type(events, "boss_harvest") == []


def test_r34_empty_boss_captures_nothing():
    """R34/A24: an empty boss has no type; revealed cards do not go to it."""
    pos = duo(p0=player(hand=[]), phase="plant", al=None, don=["RU", 1], deck=["BL", "FI", "KI", "PU"])
    _, events, after = run(pos, {"type": "end_phase"})
    assert after["bosses"]["al"] is None
    assert after["display"] == ["BL", "FI", "KI"]
    assert of_type(events, "capture") == []


def test_r35_treasury_is_one_total_for_all_bosses():
    pos = solo(
        p0=player(hand=["RU", "BR", "FR"], fields=(None, None, None)),
        phase="use",
        al=["RU", 4],
        don=["BR", 4],
        joe=["FR", 2],
        treasury=["KI"],
    )
    _, events, after = run(pos, give(0, "al"), give(0, "don"), give(0, "joe"))
    # 5 RU = 3 coins, 5 BR = 2 coins, 3 FR = 1 coin: all into one treasury pile, new cards on top
    assert sorted(after["treasury"]) == sorted(["RU"] * 3 + ["BR"] * 2 + ["FR", "KI"])
    assert after["treasury"][-1] == "KI"
    assert [e["boss"] for e in of_type(events, "boss_harvest")] == ["al", "don", "joe"]
    assert engine.view(load(after), 0)["treasury"] == 7
