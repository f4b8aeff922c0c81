"""Hostile bodies and messages (issue 18, findings 6, 7, 8): JSON nested ~990 levels deep, a body past
the size limit sent chunked, a lone surrogate as a websocket message id. Each is refused with a stable
code, changes nothing, and leaves the server (and the socket) serving."""

from __future__ import annotations

import json

import requests

from api.cli.netclient import LiveSocket
from tests.security import hostile
from tests.security.hostile import bearer, solo_game

gunicorn = hostile.gunicorn  # fixture

DEEP = 990


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_deeply_nested_json_is_invalid_request_over_http(gunicorn):
    base = gunicorn.url
    game_id, token, _action, version = solo_game(base)
    bodies = [
        ("/api/v1/games", '{"mode": ' + nested(DEEP) + "}", {}),
        (f"/api/v1/games/{game_id}/actions", '{"action": ' + nested(DEEP) + f', "version": {version}}}',
         bearer(token)),
        (f"/api/v1/games/{game_id}/actions", nested(DEEP), bearer(token)),
        ("/api/v1/games/join", '{"code": ' + "{\"a\":" * DEEP + "1" + "}" * DEEP + "}", {}),
    ]
    for path, body, headers in bodies:
        resp = requests.post(base + path, data=body, timeout=30,
                             headers=headers | {"Content-Type": "application/json"})
        assert resp.status_code == 400, (path, resp.status_code, resp.text[:300])
        assert resp.headers["Content-Type"] == "application/problem+json"
        assert resp.json()["code"] == "invalid_request"
    assert requests.get(f"{base}/api/v1/games/{game_id}", timeout=10).json()["version"] == version


def test_deeply_nested_json_gets_an_error_frame_over_the_websocket(gunicorn):
    base = gunicorn.url
    game_id, token, action, version = solo_game(base)
    live = LiveSocket(base, game_id, token).connect()
    try:
        live.wait(lambda f: f["type"] == "state")
        live.ws.send('{"type": "action", "id": "deep-1", "version": 1, "action": ' + nested(DEEP) + "}")
        frame = live.wait(lambda f: f["type"] == "error")
        assert frame["code"] == "invalid_request"  # not JSON we read: its id is unknown
        live.ws.send(nested(DEEP))
        frame = live.wait(lambda f: f["type"] == "error")
        assert frame["code"] == "invalid_request"
        # Still served: a real move is answered.
        msg_id = live.action(action, version)
        assert live.wait(lambda f: f["type"] in ("ack", "error")) == {"type": "ack", "id": msg_id,
                                                                        "version": version + 1}
    finally:
        live.close()


def test_a_deeply_nested_hello_is_refused_with_an_error_frame(gunicorn):
    base = gunicorn.url
    game_id, _token, _action, _version = solo_game(base)
    live = LiveSocket(base, game_id, None)
    from simple_websocket import Client

    live.ws = Client.connect(live.url)
    try:
        live.ws.send('{"type": "hello", "token": ' + nested(DEEP) + "}")
        text = live.ws.receive(timeout=10)
        assert text is not None
        assert json.loads(text)["code"] == "invalid_request"
    finally:
        live.close()


def test_a_body_over_the_limit_is_413_and_not_applied_chunked_or_not(gunicorn):
    base = gunicorn.url
    game_id, token, action, version = solo_game(base)
    body = json.dumps({"action": action, "version": version}).encode() + b" " * 2_000_000

    def chunked():
        for i in range(0, len(body), 65536):
            yield body[i:i + 65536]

    headers = bearer(token) | {"Content-Type": "application/json"}
    for data in (chunked(), body):
        resp = requests.post(f"{base}/api/v1/games/{game_id}/actions", data=data, headers=headers, timeout=60)
        assert resp.status_code == 413, resp.text[:300]
        assert resp.headers["Content-Type"] == "application/problem+json"
        assert resp.json()["code"] == "payload_too_large"
    # Just over the limit, chunked, is too much as well; nothing was applied.
    small = json.dumps({"action": action, "version": version}).encode() + b" " * (16 * 1024)
    resp = requests.post(f"{base}/api/v1/games/{game_id}/actions", data=iter([small]), headers=headers,
                         timeout=60)
    assert (resp.status_code, resp.json()["code"]) == (413, "payload_too_large")
    assert requests.get(f"{base}/api/v1/games/{game_id}", timeout=10).json()["version"] == version
    # The server still takes the same move sent plainly.
    resp = requests.post(f"{base}/api/v1/games/{game_id}/actions", headers=bearer(token),
                         json={"action": action, "version": version}, timeout=10)
    assert (resp.status_code, resp.json()["version"]) == (200, version + 1)


def test_a_lone_surrogate_gets_an_error_frame_and_the_socket_keeps_being_served(gunicorn):
    base = gunicorn.url
    game_id, token, action, version = solo_game(base)
    live = LiveSocket(base, game_id, token).connect()
    try:
        live.wait(lambda f: f["type"] == "state")
        # Raw JSON text: the escape stands for half a UTF-16 pair, which no UTF-8 text can hold.
        live.ws.send('{"type": "action", "id": "\\ud800", "version": ' + str(version)
                     + ', "action": ' + json.dumps(action) + "}")
        frame = live.wait(lambda f: f["type"] == "error")
        assert frame["code"] == "invalid_request"
        live.ws.send('{"type": "action", "id": "s-2", "version": ' + str(version)
                     + ', "action": {"type": "\\udfff"}}')
        frame = live.wait(lambda f: f["type"] == "error")
        assert frame["id"] == "s-2" and frame["code"] in ("invalid_request", "invalid_action"), frame
        msg_id = live.action(action, version)
        assert live.wait(lambda f: f["type"] in ("ack", "error")) == {"type": "ack", "id": msg_id,
                                                                        "version": version + 1}
    finally:
        live.close()


def test_a_lone_surrogate_over_http_is_refused(gunicorn):
    base = gunicorn.url
    game_id, token, action, version = solo_game(base)
    for body in ('{"action": {"type": "\\ud800"}, "version": ' + str(version) + "}",
                 '{"action": ' + json.dumps(action) + ', "version": ' + str(version) + ', "\\ud800": 1}'):
        resp = requests.post(f"{base}/api/v1/games/{game_id}/actions", data=body, timeout=10,
                             headers=bearer(token) | {"Content-Type": "application/json"})
        assert resp.status_code in (400, 422), resp.text[:300]
        assert resp.json()["code"] in ("invalid_request", "invalid_action")
    assert requests.get(f"{base}/api/v1/games/{game_id}", timeout=10).json()["version"] == version
