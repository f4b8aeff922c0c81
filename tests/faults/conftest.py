"""Fixtures of the load and fault tests: a private Redis (AOF on) and gunicorn with 2 gthread workers.

The Redis comes from tests/redis_server.py (fsync on every write); each test sets it to
`appendfsync everysec` like deploy/redis.conf, so a Redis killed mid-game is tested with the production
setting. The module's tests share one Redis and one gunicorn (each fault leaves them serving again: a
killed worker is replaced, a restarted server or Redis is up again before the test ends; every test
plays games of its own). Every server started here is stopped at teardown.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis

from api.store.redis import RedisStore
from tests import limits_off
from tests.live.servers import Gunicorn
from tests.redis_server import RedisServer, require_redis_server


def production_fsync(server: RedisServer) -> None:
    """Switch the running server to deploy/redis.conf's fsync policy."""
    with redis.Redis.from_url(server.url) as client:
        client.config_set("appendfsync", "everysec")


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    """A private redis-server for the module (a test may kill and restart it)."""
    require_redis_server()
    server = RedisServer()
    try:
        server.start()
        production_fsync(server)
        yield server
    finally:
        server.remove()


@pytest.fixture(scope="module")
def server(redis_server: RedisServer) -> Iterator[Gunicorn]:
    """gunicorn, 2 gthread workers, on the private Redis; stopped afterwards."""
    # Every game is joined from this one address: lift the join-code guard (10 a minute).
    with Gunicorn(redis_server.url, workers=2, threads=48, ping=2.0,
                  extra_env=limits_off.ENV) as running:
        yield running


@pytest.fixture
def store(redis_server: RedisServer) -> Iterator[RedisStore]:
    """A store on the same Redis, to check what was committed."""
    opened = RedisStore(redis_server.url)
    try:
        yield opened
    finally:
        opened.close()
