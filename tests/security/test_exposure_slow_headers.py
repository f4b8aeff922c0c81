"""deploy/nginx.conf in front of real gunicorn (one worker, few threads) on a private Redis: 250 clients
that send their headers one line at a time do not stop `/healthz`, since nginx holds them and passes a
request on only once it has arrived whole (README "Deploying": on the internet nginx sits in front).

Issue 18, finding 5: 130 such connections stopped `/healthz` of `./run` (gunicorn alone) for 30 s; the
same 250 connections sent straight to this gunicorn leave `/healthz` unanswered (5 s timeouts, tried
by hand). This test passed before the nginx settings of issue 18 as well: nginx always buffered headers;
it holds that deploy/nginx.conf keeps doing so.
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import requests

from tests.deploy.test_deploy_files import DEPLOY, _need
from tests.live.servers import ROOT, Gunicorn, free_ports
from tests.redis_server import RedisServer

SLOW = 250


@pytest.fixture
def nginx_in_front(redis_server: RedisServer, tmp_path: Path) -> Iterator[str]:
    """nginx (deploy/nginx.conf, plain HTTP on loopback) in front of gunicorn; its base URL."""
    nginx = _need("nginx", "nginx")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                    "/CN=localhost", "-keyout", tmp_path / "key.pem", "-out", tmp_path / "cert.pem"],
                   check=True, capture_output=True)
    (tmp_path / "logs").mkdir()
    with Gunicorn(redis_server.url, workers=1, threads=4, extra_env={"ALCABOHNE_PROXY_COUNT": "1"}) as app:
        port, tls_port, redirect_port = free_ports(3)
        site = (DEPLOY / "nginx.conf").read_text()
        site = (site.replace("/etc/letsencrypt/live/beans.example/fullchain.pem", str(tmp_path / "cert.pem"))
                    .replace("/etc/letsencrypt/live/beans.example/privkey.pem", str(tmp_path / "key.pem"))
                    .replace("/var/log/nginx/", f"{tmp_path}/logs/")
                    .replace("root /opt/alcabohne/pwa;", f"root {ROOT / 'pwa'};")
                    .replace("server 127.0.0.1:8000", f"server 127.0.0.1:{app.port}")
                    .replace("    listen [::]:80;\n", "").replace("    listen [::]:443 ssl http2;\n", "")
                    .replace("listen 80;", f"listen 127.0.0.1:{redirect_port};")
                    .replace("listen 443 ssl http2;", f"listen 127.0.0.1:{tls_port} ssl http2;\n"
                                                      f"    listen 127.0.0.1:{port};"))
        (tmp_path / "site.conf").write_text(site)
        user = "user root;\n" if os.geteuid() == 0 else ""
        (tmp_path / "nginx.conf").write_text(
            f"{user}daemon off;\nworker_processes 1;\npid {tmp_path}/nginx.pid;\n"
            f"error_log {tmp_path}/logs/error.log;\nevents {{ worker_connections 2048; }}\n"
            f"http {{ include /etc/nginx/mime.types; include {tmp_path}/site.conf; }}\n")
        proc = subprocess.Popen([nginx, "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"),
                                 "-e", str(tmp_path / "logs/error.log")],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        try:
            for _ in range(100):
                with contextlib.suppress(requests.ConnectionError):
                    if requests.get(base + "/healthz", timeout=2).status_code == 200:
                        break
                assert proc.poll() is None, (tmp_path / "logs/error.log").read_text()
                time.sleep(0.1)
            yield base
        finally:
            proc.terminate()
            proc.wait(timeout=10)


def test_slow_headers_through_nginx_do_not_stop_healthz(nginx_in_front: str) -> None:
    port = int(nginx_in_front.rsplit(":", 1)[1])
    slow: list[socket.socket] = []
    try:
        for _ in range(SLOW):
            conn = socket.create_connection(("127.0.0.1", port), timeout=10)
            conn.sendall(b"GET /healthz HTTP/1.1\r\nHost: beans.example\r\n")
            slow.append(conn)
        for round_ in range(3):  # every client sends one more header line, and never the end
            for conn in slow:
                with contextlib.suppress(OSError):
                    conn.sendall(f"X-Slow-{round_}: 1\r\n".encode())
            for _ in range(5):
                resp = requests.get(nginx_in_front + "/healthz", timeout=10)
                assert resp.status_code == 200
            ready = requests.get(nginx_in_front + "/api/v1/health", timeout=10)
            assert ready.status_code == 200
    finally:
        for conn in slow:
            conn.close()
