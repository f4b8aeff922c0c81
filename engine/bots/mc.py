"""The `mc` bot: flat Monte Carlo over determinizations (perfect-information sampling).

1. Candidates: the legal actions ranked by the greedy heuristic (policy.py); the best `width` are
   kept (planting on one empty field or another counts once). When the greedy favourite leads the
   runner-up by more than `gap`, it is played without search: most turns hold such obvious steps.
2. Rounds: each round deals the unseen cards at random into the hidden piles (knowledge.determinize:
   the other hand, the deck, the discard below its top, coins, treasury, set-aside), then plays every
   candidate from that same deal, continuing with the greedy policy for every seat for `horizon`
   turns (or to the end). All candidates of a round share the deal and the playout randomness
   (common random numbers), so their difference is measured with far less noise.
3. Reward: the result at the end of the game, or `estimate` at the horizon: 1 for a win (shared: a
   share) plus a small amount per coin of margin over the best rival (the Mafia or the other
   player), which separates actions that win or lose alike. The best mean reward is played.

Pure: no clock (the budget is a playout count; tests/perf/bot_bench.py measures the time it takes),
and all randomness comes from `seed`.
"""

from __future__ import annotations

import random

from ..actions import END, GIVE_DISPLAY, PAY, PLANT_DISPLAY, PLANT_HAND, to_dict
from ..rules import legal_codes
from .fast import step
from .knowledge import determinize, legal_codes_of
from .policy import CAPTURE_RISK, best_code, boss_worth, potential, score_actions

PLAYOUTS = 96    # default budget: playouts per decision (one playout = one root action played out)
HORIZON = 4      # turns a playout runs before the position is scored by `estimate` (0: to the end)
WIDTH = 6        # candidates kept at the root, best first by the greedy heuristic
EPSILON = 0.0    # share of random moves in playouts (0: plain greedy; the deals supply the variety)
MARGIN = 0.05    # reward per coin of score margin, on top of 1 for a win
GAP = 1.0        # when the greedy favourite leads the runner-up by more than this, play it unsearched


def reward(result: dict, seat: int) -> float:
    """Return the playout reward of `seat` for a finished game's result (R102, R103)."""
    scores = result["scores"]
    rivals = [result["mafia"]] + [p for i, p in enumerate(scores) if i != seat]
    winners = result["winners"]
    won = 1.0 / len(winners) if seat in winners else 0.0
    return won + MARGIN * (scores[seat] - max(rivals))


def estimate(s, seat: int) -> dict:
    """Return a result-like dict for an unfinished `s`: every coin stack plus the heuristic worth of
    its fields (policy.potential: a growing field is worth more than its harvest now), the treasury
    plus the bosses' worth to the Mafia (policy.boss_worth), and the winners that would give
    (R101-R103)."""
    scores = [len(c) + sum(potential(f[0], f[1]) for f in fs if f) for c, fs in zip(s.coins, s.fields,
                                                                                    strict=True)]
    mafia = len(s.treasury)
    for k, b in enumerate(s.bosses):
        if b is not None:
            # The boss keeps capturing its type from the reveals to come (R74), beyond the horizon.
            ahead = s.deck.count(b[0]) + s.discard.count(b[0])
            mafia += boss_worth(k, b[0], b[1]) + CAPTURE_RISK * ahead
    if s.mode == "solo":
        mafia *= 2  # R101
    best = max(scores)
    winners = [i for i, p in enumerate(scores) if p == best] if best > mafia else ["mafia"]
    return {"scores": scores, "mafia": mafia, "winners": winners}


def playout(s, seat: int, rng: random.Random, epsilon: float = EPSILON, horizon: int = HORIZON) -> float:
    """Play `s` on with the greedy policy for every seat, to the end or for `horizon` turns (0: no
    limit); return `reward` for `seat` of the result or of `estimate`."""
    turns = 0
    while s.phase != "over":
        phase = s.phase
        code = best_code(s, legal_codes(s), rng, epsilon)
        s = step(s, code)
        if code == END and phase == "use":
            turns += 1
            if turns == horizon and s.phase != "over":
                return reward(estimate(s, seat), seat)
    return reward(s.result, seat)


def candidates(s, codes: list[int], width: int) -> tuple[list[int], list[float]]:
    """Return up to `width` root actions worth searching, best first by the greedy heuristic, and
    their heuristic scores.

    Planting on one empty field or another is the same move (fields differ only by index), so only
    the lowest empty field is kept for each planted card or bundle."""
    scores = score_actions(s, codes)
    order = sorted(range(len(codes)), key=lambda j: -scores[j])
    fields = s.fields[s.active]
    out: list[int] = []
    seen = set()
    for j in order:
        code = codes[j]
        key = code
        if PLANT_HAND <= code < PAY and fields[code - PLANT_HAND] is None:
            key = "hand-to-empty"
        elif PLANT_DISPLAY <= code < GIVE_DISPLAY and fields[(code - PLANT_DISPLAY) % 3] is None:
            key = ("display-to-empty", (code - PLANT_DISPLAY) // 3)
        if key in seen:
            continue
        seen.add(key)
        out.append(code)
        if len(out) == width:
            break
    return out, [scores[codes.index(c)] for c in out]


def choose(view: dict, seed: int, playouts: int = PLAYOUTS, width: int = WIDTH,
           epsilon: float = EPSILON, horizon: int = HORIZON, gap: float = GAP) -> dict:
    """Return the action of `view["legal_actions"]` with the best mean playout reward.

    `playouts` is the total number of playouts (at least one round of every candidate is played);
    `width` how many root actions, best first by the greedy heuristic, are tried; `epsilon` the random
    share of playout moves; `horizon` the turns a playout runs (0: to the end); `gap` the greedy
    lead over the runner-up above which the greedy favourite is played without search.
    Raises ValueError for a view that is not the viewer's turn."""
    codes = legal_codes_of(view)
    if not codes:
        raise ValueError("no legal actions in this view (not the viewer's turn, or the game is over)")
    return to_dict(search(view, codes, seed, playouts, width, epsilon, horizon, gap))


def search(view: dict, codes: list[int], seed: int, playouts: int = PLAYOUTS, width: int = WIDTH,
           epsilon: float = EPSILON, horizon: int = HORIZON, gap: float = GAP) -> int:
    """Return the code among `codes` (legal codes of `view`, at least one) with the best mean playout
    reward; `choose` with the root restricted to `codes` (the hint leaves out moves it never proposes)."""
    if len(codes) == 1:
        return codes[0]
    seat = view["seat"]
    rng = random.Random(seed)
    first = determinize(view, rng)
    cands, scores = candidates(first, codes, max(1, width))
    if len(cands) == 1 or scores[0] - scores[1] > gap:
        return cands[0]
    totals = [0.0] * len(cands)
    for r in range(max(1, playouts // len(cands))):
        s = first if r == 0 else determinize(view, rng)
        stream = rng.getrandbits(64)
        for j, code in enumerate(cands):
            totals[j] += playout(step(s, code), seat, random.Random(stream), epsilon, horizon)
    best = max(range(len(cands)), key=lambda j: (totals[j], -j))  # ties: the greedy favourite
    return cands[best]
