"""Issue 29, findings on idempotency: keys were stored as sent (up to 255 characters), one record per move
for 24 hours, so a client choosing long keys grew a game by some 300 bytes a move (a 512 MB Redis full
in hours from one address); websocket message ids the same way.

Now a game keeps the newest IDEMPOTENCY_WINDOW keys of each seat, each as a 16-digit digest, so the
longest keys cost what the shortest do; a longer key is refused; and a retry of a key the game has
forgotten gets 409 `stale_version` with the current view (its move made a version, so the version it
names is behind): never applied twice. Real gunicorn (2 workers) on a private redis-server."""

from __future__ import annotations

import json
import secrets
import string

import pytest
import redis
import requests

from api.cli.netclient import LiveSocket
from api.game.gamelog import IDEMPOTENCY_KEY_MAX
from api.store.base import IDEMPOTENCY_WINDOW
from api.store.redis import game_key
from tests.security.hostile import bearer

BUDGET = 16 * 1024  # bytes a game may take in Redis while it is played (docs/protocol.md §11)
PROBLEM = "application/problem+json"


@pytest.fixture(scope="module")
def server(redis_server):
    from tests.live.servers import Gunicorn

    with redis.Redis.from_url(redis_server.url) as client:
        client.flushall()
    with Gunicorn(redis_server.url, workers=2, threads=8) as gunicorn:
        yield gunicorn


@pytest.fixture
def raw(redis_server):
    client = redis.Redis.from_url(redis_server.url, decode_responses=True)
    try:
        yield client
    finally:
        client.close()


def longest_key() -> str:
    """A key of the greatest accepted length, of random printable characters."""
    alphabet = string.ascii_letters + string.digits + "-_.:~"
    return "".join(secrets.choice(alphabet) for _ in range(IDEMPOTENCY_KEY_MAX))


def solo(base: str) -> tuple[str, str]:
    grant = requests.post(base + "/api/v1/games", json={"mode": "solo"}, timeout=10).json()
    assert "token" in grant, grant
    return grant["game_id"], grant["token"]


def body_of(base: str, game_id: str, token: str) -> dict:
    """The request of the seat's next move: its first legal action at the current version."""
    mine = requests.get(f"{base}/api/v1/games/{game_id}", headers=bearer(token), timeout=10).json()
    return {"action": mine["view"]["legal_actions"][0], "version": mine["version"]}


def act(base: str, game_id: str, token: str, body: dict, key: str) -> requests.Response:
    return requests.post(f"{base}/api/v1/games/{game_id}/actions", json=body,
                         headers=bearer(token) | {"Idempotency-Key": key}, timeout=10)


def game_bytes(raw: redis.Redis, game_id: str) -> int:
    """MEMORY USAGE summed over every key of the game."""
    return sum(raw.memory_usage(key, samples=0) or 0 for key in raw.scan_iter(match=f"*{{{game_id}}}*"))


def stored_text(raw: redis.Redis, game_id: str) -> str:
    """Everything stored for the game, as text (strings and hash fields and values)."""
    parts = []
    for key in raw.scan_iter(match=f"*{{{game_id}}}*"):
        kind = raw.type(key)
        if kind == "string":
            parts.append(raw.get(key))
        elif kind == "hash":
            parts.extend(f"{k}={v}" for k, v in raw.hgetall(key).items())
    return "\n".join(parts)


def test_moves_under_the_longest_keys_keep_a_game_small(server, raw):
    """60 moves, each under a fresh key of the greatest accepted length: the game stays within its
    budget, its idempotency records stay a few per seat, and no key is stored as sent."""
    base = server.url
    game_id, token = solo(base)
    keys = []
    for _ in range(60):
        key = longest_key()
        resp = act(base, game_id, token, body_of(base, game_id, token), key)
        assert resp.status_code == 200, resp.text
        keys.append(key)
    text = stored_text(raw, game_id)
    assert not [key for key in keys if key in text], "a key is stored as sent"
    records = raw.hget(game_key(game_id, "state"), "i") or ""
    assert records.count("[") - 1 == IDEMPOTENCY_WINDOW, records  # one list of the newest records
    assert len(records) <= IDEMPOTENCY_WINDOW * 48, records
    assert game_bytes(raw, game_id) <= BUDGET


