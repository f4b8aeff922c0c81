"""`alcabohne play`, `simulate`, `verify` and `replay` run without the server's libraries.

Each command runs as the installed console script in a subprocess under `python -X importtime`, which
writes one line to stderr for every module the process imports; none of them may belong to Flask,
Werkzeug, flask-sock, Redis or gunicorn. `play --server` talks to a real server (in this process) so
that its whole client path, websocket included, is imported too.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

import engine
import engine.bots
from api.game import records

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = Path(sys.executable).parent / "alcabohne"
SERVER_ONLY = {"flask", "werkzeug", "flask_sock", "redis", "hiredis", "gunicorn", "flask_smorest",
               "marshmallow", "prometheus_client"}
IMPORT_LINE = re.compile(r"^import time:\s+\d+ \|\s+\d+ \|\s+(\S.*)$")


def imported(stderr: str) -> set[str]:
    """Return the top-level packages named by `-X importtime` lines in `stderr`."""
    return {m.group(1).strip().split(".")[0] for line in stderr.splitlines()
            if (m := IMPORT_LINE.match(line))}


def run(*args: str, stdin: str = "") -> tuple[subprocess.CompletedProcess, set[str]]:
    """Run `alcabohne ARGS` under -X importtime; return the result and the top-level packages imported."""
    done = subprocess.run([sys.executable, "-X", "importtime", str(SCRIPT), *args], input=stdin, cwd=ROOT,
                          capture_output=True, text=True, timeout=300, check=False)
    return done, imported(done.stderr)


@pytest.fixture(scope="module")
def record_file(tmp_path_factory) -> Path:
    """A finished duo game's record, made as the server makes it (greedy bot for both seats)."""
    state = engine.new_game("duo", 77, dealer=0)
    actions, version = [], 2
    while state.phase != "over":
        action = engine.bots.choose("greedy", engine.view(state, state.active), version)
        actions.append({"version": version, "seat": state.active, "action": action})
        state, _events = engine.apply(state, action)
        version += 1
    seats = [{"seat": 0, "who": "human"}, {"seat": 1, "who": "human"}]
    record = records.build("g1", "duo", 77, "ab" * 16, {"dealer": 0}, seats, actions,
                           engine.to_position(state)["result"])
    path = tmp_path_factory.mktemp("record") / "record.json"
    path.write_text(json.dumps(record))
    return path


def test_the_scan_sees_what_a_process_imports() -> None:
    done = subprocess.run([sys.executable, "-X", "importtime", "-c", "import flask, redis"], cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=True)
    assert {"flask", "werkzeug", "redis"} <= imported(done.stderr)


def test_the_console_script_is_installed() -> None:
    assert SCRIPT.is_file(), f"{SCRIPT} missing: install the project (./test does: pip install -e .)"


@pytest.mark.parametrize("args, stdin, expect", [
    (("play", "--seed", "5"), "1\n" * 4000, "Game over."),
    (("play", "--duo", "--seed", "6"), "1\n" * 20 + "q\n", "Replay this deal with --seed 6"),
    (("simulate", "--games", "2", "--bots", "greedy,random"), "", "greedy"),
], ids=["play", "play-duo", "simulate"])
def test_engine_commands_import_no_server_library(args, stdin, expect) -> None:
    done, mods = run(*args, stdin=stdin)
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    assert expect in done.stdout
    assert "engine" in mods and "api" in mods
    assert not mods & SERVER_ONLY, sorted(mods & SERVER_ONLY)


def test_verify_and_replay_import_no_server_library(record_file: Path) -> None:
    done, mods = run("verify", str(record_file))
    assert done.returncode == 0 and done.stdout.startswith("OK: "), done.stdout + done.stderr[-2000:]
    assert not mods & SERVER_ONLY, sorted(mods & SERVER_ONLY)
    done, mods = run("replay", "--all", str(record_file))
    assert done.returncode == 0 and "Game over." in done.stdout, done.stdout + done.stderr[-2000:]
    assert not mods & SERVER_ONLY, sorted(mods & SERVER_ONLY)


@pytest.fixture
def live_url() -> Iterator[str]:
    from api.store.memory import MemoryStore
    from tests.live.servers import ThreadServer

    store = MemoryStore()
    try:
        with ThreadServer(store, WS_PING_INTERVAL=1.0) as server:
            yield server.url
    finally:
        store.close()


def test_play_on_a_server_imports_no_server_library(live_url: str) -> None:
    done, mods = run("play", "--server", live_url, stdin="1\n" * 3 + "q\n")
    assert done.returncode == 0, done.stdout + done.stderr[-2000:]
    assert done.stdout.count("Your choice") == 4
    assert "simple_websocket" in mods
    assert not mods & SERVER_ONLY, sorted(mods & SERVER_ONLY)
