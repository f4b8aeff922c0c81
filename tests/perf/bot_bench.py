"""Bot benchmark (issue 6): decision time of the `mc` bot with its default budget.

Run: .venv/bin/python tests/perf/bot_bench.py [--positions N] [--seed S]
Collects N decision points (views with more than one legal action) from greedy-vs-greedy duo games
and greedy solo games, then times `engine.bots.choose("mc", view, seed)` on each. Prints the median,
p99 and maximum decision time, and playouts per second (a playout = one root action played on from
one determinization). Target (issue 6): under 1 s per decision on this machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import engine  # noqa: E402
from engine.bots import choose, mc  # noqa: E402


def decision_views(n: int, seed: int) -> list[dict]:
    """Return `n` views with a real choice, from games of both modes played by the greedy bot."""
    views: list[dict] = []
    game = 0
    while len(views) < n:
        mode = ("duo", "solo")[game % 2]
        s = engine.new_game(mode, seed + game)
        k = 0
        while s.phase != "over" and len(views) < n:
            v = engine.view(s, s.active)
            if len(v["legal_actions"]) > 1 and k % 5 == 0:  # spread over the whole game
                views.append(v)
            s, _ = engine.apply(s, choose("greedy", v, k))
            k += 1
        game += 1
    return views


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=int, default=200)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    views = decision_views(args.positions, args.seed)
    count = 0
    real_playout = mc.playout

    def counting_playout(*a, **k):
        nonlocal count
        count += 1
        return real_playout(*a, **k)

    mc.playout = counting_playout  # counts playouts without touching the bot's code path
    times = []
    for i, v in enumerate(views):
        t0 = time.perf_counter()
        choose("mc", v, i)
        times.append(time.perf_counter() - t0)
    mc.playout = real_playout
    times.sort()
    p99 = times[min(len(times) - 1, int(0.99 * len(times)))]
    total = sum(times)
    print(f"mc default budget (playouts={mc.PLAYOUTS}, width={mc.WIDTH}, horizon={mc.HORIZON}, "
          f"gap={mc.GAP}) over {len(times)} decisions:")
    print(f"  median {1000 * statistics.median(times):7.1f} ms   p99 {1000 * p99:7.1f} ms   "
          f"max {1000 * times[-1]:7.1f} ms")
    print(f"  {count} playouts in {total:.1f} s: {count / total:.0f} playouts/s "
          f"({count / len(times):.0f} per decision on average; unsearched decisions count 0)")


if __name__ == "__main__":
    main()
