"""A store on Redis Cluster under more threads than it has connections: every node's pool makes a
thread wait for a free connection, as the single server's does, instead of failing with "Too many
connections" (which redis-py's default pool raises, a 503 for the player)."""

from __future__ import annotations

import threading

import pytest

from api.store.redis import RedisStore
from tests.redis_server import RedisClusterServers

pytestmark = [pytest.mark.redis, pytest.mark.usefixtures("no_leaked_threads")]


def test_more_threads_than_connections_wait_instead_of_failing(redis_cluster: RedisClusterServers) -> None:
    store = RedisStore(redis_cluster.url, pool_size=2)
    try:
        games = [f"busy{i}" for i in range(6)]
        for game_id in games:
            store.create(game_id, "v1", 600)
        errors: list[BaseException] = []

        def work(n: int) -> None:
            for i in range(40):
                game_id = games[(n + i) % len(games)]
                try:
                    store.load_latest(game_id)
                    store.commit(game_id, 0, "x", ttl=600)  # a conflict: read and answered, nothing written
                    store.hit(f"k{n}", 10**6, 60)
                except BaseException as exc:
                    errors.append(exc)

        threads = [threading.Thread(target=work, args=(n,)) for n in range(12)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert errors == []
    finally:
        store.close()
