"""Rate limits (api.ops.limits) on real gunicorn (2 workers) and a private Redis: the counts live in the
store, so both workers share them; every refusal is 429 problem+json `rate_limited` with Retry-After (a
websocket: an error frame with the same code and `retry_after`). IPv4 counts per address, IPv6 per /64.

Issue 18, findings 1 (anyone can fill Redis: games and moves had no limit) and 9 (join codes were
guessed per exact address only, with no limit overall, and right guesses spent the budget). What the
server does when many addresses guess together (issue 29) is in test_limits_hold.py.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
import redis
import requests
import simple_websocket

from tests.live.servers import Gunicorn
from tests.redis_server import RedisServer
from tests.security.conftest import as_from, serving

API = "/api/v1"
# The limits of the module's shared server (`limited`): each test counts only its own addresses and
# seats, so they meet no other test's counts. The tests that need a server-wide total of their own, or
# moves without a limit, start their own (`serve`).
SHARED = {"CREATE_LIMIT": 2, "CREATE_WINDOW": 600, "MOVE_LIMIT": 4, "MOVE_WINDOW": 600, "HELLO_LIMIT": 3,
          "HELLO_WINDOW": 600, "JOIN_LIMIT": 3, "JOIN_TOTAL_LIMIT": 1000, "JOIN_WINDOW": 600,
          "TRANSFER_LIMIT": 3, "TRANSFER_WINDOW": 900}


@pytest.fixture(scope="module")
def limited(redis_server: RedisServer) -> Iterator[Gunicorn]:
    """The module's server, with the SHARED limits."""
    with serving(redis_server, SHARED) as server:
        yield server


def assert_rate_limited(resp: requests.Response, window: int) -> int:
    """Check a 429 refusal; return its Retry-After."""
    assert resp.status_code == 429, resp.text
    assert resp.headers["Content-Type"].startswith("application/problem+json")
    body = resp.json()
    assert body["code"] == "rate_limited" and body["status"] == 429
    wait = int(resp.headers["Retry-After"])
    assert 1 <= wait <= window and body["retry_after"] == wait
    return wait


def create(url: str, address: str, mode: str = "solo", **more) -> requests.Response:
    return requests.post(f"{url}{API}/games", json={"mode": mode, **more}, headers=as_from(address),
                         timeout=10)


def join(url: str, address: str, code: str) -> requests.Response:
    return requests.post(f"{url}{API}/games/join", json={"code": code}, headers=as_from(address), timeout=10)


def test_game_creation_is_limited_per_address_across_workers(limited) -> None:
    server = limited  # CREATE_LIMIT 2 in 600 s
    with ThreadPoolExecutor(12) as pool:
        answers = list(pool.map(lambda _: create(server.url, "198.51.100.7"), range(12)))
    assert sorted(r.status_code for r in answers) == [201] * 2 + [429] * 10
    for resp in answers:
        if resp.status_code == 429:
            assert_rate_limited(resp, 600)
    assert create(server.url, "198.51.100.8").status_code == 201  # another address has its own budget


def test_ipv6_addresses_count_per_64(limited) -> None:
    server = limited  # CREATE_LIMIT 2 in 600 s
    assert create(server.url, "2001:db8:1:2::1").status_code == 201
    assert create(server.url, "2001:db8:1:2:abcd:ef01:2345:6789").status_code == 201
    assert_rate_limited(create(server.url, "2001:db8:1:2::ffff"), 600)  # the same /64
    assert create(server.url, "2001:db8:1:3::1").status_code == 201  # the next /64
    assert create(server.url, "198.51.100.9").status_code == 201
    assert create(server.url, "::ffff:198.51.100.9").status_code == 201  # the same IPv4 address
    assert_rate_limited(create(server.url, "198.51.100.9"), 600)


def _socket(url: str, game_id: str, address: str, token: str | None = None) -> simple_websocket.Client:
    ws = simple_websocket.Client.connect(url.replace("http", "ws", 1) + f"{API}/games/{game_id}/ws",
                                         headers=as_from(address))
    ws.send(json.dumps({"type": "hello", "token": token, "since": 0}))
    return ws


def _close(ws: simple_websocket.Client) -> None:
    with contextlib.suppress(simple_websocket.ConnectionClosed):
        ws.close()


