"""The phone's second reducer (pwa/js/replay.js) against the engine, in Node, over many seeded games.

Between two server views the phone may show the board step by step, each event's public effect applied
to a copy of the view. Those boards are decoration over the truth (pwa/js/present.js shows a replay
only when it ends exactly at the server's view), yet they must never drift: for every version of many
seeded solo and duo games, as every seat and the table screen receive them, replaying the version's
events (and the events of several versions at once, as after a gap) from the view before gives the
engine's view after, and no replayed board is in phase "over" without a result.
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import engine
from tests.node import node_command

ROOT = Path(__file__).resolve().parents[2]
CHECK = ROOT / "tests" / "pwa" / "replay_check.mjs"
SEEDS = range(12)  # per mode: 24 whole games, some 20,000 replays


def games(mode: str, seed: int):
    """Play one game with seeded random legal moves; yield what each seat (None: the table) received."""
    rng = random.Random(seed * 7919 + len(mode))
    s = engine.new_game(mode, seed)
    seats = [0, 1, None] if mode == "duo" else [0, None]
    views = {x: [engine.view(s, x)] for x in seats}
    events = {x: [[]] for x in seats}
    while s.phase != "over":
        legal = engine.legal_actions(s)
        ends = [a for a in legal if a["type"] == "end_phase"]
        action = ends[0] if ends and rng.random() < 0.6 else rng.choice(legal)
        s, evs = engine.apply(s, action)
        for x in seats:
            views[x].append(engine.view(s, x))
            events[x].append(engine.redact_events(evs, x))
    for x in seats:
        yield {"mode": mode, "seed": seed, "seat": x, "views": views[x], "events": events[x]}


def test_replay_reaches_every_engine_view_over_many_games(tmp_path):
    data = tmp_path / "games.jsonl"
    with data.open("w", encoding="utf-8") as out:
        for mode in ("solo", "duo"):
            for seed in SEEDS:
                for game in games(mode, seed):
                    out.write(json.dumps(game, separators=(",", ":")) + "\n")
    with data.open("rb") as stdin:
        run = subprocess.run([*node_command(), str(CHECK)], stdin=stdin, cwd=ROOT, capture_output=True,
                             timeout=600, check=False)
    assert run.returncode == 0, run.stderr.decode()
    result = json.loads(run.stdout.decode().strip().splitlines()[-1])
    assert result["games"] == len(SEEDS) * 5  # duo: two seats and the table; solo: the seat and the table
    assert result["checked"] > 10000, result
    assert not result["bad"], result["bad"]
    assert result["overBoards"] == 0
