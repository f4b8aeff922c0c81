"""The greedy heuristic: a score for every legal action of the active seat, from what that seat sees.

It reads only the public table and the active seat's own hand (never the deck, other hands or the
face-down piles), so it can run on a determinized state as well as on the real one. It is both the
`greedy` bot and the playout policy of the `mc` bot, so it is written for speed: plain loops over
action codes (engine/actions.py), no `apply`.

Scores are in rough "coins" for the active seat; `end_phase` scores 0, so an optional action is taken
only when it looks better than stopping. The ideas, each a term below:
- a field's worth is its beanometer value plus part of the way to the next step (`potential`);
- the hand is a queue: a card that will find no field when it reaches the front forces an early
  harvest, so keep fields ready for the next cards and dump such cards on bosses (`hand_cost`);
- a field growing a boss's type pays protection every turn (R65, R66);
- feeding a boss up to its threshold hands the Mafia coins at once (R32); every card on a boss is
  worth a little to the Mafia at the final harvest (R100). The Mafia counts double in solo (R101);
- in duo, what stays in the display goes to the opponent (R85), who plants what matches a field.
"""

from __future__ import annotations

from ..actions import (
    BUY,
    END,
    GIVE_DISPLAY,
    GIVE_HAND,
    HARVEST,
    PAY,
    PLANT_DISPLAY,
    PLANT_HAND,
)
from ..cards import BEANOMETER, BEANS, COUNTS, THRESHOLD, coins

MATCH_PENALTY = 1.0    # a field of a boss's type pays one card per turn (R66)
PROGRESS = 1.0         # share of the next beanometer step credited for cards already planted
HAND_WEIGHTS = (1.0, 0.8, 0.6, 0.45, 0.3)  # the front card matters most: it must be planted next
CAPTURE_RISK = 0.12    # Mafia coins per unseen card of the type an empty boss is given (R74 captures)
MAFIA_WEIGHT = {"duo": 0.4, "solo": 2.0}   # solo: the Mafia's score is doubled (R101)


def _potential_table() -> dict:
    table = {}
    for bean, steps in BEANOMETER.items():
        row = [0.0]
        for n in range(1, steps[-1] + 1):
            c = coins(bean, n)
            if c >= 4:
                row.append(4.0)
                continue
            lo = steps[c - 1] if c else 0
            row.append(c + PROGRESS * (n - lo) / (steps[c] - lo))
        table[bean] = tuple(row)
    return table


_POTENTIAL = _potential_table()
# Cards a boss needs to reach its threshold, per bean: _NEED[bean][boss index] (R5, R32).
_NEED = {b: tuple(next(n for n in range(1, 20) if coins(b, n) >= t) for t in THRESHOLD) for b in BEANS}


def potential(bean: str, n: int) -> float:
    """Return the heuristic worth in coins of a field of `n` cards of `bean` (0 for n <= 0)."""
    row = _POTENTIAL[bean]
    return row[n] if n < len(row) else 4.0


def boss_worth(k: int, bean: str, n: int) -> float:
    """Return the heuristic worth to the Mafia of boss `k` holding `n` cards of `bean`: what a final
    harvest pays, plus pressure towards its threshold (reveals keep feeding it, R74)."""
    if n <= 0:
        return 0.0
    return coins(bean, n) + 0.5 * THRESHOLD[k] * n / _NEED[bean][k]


def feed_cost(bosses: list, k: int, bean: str, n: int) -> float:
    """Return what giving `n` cards of `bean` to boss `k` is worth to the Mafia (R32: an immediate
    harvest at the threshold pays its coins and empties the boss)."""
    b = bosses[k]
    old = b[1] if b is not None else 0
    new = old + n
    before = boss_worth(k, bean, old)
    c = coins(bean, new)
    if c >= THRESHOLD[k]:
        return c - before
    return boss_worth(k, bean, new) - before


def unseen_counts(s) -> dict:
    """Return, per bean, how many of its cards the active seat cannot see (R1 counts minus its own
    hand, every field, the bosses, the display and the discard top)."""
    left = dict(COUNTS)
    for c in s.hands[s.active]:
        left[c] -= 1
    for fs in s.fields:
        for f in fs:
            if f is not None:
                left[f[0]] -= f[1]
    for b in s.bosses:
        if b is not None:
            left[b[0]] -= b[1]
    for c in s.display:
        left[c] -= 1
    if s.discard:
        left[s.discard[-1]] -= 1
    return left


def hand_cost(hand: list, fields: list) -> float:
    """Return how badly the next hand cards fit the fields: a card that will find neither its type
    nor an empty field when it reaches the front forces a harvest (R69)."""
    types = set()
    empty = 0
    for f in fields:
        if f is None:
            empty += 1
        else:
            types.add(f[0])
    cost = 0.0
    for j, c in enumerate(hand[:5]):
        if c in types:
            continue
        if empty:
            empty -= 1
            types.add(c)
            cost += 0.2 * HAND_WEIGHTS[j]
        else:
            cost += HAND_WEIGHTS[j]
    return cost


def _boss_beans(bosses: list) -> set:
    return {b[0] for b in bosses if b is not None}


def _field_worth(f, held: set) -> float:
    if f is None:
        return 0.0  # an empty field's worth is its room for the next cards, counted by hand_cost
    return potential(f[0], f[1]) - (MATCH_PENALTY if f[0] in held else 0.0)