def _frame(ws: simple_websocket.Client, kinds: tuple[str, ...]) -> dict:
    """Return the next frame of one of `kinds` (skipping states, presence, keepalives)."""
    while True:
        text = ws.receive(timeout=10)
        assert text is not None, f"no {kinds} frame within 10 s"
        frame = json.loads(text)
        if frame["type"] in kinds:
            return frame


def test_moves_are_limited_per_seat_over_http_and_websocket(limited) -> None:
    server = limited  # MOVE_LIMIT 4 in 600 s
    grant = create(server.url, "198.51.100.20").json()
    game_id, auth = grant["game_id"], {"Authorization": f"Bearer {grant['token']}"}
    game_url = f"{server.url}{API}/games/{game_id}"

    def state() -> tuple[int, dict]:
        body = requests.get(game_url, headers=auth, timeout=10).json()
        return body["version"], body["view"]["legal_actions"][0]

    for _ in range(2):  # two moves over HTTP ...
        version, action = state()
        resp = requests.post(game_url + "/actions", json={"action": action, "version": version}, headers=auth,
                             timeout=10)
        assert resp.status_code == 200, resp.text
    ws = _socket(server.url, game_id, "198.51.100.20", grant["token"])
    try:
        for n in range(2):  # ... and two over the socket: the seat's four
            version, action = state()
            ws.send(json.dumps({"type": "action", "id": f"m{n}", "version": version, "action": action}))
            assert _frame(ws, ("ack", "error"))["type"] == "ack"
        version, action = state()
        ws.send(json.dumps({"type": "action", "id": "m5", "version": version, "action": action}))
        refused = _frame(ws, ("ack", "error"))
        assert (refused["id"], refused["code"], refused["status"]) == ("m5", "rate_limited", 429)
        assert 1 <= refused["retry_after"] <= 600
        # The socket is still served: the same move again is refused the same way, not dropped.
        ws.send(json.dumps({"type": "action", "id": "m6", "version": version, "action": action}))
        assert _frame(ws, ("ack", "error"))["code"] == "rate_limited"
    finally:
        _close(ws)
    resp = requests.post(game_url + "/actions", json={"action": action, "version": version}, headers=auth,
                         timeout=10)
    assert_rate_limited(resp, 600)
    assert state()[0] == version  # nothing was applied
    # Another game's seat has its own budget.
    other = create(server.url, "198.51.100.20").json()
    body = requests.get(f"{server.url}{API}/games/{other['game_id']}", timeout=10).json()
    resp = requests.post(f"{server.url}{API}/games/{other['game_id']}/actions",
                         json={"action": body["view"]["legal_actions"][0] if body["view"]["legal_actions"]
                               else action, "version": body["version"]},
                         headers={"Authorization": f"Bearer {other['token']}"}, timeout=10)
    assert resp.status_code != 429


def test_websocket_hellos_are_limited_per_address(limited) -> None:
    server = limited  # HELLO_LIMIT 3 in 600 s
    game_id = create(server.url, "198.51.100.30").json()["game_id"]
    sockets = [_socket(server.url, game_id, "198.51.100.30") for _ in range(3)]
    try:
        for ws in sockets:
            assert _frame(ws, ("state", "error"))["type"] == "state"
        extra = _socket(server.url, game_id, "198.51.100.30")
        refused = _frame(extra, ("state", "error"))
        assert (refused["code"], refused["status"]) == ("rate_limited", 429)
        assert 1 <= refused["retry_after"] <= 600
        try:  # and the socket is closed
            while extra.receive(timeout=5) is not None:
                pass
        except simple_websocket.ConnectionClosed:
            pass
        other = _socket(server.url, game_id, "198.51.100.31")  # another address is welcome
        assert _frame(other, ("state", "error"))["type"] == "state"
        sockets += [extra, other]
    finally:
        for ws in sockets:
            _close(ws)


def test_failed_code_guesses_are_limited_per_64(limited) -> None:
    server = limited  # JOIN_LIMIT 3 in 600 s, 1000 on the server
    game = create(server.url, "198.51.100.40", "duo").json()
    for n in range(3):  # three wrong codes from three addresses of one /64
        assert join(server.url, f"2001:db8:5:5::{n + 1}", "ZZZZZZ").status_code == 404
    assert_rate_limited(join(server.url, "2001:db8:5:5:1:2:3:4", "ZZZZZZ"), 600)
    # ... even with the right code: the /64 has used up its guesses.
    assert_rate_limited(join(server.url, "2001:db8:5:5::9", game["join_code"]), 600)
    # Checking a code through the QR endpoint is a guess too.
    for code in ("YYYYYY", "XXXXXX", "WWWWWW"):
        qr = requests.get(f"{server.url}{API}/games/{game['game_id']}/qr.svg", params={"code": code},
                          headers=as_from("203.0.113.1"), timeout=10)
        assert qr.status_code == 404
    assert_rate_limited(join(server.url, "203.0.113.1", "ZZZZZZ"), 600)
    assert join(server.url, "203.0.113.2", game["join_code"]).status_code == 200  # another address


