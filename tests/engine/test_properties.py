"""Hypothesis playouts with the full set of checks after every step (docs/protocol.md §4, §5, §13).

Each example draws a seed and a sequence of choice indexes and plays one whole game: deterministic per
example, so hypothesis can replay and shrink a failure.
"""

import copy
import json
import random

import pytest
from helpers import choose
from hypothesis import given, settings
from hypothesis import strategies as st
from playout_checks import check_actions, check_position, check_round_trip, check_step, check_views

import engine

# Per mode; each one is a complete game with every check at every step (some 500 steps), and the random
# playouts (test_playouts.py) play far more games with the cheaper checks.
EXAMPLES = 15
FULL_UNIVERSE_EVERY = 15  # every n-th step tries every well-formed action, not just a sample

seeds = st.integers(min_value=1_000_000, max_value=2**31 - 1)
choices = st.lists(st.integers(min_value=0, max_value=2**16), min_size=1, max_size=64)


def _play_checked(mode, seed, picks):
    seats = 2 if mode == "duo" else 1
    rng = random.Random(seed ^ 0x5EED)
    state = engine.new_game(mode, seed)
    pos = engine.to_position(state)
    assert str(seed) not in str(engine.view(state, None))
    for step in range(5000):
        check_position(pos, seats)
        check_round_trip(state, pos)
        check_views(state, pos, rng)
        legal = engine.legal_actions(state)
        sample = None if step % FULL_UNIVERSE_EVERY == 0 else 4
        check_actions(state, pos, legal, rng, sample)
        if not legal:
            break
        pick = picks[step % len(picks)]
        action = legal[pick % len(legal)] if pick % 3 else choose(legal, rng)
        twin = copy.deepcopy(state)
        new, events = engine.apply(state, action)
        assert state == twin  # apply never mutates its input
        again, events_again = engine.apply(state, action)  # determinism
        assert again == new and events_again == events
        new_pos = engine.to_position(new)
        check_step(pos, action, new_pos, events)
        assert json.loads(json.dumps(events)) == events
        state, pos = new, new_pos
    else:
        raise AssertionError("the game did not end")
    assert pos["phase"] == "over" and pos["result"] is not None
    return pos


@pytest.mark.slow
@settings(max_examples=EXAMPLES)
@given(seed=seeds, picks=choices)
def test_duo_playout_properties(seed, picks):
    _play_checked("duo", seed, picks)


@pytest.mark.slow
@settings(max_examples=EXAMPLES)
@given(seed=seeds, picks=choices)
def test_solo_playout_properties(seed, picks):
    _play_checked("solo", seed, picks)
