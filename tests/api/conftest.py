"""Store fixtures: every contract test runs once per backend (memory, SQLite, a private Redis)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest

from api.store.base import GameStore
from api.store.memory import MemoryStore
from api.store.sqlite import SqliteStore


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


@pytest.fixture(params=["memory", "sqlite"])
def backend(request: pytest.FixtureRequest, tmp_path) -> Iterator[Backend]:
    """A fresh, empty backend of each kind."""
    if request.param == "memory":
        shared = MemoryStore()
        made = Backend("memory", lambda: shared)
    elif request.param == "sqlite":
        made = Backend("sqlite", lambda: SqliteStore(tmp_path / "games.db"))
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
