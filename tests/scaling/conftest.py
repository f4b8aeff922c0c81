"""Fixtures of the scaling tests: a private three-master Redis Cluster (and the contract suite's
`backend` on it), and a primary with a replica watched by three Sentinels."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from api.store.redis import RedisStore
from tests.api.conftest import Backend, no_leaked_threads  # noqa: F401 - fixtures used by the contract suite
from tests.redis_server import RedisClusterServers, SentinelSet, require_redis_server


@pytest.fixture(scope="session")
def redis_cluster() -> Iterator[RedisClusterServers]:
    """Three private redis-servers made one cluster (skips without redis-server/redis-cli; fails in CI)."""
    require_redis_server(cli=True)
    with RedisClusterServers() as cluster:
        yield cluster


@pytest.fixture
def backend(redis_cluster: RedisClusterServers, no_leaked_threads: None) -> Iterator[Backend]:  # noqa: F811
    """The contract suite's backend: a fresh (flushed) cluster, stores opened on redis+cluster://."""
    for server in redis_cluster.servers:
        with redis.Redis(port=server.port) as client:
            client.flushall()
    made = Backend("cluster", lambda: RedisStore(redis_cluster.url), cross_instance_fanout=True)
    try:
        yield made
    finally:
        made.close_all()


@pytest.fixture
def store(backend: Backend) -> RedisStore:
    return backend.open()


@pytest.fixture
def sentinels() -> Iterator[SentinelSet]:
    """A primary, one replica and three Sentinels (a fresh set: a failover test changes who is primary)."""
    require_redis_server()
    with SentinelSet() as made:
        yield made
