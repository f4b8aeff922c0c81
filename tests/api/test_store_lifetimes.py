"""Lifetimes of the embedded stores to their boundary, on a fake clock (the stores take a clock): a
game, its log, its idempotency records, a code, a rematch link and a rate-limit window live exactly as
long as they were given, and a commit gives its game a fresh lifetime. Redis keeps time itself: its
lifetimes are checked in tests/api/test_store_contract.py (test_lifetimes_run_out, which waits)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from api.store.base import CommitResult, GameStore
from api.store.memory import MemoryStore
from api.store.sqlite import SqliteStore
from tests.api.test_store_contract import FakeClock


@pytest.fixture(params=["memory", "sqlite"])
def timed(request, tmp_path) -> Iterator[tuple[GameStore, FakeClock]]:
    clock = FakeClock()
    store = MemoryStore(clock=clock) if request.param == "memory" else SqliteStore(
        tmp_path / "games.db", clock=clock)
    try:
        yield store, clock
    finally:
        store.close()


def test_a_game_lives_its_lifetime_and_not_a_moment_longer(timed) -> None:
    store, clock = timed
    assert store.create("g", "v1", 10)
    assert store.commit("g", 1, "v2", ttl=10, idem_key="k", fingerprint="f", log="e2").status == "ok"
    assert store.put_code("CODE", "g", 10)
    assert store.link_rematch("g", "next") == "next"
    clock.advance(9.99)
    assert store.load("g") == (2, "v2")
    assert store.log_since("g", 0) == [(2, "e2")]
    assert store.get_code("CODE") == "g"
    assert store.link_rematch("g", "other") == "next"
    assert store.commit("g", 1, "v2", ttl=10, idem_key="k", fingerprint="f") == CommitResult("duplicate", 2)
    clock.advance(0.01)
    assert store.load("g") is None
    assert store.log_since("g", 0) == []
    assert store.get_code("CODE") is None
    assert store.link_rematch("g", "other") is None
    # The idempotency records go with the game.
    assert store.commit("g", 1, "v2", ttl=10, idem_key="k", fingerprint="f") == CommitResult("missing", 0)


def test_a_commit_gives_its_game_a_fresh_lifetime(timed) -> None:
    store, clock = timed
    assert store.create("g", "v1", 10)
    clock.advance(9)
    assert store.commit("g", 1, "v2", ttl=10).status == "ok"
    clock.advance(9.99)
    assert store.load("g") == (2, "v2")
    clock.advance(0.01)
    assert store.load("g") is None


def test_a_rate_limit_window_ends_when_it_says(timed) -> None:
    store, clock = timed
    assert [store.hit("ip", 3, 10) for _ in range(3)] == [None, None, None]
    assert store.hit("ip", 3, 10) == pytest.approx(10)
    clock.advance(9.5)
    assert store.hit("ip", 3, 10) == pytest.approx(0.5)  # refused, and the refusal counted nothing
    clock.advance(0.5)
    assert [store.hit("ip", 3, 10) for _ in range(4)] == [None, None, None, pytest.approx(10)]
