"""Over a thousand seeded random games of both modes, played to the end with cheap checks at every step."""

import random

import pytest
from helpers import play_random
from playout_checks import check_light, check_position, check_step

import engine

GAMES = 600  # per mode
PARTS = 4
FULL_EVERY = 7  # the complete position check runs on every 7th step (and at the end)


class Checker:
    def __init__(self, seats):
        self.seats, self.steps, self.pos = seats, 0, None

    def __call__(self, state, action, new, events):
        before = self.pos or engine.to_position(state)
        after = engine.to_position(new)
        check_light(after)
        check_step(before, action, after, events)
        self.steps += 1
        if self.steps % FULL_EVERY == 0:
            check_position(after, self.seats)
        self.pos = after


@pytest.mark.slow
@pytest.mark.parametrize("part", range(PARTS))
@pytest.mark.parametrize("mode", ["duo", "solo"])
def test_random_games_keep_the_invariants_and_end(mode, part):
    """R1/R4/R13/R14/R86/R87/R90/R92/R100-R103 and docs/protocol.md §2, checked along GAMES random games
    (in PARTS parts, which parallel test workers share)."""
    seats = 2 if mode == "duo" else 1
    lengths, winners = [], {"mafia": 0, "player": 0}
    for g in range(part, GAMES, PARTS):
        state, steps = play_random(mode, 1_000_003 * g + 17, random.Random(g), on_step=Checker(seats))
        pos = engine.to_position(state)
        assert pos["phase"] == "over" and pos["result"] is not None
        check_position(pos, seats)
        lengths.append(steps)
        winners["mafia" if pos["result"]["winners"] == ["mafia"] else "player"] += 1
    assert min(lengths) > 10
    assert winners["mafia"] > 0  # sanity: random play loses sometimes
