"""The `mc` bot: flat Monte Carlo over determinizations (perfect-information sampling).

For each of `rounds` determinizations of the view (knowledge.determinize: the unseen cards dealt at
random into the other hand, the deck and the face-down piles), every candidate root action is played
and the game is finished by the greedy policy (policy.py) with a little randomness, for both seats.
All candidates share the same determinization and the same playout random stream in a round (common
random numbers), so their difference is measured with far less noise than independent samples.
The action with the best mean reward wins; reward = win (shared win: 1/winners) + a small share of the
score margin over the best rival (the Mafia or the other player), which separates close actions.

Pure: no clock (the budget is a playout count, calibrated by tests/perf/bot_bench.py to answer
within 1 s on the reference machine), and all randomness comes from `seed`.
"""

from __future__ import annotations

import random

from ..actions import to_dict
from ..rules import legal_codes
from .fast import step
from .knowledge import determinize, legal_codes_of
from .policy import best_code, score_actions

PLAYOUTS = 160   # default budget: playouts per decision (one playout = one root action, one game end)
WIDTH = 6        # candidates kept at the root, best first by the greedy heuristic
EPSILON = 0.05   # share of random moves in playouts, so the greedy playouts do not all agree
MARGIN = 0.05    # reward per coin of score margin, on top of 1 for a win


def reward(result: dict, seat: int) -> float:
    """Return the playout reward of `seat` for a finished game's result (R102, R103)."""
    scores = result["scores"]
    rivals = [result["mafia"]] + [p for i, p in enumerate(scores) if i != seat]
    winners = result["winners"]
    won = 1.0 / len(winners) if seat in winners else 0.0
    return won + MARGIN * (scores[seat] - max(rivals))


def playout(s, seat: int, rng: random.Random, epsilon: float = EPSILON) -> float:
    """Play `s` to the end with the greedy policy for every seat; return `reward` for `seat`."""
    while s.phase != "over":
        s = step(s, best_code(s, legal_codes(s), rng, epsilon))
    return reward(s.result, seat)


def choose(view: dict, seed: int, playouts: int = PLAYOUTS, width: int = WIDTH,
           epsilon: float = EPSILON) -> dict:
    """Return the action of `view["legal_actions"]` with the best mean playout reward.

    `playouts` is the total number of playouts (at least one round of every candidate is played);
    `width` how many root actions, best first by the greedy heuristic, are tried; `epsilon` the random
    share of playout moves. Raises ValueError for a view that is not the viewer's turn."""
    codes = legal_codes_of(view)
    if not codes:
        raise ValueError("no legal actions in this view (not the viewer's turn, or the game is over)")
    if len(codes) == 1:
        return to_dict(codes[0])
    seat = view["seat"]
    rng = random.Random(seed)
    first = determinize(view, rng)
    scores = score_actions(first, codes)
    order = sorted(range(len(codes)), key=lambda j: -scores[j])[:max(1, width)]
    cands = [codes[j] for j in order]
    totals = [0.0] * len(cands)
    for r in range(max(1, playouts // len(cands))):
        s = first if r == 0 else determinize(view, rng)
        stream = rng.getrandbits(64)
        for j, code in enumerate(cands):
            totals[j] += playout(step(s, code), seat, random.Random(stream), epsilon)
    best = max(range(len(cands)), key=lambda j: (totals[j], -j))  # ties: the greedy favourite
    return to_dict(cands[best])
