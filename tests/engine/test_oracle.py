"""Differential test: the engine against the independent rule model of oracle.py, in random games.

At every step the set of legal actions must agree (R13, R14, R20-R23, R40-R43, R63-R72, R79-R84), and
the position after each tried action must be the one the model predicts (R21, R32, R42, R63, R66, R74,
R76, R81, R86, R87, R100-R103), except where a reshuffle makes the deck order unknowable to the model.
"""

import json
import os
import random

import oracle
import pytest
from helpers import choose

import engine

# Per mode. The edit loop (`./test --fast`) plays the first third of them; the full run plays them all.
GAMES = 20 if os.environ.get("ALCABOHNE_TEST_LANE") == "fast" else 60
ALL_ACTIONS_EVERY = 4  # on every 4th step, every legal action's outcome is compared, not only the chosen one


def _key(action):
    return json.dumps(action, sort_keys=True)


@pytest.mark.parametrize("mode", ["duo", "solo"])
def test_engine_agrees_with_the_rule_model(mode):
    """R13/R14/R20-R23/R32/R40-R43/R63-R87/R100-R103 cross-checked against an independent model."""
    compared = predicted = 0
    for g in range(GAMES):
        rng = random.Random(g)
        state = engine.new_game(mode, 5_000_011 + g)
        for n in range(5000):
            pos = engine.to_position(state)
            legal = engine.legal_actions(state)
            expected = oracle.legal(pos)
            assert sorted(map(_key, legal)) == sorted(map(_key, expected)), (pos, legal, expected)
            if not legal:
                break
            chosen = choose(legal, rng)
            tried = legal if n % ALL_ACTIONS_EVERY == 0 else [chosen]
            for action in tried:
                new, _ = engine.apply(state, action)
                model = oracle.step(pos, action)
                compared += 1
                if model is not None:
                    predicted += 1
                    assert engine.to_position(new) == model, (pos, action)
            state, _ = engine.apply(state, chosen)
        assert engine.to_position(state)["phase"] == "over"
    assert predicted > 0.9 * compared