def _with(fields: list, i: int, f) -> list:
    out = fields[:]
    out[i] = f
    return out


def score_actions(s, codes: list[int]) -> list[float]:
    """Return the heuristic score of each legal action `codes` of the active seat of `s` (same order).

    Reads only what the active seat may see (R17)."""
    a = s.active
    fields = s.fields[a]
    hand = s.hands[a]
    bosses = s.bosses
    held = _boss_beans(bosses)
    wm = MAFIA_WEIGHT[s.mode]
    base_hand = hand_cost(hand, fields)
    late = s.exhaustions >= 2  # last pass: the final harvest (R100) comes soon and is free
    unseen = []  # filled on first use: only gifts to an empty boss need it
    out = []
    for code in codes:
        if code == END:
            out.append(0.0)
        elif code < BUY:  # harvest
            out.append(_harvest_score(s, code - HARVEST, fields, hand, held, base_hand, late))
        elif code == BUY:
            out.append(_buy_score(s, fields, hand, base_hand))
        elif code < PAY:  # plant_hand
            i = code - PLANT_HAND
            bean = hand[0]
            f = fields[i]
            new = (bean, (f[1] if f else 0) + 1)
            gain = _field_worth(new, held) - _field_worth(f, held)
            after = _with(fields, i, new)
            v = gain + base_hand - hand_cost(hand[1:], after)
            out.append(v + (5.0 if s.planted == 0 else 0.0))  # the front card must be planted (R69)
        elif code < END:  # pay
            i = code - PAY
            bean, n = fields[i]
            new = (bean, n - 1) if n > 1 else None
            k = next(j for j, b in enumerate(bosses) if b is not None and b[0] == bean)
            v = _field_worth(new, held) - _field_worth(fields[i], held) - wm * feed_cost(bosses, k, bean, 1)
            out.append(v + base_hand - hand_cost(hand, _with(fields, i, new)))
        elif code < PLANT_DISPLAY:  # discard_display (leftovers)
            out.append(0.0)
        elif code < GIVE_DISPLAY:  # plant_display
            b, i = divmod(code - PLANT_DISPLAY, 3)
            bean = BEANS[b]
            n = s.display.count(bean)
            f = fields[i]
            new = (bean, (f[1] if f else 0) + n)
            gain = _field_worth(new, held) - _field_worth(f, held)
            out.append(gain + base_hand - hand_cost(hand, _with(fields, i, new)) + _deny(s, bean, n))
        elif code < GIVE_HAND:  # give_display
            b, k = divmod(code - GIVE_DISPLAY, 3)
            bean = BEANS[b]
            n = s.display.count(bean)
            risk = _risk(s, k, bean, unseen)
            out.append(_deny(s, bean, n) - wm * (feed_cost(bosses, k, bean, n) + risk) - 0.05)
        else:  # give_hand
            j, k = divmod(code - GIVE_HAND, 3)
            rest = hand[:j] + hand[j + 1:]
            relief = base_hand - hand_cost(rest, fields)
            risk = _risk(s, k, hand[j], unseen)
            out.append(relief - wm * (feed_cost(bosses, k, hand[j], 1) + risk) - 0.1)
    return out


def _risk(s, k: int, bean: str, unseen: list) -> float:
    """A boss given its first card captures every later revealed card of that type (R74): the more
    such cards are still unseen, the more the Mafia will collect."""
    if s.bosses[k] is not None:
        return 0.0
    if not unseen:
        unseen.append(unseen_counts(s))
    return CAPTURE_RISK * unseen[0][bean]


def _harvest_score(s, i, fields, hand, held, base_hand, late) -> float:
    bean, n = fields[i]
    after = _with(fields, i, None)
    v = coins(bean, n) - _field_worth(fields[i], held)
    if n >= BEANOMETER[bean][-1]:
        v += 0.2  # more cards earn nothing more: free the field
    v += base_hand - hand_cost(hand, after)
    if s.phase == "plant" and s.planted == 0 and hand:
        front = hand[0]
        if all(f is not None and f[0] != front for f in fields):
            v += 5.0  # R69: the front card has no field; a harvest must make room
    if late:
        v -= 0.3  # the final harvest is free; keep growing
    return v - 0.05


def _buy_score(s, fields, hand, base_hand) -> float:
    if s.exhaustions >= 1:
        return -1.0  # four coins for a field that has little time left to pay back
    after = fields + [None]
    return base_hand - hand_cost(hand, after) - 2.0


def _deny(s, bean: str, n: int) -> float:
    """Duo: what taking the bundle keeps from the opponent, who could plant it in phase 1 (R85)."""
    if s.mode != "duo":
        return 0.0
    for f in s.fields[1 - s.active]:
        if f is not None and f[0] == bean:
            return 0.5 * (potential(bean, f[1] + n) - potential(bean, f[1]))
    return 0.0


def best_code(s, codes: list[int], rng=None, epsilon: float = 0.0) -> int:
    """Return the code with the best score (the first on ties); with probability `epsilon`, a
    uniformly random one drawn from `rng` instead."""
    if len(codes) == 1:
        return codes[0]
    if epsilon and rng.random() < epsilon:
        return codes[rng.randrange(len(codes))]
    scores = score_actions(s, codes)
    best = 0
    for j in range(1, len(codes)):
        if scores[j] > scores[best]:
            best = j
    return codes[best]