def test_a_key_longer_than_the_limit_is_refused_and_changes_nothing(server):
    base = server.url
    game_id, token = solo(base)
    body = body_of(base, game_id, token)
    resp = act(base, game_id, token, body, longest_key() + "x")
    assert resp.status_code == 400
    assert resp.headers["Content-Type"] == PROBLEM
    problem = resp.json()
    assert problem["code"] == "invalid_request"
    assert "Idempotency-Key" in json.dumps(problem["errors"]), problem  # it names the header
    assert body_of(base, game_id, token) == body, "a refused request changed the game"
    # Over the websocket: the message id is the key; too long an id gets an error, nothing applied.
    live = LiveSocket(base, game_id, token).connect()
    try:
        live.wait(lambda f: f["type"] == "presence")
        live.send({"type": "action", "id": "i" * (IDEMPOTENCY_KEY_MAX + 1), **body})
        frame = live.wait(lambda f: f["type"] in ("ack", "error"))
        assert (frame["type"], frame["code"]) == ("error", "invalid_request"), frame
    finally:
        live.close()
    assert body_of(base, game_id, token) == body, "a refused message changed the game"


def test_a_retry_of_a_forgotten_key_gets_stale_version_and_applies_nothing(server, raw):
    base = server.url
    game_id, token = solo(base)
    first_key, first = "forgotten-" + secrets.token_hex(8), body_of(base, game_id, token)
    assert act(base, game_id, token, first, first_key).status_code == 200
    kept = []
    for i in range(IDEMPOTENCY_WINDOW):
        body = body_of(base, game_id, token)
        assert act(base, game_id, token, body, f"kept-{i}-{secrets.token_hex(8)}").status_code == 200
        kept.append(body)
    log = raw.get(game_key(game_id, "log"))
    version = body_of(base, game_id, token)["version"]
    retry = act(base, game_id, token, first, first_key)
    assert retry.status_code == 409, retry.text
    problem = retry.json()
    assert problem["code"] == "stale_version"
    assert problem["version"] == version and problem["view"]["seat"] == 0
    assert raw.get(game_key(game_id, "log")) == log, "the forgotten key's move was applied again"
    assert body_of(base, game_id, token)["version"] == version


def test_a_websocket_retry_of_a_forgotten_id_gets_stale_version(server, raw):
    """The same over the websocket: the newest ids of the seat are acked again, a forgotten one gets an
    error frame `stale_version` with the current version, and nothing is applied."""
    base = server.url
    game_id, token = solo(base)
    live = LiveSocket(base, game_id, token).connect()
    try:
        live.wait(lambda f: f["type"] == "presence")
        sent = []
        for _ in range(IDEMPOTENCY_WINDOW + 1):
            body = body_of(base, game_id, token)
            msg_id = live.action(body["action"], body["version"], "ws-" + secrets.token_hex(12))
            ack = live.wait(lambda f, i=msg_id: f.get("id") == i)
            assert ack["type"] == "ack", ack
            sent.append((msg_id, body, ack["version"]))
        log = raw.get(game_key(game_id, "log"))
        (old_id, old_body, _), newest = sent[0], sent[-1]
        live.action(old_body["action"], old_body["version"], old_id)
        frame = live.wait(lambda f: f.get("id") == old_id)
        assert (frame["type"], frame["code"]) == ("error", "stale_version"), frame
        assert frame["version"] == newest[2]
        live.action(newest[1]["action"], newest[1]["version"], newest[0])
        again = live.wait(lambda f: f.get("id") == newest[0])
        assert (again["type"], again["version"]) == ("ack", newest[2]), again
        assert raw.get(game_key(game_id, "log")) == log
    finally:
        live.close()
