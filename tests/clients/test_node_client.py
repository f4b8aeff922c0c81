"""The official JavaScript client (pwa/js/client.js) plays complete games against a real server.

examples/node/play.mjs uses nothing but the client: a duo game (seat 0 follows and moves over the live
socket, seat 1 moves over HTTP) and a solo game, each to the end. The server is gunicorn on a private
redis-server; afterwards the game is read back over HTTP, so the script's word is not the only evidence.
"""

from __future__ import annotations

import json
import subprocess
import urllib.request
from pathlib import Path

import pytest

from tests.live.servers import Gunicorn
from tests.node import node_command

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "examples" / "node" / "play.mjs"


def play(server: Gunicorn, mode: str, seed: int) -> dict:
    """Run the example to the end; return its summary (the JSON last line)."""
    args = [*node_command(), str(EXAMPLE), "--server", server.url, "--mode", mode, "--seed", str(seed)]
    run = subprocess.run(args, cwd=ROOT, capture_output=True, text=True, check=False, timeout=600)
    assert run.returncode == 0, run.stdout + run.stderr
    lines = run.stdout.strip().splitlines()
    assert lines[0].startswith(f"{mode} game ") and " over at version " in lines[0]
    return json.loads(lines[-1])


def read_game(server: Gunicorn, game_id: str) -> dict:
    with urllib.request.urlopen(f"{server.url}/api/v1/games/{game_id}", timeout=10) as resp:
        return json.load(resp)


@pytest.mark.parametrize("seed", [1, 2])
def test_a_duo_game_to_the_end(server, seed):
    summary = play(server, "duo", seed)
    game = read_game(server, summary["game_id"])  # the table view, as anyone sees it
    assert game["view"]["phase"] == "over" and game["version"] == summary["version"]
    assert game["view"]["result"] == summary["result"]
    assert [s["name"] for s in game["seats"]] == ["Node host", "Node guest"]
    moves = summary["moves"]
    # Version 1 is the creation, 2 the join; every move made exactly one version (none lost, none twice).
    assert moves["socket"] > 0 and moves["http"] > 0
    assert 2 + moves["socket"] + moves["http"] == summary["version"]
    # Seat 0 waited for seat 1's moves on its socket (pushes may skip a version: at most the join and
    # every version seat 1 made), and never for its own.
    assert 0 < moves["followed"] <= moves["http"] + 1


def test_a_solo_game_to_the_end(server):
    summary = play(server, "solo", 3)
    game = read_game(server, summary["game_id"])
    assert game["view"]["phase"] == "over" and game["view"]["mode"] == "solo"
    assert game["version"] == summary["version"] == 1 + summary["moves"]["http"]
    assert game["view"]["result"] == summary["result"]
    assert len(summary["result"]["scores"]) == 1
