"""gunicorn as deployed (deploy/gunicorn.conf.py, 2 workers, Redis): probes, /metrics summed over the
workers, JSON logs with request ids, and no seat token in any log line, gunicorn's access log included."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.cli.netclient import HttpApi, LiveSocket
from tests.live.play import duo_game
from tests.live.servers import ROOT, free_port
from tests.redis_server import RedisServer, require_redis_server, terminate

pytestmark = [pytest.mark.redis, pytest.mark.gunicorn, pytest.mark.timeout(120)]


class Deployed:
    """`gunicorn -c deploy/gunicorn.conf.py api:create_app()` as systemd would start it; all its output
    (stdout and stderr: access and error logs) goes to `log_path`."""

    def __init__(self, redis_url: str, tmp: Path):
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.log_path = tmp / "gunicorn.log"
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), "REDIS_URL": redis_url,
                    "BIND": f"127.0.0.1:{self.port}", "WEB_CONCURRENCY": "2", "ALCABOHNE_SOCKETS": "16",
                    "PROMETHEUS_MULTIPROC_DIR": str(tmp / "metrics"), "LOG_LEVEL": "debug",
                    "ALCABOHNE_WS_PING_INTERVAL": "2"}
        self.env.pop("ALCABOHNE_STORE_URL", None)
        self.proc: subprocess.Popen | None = None

    def __enter__(self) -> Deployed:
        with open(self.log_path, "wb") as log:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "gunicorn", "-c", "deploy/gunicorn.conf.py", "api:create_app()"],
                cwd=ROOT, env=self.env, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline and self.proc.poll() is None:
            try:
                with urllib.request.urlopen(self.url + "/healthz", timeout=1):
                    return self
            except OSError:
                time.sleep(0.1)
        self.__exit__()
        raise RuntimeError("gunicorn did not start:\n" + self.log_path.read_text(errors="replace"))

    def __exit__(self, *exc) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            terminate(proc, grace=15)

    def log_text(self) -> str:
        return self.log_path.read_text(errors="replace")


@pytest.fixture
def redis_server() -> Iterator[RedisServer]:
    require_redis_server()
    with RedisServer() as server:
        yield server


def _get(url: str, headers: dict | None = None) -> tuple[int, dict, str]:
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            return resp.status, dict(resp.headers), resp.read().decode()
    except urllib.error.HTTPError as err:
        with err:
            return err.code, dict(err.headers), err.read().decode()


def _sample(metrics: str, name: str) -> float:
    """Return the value of one sample line (`name` includes its labels), 0 when absent."""
    for line in metrics.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    return 0.0


def test_deployed_server_is_observable_and_logs_no_token(redis_server: RedisServer, tmp_path: Path) -> None:
    secrets: list[str] = []
    with Deployed(redis_server.url, tmp_path) as server:
        http = HttpApi(server.url)
        game_id, tokens = duo_game(http)
        secrets += tokens.values()
        bad = "x" * 20 + tokens[0][20:]  # looks like a token, holds no seat
        secrets.append(bad)

        # Moves over HTTP with tokens in Authorization, a request id of our own on one of them.
        for _ in range(4):
            active = http.get(game_id)["view"]["active"]
            game = http.get(game_id, tokens[active])
            http.act(game_id, tokens[active], game["view"]["legal_actions"][0], game["version"])
        status, headers, _ = _get(f"{server.url}/api/v1/games/{game_id}",
                                  {"Authorization": f"Bearer {tokens[0]}", "X-Request-Id": "trace-me-42"})
        assert status == 200 and headers["X-Request-Id"] == "trace-me-42"
        status, headers, _ = _get(f"{server.url}/api/v1/games/{game_id}", {"Authorization": f"Bearer {bad}"})
        assert status == 401 and re.fullmatch(r"[0-9a-f]{32}", headers["X-Request-Id"])
        _get(f"{server.url}/api/v1/games/{game_id}?token={bad}")  # a token where it does not belong

        # Websockets: hello with each seat's token, and one with the bad token (refused).
        socks = [LiveSocket(server.url, game_id, tokens[seat]).connect() for seat in (0, 1)]
        try:
            for sock in socks:
                sock.wait(lambda f: f["type"] == "state")
            refused = LiveSocket(server.url, game_id, bad).connect()
            assert refused.wait(lambda f: f["type"] == "error")["code"] == "bad_token"
            refused.close()
            # The active-games gauge: moves are written to Redis once a second per worker
            # (api.ops.active_games), so a scrape on the other worker may lag by that much.
            deadline = time.monotonic() + 5
            while _sample(_get(server.url + "/metrics")[2], 'alcabohne_active_games{window="300"}') != 1:
                assert time.monotonic() < deadline, "the active game was never counted"
                time.sleep(0.1)
            # Scrapes land on either worker; each must show the sum over both (multiprocess mode).
            for _ in range(6):
                status, _headers, metrics = _get(server.url + "/metrics")
                assert status == 200
                assert _sample(metrics, 'alcabohne_actions_total{outcome="ok",transport="http"}') == 4
                assert _sample(metrics, "alcabohne_open_sockets") == 2
                assert _sample(metrics, 'alcabohne_active_games{window="300"}') == 1
                assert _sample(metrics, 'alcabohne_action_seconds_count{transport="http"}') == 4
        finally:
            for sock in socks:
                sock.close()

        assert _get(server.url + "/readyz")[0] == 200
        redis_server.stop()
        assert _get(server.url + "/readyz")[0] == 503
        assert _get(server.url + "/healthz")[0] == 200  # alive: a store outage is no reason to restart us
        redis_server.start()
    text = server.log_text()

    lines = [line for line in text.splitlines() if line.strip()]
    assert lines
    for line in lines:
        entry = json.loads(line)  # every line is one JSON object
        assert {"ts", "level", "logger", "msg"} <= set(entry)
    access = [json.loads(line) for line in lines if '"gunicorn.access"' in line]
    assert any("rid=trace-me-42" in entry["msg"] for entry in access)
    assert any('"GET /api/v1/games/' in entry["msg"] for entry in access)
    for secret in secrets:
        for part in (secret, secret[:16], secret[-16:]):
            assert part not in text, "a seat token reached the logs"
