"""Engine benchmark (issue 2): random full games through the public surface on one core.

Run: .venv/bin/python tests/perf/engine_bench.py [--games N] [--repeat R]
Each game: new_game, then legal_actions + apply (with action dicts) chosen uniformly at random until
`over`. Prints games/s, actions/s and microseconds per legal_actions+apply step, per mode; medians over
R repeats. Target (issue 2): at least 300 random duo games per second on one core.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import engine  # noqa: E402


def play(mode: str, seed: int) -> int:
    """Play one random game to the end; return the number of actions applied."""
    rng = random.Random(seed)
    s = engine.new_game(mode, seed)
    n = 0
    legal_actions, apply, choice = engine.legal_actions, engine.apply, rng.choice
    while s.phase != "over":
        s, _ = apply(s, choice(legal_actions(s)))
        n += 1
    return n


def run(mode: str, games: int, first_seed: int) -> tuple[float, float, float]:
    """Return (games/s, actions/s, us per step) for `games` games starting at `first_seed`."""
    t0 = time.perf_counter()
    actions = sum(play(mode, first_seed + i) for i in range(games))
    dt = time.perf_counter() - t0
    return games / dt, actions / dt, dt / actions * 1e6


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=300)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    for mode in ("duo", "solo"):
        rows = [run(mode, args.games, 1000 * r) for r in range(args.repeat)]
        gps, aps, us = (statistics.median(c) for c in zip(*rows, strict=True))
        print(f"{mode:4}: {gps:7.1f} games/s  {aps:9.0f} actions/s  {us:6.2f} us/step  "
              f"(median of {args.repeat} x {args.games} games)")


if __name__ == "__main__":
    main()
