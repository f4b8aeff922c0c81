"""Shared helpers for the bot tests: states reached by play, and twins that differ only in what a
seat cannot see."""

from __future__ import annotations

import random

import engine
from engine.bots import choose

# A small mc budget: the tests check behaviour, not strength (tests/perf/bot_bench.py measures that).
SMALL = {"playouts": 6, "width": 3, "horizon": 2}
BUDGET = {"random": {}, "greedy": {}, "mc": SMALL}


def states_along_a_game(mode: str, seed: int, every: int = 7, limit: int = 400) -> list:
    """Return every `every`-th state of a game the greedy bot plays against itself (not `over`)."""
    s = engine.new_game(mode, seed)
    out = []
    for k in range(limit):
        if s.phase == "over":
            break
        if k % every == 0:
            out.append(s)
        action = choose("greedy", engine.view(s, s.active), k)
        s, _ = engine.apply(s, action)
    return out


def hidden_twin(state, seat: int, rng: random.Random):
    """Return a state that looks the same to `seat` but deals everything it cannot see anew: the
    other hands, the deck order, the discard pile below its top, the coins, treasury and set-aside,
    and the seed (future reshuffles). Piles keep their sizes."""
    pos = engine.to_position(state)
    slots = []  # (getter of the list to refill, its size)
    for i, p in enumerate(pos["players"]):
        if i != seat:
            slots.append(p["hand"])
        slots.append(p["coins"])
    slots += [pos["deck"], pos["discard"][1:], pos["treasury"], pos["set_aside"]]
    cards = [c for pile in slots for c in pile]
    rng.shuffle(cards)
    fresh = iter(cards)
    for i, p in enumerate(pos["players"]):
        if i != seat:
            p["hand"] = [next(fresh) for _ in p["hand"]]
        p["coins"] = [next(fresh) for _ in p["coins"]]
    pos["deck"] = [next(fresh) for _ in pos["deck"]]
    pos["discard"] = pos["discard"][:1] + [next(fresh) for _ in pos["discard"][1:]]
    pos["treasury"] = [next(fresh) for _ in pos["treasury"]]
    pos["set_aside"] = [next(fresh) for _ in pos["set_aside"]]
    pos["seed"] = rng.getrandbits(60)
    return engine.from_position(pos)


def play_full_game(mode: str, seats: list[str], seed: int) -> tuple:
    """Play a game to the end with bot `seats[i]` at seat i, checking every action is one of the
    view's legal actions; return (final state, number of actions)."""
    s = engine.new_game(mode, seed)
    n = 0
    while s.phase != "over":
        view = engine.view(s, s.active)
        name = seats[s.active]
        action = choose(name, view, seed * 10_000 + n, **BUDGET[name])
        assert action in view["legal_actions"], (name, action)
        s, _ = engine.apply(s, action)
        n += 1
        assert n < 5000, "a game that never ends"
    return s, n
