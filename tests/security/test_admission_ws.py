"""Websocket admission (api.live.admission) on real gunicorn and a private Redis: one address cannot take
every socket of a process, watchers leave places for seated players, a game has few watchers, and
sockets that never say hello hold their own few places only until the hello timeout.

Issue 18, finding 3: 100 token-less sockets from one address took all 80 places of a process and a
player's socket was refused with 503 server_busy.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import socket

import requests
import simple_websocket

from tests.security.conftest import as_from

API = "/api/v1"


def handshake(url: str, game_id: str, address: str) -> tuple[int, socket.socket]:
    """Open a websocket handshake from `address` and say nothing more; return (HTTP status, the socket)."""
    host, port = url.split("//", 1)[1].split(":")
    conn = socket.create_connection((host, int(port)), timeout=30)
    key = base64.b64encode(os.urandom(16)).decode()
    conn.sendall((f"GET {API}/games/{game_id}/ws HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: {key}\r\n"
                  f"X-Forwarded-For: {address}\r\n\r\n").encode())
    head = b""
    while b"\r\n\r\n" not in head:
        chunk = conn.recv(4096)
        if not chunk:
            break
        head += chunk
    return int(head.split(b" ", 2)[1]), conn


def watch(url: str, game_id: str, address: str,
          token: str | None = None) -> tuple[dict, simple_websocket.Client]:
    """Open a socket from `address`, say hello; return (the first state or error frame, the socket)."""
    ws = simple_websocket.Client.connect(url.replace("http", "ws", 1) + f"{API}/games/{game_id}/ws",
                                         headers=as_from(address))
    ws.send(json.dumps({"type": "hello", "token": token, "since": 0}))
    while True:
        text = ws.receive(timeout=10)
        assert text is not None, "no answer to the hello within 10 s"
        frame = json.loads(text)
        if frame["type"] in ("state", "error"):
            return frame, ws


def close(ws) -> None:
    with contextlib.suppress(Exception):
        ws.close()


def create(url: str, mode: str, address: str) -> dict:
    resp = requests.post(f"{url}{API}/games", json={"mode": mode}, headers=as_from(address), timeout=10)
    return resp.json()


def test_one_address_cannot_take_every_socket(serve) -> None:
    server = serve(workers=1, threads=48, WS_MAX_SOCKETS=16, WS_MAX_PER_CLIENT=6, WS_MAX_PER_GAME=0,
                   WS_MAX_WATCHERS_PER_GAME=0)
    game = create(server.url, "solo", "198.51.100.60")
    held, statuses = [], []
    try:
        for _ in range(20):  # the attack: token-less sockets from one address
            status, conn = handshake(server.url, game["game_id"], "203.0.113.66")
            statuses.append(status)
            held.append(conn)
        assert statuses.count(101) == 6 and statuses.count(429) == 14
        frame, ws = watch(server.url, game["game_id"], "198.51.100.60", game["token"])
        held.append(ws)
        assert frame["type"] == "state" and frame["view"]["seat"] == 0  # the player still gets in
    finally:
        for conn in held:
            close(conn)


def test_watchers_leave_places_for_seated_players(serve) -> None:
    server = serve(workers=1, threads=48, WS_MAX_SOCKETS=16, WS_MAX_PER_CLIENT=0, WS_MAX_PER_GAME=0,
                   WS_MAX_WATCHERS_PER_GAME=0)
    game = create(server.url, "duo", "198.51.100.61")
    joined = requests.post(f"{server.url}{API}/games/join", json={"code": game["join_code"]},
                           headers=as_from("198.51.100.62"), timeout=10).json()
    held, refused = [], []
    try:
        for n in range(16):  # token-less watchers from sixteen addresses
            frame, ws = watch(server.url, game["game_id"], f"203.0.113.{n + 1}")
            held.append(ws)
            if frame["type"] == "error":
                refused.append(frame)
        assert len(refused) == 2  # the last eighth of the places is kept for seated players
        assert all(f["code"] == "server_busy" and f["retry_after"] >= 1 for f in refused)
        seated = ((0, game["token"], "198.51.100.61"), (1, joined["token"], "198.51.100.62"))
        for seat, token, address in seated:
            frame, ws = watch(server.url, game["game_id"], address, token)
            held.append(ws)
            assert (frame["type"], frame["view"]["seat"]) == ("state", seat), frame
    finally:
        for ws in held:
            close(ws)


def test_a_game_has_few_watchers(serve) -> None:
    server = serve(workers=1, threads=48, WS_MAX_SOCKETS=40, WS_MAX_PER_CLIENT=0, WS_MAX_WATCHERS_PER_GAME=3)
    game = create(server.url, "solo", "198.51.100.70")
    other = create(server.url, "solo", "198.51.100.70")
    held = []
    try:
        frames = []
        for n in range(4):
            frame, ws = watch(server.url, game["game_id"], f"203.0.113.{100 + n}")
            held.append(ws)
            frames.append(frame["type"] if frame["type"] == "state" else frame["code"])
        assert frames == ["state", "state", "state", "server_busy"]
        frame, ws = watch(server.url, other["game_id"], "203.0.113.120")  # another game has its own
        held.append(ws)
        assert frame["type"] == "state"
        # The player is not a watcher.
        frame, ws = watch(server.url, game["game_id"], "198.51.100.70", game["token"])
        held.append(ws)
        assert frame["type"] == "state" and frame["view"]["seat"] == 0
    finally:
        for ws in held:
            close(ws)


def test_silent_sockets_have_few_places_and_are_dropped(serve) -> None:
    server = serve(workers=1, threads=48, WS_MAX_SOCKETS=40, WS_MAX_PENDING=4, WS_MAX_PER_CLIENT=0)
    game = create(server.url, "solo", "198.51.100.80")
    silent = []
    try:
        for n in range(4):  # sockets that never say hello, from four addresses
            status, conn = handshake(server.url, game["game_id"], f"203.0.113.{200 + n}")
            assert status == 101
            silent.append(conn)
        status, conn = handshake(server.url, game["game_id"], "203.0.113.210")
        silent.append(conn)
        assert status == 503  # no place left for one more silent socket
        for conn in silent[:4]:  # the server ends each (after its hello timeout) ...
            while conn.recv(4096):
                pass
        # ... and its place is free.
        frame, ws = watch(server.url, game["game_id"], "198.51.100.80", game["token"])
        silent.append(ws)
        assert frame["type"] == "state"
    finally:
        for conn in silent:
            close(conn)
