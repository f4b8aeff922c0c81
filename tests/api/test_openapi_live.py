"""The document against the deployed shape: gunicorn (two gthread workers) over a private Redis.

schemathesis' own command (`st run`, as a third party would use it) reads the document from the running
server and sends every operation its examples, its coverage cases and a few fuzzed requests over real
HTTP, checking every answer with all its checks (status, content type, headers, body, 405 with Allow).
Twice: as a stranger, then as the first seat of a real duo game (its id in every path, its token on
every request), so that the requests reach the game. Deterministic (the same cases every run). The
in-process run (test_api_openapi.py) goes deeper; this one shows the same holds through gunicorn and
Redis.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
import redis

from api.http import openapi
from tests.live.servers import Gunicorn

pytestmark = [pytest.mark.redis, pytest.mark.gunicorn]

# Limits off (0), as in test_api_openapi.py: the 429s are covered by the recorded examples.
UNLIMITED = {f"ALCABOHNE_{kind}_LIMIT": "0" for kind in ("CREATE", "MOVE", "HELLO", "TRANSFER", "JOIN",
                                                          "JOIN_TOTAL")}
ST = [sys.executable, "-m", "schemathesis.cli"]  # the `st` command, from the interpreter under test


def _post(url: str, body: dict) -> dict:
    request = urllib.request.Request(url, json.dumps(body).encode(), {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as resp:
        return json.load(resp)


def _st(url: str, workdir: Path, config: str = "", *extra: str) -> subprocess.Popen:
    """Start `st run` on the document at `url` (its files in `workdir`); `_passed` reads its end."""
    workdir.mkdir()
    (workdir / "schemathesis.toml").write_text(config, encoding="utf-8")
    return subprocess.Popen(
        [*ST, "--config-file", str(workdir / "schemathesis.toml"), "run", url + openapi.SPEC_URL,
         "--checks", "all", "--phases", "examples,coverage,fuzzing", "--max-examples", "8",
         "--generation-deterministic", "--workers", "1", "--no-color", "--report-dir", str(workdir), *extra],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, stdin=subprocess.DEVNULL, cwd=workdir)


def _passed(run: subprocess.Popen) -> str:
    """Wait for a started `st run`; return its output after asserting it passed."""
    stdout, stderr = run.communicate(timeout=600)
    assert run.returncode == 0, stdout[-6000:] + stderr[-2000:]
    assert "Tested: 13" in stdout, stdout[-3000:]
    cases = re.search(r"(\d+) generated, (\d+) passed", stdout)
    assert cases and cases[1] == cases[2] and int(cases[1]) > 300, stdout[-3000:]
    return stdout


def test_gunicorn_over_redis_keeps_to_the_document(redis_server, tmp_path):
    with redis.Redis.from_url(redis_server.url) as client:
        client.flushall()
    with Gunicorn(redis_server.url, workers=2, threads=4, extra_env=UNLIMITED) as server:
        game = _post(f"{server.url}/api/v1/games", {"mode": "duo"})
        _post(f"{server.url}/api/v1/games/join", {"code": game["join_code"]})
        seated = (f'[parameters]\n"path.game_id" = "{game["game_id"]}"\n\n'
                  f'[headers]\nAuthorization = "Bearer {game["token"]}"\n')
        # Both runs at once (the stranger's requests cannot reach the seated game: it knows neither its
        # id nor a token). A schema-valid action may still be illegal now (422): that is the rules, not
        # the document.
        runs = [_st(server.url, tmp_path / "stranger"),
                _st(server.url, tmp_path / "seated", seated, "--exclude-checks", "positive_data_acceptance")]
        try:
            for run in runs:
                _passed(run)
        finally:
            for run in runs:
                if run.poll() is None:
                    run.kill()
                    run.communicate()
