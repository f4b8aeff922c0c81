"""The phone's "Harvest & plant", against the engine, over many seeded games.

A harvest, then planting the front card or a display bundle on that field, is one tap on the phone and
two moves on the server; the phone sends the planting only if the answer to the harvest lists it
(pwa/js/sync.js), so an offer that the rules then refuse would leave half a move made. Here every such
offer pwa/js/targets.js makes, at every decision of many seeded solo and duo games, whatever bundle is
picked, is made in the engine move after move: each move must be legal when its turn comes.
"""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

import engine
from tests.node import node_command

ROOT = Path(__file__).resolve().parents[2]
OFFERS = ROOT / "tests" / "pwa" / "chains_offered.mjs"
SEEDS = range(20)  # per mode


def decisions(mode: str, seed: int):
    """The states of one game played with seeded random legal moves, at every decision."""
    rng = random.Random(seed * 104729 + len(mode))
    s = engine.new_game(mode, seed)
    while s.phase != "over":
        yield s
        legal = engine.legal_actions(s)
        ends = [a for a in legal if a["type"] == "end_phase"]
        s, _ = engine.apply(s, ends[0] if ends and rng.random() < 0.5 else rng.choice(legal))


def test_every_move_of_several_steps_the_phone_offers_is_legal_step_by_step(tmp_path):
    states = [s for mode in ("solo", "duo") for seed in SEEDS for s in decisions(mode, seed)]
    data = tmp_path / "views.jsonl"
    with data.open("w", encoding="utf-8") as out:
        for i, s in enumerate(states):
            out.write(json.dumps({"id": i, "view": engine.view(s, s.active)}, separators=(",", ":")) + "\n")
    with data.open("rb") as stdin:
        run = subprocess.run([*node_command(), str(OFFERS)], stdin=stdin, cwd=ROOT, capture_output=True,
                             timeout=600, check=False)
    assert run.returncode == 0, run.stderr.decode()
    kinds = {"plant_hand": 0, "plant_display": 0}
    refused = []
    for line in run.stdout.decode().splitlines():
        offer = json.loads(line)
        for chain in offer["chains"]:
            kinds[chain[-1]["type"]] += 1
            s = states[offer["id"]]
            for k, move in enumerate(chain):
                if move not in engine.legal_actions(s):
                    refused.append((offer["id"], chain, k))
                    break
                s, _ = engine.apply(s, move)
            assert chain[0]["type"] == "harvest" and len(chain) == 2, chain
            assert chain[1]["field"] == chain[0]["field"], chain
    assert not refused, refused[:5]
    # Both kinds were offered often enough for this to mean something.
    assert kinds["plant_hand"] > 300 and kinds["plant_display"] > 300, kinds
