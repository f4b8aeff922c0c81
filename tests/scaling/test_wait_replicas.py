"""ALCABOHNE_REDIS_WAIT_REPLICAS on a real primary and replica: a commit the replica does not confirm in
time is applied yet answered OutcomeUnknown (503 outcome_unknown), and the same idempotency key settles
it once the replica is back: "duplicate" with the version it made, never a second application."""

from __future__ import annotations

import pytest
import redis

from api.store import open_store
from api.store.base import CommitResult, OutcomeUnknown
from tests.redis_server import RedisServer, _wait_for, replica_online, require_redis_server

pytestmark = pytest.mark.redis


def test_an_unconfirmed_commit_is_outcome_unknown_and_its_key_settles_it(monkeypatch) -> None:
    require_redis_server()
    monkeypatch.setenv("ALCABOHNE_REDIS_WAIT_REPLICAS", "1")
    monkeypatch.setenv("ALCABOHNE_REDIS_WAIT_TIMEOUT", "1.0")
    with RedisServer(args=["--repl-diskless-sync-delay", "0"]) as primary:  # no 5 s wait before a sync
        replica = RedisServer(args=["--replicaof", "127.0.0.1", str(primary.port)])
        try:
            replica.start()
            _wait_for(lambda: replica_online(primary.port), "sync")
            store = open_store(primary.url)
            try:
                assert store.wait_replicas == 1 and store.wait_timeout == 1.0
                assert store.create("g1", "v1", 600)
                first = store.commit("g1", 1, "v2", ttl=600, idem_key="a", fingerprint="f")
                assert first == CommitResult("ok", 2)
                replica.kill()
                with pytest.raises(OutcomeUnknown):
                    store.commit("g1", 2, "v3", ttl=600, idem_key="b", fingerprint="f")
                with pytest.raises(OutcomeUnknown):  # the retry too: still no replica to confirm it
                    store.commit("g1", 2, "v3", ttl=600, idem_key="b", fingerprint="f")
                # Refused commits write nothing and wait for nothing.
                assert store.commit("g1", 2, "x", ttl=600).status == "conflict"
                replica.start()
                _wait_for(lambda: replica_online(primary.port, caught_up=True), "sync")
                with redis.Redis(port=replica.port, decode_responses=True) as client:
                    again = store.commit("g1", 2, "v3", ttl=600, idem_key="b", fingerprint="f")
                    assert again == CommitResult("duplicate", 3)
                    assert client.hget("cg:v1:g:{g1}:state", "v") == "3"  # the replica has it, once
                assert store.load("g1") == (3, "v3")
                assert [v for v, _ in store.log_since("g1", 1)] == [2, 3]
            finally:
                store.close()
        finally:
            replica.kill()  # SIGTERM may be refused while it writes its first AOF after a sync
            replica.remove()
            primary.kill()
