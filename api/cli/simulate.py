"""`alcabohne simulate`: bots play many games against each other or the Mafia; print win rates.

Engine only (no Flask). Duo games are played in pairs on the same deal with the seats swapped, so
neither bot profits from the deal or from starting (each deal is played from both seats). Solo runs
every named bot on the same deals. Wins follow R102/R103: in duo the Mafia can beat both seats, and
equal best scores share the win; rates carry 95% Wilson score intervals.
"""

from __future__ import annotations

import math
import sys
import time
from dataclasses import dataclass, field

import engine
from engine.bots import BOTS, choose

_MASK = (1 << 63) - 1


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Return the Wilson score interval (low, high) for `k` successes in `n` trials; (0, 1) if n = 0."""
    if n == 0:
        return 0.0, 1.0
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def play_game(mode: str, seats: list[str], deal_seed: int, bot_seed: int, budget: dict) -> dict:
    """Play one game with bot `seats[i]` at seat i; return the engine's result dict (R101-R103).

    Every bot decision gets its own seed derived from `bot_seed` and the move number; `budget` is
    passed to the bots that take one (mc). Raises whatever the engine or a bot raises."""
    s = engine.new_game(mode, deal_seed)
    moves = 0
    while s.phase != "over":
        seat = s.active
        name = seats[seat]
        seed = (bot_seed * 1_000_003 + moves * 7919 + seat) & _MASK
        action = choose(name, engine.view(s, seat), seed, **(budget if name == "mc" else {}))
        s, _ = engine.apply(s, action)
        moves += 1
    return s.result


@dataclass
class Job:
    """One game of a run: `index` orders results; `seats` names the bot at each seat."""

    index: int
    mode: str
    seats: list[str]
    deal_seed: int
    bot_seed: int
    budget: dict = field(default_factory=dict)


def _run_job(job: Job) -> tuple[int, list[str], dict]:
    return job.index, job.seats, play_game(job.mode, job.seats, job.deal_seed, job.bot_seed, job.budget)


def make_jobs(mode: str, bots: list[str], games: int, seed: int, budget: dict) -> list[Job]:
    """Return the games of a run. Duo: game 2k and 2k+1 share a deal with the two bots' seats swapped.
    Solo: each bot plays `games` games on deals seed, seed+1, ...

    Raises ValueError for an unknown bot, a duo run without exactly two bots, or games < 1."""
    unknown = [b for b in bots if b not in BOTS]
    if unknown:
        raise ValueError(f"unknown bot {unknown[0]!r}; known: {', '.join(BOTS)}")
    if games < 1:
        raise ValueError("games must be at least 1")
    if mode == "duo":
        if len(bots) != 2:
            raise ValueError("duo needs exactly two bots, e.g. --bots mc,greedy")
        return [Job(i, mode, bots if i % 2 == 0 else bots[::-1], seed + i // 2, seed + i, budget)
                for i in range(games)]
    if mode != "solo":
        raise ValueError(f"mode must be solo or duo, got {mode!r}")
    return [Job(i, mode, [bot], seed + i % games, seed + i, budget)
            for i, bot in enumerate(b for b in bots for _ in range(games))]


def run(mode: str, bots: list[str], games: int, seed: int, jobs: int = 1, budget: dict | None = None,
        progress=None) -> list[tuple[list[str], dict]]:
    """Play a run; return (seats, result) per game in game order.

    `jobs` > 1 plays games in that many spawned processes (so a script calling this with jobs > 1
    needs the usual `if __name__ == "__main__":` guard); results do not depend on `jobs`.
    `progress(done, total)` is called after each game. Raises ValueError like `make_jobs`."""
    work = make_jobs(mode, bots, games, seed, budget or {})
    out: list = [None] * len(work)
    done = 0

    def record(item):
        nonlocal done
        index, seats, result = item
        out[index] = (seats, result)
        done += 1
        if progress:
            progress(done, len(work))

    if jobs > 1:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(jobs) as pool:  # no fork of a threaded parent
            for item in pool.imap_unordered(_run_job, work, chunksize=1):
                record(item)
    else:
        for job in work:
            record(_run_job(job))
    return out


# ---------------------------------------------------------------- summaries

def _rate(k: int, n: int) -> str:
    lo, hi = wilson(k, n)
    pct = 100 * k / n if n else 0.0
    return f"{k:5d}/{n:<5d} {pct:5.1f}%  [{100 * lo:5.1f}, {100 * hi:5.1f}]"


def summarize_duo(games: list[tuple[list[str], dict]]) -> dict:
    """Return per-bot counts of a duo run: wins (alone), shared wins, score sums; Mafia wins;
    games decided between the two bots (exactly one of them won); higher raw score between them."""
    names = list(dict.fromkeys(games[0][0]))
    if len(names) == 1:  # a bot against itself: tell the seats apart by the first game's seating
        names = [f"{names[0]}#1", f"{names[0]}#2"]
    stats = {n: {"wins": 0, "shared": 0, "score": 0, "higher": 0} for n in names}
    mafia = mafia_score = equal = 0
    for i, (seats, result) in enumerate(games):
        who = seats if len(set(seats)) == 2 else (names if i % 2 == 0 else names[::-1])
        winners = result["winners"]
        mafia_score += result["mafia"]
        if winners == ["mafia"]:
            mafia += 1
        for seat, name in enumerate(who):
            stats[name]["score"] += result["scores"][seat]
            if seat in winners:
                stats[name]["wins" if len(winners) == 1 else "shared"] += 1
        a, b = result["scores"]
        if a == b:
            equal += 1
        else:
            stats[who[0 if a > b else 1]]["higher"] += 1
    return {"names": names, "games": len(games), "stats": stats, "mafia_wins": mafia,
            "mafia_score": mafia_score, "equal": equal}


def format_duo(s: dict) -> str:
    """Return the printable table of `summarize_duo`."""
    n = s["games"]
    a, b = s["names"]
    st = s["stats"]
    lines = [f"duo: {a} vs {b}, {n} games (pairs of deals with seats swapped)",
             f"{'':8} {'wins (alone)':>13} {'rate':>6}  {'95% CI':>14} {'shared':>7} {'avg score':>10}"]
    for name in (a, b):
        x = st[name]
        lines.append(f"{name:8} {_rate(x['wins'], n)} {x['shared']:7d} {x['score'] / n:10.2f}")
    lines.append(f"{'Mafia':8} {_rate(s['mafia_wins'], n)} {'':7} {s['mafia_score'] / n:10.2f}")
    decided = st[a]["wins"] + st[b]["wins"]
    lines.append(f"decided between the bots (one of them won alone): {decided} games; "
                 f"{a} won {_rate(st[a]['wins'], decided)}")
    scored = st[a]["higher"] + st[b]["higher"]
    lines.append(f"higher score of the two (Mafia ignored): {a} {st[a]['higher']}, {b} {st[b]['higher']}, "
                 f"equal {s['equal']}; {a}: {_rate(st[a]['higher'], scored)} of unequal games")
    return "\n".join(lines)


def summarize_solo(games: list[tuple[list[str], dict]]) -> dict:
    """Return per-bot solo counts: games, wins, score and Mafia score sums, longest win streak
    (in deal order)."""
    stats: dict = {}
    for seats, result in games:
        x = stats.setdefault(seats[0], {"games": 0, "wins": 0, "score": 0, "mafia": 0, "streak": 0,
                                         "best": 0})
        x["games"] += 1
        x["score"] += result["scores"][0]
        x["mafia"] += result["mafia"]
        if result["winners"] == [0]:
            x["wins"] += 1
            x["streak"] += 1
            x["best"] = max(x["best"], x["streak"])
        else:
            x["streak"] = 0
    return stats


def format_solo(stats: dict) -> str:
    """Return the printable table of `summarize_solo`."""
    lines = [f"solo: {' / '.join(stats)}, each on the same deals",
             f"{'':8} {'wins':>13} {'rate':>6}  {'95% CI':>14} {'avg score':>10} {'avg Mafia (x2)':>15} "
             f"{'best streak':>12}"]
    for name, x in stats.items():
        n = x["games"]
        lines.append(f"{name:8} {_rate(x['wins'], n)} {x['score'] / n:10.2f} {x['mafia'] / n:15.2f} "
                     f"{x['best']:12d}")
    return "\n".join(lines)


def main(mode: str, bots: list[str], games: int, seed: int, jobs: int = 1, budget: dict | None = None,
         out=None, err=None) -> int:
    """Run a simulation with progress on `err` and the table on `out` (default: stderr, stdout);
    return an exit status (2 for a bad run, with the reason on `err`)."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        make_jobs(mode, bots, games, seed, budget or {})
    except ValueError as e:
        print(f"alcabohne simulate: {e}", file=err)
        return 2
    start = time.monotonic()
    step = max(1, games // 50)

    def progress(done: int, total: int) -> None:
        if done % step == 0 or done == total:
            rate = done / max(time.monotonic() - start, 1e-9)
            print(f"[{done}/{total}] games, {rate:.2f} games/s", file=err, flush=True)

    results = run(mode, bots, games, seed, jobs, budget, progress)
    text = format_duo(summarize_duo(results)) if mode == "duo" else format_solo(summarize_solo(results))
    print(text, file=out)
    print(f"({time.monotonic() - start:.1f} s, seed {seed}, budget {budget or 'default'})", file=out)
    return 0
