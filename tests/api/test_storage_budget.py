"""Bytes per game are a budget: a complete game played the way the phone plays
it (a fresh Idempotency-Key per move) takes at most 64 KB in Redis while it is played and at most 8 KB
once its idempotency records have gone; the same ideas hold in SQLite. tests/perf/storage_bench.py
prints the figures; this test holds the budget on one duo and one solo game."""

from __future__ import annotations

import sqlite3
import uuid

import pytest
import redis

from api.store.redis import RedisStore
from api.store.sqlite import SqliteStore
from tests.api.conftest import flush
from tests.api.fixtures_api import make_app, new_game

PLAYING, AFTER = 64 * 1024, 8 * 1024


def play_to_the_end(store, mode: str) -> str:
    """Play a whole game of `mode` over the app with a fresh Idempotency-Key per move; return its id."""
    game = new_game(make_app(store).test_client(), mode)
    for _ in range(5000):
        view = game.get(None).get_json()["view"]
        if view["phase"] == "over":
            return game.id
        seat = view["active"]
        action = game.get(seat).get_json()["view"]["legal_actions"][-1]
        resp = game.act(seat, action, key=str(uuid.uuid4()))
        assert resp.status_code == 200, resp.get_json()
        game.version = resp.get_json()["version"]
    raise AssertionError("the game did not end")


@pytest.mark.redis
@pytest.mark.parametrize("mode", ["duo", "solo"])
def test_a_complete_game_fits_the_budget_in_redis(redis_server, mode: str) -> None:
    flush(redis_server)
    store = RedisStore(redis_server.url)
    try:
        game_id = play_to_the_end(store, mode)
        with redis.Redis.from_url(redis_server.url, decode_responses=True) as raw:
            keys = list(raw.scan_iter(match=f"*{{{game_id}}}*"))
            assert any(key.endswith(":idem") for key in keys)
            playing = sum(raw.memory_usage(key, samples=0) for key in keys)
            raw.delete(*[key for key in keys if key.endswith(":idem")])  # the window has passed
            after = sum(raw.memory_usage(key, samples=0) for key in raw.scan_iter(match=f"*{{{game_id}}}*"))
        assert playing <= PLAYING, playing
        assert after <= AFTER, after
        # What is left is enough: the record replays the whole game.
        assert make_app(store).test_client().get(f"/api/v1/games/{game_id}/record").status_code == 200
    finally:
        store.close()


@pytest.mark.parametrize("mode", ["duo", "solo"])
def test_a_complete_game_fits_the_budget_in_sqlite(tmp_path, mode: str) -> None:
    path = tmp_path / "games.db"
    store = SqliteStore(path)
    try:
        game_id = play_to_the_end(store, mode)
    finally:
        store.close()
    with sqlite3.connect(path) as conn:
        (game,) = conn.execute("SELECT length(id) + length(doc) + length(log) + 16 FROM games WHERE id=?",
                               (game_id,)).fetchone()
        (records,) = conn.execute("SELECT sum(length(game_id) + length(key) + length(fingerprint) + 16)"
                                  " FROM idem WHERE game_id=?", (game_id,)).fetchone()
    assert records and game + records <= PLAYING, (game, records)
    assert game <= AFTER, game