def test_right_codes_are_not_counted(serve) -> None:
    server = serve(JOIN_LIMIT=2, JOIN_TOTAL_LIMIT=2, JOIN_WINDOW=600)
    address = "198.51.100.50"
    for _ in range(4):  # a host's evening: four games joined from the same home address
        game = create(server.url, address, "duo").json()
        joined = join(server.url, address, game["join_code"])
        assert joined.status_code == 200, joined.text
        moved = requests.post(f"{server.url}{API}/games/{game['game_id']}/transfer", headers={
            "Authorization": f"Bearer {joined.json()['token']}", **as_from(address)}, timeout=10).json()
        assert join(server.url, address, moved["transfer_code"]).status_code == 200
    assert join(server.url, address, "ZZZZZZ").status_code == 404
    assert join(server.url, address, "ZZZZZZ").status_code == 404
    assert_rate_limited(join(server.url, address, "ZZZZZZ"), 600)


def test_transfer_codes_are_limited_per_address(limited, redis_server) -> None:
    """Each transfer code is stored and each claim adds a version: unlimited, one seat could grow Redis
    without end. Ten an evening is plenty for moving a seat between phones."""
    server = limited  # TRANSFER_LIMIT 3 in 900 s
    game = create(server.url, "198.51.100.90").json()
    auth = {"Authorization": f"Bearer {game['token']}"}
    url = f"{server.url}{API}/games/{game['game_id']}/transfer"
    for _ in range(3):
        assert requests.post(url, headers={**auth, **as_from("198.51.100.90")}, timeout=10).status_code == 201
    with redis.Redis.from_url(redis_server.url) as client:
        codes = len(list(client.scan_iter("cg:v1:code:*")))
    assert_rate_limited(requests.post(url, headers={**auth, **as_from("198.51.100.90")}, timeout=10), 900)
    with redis.Redis.from_url(redis_server.url) as client:
        assert len(list(client.scan_iter("cg:v1:code:*"))) == codes  # the refusal stored nothing
    other = create(server.url, "198.51.100.91").json()
    resp = requests.post(f"{server.url}{API}/games/{other['game_id']}/transfer", timeout=10,
                         headers={"Authorization": f"Bearer {other['token']}", **as_from("198.51.100.91")})
    assert resp.status_code == 201  # another address has its own budget


def test_a_rematch_that_makes_the_next_game_counts_as_creating_one(serve) -> None:
    """Else finishing games and asking for their rematches would create games past the limit."""
    server = serve(CREATE_LIMIT=2, CREATE_WINDOW=600)
    # The tutorial: a solo game (counted like any) that ends within some dozens of moves.
    game = create(server.url, "198.51.100.95", tutorial=True).json()
    assert create(server.url, "198.51.100.95").status_code == 201  # the address's budget is spent
    game_url = f"{server.url}{API}/games/{game['game_id']}"
    auth = {"Authorization": f"Bearer {game['token']}"}
    view, version = game["view"], game["version"]
    with requests.Session() as http:
        while view["phase"] != "over":
            move = {"action": view["legal_actions"][0], "version": version}
            body = http.post(game_url + "/actions", json=move, headers=auth, timeout=10).json()
            view, version = body["view"], body["version"]
    assert_rate_limited(requests.post(game_url + "/rematch", headers={**auth, **as_from("198.51.100.95")},
                                      timeout=10), 600)
    assert requests.get(game_url, timeout=10).json().get("rematch") is None  # nothing was made
    made = requests.post(game_url + "/rematch", headers={**auth, **as_from("198.51.100.96")}, timeout=10)
    assert made.status_code == 200, made.text  # from another address's budget
    again = requests.post(game_url + "/rematch", headers={**auth, **as_from("198.51.100.95")}, timeout=10)
    assert again.status_code == 200 and again.json()["game_id"] == made.json()["game_id"]  # made: not counted
