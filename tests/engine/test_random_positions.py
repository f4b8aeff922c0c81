"""Hypothesis-built positions (far from what random play reaches: full fields, bosses on the brink,
last turns, three fields...) checked against the independent rule model of oracle.py.

R13/R14/R20-R23/R32/R40-R43/R63-R84/R100-R103, and docs/protocol.md §4: positions round-trip literally.
"""

import copy
import json
from collections import Counter

import oracle
import pytest
from helpers import BEANS, COUNTS, card_count, well_formed_actions
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import engine

beans = st.sampled_from(BEANS)
piles = st.lists(beans, max_size=6)


@st.composite
def slots(draw, n, max_count):
    """n fields (or bosses): None or [bean, count], never the same bean twice (R13/R14)."""
    kinds = draw(st.lists(beans, min_size=n, max_size=n, unique=True))
    out = []
    for kind in kinds:
        out.append([kind, draw(st.integers(1, max_count))] if draw(st.booleans()) else None)
    return out


@st.composite
def positions(draw):
    mode = draw(st.sampled_from(["duo", "solo"]))
    seats = 2 if mode == "duo" else 1
    phases = ["protection", "plant", "use"] + (["leftovers"] if mode == "duo" else [])
    phase = draw(st.sampled_from(phases))
    active = draw(st.integers(0, seats - 1))
    players = []
    for _ in range(seats):
        third = mode == "solo" or draw(st.booleans())
        players.append(
            {
                "hand": draw(piles),
                "fields": draw(slots(3 if third else 2, 9)),
                "coins": draw(st.lists(beans, max_size=7)),
                "third_field": third,
            }
        )
    names = ["al", "don"] if mode == "duo" else ["al", "don", "joe"]
    bosses = dict(zip(names, draw(slots(len(names), 5)), strict=True))
    display = draw(st.lists(beans, min_size=1 if phase == "leftovers" else 0, max_size=5))
    last_turn = phase == "use" and draw(st.booleans())
    exhaustions = 3 if last_turn else draw(st.integers(0, 2))
    deck = [] if last_turn else draw(st.lists(beans, min_size=1, max_size=12))
    me = players[active]
    settled = []
    if phase == "protection":
        held = {b[0] for b in bosses.values() if b}
        pairs = [i for i, f in enumerate(me["fields"]) if f and f[0] in held]
        settled = sorted(draw(st.sets(st.sampled_from(pairs))) if pairs else [])
    pos = {
        "format": 1,
        "mode": mode,
        "phase": phase,
        "active": active,
        "players": players,
        "bosses": bosses,
        "treasury": draw(piles),
        "display": display,
        "discard": draw(piles),
        "deck": deck,
        "set_aside": draw(st.lists(beans, max_size=4)),
        "exhaustions": exhaustions,
        "planted": draw(st.integers(0, 2)) if phase == "plant" else 0,
        "settled": settled,
        "last_turn": last_turn,
        "seed": draw(st.integers(0, 2**40)),
        "result": None,
    }
    total = Counter()
    for p in players:
        total.update(p["hand"] + p["coins"])
        total.update({f[0]: f[1] for f in p["fields"] if f})
    for b in bosses.values():
        if b:
            total[b[0]] += b[1]
    for pile in ("treasury", "display", "discard", "deck", "set_aside"):
        total.update(pos[pile])
    assume(all(total[b] <= COUNTS[b] for b in BEANS))  # R1: never more cards of a type than exist
    return pos


def _key(action):
    return json.dumps(action, sort_keys=True)


# too_slow only measures data generation, which a loaded CI machine may slow down
@pytest.mark.slow
@settings(max_examples=500, suppress_health_check=[HealthCheck.too_slow])
@given(pos=positions())
def test_random_positions_follow_the_rule_model(pos):
    state = engine.from_position(copy.deepcopy(pos))
    assert engine.to_position(state) == pos  # taken literally
    legal = engine.legal_actions(state)
    assert sorted(map(_key, legal)) == sorted(map(_key, oracle.legal(pos)))
    for action in legal:
        new, events = engine.apply(state, action)
        after = engine.to_position(new)
        assert card_count(after) == card_count(pos)
        model = oracle.step(pos, action)
        if model is not None:
            assert after == model, action
        json.dumps(events)
    for action in well_formed_actions(pos):
        if action not in legal:
            try:
                engine.apply(state, action)
            except engine.IllegalAction:
                pass
            else:
                raise AssertionError(f"unlisted {action} applied")
    assert engine.to_position(state) == pos
