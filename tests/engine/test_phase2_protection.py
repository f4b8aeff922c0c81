"""R65-R68 (A9, A21): phase 2, the Mafia collects protection money."""

import re

import pytest
from helpers import duo, has_event, load, of_type, player, run, solo

import engine

END = {"type": "end_phase"}


def to_next_turn(p0_fields, **bosses):
    """Seat 1 ends its turn; seat 0 begins with the given fields and bosses."""
    pos = duo(
        phase="use", active=1, p0=player(hand=["PU"], fields=p0_fields), deck=["PU", "FR", "KI"], **bosses
    )
    return run(pos, END)


def test_r65_matched_pair_starts_phase_2():
    state, events, after = to_next_turn((["BL", 3], ["FI", 2]), al=["BL", 1], don=["BR", 1])
    assert (after["active"], after["phase"]) == (0, "protection")
    assert after["settled"] == []
    legal = engine.legal_actions(state)
    assert {"type": "pay", "field": 0} in legal
    assert {"type": "pay", "field": 1} not in legal
    assert has_event(events, "phase", phase="protection")


def test_r68_no_matched_pair_skips_phase_2():
    _, _, after = to_next_turn((["BL", 3], ["FI", 2]), al=["KI", 1], don=["BR", 1])
    assert after["phase"] == "plant"


def test_r66a_pay_moves_exactly_one_card_even_the_last():
    pos = duo(phase="protection", p0=player(fields=(["BL", 1], ["FI", 4])), al=["BL", 1], don=["BR", 1])
    state = load(pos)
    # R22: the single BL card cannot be harvested while FI holds 4, so it must be given
    assert {"type": "harvest", "field": 0} not in engine.legal_actions(state)
    _, events, after = run(state, {"type": "pay", "field": 0})
    assert after["players"][0]["fields"] == [None, ["FI", 4]]
    assert after["bosses"]["al"] == ["BL", 2]
    assert after["phase"] == "plant"
    assert of_type(events, "pay") == [{"type": "pay", "seat": 0, "field": 0, "boss": "al", "bean": "BL"}]


def test_r66b_harvest_settles_the_pair_without_a_gift():
    pos = duo(phase="protection", p0=player(fields=(["BL", 6], ["FI", 1])), al=["BL", 1], don=["BR", 1])
    _, events, after = run(pos, {"type": "harvest", "field": 0})
    assert after["bosses"]["al"] == ["BL", 1]
    assert after["players"][0]["coins"] == ["BL", "BL"]
    assert after["phase"] == "plant"
    assert of_type(events, "pay") == []


def test_r67_a9_one_card_per_pair_and_every_pair_settled():
    pos = duo(phase="protection", p0=player(fields=(["BL", 3], ["FI", 3])), al=["BL", 1], don=["FI", 1])
    state, _, after = run(pos, {"type": "pay", "field": 0})
    assert after["phase"] == "protection"
    assert after["settled"] == [0]
    assert after["players"][0]["fields"][0] == ["BL", 2]
    legal = engine.legal_actions(state)
    assert {"type": "pay", "field": 0} not in legal
    with pytest.raises(engine.IllegalAction) as info:
        engine.apply(state, {"type": "pay", "field": 0})
    assert re.search(r"R6[5-7]\b", str(info.value))
    _, _, after = run(state, {"type": "pay", "field": 1})
    assert after["phase"] == "plant"
    assert after["settled"] == []
    assert after["bosses"] == {"al": ["BL", 2], "don": ["FI", 2]}


def test_r67_no_hand_cards_unmatched_fields_or_end_phase_in_phase_2():
    pos = duo(
        phase="protection",
        p0=player(hand=["BL", "KI"], fields=(["BL", 3], ["FI", 3])),
        al=["BL", 1],
        don=["BR", 1],
    )
    state = load(pos)
    types = {a["type"] for a in engine.legal_actions(state)}
    assert types <= {"pay", "harvest", "buy_field"}
    for action in (
        {"type": "give_hand", "index": 0, "boss": "al"},
        {"type": "pay", "field": 1},
        END,
        {"type": "plant_hand", "field": 0},
    ):
        with pytest.raises(engine.IllegalAction):
            engine.apply(state, action)


def test_r67_r32_a_payment_can_trigger_the_boss_harvest():
    pos = duo(phase="protection", p0=player(fields=(["RU", 2], None)), al=["RU", 4], don=["BR", 1])
    _, events, after = run(pos, {"type": "pay", "field": 0})
    assert after["bosses"]["al"] is None
    assert after["treasury"] == ["RU"] * 3
    assert after["players"][0]["fields"][0] == ["RU", 1]
    assert [e["type"] for e in events][:2] == ["pay", "boss_harvest"]


def test_r65_solo_phase_2_with_two_pairs():
    """R60/R65: a solo turn starts in phase 2 when pairs exist (no phase 1)."""
    pos = solo(
        phase="use",
        p0=player(fields=(["BL", 2], ["FI", 2], ["KI", 5])),
        al=["BL", 1],
        don=["FI", 1],
        joe=["PU", 1],
        deck=["BR", "FR", "RU"],
    )
    state, events, after = run(pos, END)
    assert (after["active"], after["phase"]) == (0, "protection")
    pays = {a["field"] for a in engine.legal_actions(state) if a["type"] == "pay"}
    assert pays == {0, 1}
    _, _, after = run(state, {"type": "pay", "field": 1}, {"type": "harvest", "field": 0})
    assert after["phase"] == "plant"
    assert after["bosses"]["don"] == ["FI", 2]
    assert after["bosses"]["al"] == ["BL", 1]


def test_r66_r22_lone_matched_card_may_be_harvested_when_no_field_holds_two():
    """R66b with R22's exception: the other fields are empty or single, so the lone card may be harvested."""
    pos = duo(phase="protection", p0=player(fields=(["BL", 1], ["FI", 1])), al=["BL", 1], don=["BR", 1])
    state = load(pos)
    legal = engine.legal_actions(state)
    assert {"type": "harvest", "field": 0} in legal and {"type": "pay", "field": 0} in legal
    _, _, after = run(state, {"type": "harvest", "field": 0})
    assert after["phase"] == "plant" and after["bosses"]["al"] == ["BL", 1]
    assert after["discard"][0] == "BL"


def test_r65_unmatched_harvest_in_phase_2_does_not_settle_the_pair():
    pos = duo(phase="protection", p0=player(fields=(["BL", 2], ["FI", 2])), al=["BL", 1], don=["BR", 1])
    state, _, after = run(pos, {"type": "harvest", "field": 1})
    assert after["phase"] == "protection" and after["settled"] == []
    assert engine.legal_actions(state)[0]["type"] in {"pay", "harvest"}
    assert {"type": "pay", "field": 0} in engine.legal_actions(state)
