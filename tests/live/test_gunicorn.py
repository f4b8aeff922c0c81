"""Live play on real gunicorn servers (gthread, 2 workers, Redis): fan-out across workers, restarts,
a worker killed with SIGKILL. Which worker holds a socket is read from /proc (Gunicorn.worker_of).
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator

import pytest
import redis

from api.cli.netclient import HttpApi, LiveSocket
from api.store.redis import RedisStore
from tests.live.play import Bot, duo_game, move
from tests.live.servers import Gunicorn

pytestmark = [pytest.mark.live, pytest.mark.redis, pytest.mark.gunicorn]

PING = 1.0


@pytest.fixture
def server(redis_server) -> Iterator[Gunicorn]:
    """gunicorn with 2 workers on the private Redis (emptied first); stopped afterwards."""
    redis_server.start()
    with redis.Redis.from_url(redis_server.url) as client:
        client.flushall()
    with Gunicorn(redis_server.url, workers=2, ping=PING) as running:
        yield running


def _pid(server: Gunicorn, sock: LiveSocket) -> int:
    """Return the worker holding `sock`, once its hello was answered (the first state)."""
    sock.wait(lambda f: f["type"] == "state")
    pid = server.worker_of(sock)
    assert pid is not None
    return pid


def _on_another_worker(server: Gunicorn, game_id: str, token: str, pid: int,
                       opened: list) -> tuple[LiveSocket, int]:
    """Open sockets until one lands on a worker other than `pid` (the others are closed); return it and
    its worker's pid."""
    for _ in range(60):
        sock = LiveSocket(server.url, game_id, token)
        opened.append(sock)
        sock.connect()
        other = _pid(server, sock)
        if other != pid:
            return sock, other
        sock.close()
    raise AssertionError("every socket landed on the same worker")


def test_a_move_through_one_worker_reaches_a_socket_on_the_other(server: Gunicorn) -> None:
    http = HttpApi(server.url)
    game_id, tokens = duo_game(http)
    opened: list[LiveSocket] = []
    try:
        a = LiveSocket(server.url, game_id, tokens[0]).connect()
        opened.append(a)
        pid_a = _pid(server, a)
        b, pid_b = _on_another_worker(server, game_id, tokens[1], pid_a, opened)
        assert pid_a != pid_b and {pid_a, pid_b} <= set(server.worker_pids())
        for _ in range(6):
            # Moves over HTTP land on either worker; moves over the socket on the socket's worker.
            active = http.get(game_id)["view"]["active"]
            mover = a if active == 0 else b
            state = http.get(game_id, tokens[active])
            msg_id = mover.action(state["view"]["legal_actions"][0], state["version"])
            # keep: the state may come before the ack (pushed by the worker while the ack is sent)
            assert mover.wait(lambda f, i=msg_id: f.get("id") == i, keep=True)["type"] == "ack"
            for sock in (a, b):
                assert sock.wait(lambda f, v=state["version"] + 1: f["type"] == "state" and f["version"] == v)
        answer = move(http, game_id, tokens)
        for sock in (a, b):
            assert sock.wait(lambda f: f["type"] == "state" and f["version"] == answer["version"])
    finally:
        for sock in opened:
            sock.close()


def test_clients_reconnect_after_a_restart_and_converge(server: Gunicorn) -> None:
    http = HttpApi(server.url)
    game_id, tokens = duo_game(http)
    socks = [LiveSocket(server.url, game_id, tokens[seat]) for seat in (0, 1)]
    try:
        for sock in socks:
            sock.connect().wait(lambda f: f["type"] == "state")
        server.restart()
        for _ in range(3):
            move(http, game_id, tokens)
        target = http.get(game_id)["version"]
        for sock in socks:
            with pytest.raises(OSError):  # the old connection is gone
                sock.wait(lambda f: False, timeout=5)
            sock.connect()  # hello with the version it holds
            assert sock.wait(lambda f: f["type"] == "state")["version"] == target
        assert {sock.version for sock in socks} == {target}
    finally:
        for sock in socks:
            sock.close()


def test_killing_a_worker_loses_no_acknowledged_move(server: Gunicorn, redis_server) -> None:
    http = HttpApi(server.url)
    games = [duo_game(http) for _ in range(6)]
    bots = [Bot(server.url, game_id, tokens[seat]) for game_id, tokens in games for seat in (0, 1)]
    threads = [threading.Thread(target=bot.run, name=f"bot-{i}") for i, bot in enumerate(bots)]
    for thread in threads:
        thread.start()
    try:
        # Kill while the games are being played: on a quiet machine a whole game (about 400 moves) takes
        # well under a second, so a fixed wait could find them all over (seen on 2026-11-30).
        deadline = time.monotonic() + 10
        while (time.monotonic() < deadline
               and not (all(bot.live.ws for bot in bots) and sum(len(bot.acked) for bot in bots) >= 6)):
            time.sleep(0.005)
        # The kernel may hand every socket to one worker: kill one that holds a socket of a game still
        # being played.
        held = {server.worker_of(bot.live) for bot, thread in zip(bots, threads, strict=True)
                if thread.is_alive()}
        victim = next((p for p in server.worker_pids() if p in held), server.worker_pids()[0])
        acked = sum(len(bot.acked) for bot in bots)
        os.kill(victim, signal.SIGKILL)
        # Until the killed worker's sockets have reconnected and the games have moved on past it.
        deadline = time.monotonic() + 15
        def moved_on() -> bool:
            return sum(b.reconnects for b in bots) > 0 and sum(len(b.acked) for b in bots) >= acked + 12

        while time.monotonic() < deadline and not moved_on():
            time.sleep(0.01)
    finally:
        for bot in bots:
            bot.stop = True
        for thread in threads:  # a bot settles its unanswered move for up to 15 s after the stop
            thread.join(timeout=30)
    assert not any(thread.is_alive() for thread in threads)
    assert sum(bot.reconnects for bot in bots) > 0, "the killed worker held no socket"
    store = RedisStore(redis_server.url)
    try:
        for i, (game_id, _) in enumerate(games):
            acked = sorted(bots[2 * i].acked + bots[2 * i + 1].acked)
            version, _doc = store.load(game_id)
            logged = [v for v, _entry in store.log_since(game_id, 2)]
            # Versions 1 and 2 are the creation and the join; every later one is an acknowledged move
            # (an ack lost with the worker is recovered by retrying the same id), none twice; only the
            # move in flight when the bots stopped may be applied without its ack.
            assert acked == list(range(3, len(acked) + 3)), (game_id, acked)
            assert logged == list(range(3, version + 1))
            assert version - (acked[-1] if acked else 2) <= 1, (game_id, acked, version)
        assert sum(len(bot.acked) for bot in bots) > 30
        assert not [e for bot in bots for e in bot.errors]
    finally:
        store.close()
