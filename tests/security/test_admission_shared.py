"""Websocket places per client address across the whole server (api.live.admission), on real gunicorn with
2 workers and a private Redis: one address holds only a few sockets waiting for their hello, a few
watchers and its seated players, wherever the sockets land, and a seated player from another address
always gets in.

Issue 29, finding 2: with 32 pending upgrades held open from one address, a seated player from another
address was refused 33 times out of 34; admission was counted per process, so the figures also changed
with the number of workers.
"""

from __future__ import annotations

import time

import redis

from tests.security.test_admission_ws import close, create, handshake, watch

ATTACKER = "203.0.113.99"


def test_one_address_holds_few_pending_places_and_players_get_in(serve) -> None:
    # Each process has 16 places for sockets that have not said hello; one address may hold 3 in all.
    server = serve(WS_MAX_SOCKETS=64, WS_MAX_PENDING=16, WS_MAX_PER_CLIENT=16, WS_MAX_PENDING_PER_CLIENT=3,
                   WS_MAX_PER_GAME=0, WS_MAX_WATCHERS_PER_GAME=0)
    game = create(server.url, "solo", "198.51.100.200")
    held, statuses = [], []
    try:
        for _ in range(32):  # the attack: upgrades held open without a hello, from one address
            status, conn = handshake(server.url, game["game_id"], ATTACKER)
            statuses.append(status)
            held.append(conn)
        assert statuses.count(101) == 3 and statuses.count(429) == 29, statuses  # over both workers
        for _ in range(12):  # the player, again and again, lands on either worker and gets in
            frame, ws = watch(server.url, game["game_id"], "198.51.100.200", game["token"])
            held.append(ws)
            assert frame["type"] == "state" and frame["view"]["seat"] == 0, frame
            close(ws)
    finally:
        for conn in held:
            close(conn)


def test_watchers_and_seated_players_per_address_across_workers(serve, redis_server) -> None:
    server = serve(WS_MAX_SOCKETS=64, WS_MAX_PER_CLIENT=16, WS_MAX_WATCHERS_PER_CLIENT=3,
                   WS_MAX_SEATED_PER_CLIENT=2, WS_MAX_PER_GAME=0, WS_MAX_WATCHERS_PER_GAME=0)
    games = [create(server.url, "solo", "198.51.100.210") for _ in range(4)]
    held = []
    try:
        kinds = []
        for n in range(6):  # watchers of several games from one address, spread over both workers
            frame, ws = watch(server.url, games[n % 4]["game_id"], ATTACKER)
            held.append(ws)
            kinds.append(frame["type"] if frame["type"] == "state" else frame["code"])
        assert kinds == ["state"] * 3 + ["rate_limited"] * 3
        seated = []
        for game in games[:3]:  # three players' phones behind one address: two may be seated at once
            frame, ws = watch(server.url, game["game_id"], "198.51.100.210", game["token"])
            held.append(ws)
            seated.append(frame["type"] if frame["type"] == "state" else frame["code"])
        assert seated == ["state", "state", "rate_limited"]
        frame, ws = watch(server.url, games[3]["game_id"], "198.51.100.211", games[3]["token"])
        held.append(ws)
        assert frame["type"] == "state"  # another address has its own places
    finally:
        for ws in held:
            close(ws)
    # Sockets that closed give their places back (whatever worker held them): each when its worker's
    # reader sees the close, which on a loaded machine can take several seconds (docs/websocket.md).
    places = ("cg:v1:ws:{198.51.100.210}:seated", f"cg:v1:ws:{{{ATTACKER}}}:watcher")
    with redis.Redis.from_url(redis_server.url) as client:
        deadline = time.monotonic() + 30
        while any(client.zcard(key) for key in places) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [client.zcard(key) for key in places] == [0, 0]
        frame, ws = watch(server.url, games[0]["game_id"], "198.51.100.210", games[0]["token"])
        try:
            assert frame["type"] == "state"
        finally:
            close(ws)
