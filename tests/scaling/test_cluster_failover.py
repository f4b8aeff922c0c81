"""A cluster master SIGKILLed under a store that waits for one replica (WAIT 1): the cluster promotes
the master's replica, the store learns the slots again and follows it, its sharded subscription moves
to the new master and reports the gap (on_reset), and no acknowledged commit is lost or applied twice.
Prints the recovery time."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest
import redis

from api.store.base import StoreUnavailable
from api.store.redis import RedisStore, game_key
from tests.redis_server import RedisClusterServers, require_redis_server

pytestmark = [pytest.mark.redis, pytest.mark.usefixtures("no_leaked_threads")]
HOUR = 3600


def _is_master(asked, node) -> bool:
    """Whether node `asked` sees `node` as a master serving slots now (CLUSTER NODES)."""
    with redis.Redis(port=asked.port, decode_responses=True) as client:
        info = client.cluster("nodes").get(f"127.0.0.1:{node.port}")
    return info is not None and "master" in info["flags"] and bool(info["slots"])


def test_a_killed_master_fails_over_to_its_replica_and_the_store_follows() -> None:
    require_redis_server(cli=True)
    with RedisClusterServers() as cluster:
        victim = cluster.servers[0]
        replica = cluster.add_replica(victim)
        store = RedisStore(cluster.url, wait_replicas=1, wait_timeout=1.0)
        try:
            name = f"127.0.0.1:{victim.port}"
            game = next(g for g in (f"f{i}" for i in range(200))
                        if store._conn.node_of(game_key(g, "state")) == name)  # a game on the victim
            heard: list[int] = []
            reset = threading.Event()
            store.subscribe(lambda game_id, version: heard.append(version), on_reset=reset.set)
            assert store.create(game, "v1", HOUR)
            store.watch(game)
            acked = []
            for version in range(1, 4):
                acked.append(store.commit(game, version, f"v{version + 1}", ttl=HOUR,
                                          idem_key=f"k{version}", fingerprint="f").version)
            os.kill(victim.pid, signal.SIGKILL)
            killed = time.monotonic()
            victim._proc.wait()
            victim._proc = None
            while not _is_master(cluster.servers[1], replica):  # the other masters elect the replica
                assert time.monotonic() - killed < 60, "the replica was never promoted"
                time.sleep(0.05)
            promoted = time.monotonic()
            # The old master's host comes back: it rejoins as the new master's replica, so that WAIT 1 can
            # be met again (with one replica, no replica means no acknowledged commit).
            victim.start()
            tries = 0
            while True:  # the same key until an answer comes: what a client does after a 503
                tries += 1
                try:
                    answer = store.commit(game, 4, "v5", ttl=HOUR, idem_key="k4", fingerprint="f")
                    break
                except StoreUnavailable:
                    assert tries < 600, "the store never reached the promoted replica"
                    time.sleep(0.1)
            print(f"\ncluster failover: the replica was master {promoted - killed:.2f} s and a commit was "
                  f"acknowledged again {time.monotonic() - killed:.2f} s after the master's SIGKILL "
                  f"({tries} tries)")
            assert answer.status == "ok" and answer.version == 5
            acked.append(answer.version)
            assert acked == [2, 3, 4, 5]  # nothing acknowledged was lost, nothing applied twice
            assert store.load(game) == (5, "v5")
            assert [v for v, _ in store.log_since(game, 1)] == [2, 3, 4, 5]
            assert reset.wait(10)  # the listener moved to the new master and reported the gap
            answer = store.commit(game, 5, "v6", ttl=HOUR)
            deadline = time.monotonic() + 10
            while 6 not in heard and time.monotonic() < deadline:
                time.sleep(0.02)
            assert 6 in heard
        finally:
            store.close()
