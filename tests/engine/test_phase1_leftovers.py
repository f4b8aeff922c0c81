"""R60-R64, R85: phase 1 (duo only), dealing with the opponent's leftovers."""

import re

import pytest
from helpers import duo, has_event, load, of_type, player, run

import engine

END = {"type": "end_phase"}


def test_r62_r85_leftovers_stay_for_the_opponents_phase_1():
    """R85/R62: what stays in the display at the end of phase 5 is the opponent's phase-1 display."""
    pos = duo(phase="use", active=0, display=["BL", "FI", "BL"], al=["RU", 1], don=["BR", 1])
    _, events, after = run(pos, END)
    assert after["active"] == 1
    assert after["phase"] == "leftovers"
    assert after["display"] == ["BL", "FI", "BL"]
    assert of_type(events, "turn") == [{"type": "turn", "seat": 1}]


def test_r63_each_bundle_is_planted_or_discarded_whole():
    pos = duo(
        phase="leftovers",
        display=["BL", "FI", "BL"],
        al=["RU", 1],
        don=["BR", 1],
        p0=player(fields=(["KI", 2], None)),
    )
    state = load(pos)
    legal = engine.legal_actions(state)
    assert {"type": "plant_display", "bean": "BL", "field": 1} in legal
    assert {"type": "plant_display", "bean": "BL", "field": 0} not in legal  # R13
    assert {"type": "discard_display", "bean": "FI"} in legal
    assert END not in legal  # phase 1 ends by itself (R61)
    state, _, after = run(state, {"type": "plant_display", "bean": "BL", "field": 1})
    assert after["players"][0]["fields"][1] == ["BL", 2]
    assert after["display"] == ["FI"]
    assert after["phase"] == "leftovers"


@pytest.mark.parametrize(
    ("order", "top"),
    [
        (["FI", "BL"], ["BL", "BL", "FI"]),
        (["BL", "FI"], ["FI", "BL", "BL"]),
    ],
)
def test_r63_a20_player_chooses_the_discard_order(order, top):
    """R63/A20: the last bundle discarded is the new top of the discard pile."""
    pos = duo(phase="leftovers", display=["BL", "FI", "BL"], al=["RU", 1], don=["BR", 1], discard=["KI"])
    _, events, after = run(pos, *({"type": "discard_display", "bean": b} for b in order))
    assert after["discard"] == top + ["KI"]
    assert [(e["bean"], e["count"]) for e in of_type(events, "discard")] == [
        (b, 2 if b == "BL" else 1) for b in order
    ]


def test_r63_harvest_first_to_make_room():
    pos = duo(
        phase="leftovers",
        display=["RU"],
        al=["BL", 1],
        don=["BR", 1],
        p0=player(fields=(["KI", 3], ["FI", 2])),
    )
    state = load(pos)
    assert not any(a["type"] == "plant_display" for a in engine.legal_actions(state))
    _, _, after = run(
        state, {"type": "harvest", "field": 1}, {"type": "plant_display", "bean": "RU", "field": 1}
    )
    assert after["players"][0]["fields"] == [["KI", 3], ["RU", 1]]


def test_r64_leftovers_never_go_to_a_boss_and_phase_1_ends_when_empty():
    pos = duo(phase="leftovers", display=["KI"], al=None, don=["BR", 1], p0=player(hand=["FR"]))
    state = load(pos)
    with pytest.raises(engine.IllegalAction) as info:
        engine.apply(state, {"type": "give_display", "bean": "KI", "boss": "al"})
    assert re.search(r"R(64|63|79)\b", str(info.value))
    with pytest.raises(engine.IllegalAction):
        engine.apply(state, END)
    _, events, after = run(state, {"type": "discard_display", "bean": "KI"})
    assert after["phase"] == "plant"
    assert has_event(events, "phase", phase="plant")


def test_r60_duo_turn_runs_leftovers_then_protection_then_plant():
    """R60: phases in order; a leftover bundle first, then the matched pair, then planting."""
    pos = duo(
        phase="use",
        active=1,
        display=["KI"],
        al=["BL", 1],
        don=["BR", 1],
        p0=player(hand=["FR"], fields=(["BL", 3], None)),
        deck=["PU", "FR", "FI"],
    )
    state, _, after = run(pos, END)
    assert (after["active"], after["phase"]) == (0, "leftovers")
    state, _, after = run(state, {"type": "discard_display", "bean": "KI"})
    assert after["phase"] == "protection"
    _, _, after = run(state, {"type": "pay", "field": 0})
    assert after["phase"] == "plant"


def test_r60_start_players_first_turn_skips_phase_1():
    pos = engine.to_position(engine.new_game("duo", 11))
    assert pos["display"] == [] and pos["phase"] == "plant"


# a position in each decision phase -> does the phase wait for end_phase?
R61_CASES = [
    (duo(phase="leftovers", display=["KI"], al=["RU", 1], don=["BR", 1]), False),
    (duo(phase="protection", p0=player(fields=(["RU", 2], None)), al=["RU", 1], don=["BR", 1]), False),
    (duo(phase="plant", p0=player(hand=[]), al=["RU", 1], don=["BR", 1]), True),
    (duo(phase="use", al=["RU", 1], don=["BR", 1]), True),
]


@pytest.mark.parametrize(("pos", "waits"), R61_CASES, ids=["leftovers", "protection", "plant", "use"])
def test_r61_phases_1_2_end_by_themselves_3_5_by_end_phase(pos, waits):
    """R61/docs/protocol.md §2: `end_phase` only in phases 3 and 5; phases 1 and 2 end when their
    duty is met."""
    state = load(pos)
    assert (END in engine.legal_actions(state)) == waits
    if not waits:
        with pytest.raises(engine.IllegalAction):
            engine.apply(state, END)
        duty = next(a for a in engine.legal_actions(state) if a["type"] in {"discard_display", "pay"})
        _, _, after = run(state, duty)
        assert after["phase"] == "plant"
