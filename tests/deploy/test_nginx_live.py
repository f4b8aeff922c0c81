"""deploy/nginx.conf for real, on loopback: nginx in front of the app (werkzeug in a thread, memory
store) serves the client's files from disk with the app's caching rules, proxies the rest, and carries
a websocket game through its upgrade location. Skips without nginx (fails under ALCABOHNE_CI=1)."""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from api.cli.netclient import HttpApi, LiveSocket
from api.store.memory import MemoryStore
from tests.deploy.test_deploy_files import DEPLOY, _need
from tests.live.play import duo_game
from tests.live.servers import ROOT, ThreadServer, free_ports

pytestmark = pytest.mark.timeout(60)


@contextlib.contextmanager
def nginx_in_front(tmp_path: Path, app_port: int, changes: dict[str, str] | None = None) -> Iterator[str]:
    """Run deploy/nginx.conf (with `changes`: text -> replacement) in front of 127.0.0.1:`app_port`;
    yield its plain-HTTP base URL; stop it afterwards."""
    nginx = _need("nginx", "nginx")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                    "/CN=localhost", "-keyout", tmp_path / "key.pem", "-out", tmp_path / "cert.pem"],
                   check=True, capture_output=True)
    (tmp_path / "logs").mkdir()
    port, tls_port, redirect_port = free_ports(3)
    site = (DEPLOY / "nginx.conf").read_text()
    for old, new in (changes or {}).items():
        assert old in site, old
        site = site.replace(old, new)
    site = (site.replace("/etc/letsencrypt/live/beans.example/fullchain.pem", str(tmp_path / "cert.pem"))
                .replace("/etc/letsencrypt/live/beans.example/privkey.pem", str(tmp_path / "key.pem"))
                .replace("/var/log/nginx/", f"{tmp_path}/logs/")
                .replace("root /opt/alcabohne/pwa;", f"root {ROOT / 'pwa'};")
                .replace("server 127.0.0.1:8000", f"server 127.0.0.1:{app_port}")
                .replace("    listen [::]:80;\n", "").replace("    listen [::]:443 ssl http2;\n", "")
                .replace("listen 80;", f"listen 127.0.0.1:{redirect_port};")
                # The TLS server also listens in plain HTTP here: the same locations, no certificate
                # trust needed by the test's clients.
                .replace("listen 443 ssl http2;", f"listen 127.0.0.1:{tls_port} ssl http2;\n"
                                                  f"    listen 127.0.0.1:{port};"))
    (tmp_path / "site.conf").write_text(site)
    user = "user root;\n" if os.geteuid() == 0 else ""  # workers must read the checkout
    (tmp_path / "nginx.conf").write_text(
        f"{user}daemon off;\nworker_processes 1;\npid {tmp_path}/nginx.pid;\n"
        f"error_log {tmp_path}/logs/error.log;\nevents {{}}\n"
        f"http {{ include /etc/nginx/mime.types; include {tmp_path}/site.conf; }}\n")
    proc = subprocess.Popen([nginx, "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"),
                             "-e", str(tmp_path / "logs/error.log")],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 10
        while True:  # nginx answers (whatever the app behind it does)
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=1):
                    break
            except OSError:
                if time.monotonic() > deadline or proc.poll() is not None:
                    raise RuntimeError((tmp_path / "logs/error.log").read_text()) from None
                time.sleep(0.05)
        yield base
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.fixture
def fronted(tmp_path: Path) -> Iterator[tuple[str, ThreadServer]]:
    """(nginx's plain-HTTP base URL, the app behind it); both stopped afterwards."""
    with (ThreadServer(MemoryStore(), PROXY_COUNT=1, JOIN_LIMIT=1000) as app,
          nginx_in_front(tmp_path, int(app.url.rsplit(":", 1)[1])) as base):
        deadline = time.monotonic() + 10
        while True:
            try:
                urllib.request.urlopen(base + "/healthz", timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        yield base, app


def _fetch(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url, timeout=5) as resp:
            resp.read()
            return resp.status, {k.lower(): v for k, v in resp.headers.items()}
    except urllib.error.HTTPError as err:
        with err:
            return err.code, {k.lower(): v for k, v in err.headers.items()}


def test_nginx_serves_the_client_like_the_app(fronted) -> None:
    base, _app = fronted
    vendor = next(p for p in sorted((ROOT / "pwa/vendor").rglob("*.*js")) if "axe-core" not in p.parts)
    cases = {
        "/" + str(vendor.relative_to(ROOT / "pwa")): "public, max-age=604800",
        "/icons/icon-192.png": "public, max-age=604800",
        "/js/app.js": "no-cache",
        "/manifest.webmanifest": "public, max-age=3600",
        "/": "no-cache",        # proxied: the app writes the CSP with the import map's hash
        "/sw.js": "no-cache",   # proxied: the app fills in the build id
    }
    for path, cache in cases.items():
        status, headers = _fetch(base + path)
        assert status == 200, path
        assert headers["cache-control"] == cache, path
    assert "script-src" in _fetch(base + "/")[1]["content-security-policy"]
    assert _fetch(base + "/manifest.webmanifest")[1]["content-type"].startswith("application/manifest+json")
    assert _fetch(base + "/vendor/axe-core/axe.min.js")[0] == 404
    # nginx's request id reaches the app and comes back.
    assert re.fullmatch(r"[0-9a-f]{32}", _fetch(base + "/readyz")[1]["x-request-id"])


def test_a_game_through_nginx_with_websockets(fronted) -> None:
    base, _app = fronted
    http = HttpApi(base)
    game_id, tokens = duo_game(http)
    socks = [LiveSocket(base, game_id, tokens[seat]).connect() for seat in (0, 1)]
    try:
        for sock in socks:
            assert sock.wait(lambda f: f["type"] == "state")["version"] == 2
        state = http.get(game_id, tokens[0])
        mover = socks[state["view"]["active"]]
        state = http.get(game_id, tokens[state["view"]["active"]])
        msg_id = mover.action(state["view"]["legal_actions"][0], state["version"])
        assert mover.wait(lambda f: f.get("id") == msg_id)["type"] == "ack"
        for sock in socks:
            assert sock.wait(lambda f: f["type"] == "state" and f["version"] == 3)
    finally:
        for sock in socks:
            sock.close()


def _problem(url: str, headers: dict | None = None) -> tuple[int, dict, dict]:
    """GET `url`; return (status, headers, the problem body) of an error answer."""
    req = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=10) as resp:
            raise AssertionError(f"{url} answered {resp.status}")
    except urllib.error.HTTPError as err:
        with err:
            return err.code, {k.lower(): v for k, v in err.headers.items()}, json.loads(err.read())


