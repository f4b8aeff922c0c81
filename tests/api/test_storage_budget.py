"""Bytes per game are a budget (docs/architecture.md "What is stored"): a complete game takes at most
16 KiB in Redis at every moment of play and at most 8 KiB once it is over (what is kept for its
lifetime), in both modes, however long it is and whatever Idempotency-Keys its moves carry. The same ideas
hold in SQLite. tests/perf/storage_bench.py prints the figures.

The games here are the hardest the rules allow us to make: long (no phase ended while anything else may
be done: some 470-540 moves in duo, where random play makes some 400; the deal is pinned, as a short
deal would make the length check fail by chance), with names of the greatest
length and a fresh key of the greatest accepted length on every move. Measured on a real redis-server
with MEMORY USAGE of every key of the game after every change."""

from __future__ import annotations

import random
import sqlite3
import string

import pytest
import redis

from api.game import gamelog, start
from api.game.gamelog import IDEMPOTENCY_KEY_MAX
from api.store.base import IDEMPOTENCY_WINDOW
from api.store.redis import RedisStore, game_key
from api.store.sqlite import SqliteStore
from engine import actions
from tests.api.conftest import flush
from tests.api.fixtures_api import API, make_app, new_game

PLAYING, KEPT = 16 * 1024, 8 * 1024
# A deal whose long games are long in both modes (497 moves in duo, 475 in solo).
DEAL = 7


@pytest.fixture(autouse=True)
def pinned_deal(monkeypatch):
    monkeypatch.setattr(start, "new_seed", lambda: DEAL)
NAME = "N" * 24  # the longest name


def longest_key(rng: random.Random) -> str:
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(IDEMPOTENCY_KEY_MAX))


def named_game(store, mode: str):
    """A game of `mode` whose seats have the longest names (for duo the second seat joined)."""
    client = make_app(store).test_client()
    game = new_game(client, mode, join=False, name=NAME)
    if mode == "duo":
        resp = client.post(f"{API}/games/join", json={"code": game.created["join_code"], "name": NAME})
        assert resp.status_code == 200, resp.get_json()
        game.tokens[resp.get_json()["seat"]] = resp.get_json()["token"]
        game.version = resp.get_json()["version"]
    return game


def play_long(store, mode: str, measure) -> tuple[str, int, int, int]:
    """Play a whole game of `mode` over the app, as long as it can be made, under the longest keys;
    call `measure(game_id)` after every change. Returns (game id, moves, most bytes, bytes at the end)."""
    rng = random.Random(f"budget:{mode}")
    game = named_game(store, mode)
    most = measure(game.id)
    view = None  # the moving seat's view: its last move's answer while its turn goes on (reads write nothing)
    for moves in range(5000):
        if view is None or (view["phase"] != "over" and view["active"] != view["seat"]):
            active = game.get(None).get_json()["view"]["active"]
            view = game.get(active).get_json()["view"]
        if view["phase"] == "over":
            return game.id, moves, most, measure(game.id)
        seat, legal = view["seat"], view["legal_actions"]
        others = [a for a in legal if a["type"] != "end_phase"]
        resp = game.act(seat, rng.choice(others or legal), key=longest_key(rng))
        assert resp.status_code == 200, resp.get_json()
        game.version = resp.get_json()["version"]
        view = resp.get_json()["view"]
        most = max(most, measure(game.id))
    raise AssertionError("the game did not end")


def redis_bytes(raw: redis.Redis, game_id: str) -> int:
    # Measured after every move: the keys in one SCAN (the flushed server holds a few dozen), their sizes
    # in one pipeline.
    keys = list(raw.scan_iter(match=f"*{{{game_id}}}*", count=10_000))
    with raw.pipeline(transaction=False) as pipe:
        for key in keys:
            pipe.memory_usage(key, samples=0)
        return sum(size or 0 for size in pipe.execute())


@pytest.mark.redis
@pytest.mark.parametrize("mode", ["duo", "solo"])
def test_a_long_game_under_the_longest_keys_fits_the_budget_in_redis(redis_server, mode: str) -> None:
    flush(redis_server)
    store = RedisStore(redis_server.url)
    try:
        with redis.Redis.from_url(redis_server.url, decode_responses=True) as raw:
            game_id, moves, most, kept = play_long(store, mode, lambda gid: redis_bytes(raw, gid))
            records = raw.hget(game_key(game_id, "state"), "i")
        assert moves > (450 if mode == "duo" else 380), moves
        assert most <= PLAYING, most
        assert kept <= KEPT, kept
        assert len(records) <= 2 * IDEMPOTENCY_WINDOW * 48, records  # a few digests per seat
        # What is kept is enough: the record replays the whole game.
        assert make_app(store).test_client().get(f"/api/v1/games/{game_id}/record").status_code == 200
    finally:
        store.close()


def sqlite_bytes(path, game_id: str) -> int:
    """The LENGTH of every column of the game's row (its id, document, log and idempotency records)."""
    with sqlite3.connect(path) as conn:
        row = conn.execute("SELECT length(id) + length(doc) + length(log) + length(idem) + 24 FROM games"
                           " WHERE id=?", (game_id,)).fetchone()
    return row[0] if row else 0


@pytest.mark.parametrize("mode", ["duo", "solo"])
def test_a_long_game_under_the_longest_keys_fits_the_budget_in_sqlite(tmp_path, mode: str) -> None:
    path = tmp_path / "games.db"
    store = SqliteStore(path)
    try:
        _, _, most, kept = play_long(store, mode, lambda game_id: sqlite_bytes(path, game_id))
    finally:
        store.close()
    assert most <= PLAYING, most
    assert kept <= KEPT, kept


@pytest.mark.redis
def test_a_game_of_a_thousand_moves_fits_the_budget_in_redis(redis_server) -> None:
    """Longer than any game we could make (the longest above end near 560 moves): 1,000 keyed moves of
    the two seats, on a document of a real game, through the store. At most 16 KiB after every commit;
    the last commit (the game over: `compact`) leaves at most 8 KiB."""
    flush(redis_server)
    store = RedisStore(redis_server.url)
    try:
        doc = _a_real_document(store)
        game_id = "thousand"
        assert store.create(game_id, doc, 3600)
        entry = gamelog.move(1, actions.to_dict(len(actions.KEYS) - 1))  # any move: every entry is 2 bytes
        most = 0
        with redis.Redis.from_url(redis_server.url, decode_responses=True) as raw:
            for version in range(1, 1001):
                last = version == 1000
                key = gamelog.key_digest(f"key {version}")
                res = store.commit(game_id, version, doc, ttl=3600, idem_key=key, fingerprint="f" * 16,
                                   seat=version % 2, compact=last, log=entry)
                assert res.status == "ok", res
                most = max(most, redis_bytes(raw, game_id))
            kept = redis_bytes(raw, game_id)
        assert most <= PLAYING, most
        assert kept <= KEPT, kept
        assert len(store.log_since(game_id, 0)) == 1000
    finally:
        store.close()


def _a_real_document(store) -> str:
    """The stored document of a duo game a few moves in, with the longest names."""
    game = named_game(store, "duo")
    for _ in range(6):
        seat = game.get(None).get_json()["view"]["active"]
        action = game.get(seat).get_json()["view"]["legal_actions"][0]
        resp = game.act(seat, action, key=None)
        game.version = resp.get_json()["version"]
    return store.load(game.id)[1]
