"""Fixtures and helpers for the HTTP API tests; test modules import what they use from here.

(The store developer owns tests/api/conftest.py; its `redis_server` fixture is reused here.)
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
import redis

import engine
from api import close as close_app
from api import create_app
from api.store.base import GameStore
from api.store.memory import MemoryStore
from api.store.sqlite import SqliteStore
from tests.contract import watch_problems

PUBLIC = "http://table.test:8000"
API = "/api/v1"


def open_api_store(kind: str, request: pytest.FixtureRequest, tmp_path) -> GameStore:
    """Return an empty store of `kind` (memory, sqlite, or a flushed private redis-server)."""
    if kind == "memory":
        return MemoryStore()
    if kind == "sqlite":
        return SqliteStore(tmp_path / "games.db")
    from api.store.redis import RedisStore

    server = request.getfixturevalue("redis_server")
    with redis.Redis.from_url(server.url) as client:
        client.flushall()
    return RedisStore(server.url)


@pytest.fixture(params=["memory", "sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def api_store(request: pytest.FixtureRequest, tmp_path) -> Iterator[GameStore]:
    """An empty store of each kind, closed afterwards."""
    store = open_api_store(request.param, request, tmp_path)
    yield store
    store.close()


@pytest.fixture
def memory_store() -> Iterator[GameStore]:
    """One MemoryStore, for tests about the HTTP layer rather than the backends."""
    store = MemoryStore()
    yield store
    store.close()


def make_app(store: GameStore, **config):
    return watch_problems(create_app({"STORE": store, "PUBLIC_URL": PUBLIC, **config}))


@pytest.fixture
def client(api_store):
    """A Flask test client on an app over `api_store` (the app closed before the store)."""
    app = make_app(api_store)
    yield app.test_client()
    close_app(app)


@pytest.fixture
def mclient(memory_store):
    """A Flask test client on an app over `memory_store`."""
    app = make_app(memory_store)
    yield app.test_client()
    close_app(app)


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def stored(store: GameStore, game_id: str) -> tuple[int, dict]:
    """Return (version, document) as the store holds them."""
    found = store.load(game_id)
    assert found is not None, f"game {game_id} is not stored"
    return found[0], json.loads(found[1])


@dataclass
class Game:
    """A game driven through HTTP: the tokens of its seats and the last version seen."""

    client: object
    id: str
    tokens: dict[int, str]
    version: int
    created: dict = field(default_factory=dict)

    def get(self, seat: int | None = None):
        headers = bearer(self.tokens[seat]) if seat is not None else {}
        return self.client.get(f"{API}/games/{self.id}", headers=headers)

    def act(self, seat: int | None, action, version: int | None = None, key: str | None = None, **kw):
        headers = bearer(self.tokens[seat]) if seat is not None else {}
        if key:
            headers["Idempotency-Key"] = key
        body = {"action": action, "version": self.version if version is None else version}
        return self.client.post(f"{API}/games/{self.id}/actions", json=body, headers=headers, **kw)


def create(client, mode: str = "duo", **options):
    """POST /games and return the response (asserting 201)."""
    resp = client.post(f"{API}/games", json={"mode": mode, **options})
    assert resp.status_code == 201, resp.get_json()
    return resp


def new_game(client, mode: str = "duo", *, join: bool = True, **options) -> Game:
    """Create a game (and for duo let a second device join); return it at its current version."""
    body = create(client, mode, **options).get_json()
    game = Game(client, body["game_id"], {0: body["token"]}, body["version"], body)
    if mode == "duo" and join:
        resp = client.post(f"{API}/games/join", json={"code": body["join_code"]})
        assert resp.status_code == 200, resp.get_json()
        joined = resp.get_json()
        assert joined["version"] == game.version + 1
        game.tokens[joined["seat"]] = joined["token"]
        game.version = joined["version"]
    return game


def walk(obj):
    """Yield every (key, value) pair in nested dicts and lists."""
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield key, value
            yield from walk(value)
    elif isinstance(obj, list):
        for item in obj:
            yield from walk(item)


def assert_no_secrets(payload: dict, position: dict, seat: int | None) -> None:
    """Fail if `payload` shows the seed, the deck order, or a hand other than `seat`'s own."""
    text = json.dumps(payload)
    for key, value in walk(payload):
        assert key not in ("seed", "deck"), f"payload carries {key!r}"
        # A view's players (the result's breakdown has a "players" list of its own: no hands there).
        if key == "players" and all("hand_size" in player for player in value):
            for i, player in enumerate(value):
                if i != seat:
                    assert player["hand"] is None, f"seat {seat} sees seat {i}'s hand"
                else:
                    assert player["hand"] == position["players"][i]["hand"]
        if key == "events":
            for event in value:
                if event.get("type") == "draw" and event.get("seat") != seat:
                    assert set(event) == {"type", "seat"}, f"seat {seat} sees another seat's draw: {event}"
    deck = position["deck"]
    if len(deck) >= 8:
        assert json.dumps(deck) not in text, "payload shows the deck order"
        assert json.dumps(deck[:8])[:-1] not in text, "payload shows the top of the deck"


def play_out(game: Game, store: GameStore, *, seed: int = 0, max_steps: int = 5000,
             whole: bool = True) -> int:
    """Play `game` to its end through HTTP, choosing at random among the views' legal actions (with
    `whole` False: `max_steps` actions at most, the game may go on).

    Checks on every step: the version rises by exactly one, no answer shows a secret, and the stored
    document stays within 2 KB. Returns the number of actions played.
    """
    rng = random.Random(seed)
    steps = 0
    while steps < max_steps:
        public = game.get(None).get_json()
        assert public["version"] == game.version
        view = public["view"]
        if view["phase"] == "over":
            return steps
        seat = view["active"]
        mine = game.get(seat).get_json()
        _, doc = stored(store, game.id)
        assert_no_secrets(mine, doc["position"], seat)
        assert_no_secrets(public, doc["position"], None)
        legal = mine["view"]["legal_actions"]
        assert legal, "the active seat must have a legal action"
        for other in game.tokens:
            if other != seat:
                theirs = game.get(other).get_json()
                assert theirs["view"]["legal_actions"] == []
                assert_no_secrets(theirs, doc["position"], other)
        resp = game.act(seat, rng.choice(legal), key=f"k{steps}")
        assert resp.status_code == 200, resp.get_json()
        answer = resp.get_json()
        assert answer["version"] == game.version + 1
        found = store.load(game.id)
        assert found is not None, f"game {game.id} is not stored"
        assert_no_secrets(answer, json.loads(found[1])["position"], seat)
        assert len(found[1].encode()) <= 2048, "the stored document outgrew 2 KB"
        game.version = answer["version"]
        steps += 1
    if not whole:
        return steps
    raise AssertionError(f"game not over after {max_steps} actions")


def replay(position: dict, actions: list[dict]):
    """Return the engine state after applying `actions` to `position` in order."""
    state = engine.from_position(position)
    for action in actions:
        state, _ = engine.apply(state, action)
    return state