def test_nginx_refuses_past_its_connection_limit_as_a_problem(tmp_path: Path) -> None:
    """Issue 29: nginx answered its own 429 with an HTML page and no Retry-After."""
    one = {"limit_conn alcabohne_addr 64;": "limit_conn alcabohne_addr 1;"}
    with (ThreadServer(MemoryStore(), PROXY_COUNT=1) as app,
          nginx_in_front(tmp_path, int(app.url.rsplit(":", 1)[1]), one) as base):
        game_id, _tokens = duo_game(HttpApi(app.url))
        held = LiveSocket(base, game_id, None).connect()  # one connection held open through nginx
        try:
            held.wait(lambda f: f["type"] == "state")
            status, headers, body = _problem(base + f"/api/v1/games/{game_id}")
        finally:
            held.close()
    assert status == 429 and headers["content-type"].startswith("application/problem+json")
    assert headers["retry-after"] == "10"
    assert body["code"] == "rate_limited" and body["status"] == 429 and body["retry_after"] == 10
    assert body["type"] == "/api/v1/problems/rate_limited"


def test_nginx_answers_an_app_that_is_down_with_a_503_problem(tmp_path: Path) -> None:
    (closed,) = free_ports(1)  # nothing listens there
    with nginx_in_front(tmp_path, closed) as base:
        for path in ("/api/v1/health", "/", "/api/v1/games/x/events?since=1"):
            status, headers, body = _problem(base + path)
            assert status == 503, path
            assert headers["content-type"].startswith("application/problem+json")
            assert headers["retry-after"] == "10"
            assert body["code"] == "server_busy" and body["status"] == 503 and body["retry_after"] == 10
