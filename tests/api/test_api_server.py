"""(h) `api.cli.serve.serve` really starts gunicorn and answers (embedded SQLite; Redis with two workers)."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from api.cli.serve import check_port, public_base, serve
from tests.live.servers import refuse_in_fast_lane

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def request(url: str, body: dict | None = None, headers: dict | None = None) -> tuple[int, dict]:
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json", **(headers or {})}
    req = urllib.request.Request(url, data=data, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            return resp.status, json.loads(resp.read())
    except urllib.error.HTTPError as err:
        with err:
            return err.code, json.loads(err.read())


def start(tmp_path, workers: int = 1, redis_url: str | None = None):
    refuse_in_fast_lane()
    port = free_port()
    code = (f"from api.cli.serve import serve; "
            f"serve('127.0.0.1', {port}, {workers}, {str(tmp_path)!r}, None, {redis_url!r})")
    env = {k: v for k, v in os.environ.items() if k != "REDIS_URL"}
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise AssertionError(f"server exited: {proc.stdout.read()}")
        try:
            if request(f"{base}/api/v1/health")[0] == 200:
                return proc, base
        except OSError:
            time.sleep(0.1)
    stop(proc)
    raise AssertionError("server did not answer in 20 s")


def stop(proc) -> str:
    proc.send_signal(signal.SIGTERM)
    try:
        out, _ = proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    return out


def play_a_little(base: str) -> None:
    status, game = request(f"{base}/api/v1/games", {"mode": "solo"})
    assert status == 201, game
    auth = {"Authorization": f"Bearer {game['token']}"}
    version = game["version"]
    for _ in range(5):
        view = request(f"{base}/api/v1/games/{game['game_id']}", headers=auth)[1]["view"]
        status, answer = request(f"{base}/api/v1/games/{game['game_id']}/actions",
                                 {"action": view["legal_actions"][0], "version": version}, auth)
        assert status == 200, answer
        assert answer["version"] == version + 1
        version = answer["version"]


@pytest.mark.gunicorn
def test_serve_starts_gunicorn_with_the_embedded_store(tmp_path):
    proc, base = start(tmp_path)
    try:
        play_a_little(base)
    finally:
        out = stop(proc)
    assert f"open {base}" in out
    assert "gthread" in out
    assert (tmp_path / "games.db").exists()


@pytest.mark.redis
@pytest.mark.gunicorn
def test_serve_runs_two_workers_on_redis(tmp_path, redis_server):
    proc, base = start(tmp_path, workers=2, redis_url=redis_server.url)
    try:
        play_a_little(base)
    finally:
        out = stop(proc)
    assert out.count("Booting worker") == 2


def test_embedded_store_refuses_several_workers(tmp_path, monkeypatch):
    monkeypatch.delenv("REDIS_URL", raising=False)
    with pytest.raises(SystemExit, match="one worker"):
        serve("127.0.0.1", free_port(), 2, str(tmp_path), None, None)


def test_public_url_defaults_to_the_lan_address():
    assert public_base("127.0.0.1", 8000, None) == "http://127.0.0.1:8000"
    assert public_base("0.0.0.0", 8000, "https://beans.example/") == "https://beans.example"
    assert public_base("0.0.0.0", 8000, None).endswith(":8000")


@pytest.mark.parametrize("listen_on, serve_on", [("127.0.0.1", "127.0.0.1"), ("0.0.0.0", None)],
                         ids=["same-address", "default-all-addresses"])
def test_a_taken_port_stops_serve_before_any_address_or_qr(tmp_path, listen_on, serve_on):
    """Issue 16: `./run` printed "open ... on the phones" and the QR code, then failed on a taken port."""
    with socket.socket() as taken:
        taken.bind((listen_on, 0))
        taken.listen()
        port = taken.getsockname()[1]
        args = ["serve", "--port", str(port), "--data-dir", str(tmp_path / "data")]
        if serve_on:
            args += ["--host", serve_on]
        env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "PORT")}
        done = subprocess.run([sys.executable, "-m", "api.cli", *args], cwd=ROOT, env=env,
                              capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 1
    assert done.stdout == ""  # no address, no QR code
    assert done.stderr == (f"Port {port} is already in use (another program, perhaps another alcabohne "
                           f"serve, listens on it): stop that program or choose another port with --port "
                           f"or PORT.\n")
    assert not (tmp_path / "data").exists()  # nor was the store opened


def test_a_free_port_passes_the_check_and_a_stopped_servers_last_connection_does_not_hold_it():
    with socket.socket() as listener:  # a server that just stopped: it bound as gunicorn binds
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind(("127.0.0.1", 0))
        listener.listen()
        port = listener.getsockname()[1]
        client = socket.create_connection(("127.0.0.1", port))
        server_side, _ = listener.accept()
        server_side.close()  # the server closes first: its side lingers in TIME_WAIT
        client.close()
    check_port("127.0.0.1", port)  # its connection lingers (TIME_WAIT), but gunicorn could bind
    check_port("127.0.0.1", free_port())


def test_the_production_app_has_no_benchmark_or_test_only_routes(monkeypatch):
    """The benchmarks' baselines live in tests/perf/baselines.py; the variables that once switched them
    (and a test-only debug frame) on in the production app do nothing."""
    from api import close as close_app
    from api import create_app
    from api.store.memory import MemoryStore

    for var in ("ALCABOHNE_BENCH", "ALCABOHNE_WS_BASELINE", "ALCABOHNE_WS_DEBUG"):
        monkeypatch.setenv(var, "1")
    store = MemoryStore()
    app = create_app({"STORE": store})
    try:
        routes = {rule.rule for rule in app.url_map.iter_rules()}
        assert "/api/v1/games/<game_id:game_id>/ws" in routes
        assert not [r for r in routes if "bench" in r], routes
        assert not {"BENCH", "WS_BASELINE", "WS_DEBUG"} & set(app.config)
    finally:
        close_app(app)
        store.close()
