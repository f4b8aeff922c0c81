"""Store fixtures: every contract test runs once per backend (memory, SQLite, a private Redis)."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest
import redis

from api.store.base import GameStore
from api.store.memory import MemoryStore
from api.store.redis import RedisStore
from api.store.sqlite import SqliteStore
from tests.redis_server import RedisServer, require_redis_server


@dataclass
class Backend:
    """One backend under test.

    `open()` returns a store sharing this backend's data (for memory: the same instance, since memory
    cannot be shared). `cross_instance_fanout` is True when a commit through one instance reaches the
    subscribers of another (Redis only). Every store opened here is closed at teardown.
    """

    name: str
    _factory: Callable[[], GameStore]
    cross_instance_fanout: bool = False
    _opened: list[GameStore] = field(default_factory=list)

    def open(self) -> GameStore:
        store = self._factory()
        self._opened.append(store)
        return store

    def close_all(self) -> None:
        for store in reversed(self._opened):
            store.close()
        self._opened.clear()


@pytest.fixture(scope="session")
def redis_server() -> Iterator[RedisServer]:
    """A private redis-server for the whole session (never the shared one on 6379).

    Skips when `redis-server` is not installed, except under CI (ALCABOHNE_CI=1), where that fails.
    """
    require_redis_server()
    server = RedisServer()
    try:
        server.start()
        yield server
    finally:
        server.remove()


@pytest.fixture
def no_leaked_threads() -> Iterator[None]:
    """Fail a test whose threads (store listeners, brokers) outlive it by more than 2 s.

    Set up before the stores, so its check runs after they are closed.
    """
    before = set(threading.enumerate())
    yield
    deadline = time.monotonic() + 2.0
    while True:
        leaked = [t for t in threading.enumerate() if t not in before and t.is_alive()]
        if not leaked or time.monotonic() > deadline:
            break
        time.sleep(0.02)
    assert not leaked, f"threads left running after close(): {leaked}"


def flush(server: RedisServer) -> None:
    """Empty the private server's database."""
    with redis.Redis.from_url(server.url) as client:
        client.flushall()


@pytest.fixture(params=["memory", "sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def backend(request: pytest.FixtureRequest, tmp_path, no_leaked_threads: None) -> Iterator[Backend]:
    """A fresh, empty backend of each kind."""
    if request.param == "memory":
        shared = MemoryStore()
        made = Backend("memory", lambda: shared)
    elif request.param == "sqlite":
        made = Backend("sqlite", lambda: SqliteStore(tmp_path / "games.db"))
    elif request.param == "redis":
        server: RedisServer = request.getfixturevalue("redis_server")
        server.start()  # a no-op, unless a failed restart test left it stopped
        flush(server)
        made = Backend("redis", lambda: RedisStore(server.url), cross_instance_fanout=True)
    else:  # pragma: no cover - guarded by params
        raise AssertionError(request.param)
    try:
        yield made
    finally:
        made.close_all()


@pytest.fixture
def store(backend: Backend) -> GameStore:
    """The store under test (closed by the backend fixture)."""
    return backend.open()
