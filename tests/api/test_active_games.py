"""api.ops.active_games: the active-games gauge notes moves in memory and writes them to Redis in batches
(one ZADD per period and process, not one per move), and still counts every game."""

from __future__ import annotations

import threading
import time

import pytest
import redis

from api.ops.active_games import ActiveGames
from api.store.memory import MemoryStore
from api.store.redis import RedisStore
from tests.api.conftest import flush

pytestmark = pytest.mark.redis


def _zadds(url: str) -> int:
    with redis.Redis.from_url(url) as client:
        return int(client.info("commandstats").get("cmdstat_zadd", {}).get("calls", 0))


@pytest.fixture
def store(redis_server):
    flush(redis_server)
    with redis.Redis.from_url(redis_server.url) as client:
        client.config_resetstat()
    store = RedisStore(redis_server.url)
    yield store
    store.close()


def test_moves_are_written_in_one_zadd_and_all_counted(store, redis_server) -> None:
    active = ActiveGames(store, flush_every=3600)  # no timed write during the test
    for _ in range(20):
        for game_id in ("g1", "g2", "g3"):
            active.touch(game_id)
    assert _zadds(redis_server.url) == 0  # 60 moves: nothing on their path
    assert active.count() == 3  # a scrape writes this process's notes first
    assert _zadds(redis_server.url) == 1


def test_other_processes_see_the_moves_within_a_period(store, redis_server) -> None:
    """A scrape answered by another worker counts moves noted here once the flusher has run."""
    mover, scraper = ActiveGames(store, flush_every=0.05), ActiveGames(store)
    mover.touch("g1")
    mover.touch("g2")
    deadline = time.monotonic() + 5
    while scraper.count() != 2:
        assert time.monotonic() < deadline, "the flusher never wrote the moves"
        time.sleep(0.02)


def test_the_flusher_ends_when_moves_stop(store) -> None:
    before = set(threading.enumerate())
    active = ActiveGames(store, flush_every=0.02)
    active.touch("g1")
    assert [t.name for t in set(threading.enumerate()) - before] == ["active-games"]
    deadline = time.monotonic() + 5
    while any(t.name == "active-games" for t in set(threading.enumerate()) - before):
        assert time.monotonic() < deadline, "the flusher outlived the moves"
        time.sleep(0.02)
    active.touch("g2")  # the next move starts it again
    assert active.count() == 2


def test_without_redis_the_count_is_immediate() -> None:
    active = ActiveGames(MemoryStore())
    active.touch("g1")
    active.touch("g1")
    active.touch("g2")
    assert active.count() == 2
