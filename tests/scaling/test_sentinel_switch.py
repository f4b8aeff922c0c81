"""Following the Sentinels' primary when the old one is not dead.

A primary that stops answering for longer than the Sentinels' `down-after-milliseconds` (frozen here
with SIGSTOP: a stalled host, a long fsync, a network cut) is replaced, and when it answers again it is
a primary of nothing until the Sentinels make it a replica, seconds later. The connections a store
already holds to it are still good: without help they go on reading its history and writing where
nothing is kept. The store hears the Sentinels' `+switch-master` and leaves it at once; a connection
it opens checks the server's ROLE, so a Sentinel that still names a restarted old primary (now a
replica) is not believed.
"""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest
import redis

from api.store.redis import PREFIX, RedisStore
from tests.redis_server import SentinelSet

pytestmark = pytest.mark.redis


def test_a_store_leaves_a_replaced_primary_that_answers_again(sentinels: SentinelSet) -> None:
    store = RedisStore(sentinels.url)
    resets = threading.Event()
    heard: list[tuple[str, int]] = []
    try:
        assert store.create("g1", '{"n":1}', ttl=600)
        store.subscribe(lambda game_id, version: heard.append((game_id, version)), on_reset=resets.set)
        assert store.get_code("k") is None  # the pool now holds a connection to the first primary
        old = sentinels.primary
        os.kill(old.pid, signal.SIGSTOP)
        try:
            new_port = sentinels.replaced(old.port)
        finally:
            os.kill(old.pid, signal.SIGCONT)
        with redis.Redis(port=old.port, decode_responses=True) as client:
            assert client.role()[0] == "master"  # answering again, and still a primary of nothing
        with redis.Redis(port=new_port, decode_responses=True) as client:
            client.set(PREFIX + "code:k", "g1")  # only the new primary has it
        deadline = time.monotonic() + 5
        while store.get_code("k") != "g1":
            assert time.monotonic() < deadline, "the store still reads the replaced primary"
            time.sleep(0.05)
        # Commits go to the new primary too, and the listener moved there (it told its subscribers).
        assert store.commit("g1", 1, '{"n":2}', ttl=600).status == "ok"
        with redis.Redis(port=new_port, decode_responses=True) as client:
            assert client.hget(PREFIX + "g:{g1}:state", "v") == "2"
        assert resets.wait(10), "the pub/sub listener did not reconnect"
        deadline = time.monotonic() + 5
        while ("g1", 3) not in heard:
            if store.commit("g1", 2, '{"n":3}', ttl=600).status != "ok":
                time.sleep(0.05)
            assert time.monotonic() < deadline, heard
    finally:
        store.close()


def test_a_connection_to_a_replica_is_refused(sentinels: SentinelSet) -> None:
    """What a store connects to must say it is the primary (ROLE): the replica, named by mistake, is
    refused, and the primary accepted."""
    store = RedisStore(sentinels.url)
    try:
        assert store.ping()
        pool = store.client.connection_pool
        conn = pool.make_connection()
        with pytest.raises(redis.ConnectionError, match="not the primary"):
            conn.connect_to(("127.0.0.1", sentinels.replica.port))
        assert conn._sock is None  # dropped
        conn.connect_to(("127.0.0.1", sentinels.primary.port))
        conn.send_command("ROLE")
        assert conn.read_response()[0] == "master"
        conn.disconnect()
    finally:
        store.close()
