"""A full Redis (maxmemory + noeviction) answers 503 store_unavailable, never 500, changes nothing, and the
same move with the same key applies exactly once when memory is back (issue 18, findings 1 and 2).

redis-py drops the "OOM" prefix from the error's text (it becomes the class OutOfMemoryError), so the
store must recognise these errors by class."""

from __future__ import annotations

import redis
import requests

from api.store.redis import game_key
from tests.live.servers import free_port
from tests.security import hostile
from tests.security.hostile import bearer, duo_game, next_move

gunicorn, rclient = hostile.gunicorn, hostile.rclient  # fixtures

PROBLEM = "application/problem+json"


def fill(client: redis.Redis) -> int:
    """Let Redis hold about 1 MB more than now, then write filler until it refuses even a few bytes
    (a refused big value was counted with its request buffer: smaller ones may still fit); return the
    number of keys written.

    Full stays full: the limit ends below what is used. Within half a second of the last refusal Redis
    shrinks the idle filler connection's query buffer (tens of KB), which would make room again."""
    used = int(client.info("memory")["used_memory"])
    client.config_set("maxmemory", used + 1024 * 1024)
    n = 0
    for size in (65536, 1024, 16):
        try:
            while n < 100_000:
                client.set(f"filler:{n}", "x" * size)
                n += 1
        except redis.exceptions.OutOfMemoryError:
            continue
        raise AssertionError("Redis never refused a write")
    used = int(client.info("memory")["used_memory"])
    client.config_set("maxmemory", used - 256 * 1024)
    return n


def test_full_redis_answers_503_and_applies_the_move_once_when_memory_is_back(gunicorn, rclient):
    base = gunicorn.url
    game_id, tokens = duo_game(base)
    token, action, version = next_move(base, game_id, tokens)
    log_before = rclient.get(game_key(game_id, "log")) or ""
    records_before = rclient.hget(game_key(game_id, "state"), "i")  # the idempotency records
    try:
        fill(rclient)
        key = "move-under-oom-1"
        for headers in (bearer(token) | {"Idempotency-Key": key}, bearer(token)):
            resp = requests.post(f"{base}/api/v1/games/{game_id}/actions", headers=headers,
                                 json={"action": action, "version": version}, timeout=30)
            assert resp.status_code == 503, resp.text
            assert resp.headers["Content-Type"] == PROBLEM
            assert resp.json()["code"] == "store_unavailable"
            assert int(resp.headers["Retry-After"]) > 0
        # Creating a game needs writes too.
        resp = requests.post(base + "/api/v1/games", json={"mode": "duo"}, timeout=30)
        assert (resp.status_code, resp.json()["code"]) == (503, "store_unavailable")
        # Nothing half-applied: same version, same log, no idempotency record.
        assert requests.get(f"{base}/api/v1/games/{game_id}", timeout=10).json()["version"] == version
        assert (rclient.get(game_key(game_id, "log")) or "") == log_before
        assert rclient.hget(game_key(game_id, "state"), "i") == records_before
    finally:
        rclient.config_set("maxmemory", 0)
    answers = [requests.post(f"{base}/api/v1/games/{game_id}/actions",
                             headers=bearer(token) | {"Idempotency-Key": key},
                             json={"action": action, "version": version}, timeout=30) for _ in range(2)]
    assert [a.status_code for a in answers] == [200, 200], [a.text for a in answers]
    assert [a.json()["version"] for a in answers] == [version + 1, version + 1]
    assert answers[1].headers.get("Idempotent-Replayed") == "true"
    assert requests.get(f"{base}/api/v1/games/{game_id}", timeout=10).json()["version"] == version + 1
    assert (rclient.get(game_key(game_id, "log")) or "").count("\n") == log_before.count("\n") + 1


def test_a_read_only_replica_and_a_lost_master_answer_503(gunicorn, rclient):
    base = gunicorn.url
    game_id, tokens = duo_game(base)
    token, action, version = next_move(base, game_id, tokens)
    dead = free_port()  # nobody listens there: the master link stays down
    try:
        rclient.config_set("replica-serve-stale-data", "no")
        rclient.replicaof("127.0.0.1", dead)
        # MASTERDOWN: even reads are refused; READONLY: writes.
        resp = requests.get(f"{base}/api/v1/games/{game_id}", timeout=30)
        assert (resp.status_code, resp.json()["code"]) == (503, "store_unavailable"), resp.text[:300]
        rclient.config_set("replica-serve-stale-data", "yes")
        assert requests.get(f"{base}/api/v1/games/{game_id}", timeout=30).json()["version"] == version
        resp = requests.post(f"{base}/api/v1/games/{game_id}/actions", headers=bearer(token), timeout=30,
                             json={"action": action, "version": version})
        assert (resp.status_code, resp.json()["code"]) == (503, "store_unavailable"), resp.text[:300]
        assert int(resp.headers["Retry-After"]) > 0
    finally:
        rclient.replicaof("NO", "ONE")
        rclient.config_set("replica-serve-stale-data", "yes")
    resp = requests.post(f"{base}/api/v1/games/{game_id}/actions", headers=bearer(token), timeout=30,
                         json={"action": action, "version": version})
    assert (resp.status_code, resp.json()["version"]) == (200, version + 1)
