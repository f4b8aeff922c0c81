"""api/ops/metrics.py and api/ops/logs.py in one process: what the counters and the socket gauge count, the
probes, and the formatter's masking of anything token-shaped."""

from __future__ import annotations

import json
import logging
import time

from api import create_app
from api.cli.netclient import HttpApi, LiveSocket
from api.game import auth
from api.ops.logs import JsonFormatter, redact
from api.store.memory import MemoryStore
from tests.live.play import duo_game
from tests.live.servers import ThreadServer


def _sample(app, name: str) -> float:
    text = app.test_client().get("/metrics").get_data(as_text=True)
    for line in text.splitlines():
        if line.startswith(name + " "):
            return float(line.split()[-1])
    return 0.0


def test_moves_and_sockets_are_counted_by_transport_and_outcome() -> None:
    ok_ws = 'alcabohne_actions_total{outcome="ok",transport="ws"}'
    stale_http = 'alcabohne_actions_total{outcome="stale",transport="http"}'
    with ThreadServer(MemoryStore()) as server:
        app = server.app
        before = {name: _sample(app, name) for name in (ok_ws, stale_http, "alcabohne_open_sockets")}
        before_fanout = _sample(app, "alcabohne_fanout_seconds_count")
        http = HttpApi(server.url)
        game_id, tokens = duo_game(http)
        socks = [LiveSocket(server.url, game_id, tokens[seat]).connect() for seat in (0, 1)]
        try:
            for sock in socks:
                sock.wait(lambda f: f["type"] == "state")
            assert _sample(app, "alcabohne_open_sockets") == before["alcabohne_open_sockets"] + 2
            active = http.get(game_id)["view"]["active"]
            game = http.get(game_id, tokens[active])
            msg_id = socks[active].action(game["view"]["legal_actions"][0], game["version"])
            assert socks[active].wait(lambda f: f.get("id") == msg_id)["type"] == "ack"
            try:
                http.act(game_id, tokens[active], game["view"]["legal_actions"][0], game["version"])
            except Exception as err:  # noqa: BLE001 - the expected 409
                assert "stale_version" in str(err)
            assert _sample(app, ok_ws) == before[ok_ws] + 1
            assert _sample(app, stale_http) == before[stale_http] + 1
            assert _sample(app, 'alcabohne_active_games{window="300"}') == 1
            assert _sample(app, "alcabohne_fanout_seconds_count") > before_fanout
        finally:
            for sock in socks:
                sock.close()
        deadline = time.monotonic() + 5
        while _sample(app, "alcabohne_open_sockets") != before["alcabohne_open_sockets"]:
            assert time.monotonic() < deadline, "closed sockets are still counted"
            time.sleep(0.05)


def test_probes() -> None:
    store = MemoryStore()
    client = create_app({"STORE": store}).test_client()
    assert client.get("/healthz").status_code == 200
    assert client.get("/readyz").status_code == 200
    store.ping = lambda: False  # the store stops answering
    assert client.get("/readyz").status_code == 503
    assert client.get("/healthz").status_code == 200


def test_request_id_in_and_out() -> None:
    client = create_app({"STORE": MemoryStore()}).test_client()
    assert client.get("/healthz", headers={"X-Request-Id": "edge-7"}).headers["X-Request-Id"] == "edge-7"
    # Anything that is not a short id is replaced, never echoed (no header or log injection).
    made = client.get("/healthz", headers={"X-Request-Id": "a b\" {}"}).headers["X-Request-Id"]
    assert len(made) == 32 and made.isalnum()


def test_the_formatter_masks_tokens() -> None:
    token = auth.new_token()
    for text in (f"Authorization: Bearer {token}", f'{{"type": "hello", "token": "{token}"}}',
                 f"token={token}", f"something {token} else"):
        assert token not in redact(text)
        assert token[:12] not in redact(text)
    record = logging.LogRecord("api.test", logging.WARNING, __file__, 1, "hello %s", (token,), None)
    line = JsonFormatter().format(record)
    entry = json.loads(line)
    assert token not in line and entry["level"] == "warning" and entry["ts"].endswith("Z")
    assert redact("game abc123 moved to v7") == "game abc123 moved to v7"
