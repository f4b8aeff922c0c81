"""`alcabohne serve` (real gunicorn, listening on every interface as on a LAN) keeps what is not for the
world: `/metrics` answers clients on the host only, and no log line holds a join code, not even
gunicorn's own warnings, which quote a refused request line whole.

Issue 18: "`/metrics` is public under `alcabohne serve`"; "gunicorn's 'Invalid request line' warning logs
a query string holding a live join code".
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from tests.live.servers import free_port

ROOT = Path(__file__).resolve().parents[2]


def local_address() -> str | None:
    """Return an IPv4 address of this host other than loopback (from /proc/net/fib_trie), or None."""
    try:
        lines = Path("/proc/net/fib_trie").read_text().splitlines()
    except OSError:
        return None
    for previous, line in zip(lines, lines[1:], strict=False):
        if "/32 host LOCAL" in line:
            address = previous.strip().split()[-1]
            if not address.startswith("127."):
                return address
    return None


def serve(tmp_path: Path, port: int, log: Path) -> subprocess.Popen:
    env = {k: v for k, v in os.environ.items() if k not in ("REDIS_URL", "ALCABOHNE_METRICS_LOCAL_ONLY")}
    # Behind one proxy the client's address is X-Forwarded-For's: a proxied outsider is no local client.
    env["ALCABOHNE_PROXY_COUNT"] = "1"
    with log.open("wb") as out:
        args = [sys.executable, "-m", "api.cli", "serve", "--host", "0.0.0.0", "--port", str(port),
                "--data-dir", str(tmp_path / "data")]
        proc = subprocess.Popen(args, cwd=ROOT, env=env, stdin=subprocess.DEVNULL, stdout=out,
                                stderr=subprocess.STDOUT)
    for _ in range(200):
        try:
            if requests.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except (requests.ConnectionError, requests.Timeout):  # not listening yet, or its worker still loading
            pass
        if proc.poll() is not None:
            break
        time.sleep(0.1)
    proc.kill()
    raise AssertionError("alcabohne serve did not start:\n" + log.read_text(errors="replace"))


def stop(proc: subprocess.Popen) -> None:
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def raw(port: int, data: bytes) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as conn:
        conn.sendall(data)
        return conn.recv(4096)


def test_serve_keeps_metrics_local_and_join_codes_out_of_its_logs(tmp_path) -> None:
    port, log = free_port(), tmp_path / "serve.log"
    proc = serve(tmp_path, port, log)
    try:
        local = requests.get(f"http://127.0.0.1:{port}/metrics", timeout=10)
        assert local.status_code == 200 and "alcabohne_" in local.text
        proxied = requests.get(f"http://127.0.0.1:{port}/metrics", headers={"X-Forwarded-For": "203.0.113.9"},
                               timeout=10)
        assert proxied.status_code == 404 and proxied.json()["code"] == "not_found"
        lan = local_address()
        if lan is None and os.environ.get("ALCABOHNE_CI") == "1":
            pytest.fail("no IPv4 address besides loopback to ask from")
        if lan is not None:  # a phone on the LAN
            outside = requests.get(f"http://{lan}:{port}/metrics", timeout=10)
            assert outside.status_code == 404 and "alcabohne_" not in outside.text

        game = requests.post(f"http://127.0.0.1:{port}/api/v1/games", json={"mode": "duo"}, timeout=10).json()
        code = game["join_code"]
        refused = [
            f"GET /api/v1/games/{game['game_id']}/qr.svg?code={code}\x01 HTTP/1.1\r\nHost: a\r\n\r\n",
            f"GET /api/v1/games/{game['game_id']}/qr.svg?code={code} HTTP/1.1 x\r\nHost: a\r\n\r\n",
            f"GET /?join=1&code={code.lower()} HTTP/1.1\r\nHost: a\r\nX-Long: {'a' * 70000}\r\n\r\n",
        ]
        for request in refused:
            assert raw(port, request.encode("latin-1")).startswith((b"HTTP/1.1 400", b"HTTP/1.1 431"))
        served = requests.get(f"http://127.0.0.1:{port}/api/v1/games/{game['game_id']}/qr.svg",
                              params={"code": code}, timeout=10)
        assert served.status_code == 200
    finally:
        stop(proc)
    text = log.read_text(errors="replace")
    assert "Invalid" in text  # gunicorn did log the refused request lines ...
    assert code not in text.upper()  # ... without the code
