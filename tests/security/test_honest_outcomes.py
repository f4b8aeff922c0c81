"""A move made while Redis is frozen (SIGSTOP) is answered honestly (issue 18, finding 4).

The server's store times out after 1.5 s here (socket_timeout in the store URL) and sends a commit
again on a new connection while within two timeouts of the first copy (connecting waits too). Every
copy reaches the frozen server's socket, so when it wakes up it runs them all, in order: the first
applies the move, the later ones meet a version that has moved on.
- Frozen for a few seconds (longer than one attempt, shorter than all): an attempt gets the answer
  after the first one applied the move. The retries carry the commit's own token, so that answer is
  "applied" (before: 409 stale_version without an Idempotency-Key, though the move was applied).
- Frozen longer than every attempt: nobody knows whether the move was applied, and the answer says
  so (outcome_unknown: resend with the same key or id) instead of "nothing was changed"; the resend
  applies it at most once.
"""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor, wait

import pytest
import requests

from api.cli.netclient import LiveSocket
from tests.live.servers import Gunicorn
from tests.redis_server import RedisServer
from tests.security.hostile import bearer

STORE_TIMEOUT = 1.5  # seconds per attempt; no new copy after 2 x 1.5 s
# Past the first attempt (its timeout sends the second copy), before the last one gives up: that is at
# two timeouts when the second copy goes on a pooled connection, later when it opens one (connecting
# waits too).
SHORT_FREEZE = 1.5 * STORE_TIMEOUT
# Past every attempt: the store stays frozen until the answer came (an answer given while it is frozen
# comes after every attempt gave up), then wakes at once.
LONG_FREEZE = None
ANSWER_WITHIN = 60.0  # seconds: a bound for the frozen-store answer, far above every attempt's wait


@pytest.fixture(scope="module")
def server(redis_server: RedisServer) -> Iterator[Gunicorn]:
    # Pings far apart: a socket whose reader waits on a frozen store is not dropped for missing pongs.
    # No move limit: it is counted in the store before the commit, and a freeze would meet that count
    # first (then nothing was changed, and 503 store_unavailable says so); here the commit must be the
    # move's first store command.
    with Gunicorn(f"{redis_server.url}?socket_timeout={STORE_TIMEOUT}", workers=1, threads=8, ping=60,
                  extra_env={"ALCABOHNE_MOVE_LIMIT": "0"}) as gun:
        yield gun


def frozen(redis_server: RedisServer, seconds: float | None, call):
    """Run `call()` on another thread while the Redis process is stopped for `seconds` (None: until
    `call()` returned); return its result (after the server woke up)."""
    with ThreadPoolExecutor(1) as pool:
        os.kill(redis_server.pid, signal.SIGSTOP)
        try:
            future = pool.submit(call)
            if seconds is None:
                wait([future], timeout=ANSWER_WITHIN)
            else:
                time.sleep(seconds)
        finally:
            os.kill(redis_server.pid, signal.SIGCONT)
        return future.result()


def primed_solo(base: str) -> tuple[str, str, dict, int]:
    """A solo game after one move (so the worker holds its version and the next move's first store
    command is the commit); return (game id, token, a legal action, version)."""
    grant = requests.post(base + "/api/v1/games", json={"mode": "solo"}, timeout=10).json()
    game_id, token = grant["game_id"], grant["token"]
    first = {"action": grant["view"]["legal_actions"][0], "version": grant["version"]}
    moved = requests.post(f"{base}/api/v1/games/{game_id}/actions", headers=bearer(token), json=first,
                          timeout=10).json()
    return game_id, token, moved["view"]["legal_actions"][0], moved["version"]


def version_of(base: str, game_id: str) -> int:
    return requests.get(f"{base}/api/v1/games/{game_id}", timeout=10).json()["version"]


def test_a_move_applied_during_a_freeze_is_answered_as_applied(server, redis_server):
    base = server.url
    game_id, token, action, version = primed_solo(base)
    resp = frozen(redis_server, SHORT_FREEZE, lambda: requests.post(
        f"{base}/api/v1/games/{game_id}/actions", headers=bearer(token), timeout=60,
        json={"action": action, "version": version}))
    assert resp.status_code == 200, resp.text[:300]
    assert resp.json()["version"] == version + 1
    assert version_of(base, game_id) == version + 1


def test_a_move_whose_outcome_is_unknown_says_so_and_the_resend_applies_it_once(server, redis_server):
    base = server.url
    game_id, token, action, version = primed_solo(base)
    headers = bearer(token) | {"Idempotency-Key": "frozen-1"}
    body = {"action": action, "version": version}
    resp = frozen(redis_server, LONG_FREEZE, lambda: requests.post(
        f"{base}/api/v1/games/{game_id}/actions", headers=headers, json=body, timeout=60))
    assert resp.status_code == 503, resp.text[:300]
    assert resp.headers["Content-Type"] == "application/problem+json"
    assert resp.json()["code"] == "outcome_unknown"
    assert "same key" in resp.json()["detail"]
    assert int(resp.headers["Retry-After"]) > 0
    # The frozen server ran the move when it woke up; the resend finds it and applies nothing more.
    again = requests.post(f"{base}/api/v1/games/{game_id}/actions", headers=headers, json=body, timeout=10)
    assert (again.status_code, again.json()["version"]) == (200, version + 1)
    assert version_of(base, game_id) == version + 1


def test_over_the_websocket_an_unknown_outcome_keeps_the_id_and_the_resend_is_acked(server, redis_server):
    base = server.url
    game_id, token, action, version = primed_solo(base)
    live = LiveSocket(base, game_id, token).connect()
    try:
        # The hello's last store read (the seats online) may come after its first frames reached us (a
        # nudge's presence goes out at once): give it a moment, so that the action is the socket's only
        # store business during the freeze.
        live.wait(lambda f: f["type"] == "state" and f["version"] == version)
        live.wait(lambda f: f["type"] == "presence")
        time.sleep(1.0)
        frame = frozen(redis_server, LONG_FREEZE, lambda: (
            live.action(action, version, "frozen-ws-1"),
            live.wait(lambda f: f["type"] in ("ack", "error"), timeout=60))[1])
        assert frame["type"] == "error", frame
        assert (frame["id"], frame["code"]) == ("frozen-ws-1", "outcome_unknown")
        assert "nothing was changed" not in frame["detail"]
        live.action(action, version, "frozen-ws-1")
        assert live.wait(lambda f: f["type"] in ("ack", "error")) == {"type": "ack", "id": "frozen-ws-1",
                                                                        "version": version + 1}
    finally:
        live.close()
    assert version_of(base, game_id) == version + 1
