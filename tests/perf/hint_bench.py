"""Hint benchmark (issue 26): how well a player does who always follows the hint, and what it costs.

Run: .venv/bin/python tests/perf/hint_bench.py [--games N] [--seed S] [--jobs J] [--hints old,new,strict]
     [--modes solo,duo] [--out rows.jsonl]; --report rows.jsonl ... prints the figures of saved rows.
A seat plays every move the hint proposes (`engine.bots.hint.hint`, "new"; "old" is the hint as it was
before issue 26: exactly the greedy bot's choice). Solo: N games against the Mafia on deals S, S+1, ...
Duo: N games against the greedy bot, in pairs on one deal with the seats swapped. Prints, per hint and
mode: the hint seat's win rate (alone or shared, R102/R103) with a 95% Wilson interval, the average
scores, the share of proposed harvests that pay no coin (and how many of those were forced: harvesting
was all there was to do), and the hint's time per call (median, p99). Both hints play the same deals
with the same seeds, so their rows compare like with like.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import engine  # noqa: E402
from api.cli.simulate import wilson  # noqa: E402
from engine.bots import choose  # noqa: E402
from engine.bots.hint import hint  # noqa: E402

_MASK = (1 << 63) - 1


def old_hint(view: dict, seed: int) -> dict:
    return choose("greedy", view, seed)


def new_hint(view: dict, seed: int) -> dict:
    return hint(view, seed)[0]


def strict_hint(view: dict, seed: int) -> dict:
    return hint(view, seed, strict=True)[0]


# old: the hint before issue 26 (exactly the greedy bot); new: engine.bots.hint; strict: the new hint
# without the harvests that pay no coin unless forced.
HINTS = {"old": old_hint, "new": new_hint, "strict": strict_hint}


def play(job: tuple) -> dict:
    """Play one game: the hint `name` at `hint_seat`, greedy at the other seat (duo). Return the
    result and the hint's statistics."""
    name, mode, deal_seed, hint_seat = job
    follow = HINTS[name]
    s = engine.new_game(mode, deal_seed)
    moves = 0
    times, harvests, zero, forced = [], 0, 0, 0
    while s.phase != "over":
        seat = s.active
        view = engine.view(s, seat)
        seed = (deal_seed * 1_000_003 + moves * 7919 + seat) & _MASK
        if seat == hint_seat:
            t0 = time.perf_counter()
            action = follow(view, seed)
            times.append(time.perf_counter() - t0)
            if action["type"] == "harvest":
                harvests += 1
                if view["players"][seat]["harvest_values"][action["field"]] == 0:
                    zero += 1
                    forced += all(a["type"] in ("harvest", "buy_field") for a in view["legal_actions"])
        else:
            action = choose("greedy", view, seed)
        s, _ = engine.apply(s, action)
        moves += 1
    r = s.result
    return {"name": name, "mode": mode, "deal": deal_seed, "seat": hint_seat,
            "won": hint_seat in r["winners"], "score": r["scores"][hint_seat],
            "mafia": r["mafia"], "other": r["scores"][1 - hint_seat] if mode == "duo" else None,
            "times": times, "harvests": harvests, "zero": zero, "forced": forced}


def jobs_for(name: str, games: int, seed: int) -> list[tuple]:
    solo = [(name, "solo", seed + i, 0) for i in range(games)]
    duo = [(name, "duo", seed + i // 2, i % 2) for i in range(games)]
    return solo + duo


def report(rows: list[dict]) -> str:
    out = []
    for mode, against in (("solo", "the Mafia"), ("duo", "the greedy bot")):
        for name in sorted({r["name"] for r in rows}, reverse=True):
            rs = [r for r in rows if r["mode"] == mode and r["name"] == name]
            if not rs:
                continue
            n, won = len(rs), sum(r["won"] for r in rs)
            lo, hi = wilson(won, n)
            times = sorted(t for r in rs for t in r["times"])
            harv = sum(r["harvests"] for r in rs)
            zero = sum(r["zero"] for r in rs)
            forced = sum(r["forced"] for r in rs)
            other = (f" / greedy {statistics.mean(r['other'] for r in rs):.2f}" if mode == "duo" else "")
            out.append(
                f"{mode} vs {against}, {name} hint: won {won}/{n} = {100 * won / n:.1f}% "
                f"[{100 * lo:.1f}, {100 * hi:.1f}]  avg score {statistics.mean(r['score'] for r in rs):.2f}"
                f"{other} / Mafia {statistics.mean(r['mafia'] for r in rs):.2f}\n"
                f"    proposed harvests {harv}, paying no coin {zero} ({100 * zero / max(harv, 1):.1f}%), "
                f"of those forced {forced}; hint time per call: "
                f"median {1000 * statistics.median(times):.1f} ms"
                f"  p99 {1000 * times[int(0.99 * (len(times) - 1))]:.1f} ms  ({len(times)} calls)")
    return "\n".join(out)


def _write(out, row: dict) -> None:
    if out:
        out.write(json.dumps(row) + "\n")
        out.flush()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200, help="games per hint and mode (default 200)")
    ap.add_argument("--seed", type=int, default=9000)
    ap.add_argument("--jobs", type=int, default=1, help="processes (results do not depend on it)")
    ap.add_argument("--hints", default="old,new")
    ap.add_argument("--modes", default="solo,duo")
    ap.add_argument("--out", help="also append each game's row to this JSON-lines file as it ends")
    ap.add_argument("--report", nargs="+", metavar="FILE", help="only print the figures of --out files")
    ap.add_argument("--deals", type=int, help="with --report: only the games of the first DEALS deals")
    a = ap.parse_args()
    if a.report:
        lines = [line for f in a.report for line in Path(f).read_text("utf-8").splitlines()]
        rows = [json.loads(line) for line in lines if line]
        if a.deals:
            rows = [r for r in rows if r["deal"] < a.seed + a.deals]
        print(report(rows))
        return
    out = open(a.out, "a", encoding="utf-8") if a.out else None  # noqa: SIM115 - closed below
    work = [j for name in a.hints.split(",") for j in jobs_for(name, a.games, a.seed)
            if j[1] in a.modes.split(",")]
    rows = []
    t0 = time.perf_counter()
    if a.jobs > 1:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(a.jobs) as pool:
            for i, row in enumerate(pool.imap_unordered(play, work, chunksize=1), 1):
                rows.append(row)
                _write(out, row)
                print(f"\r{i}/{len(work)} games", end="", file=sys.stderr, flush=True)
    else:
        for i, job in enumerate(work, 1):
            rows.append(play(job))
            _write(out, rows[-1])
            print(f"\r{i}/{len(work)} games", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    if out:
        out.close()
    print(f"hint-following play, {a.games} games per hint and mode, deals from --seed {a.seed} "
          f"({time.perf_counter() - t0:.0f} s, --jobs {a.jobs}; time per call depends on the machine's load)")
    print(report(rows))


if __name__ == "__main__":
    main()
