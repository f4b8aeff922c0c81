"""Trusted proxies (api.ops.proxies) on real gunicorn (2 workers) and a private Redis: X-Forwarded-For counts
only when the connection comes from a proxy the operator named (default: this host's 127.0.0.1 and ::1,
i.e. nginx beside the app); from any other peer it is ignored, so a client that reaches gunicorn directly
cannot pick a new address per request, and /metrics stays private whatever the headers say.

Issue 29, finding 3: with ALCABOHNE_PROXY_COUNT=1 (as deploy/ sets it) X-Forwarded-For was believed from
anyone: every per-address limit was gone and /metrics opened to anyone who claimed 127.0.0.1.
"""

from __future__ import annotations

import http.client

import pytest

from api import create_app
from api.store.memory import MemoryStore

API = "/api/v1"


def post_from(url: str, source: str, forwarded: str | None) -> int:
    """POST /games over a connection bound to `source` (a loopback address), with a forged header."""
    host, port = url.split("//", 1)[1].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10, source_address=(source, 0))
    try:
        headers = {"Content-Type": "application/json"}
        if forwarded:
            headers["X-Forwarded-For"] = forwarded
        conn.request("POST", f"{API}/games", body=b'{"mode": "solo"}', headers=headers)
        return conn.getresponse().status
    finally:
        conn.close()


def test_a_direct_client_cannot_pick_its_address(serve) -> None:
    server = serve(CREATE_LIMIT=3, CREATE_WINDOW=600)
    # The attack: a client on another address than the proxy's names a new address per request.
    statuses = [post_from(server.url, "127.0.0.7", f"198.51.100.{n}") for n in range(1, 9)]
    assert statuses == [201] * 3 + [429] * 5  # all counted against 127.0.0.7 itself
    assert post_from(server.url, "127.0.0.8", None) == 201  # another peer has its own budget
    # The proxy on this host (127.0.0.1) is believed: the clients it names have their own budgets.
    assert post_from(server.url, "127.0.0.1", "198.51.100.50") == 201
    assert post_from(server.url, "127.0.0.1", "198.51.100.51") == 201


def test_the_operator_names_the_proxies(serve) -> None:
    server = serve(CREATE_LIMIT=1, CREATE_WINDOW=600, TRUSTED_PROXIES="127.0.0.9, 10.0.0.0/8")
    assert [post_from(server.url, "127.0.0.9", f"203.0.113.{n}") for n in (1, 2)] == [201, 201]
    # 127.0.0.1 is not named now: its forged headers are ignored like anyone's.
    assert [post_from(server.url, "127.0.0.1", f"203.0.113.{n}") for n in (3, 4)] == [201, 429]


@pytest.mark.parametrize("forged", ["127.0.0.1", "::1", "127.0.0.1, 127.0.0.1"])
def test_metrics_stay_private_whatever_the_headers_say(forged: str) -> None:
    """A peer off this host (192.0.2.9, as the WSGI server reports it) claims to be the host itself."""
    app = create_app({"STORE": MemoryStore(), "PROXY_COUNT": 1, "METRICS_LOCAL_ONLY": True})
    client = app.test_client()
    away = {"REMOTE_ADDR": "192.0.2.9"}
    assert client.get("/metrics", headers={"X-Forwarded-For": forged}, environ_base=away).status_code == 404
    assert client.get("/metrics", environ_base=away).status_code == 404
    # Through nginx on this host: the client nginx names decides, not the proxy's own address.
    here = {"REMOTE_ADDR": "127.0.0.1"}
    outside = client.get("/metrics", headers={"X-Forwarded-For": "192.0.2.9"}, environ_base=here)
    assert outside.status_code == 404
    inside = client.get("/metrics", headers={"X-Forwarded-For": "127.0.0.1"}, environ_base=here)
    assert inside.status_code == 200
