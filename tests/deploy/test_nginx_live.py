"""deploy/nginx.conf for real, on loopback: nginx in front of the app (werkzeug in a thread, memory
store) serves the client's files from disk with the app's caching rules, proxies the rest, and carries
a websocket game through its upgrade location. Skips without nginx (fails under ALCABOHNE_CI=1)."""

from __future__ import annotations

import os
import re
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


@pytest.fixture
def fronted(tmp_path: Path) -> Iterator[tuple[str, ThreadServer]]:
    """(nginx's plain-HTTP base URL, the app behind it); both stopped afterwards."""
    nginx = _need("nginx", "nginx")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                    "/CN=localhost", "-keyout", tmp_path / "key.pem", "-out", tmp_path / "cert.pem"],
                   check=True, capture_output=True)
    (tmp_path / "logs").mkdir()
    with ThreadServer(MemoryStore(), PROXY_COUNT=1, JOIN_LIMIT=1000) as app:
        app_port = int(app.url.rsplit(":", 1)[1])
        port, tls_port, redirect_port = free_ports(3)
        site = (DEPLOY / "nginx.conf").read_text()
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
            while True:
                try:
                    urllib.request.urlopen(base + "/healthz", timeout=1).close()
                    break
                except OSError:
                    if time.monotonic() > deadline or proc.poll() is not None:
                        raise RuntimeError((tmp_path / "logs/error.log").read_text()) from None
                    time.sleep(0.05)
            yield base, app
        finally:
            proc.terminate()
            proc.wait(timeout=10)


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
