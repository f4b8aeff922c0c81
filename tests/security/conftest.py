"""Fixtures of the hardening tests: a private redis-server per test module and real gunicorn servers on it.

`serve(**env)` starts `gunicorn -k gthread` (2 workers) on that Redis with the given ALCABOHNE_* settings;
every server is stopped at teardown. Behind PROXY_COUNT=1 (which every server here sets) the app takes the
client address from X-Forwarded-For when the connection comes from this host's 127.0.0.1, so one test can
speak from many addresses (`as_from`); or it connects from other loopback addresses, which are no proxy,
and the server sees each as its own client (`session_from`).
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator

import pytest
import redis
import requests
from requests.adapters import HTTPAdapter

from tests.live.servers import Gunicorn
from tests.redis_server import RedisServer, require_redis_server


@pytest.fixture(scope="module")
def redis_server() -> Iterator[RedisServer]:
    """A private redis-server for the module's tests (never the shared one on 6379)."""
    require_redis_server()
    server = RedisServer()
    try:
        server.start()
        yield server
    finally:
        server.remove()


def _env(settings: dict) -> dict[str, str]:
    return {"ALCABOHNE_PROXY_COUNT": "1", **{f"ALCABOHNE_{k}": str(v) for k, v in settings.items()}}


@contextlib.contextmanager
def serving(redis_server: RedisServer, settings: dict) -> Iterator[Gunicorn]:
    """gunicorn (2 gthread workers, behind PROXY_COUNT=1 as `serve`'s) on the flushed private Redis with
    `settings` (ALCABOHNE_ names without the prefix): a server a whole module's tests share."""
    with redis.Redis.from_url(redis_server.url) as client:
        client.flushall()
    with Gunicorn(redis_server.url, workers=2, threads=8, extra_env=_env(settings)) as server:
        yield server


@pytest.fixture
def serve(redis_server: RedisServer) -> Iterator[Callable[..., Gunicorn]]:
    """Start gunicorn (2 gthread workers) on the flushed private Redis with `env` settings."""
    with redis.Redis.from_url(redis_server.url) as client:
        client.flushall()
    started: list[Gunicorn] = []

    def start(workers: int = 2, threads: int = 8, **env: str) -> Gunicorn:
        server = Gunicorn(redis_server.url, workers=workers, threads=threads, extra_env=_env(env))
        started.append(server)
        server.start()
        return server

    try:
        yield start
    finally:
        for server in started:
            server.stop()


def as_from(address: str) -> dict[str, str]:
    """Headers that make the app (PROXY_COUNT=1) see the request as coming from `address`."""
    return {"X-Forwarded-For": address}


class _FromAddress(HTTPAdapter):
    """Every connection bound to one local address before it connects."""

    def __init__(self, source: str):
        self.source = source
        super().__init__()

    def init_poolmanager(self, *args, **kwargs) -> None:
        kwargs["source_address"] = (self.source, 0)
        super().init_poolmanager(*args, **kwargs)


def session_from(source: str) -> requests.Session:
    """A requests session whose connections come from `source` (an address in 127.0.0.0/8 other than
    127.0.0.1): the server sees that peer address, and no header can change it."""
    session = requests.Session()
    session.mount("http://", _FromAddress(source))
    return session
