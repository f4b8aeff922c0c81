"""gunicorn as deployed (deploy/gunicorn.conf.py: JSON lines, access log on) on a private Redis writes no
join code in any line: not in its access lines, not in its warnings about refused request lines, which
quote the line whole, query string included.

Issue 18: "gunicorn's 'Invalid request line' warning logs a query string holding a live join code".
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import requests

from tests.live.servers import free_port
from tests.redis_server import RedisServer

ROOT = Path(__file__).resolve().parents[2]


def test_deployed_gunicorn_logs_no_join_code(redis_server: RedisServer, tmp_path: Path) -> None:
    port, log = free_port(), tmp_path / "gunicorn.log"
    (tmp_path / "metrics").mkdir()
    env = {**os.environ, "PYTHONPATH": str(ROOT), "REDIS_URL": redis_server.url, "BIND": f"127.0.0.1:{port}",
           "WEB_CONCURRENCY": "1", "ALCABOHNE_SOCKETS": "8",
           "PROMETHEUS_MULTIPROC_DIR": str(tmp_path / "metrics")}
    env.pop("ALCABOHNE_STORE_URL", None)
    with log.open("wb") as out:
        proc = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", "deploy/gunicorn.conf.py",
                                 "--no-control-socket", "api:create_app()"], cwd=ROOT, env=env,
                                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT)
    base = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                if requests.get(base + "/healthz", timeout=1).status_code == 200:
                    break
            except (requests.ConnectionError, requests.Timeout):  # not listening, or the worker still loading
                time.sleep(0.1)
            assert proc.poll() is None, log.read_text(errors="replace")
        game = requests.post(base + "/api/v1/games", json={"mode": "duo"}, timeout=10).json()
        code, game_id = game["join_code"], game["game_id"]
        for line in (f"GET /api/v1/games/{game_id}/qr.svg?code={code}\x01 HTTP/1.1\r\nHost: a\r\n\r\n",
                     f"GET /api/v1/games/{game_id}/qr.svg?code={code} HTTP/1.1 x\r\nHost: a\r\n\r\n"):
            with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
                conn.sendall(line.encode("latin-1"))
                assert conn.recv(4096).startswith(b"HTTP/1.1 400")
        served = requests.get(f"{base}/api/v1/games/{game_id}/qr.svg", params={"code": code}, timeout=10)
        assert served.status_code == 200
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    text = log.read_text(errors="replace")
    lines = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    warnings = [entry["msg"] for entry in lines if "Invalid" in entry["msg"]]
    assert warnings, "gunicorn logged no warning about the refused request lines"
    assert any("qr.svg" in entry["msg"] for entry in lines)  # the access line of the served request
    assert code not in text.upper()
