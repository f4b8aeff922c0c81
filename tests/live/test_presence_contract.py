"""The presence part of the store contract (api/store/base.py), on every backend.

Presence is a set of expiring entries, one per connection; a change of a game's online seats is
announced to every subscriber's `on_presence` (across processes for Redis).
"""

from __future__ import annotations

import threading
import time

import pytest

from api.store.base import GameStore

pytestmark = pytest.mark.live


class Heard:
    """Collects the game ids announced to on_presence."""

    def __init__(self) -> None:
        self.items: list[str] = []
        self._cond = threading.Condition()

    def __call__(self, game_id: str) -> None:
        with self._cond:
            self.items.append(game_id)
            self._cond.notify_all()

    def wait_count(self, n: int, timeout: float = 5.0) -> bool:
        with self._cond:
            return self._cond.wait_for(lambda: len(self.items) >= n, timeout)


def test_entries_make_seats_online_and_announce_changes_only(backend, store: GameStore) -> None:
    writer = backend.open() if backend.cross_instance_fanout else store
    heard = Heard()
    store.subscribe(lambda g, v: None, on_presence=heard)
    assert store.online_seats("g1") == []
    writer.set_presence("g1", "a", 0, 30)
    assert heard.wait_count(1)
    assert store.online_seats("g1") == [0]
    writer.set_presence("g1", "b", 0, 30)  # a second connection of seat 0: no change, no announcement
    writer.set_presence("g1", "a", 0, 30)  # a refresh: no change either
    writer.set_presence("g1", "c", 1, 30)
    assert heard.wait_count(2)
    assert store.online_seats("g1") == [0, 1]
    writer.set_presence("g1", "a", 0, 0)  # seat 0 still has "b"
    writer.set_presence("g1", "b", 0, 0)
    assert heard.wait_count(3)
    assert store.online_seats("g1") == [1]
    time.sleep(0.2)
    assert heard.items == ["g1"] * 3
    assert store.online_seats("other") == []


def test_entries_expire_and_the_next_call_announces_it(backend, store: GameStore) -> None:
    heard = Heard()
    store.subscribe(lambda g, v: None, on_presence=heard)
    store.set_presence("g2", "dying", 0, 0.3)
    store.set_presence("g2", "alive", 1, 30)
    assert heard.wait_count(2)
    assert store.online_seats("g2") == [0, 1]
    time.sleep(0.4)
    assert store.online_seats("g2") == [1]
    store.set_presence("g2", "alive", 1, 30)  # the heartbeat of the survivor notices the expiry
    assert heard.wait_count(3)
    assert heard.items == ["g2"] * 3


def test_load_latest_returns_the_document_with_the_log_entry_of_its_version(store: GameStore) -> None:
    assert store.load_latest("missing") is None
    store.create("g3", "doc1", 60)
    assert store.load_latest("g3") == (1, "doc1", None)
    store.commit("g3", 1, "doc2", ttl=60, log="e2")
    store.commit("g3", 2, "doc3", ttl=60, log="e3")
    assert store.load_latest("g3") == (3, "doc3", "e3")
