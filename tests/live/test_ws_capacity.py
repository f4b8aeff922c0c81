"""A process holds at most WS_MAX_SOCKETS open websockets: one more gets 503 server_busy (problem+json,
Retry-After) before the handshake, plain HTTP still answers, and a socket that ends frees its place.

Each socket holds a gunicorn pool thread for its life (api.ops.sizing): without the cap, sockets past the
pool wait for a thread and hold up plain requests too; past the host's thread limit a worker stalls.
"""

from __future__ import annotations

import http.client
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, suppress
from pathlib import Path

import pytest

from api.cli.netclient import HttpApi, LiveSocket
from api.ops.sizing import HTTP_HEADROOM, SocketGate, socket_cap, threads_for
from api.store.memory import MemoryStore
from tests.api.test_api_server import start, stop
from tests.live.play import duo_game, move
from tests.live.servers import ThreadServer

pytestmark = pytest.mark.live

ROOT = Path(__file__).resolve().parents[2]
HANDSHAKE = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
             "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}


def handshake(url: str, game_id: str) -> tuple[int, dict, str]:
    """Ask for a websocket; return (status, headers, body) of the answer (the socket is then dropped)."""
    conn = http.client.HTTPConnection(url.split("//", 1)[1], timeout=5)
    try:
        conn.request("GET", f"/api/v1/games/{game_id}/ws", headers=HANDSHAKE)
        answer = conn.getresponse()
        body = answer.read().decode() if answer.status != 101 else ""
        return answer.status, dict(answer.getheaders()), body
    finally:
        conn.close()


def connect_within(url: str, game_id: str, token: str, seconds: float = 5.0) -> LiveSocket:
    """Open a socket and read its first state, retrying while the server is still counting one out."""
    deadline = time.monotonic() + seconds
    while True:
        sock = LiveSocket(url, game_id, token)
        try:
            sock.connect()
            sock.wait(lambda f: f["type"] == "state")
            return sock
        except (OSError, TimeoutError):
            sock.close()
            if time.monotonic() > deadline:
                raise
            time.sleep(0.05)


@pytest.fixture
def capped(no_leaked_threads) -> Iterator[ThreadServer]:
    """A live server whose process takes two sockets at most."""
    with ExitStack() as stack:
        store = MemoryStore()
        stack.callback(store.close)
        yield stack.enter_context(ThreadServer(store, WS_PING_INTERVAL=1.0, WS_MAX_SOCKETS=2))


def test_the_gate_counts_to_its_limit_and_zero_means_none() -> None:
    gate = SocketGate(2)
    assert gate.enter() and gate.enter() and not gate.enter()
    assert gate.open == 2
    gate.leave()
    assert gate.enter() and gate.open == 2
    unlimited = SocketGate(0)
    assert all(unlimited.enter() for _ in range(1000))
    # The launchers' cap keeps the HTTP headroom of the pool free.
    threads = threads_for(400, 2)
    assert socket_cap(threads) == threads - HTTP_HEADROOM == 250


def test_a_socket_past_the_cap_gets_server_busy_and_http_still_answers(capped: ThreadServer) -> None:
    api = HttpApi(capped.url)
    game_id, tokens = duo_game(api)
    with ExitStack() as stack:
        held = [connect_within(capped.url, game_id, token) for token in tokens.values()]
        for sock in held:
            stack.callback(sock.close)
        status, headers, body = handshake(capped.url, game_id)
        assert status == 503
        assert headers["Content-Type"].startswith("application/problem+json")
        assert headers["Retry-After"] == "10"
        problem = json.loads(body)
        assert problem["code"] == "server_busy" and problem["status"] == 503
        # Nothing else is refused: the game answers over HTTP, and a move still reaches both sockets.
        version = move(api, game_id, tokens)["version"]
        for sock in held:
            sock.wait(lambda f, v=version: f["type"] == "state" and f["version"] == v)
        # A socket that ends gives its place back.
        held[0].close()
        connect_within(capped.url, game_id, tokens[0]).close()


def test_sockets_that_end_early_are_counted_out(capped: ThreadServer) -> None:
    game_id, tokens = duo_game(HttpApi(capped.url))
    # Refused at hello (wrong token), or dropped right after the handshake: each held one of the two
    # places for a while. Were one not counted out, the third round would find no place left.
    for _ in range(3):
        bad = LiveSocket(capped.url, game_id, "not-a-token").connect()
        with suppress(OSError, TimeoutError):
            bad.wait(lambda f: False, timeout=2)  # until the server hangs up
        bad.close()
        deadline = time.monotonic() + 5
        while (status := handshake(capped.url, game_id)[0]) != 101 and time.monotonic() < deadline:
            time.sleep(0.05)
        assert status == 101
    # All of them are gone: two sockets fit again.
    both = [connect_within(capped.url, game_id, token) for token in tokens.values()]
    for sock in both:
        sock.close()


@pytest.mark.gunicorn
def test_serve_caps_sockets_at_its_pool_less_the_http_headroom(tmp_path, monkeypatch) -> None:
    # ALCABOHNE_SOCKETS=1: one worker, threads_for(1, 1) = 34 pool threads, so a cap of 2 sockets.
    monkeypatch.setenv("ALCABOHNE_SOCKETS", "1")
    monkeypatch.delenv("ALCABOHNE_WS_MAX_SOCKETS", raising=False)
    assert socket_cap(threads_for(1, 1)) == 2
    proc, base = start(tmp_path)
    try:
        api = HttpApi(base)
        game_id, tokens = duo_game(api)
        held = [connect_within(base, game_id, token) for token in tokens.values()]
        status, _headers, body = handshake(base, game_id)
        assert status == 503 and json.loads(body)["code"] == "server_busy"
        for sock in held:
            sock.close()
        connect_within(base, game_id, tokens[0]).close()
    finally:
        stop(proc)


def test_the_deploy_config_sets_the_cap_unless_given() -> None:
    code = ("import runpy, os; s = runpy.run_path('deploy/gunicorn.conf.py'); "
            "print(s['threads'], os.environ['ALCABOHNE_WS_MAX_SOCKETS'])")
    env = {k: v for k, v in os.environ.items() if k != "ALCABOHNE_WS_MAX_SOCKETS"}
    env["PYTHONPATH"] = str(ROOT)
    threads, cap = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                                  text=True, check=True, timeout=60).stdout.split()
    assert int(cap) == socket_cap(int(threads)) == int(threads) - HTTP_HEADROOM
    env["ALCABOHNE_WS_MAX_SOCKETS"] = "7"
    given = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True,
                           text=True, check=True, timeout=60).stdout.split()[1]
    assert given == "7"
