"""Fixtures and helpers of HARDEN-A's tests in this folder (store errors, malformed input, honest
outcomes): one gunicorn worker on the module's private Redis (tests/security/conftest.py), a plain client
of that Redis, and games set up over HTTP. Imported by the test modules that use them."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
import redis
import requests

from tests.live.servers import Gunicorn
from tests.redis_server import RedisServer


@pytest.fixture(scope="module")
def gunicorn(redis_server: RedisServer) -> Iterator[Gunicorn]:
    """One gunicorn worker (gthread) on the module's Redis."""
    with Gunicorn(redis_server.url, workers=1, threads=8) as server:
        yield server


@pytest.fixture
def rclient(redis_server: RedisServer) -> Iterator[redis.Redis]:
    """A plain client of the module's Redis (to look at keys and change settings)."""
    client = redis.Redis.from_url(redis_server.url, decode_responses=True)
    try:
        yield client
    finally:
        client.close()


def bearer(token: str) -> dict:
    return {"Authorization": f"Bearer {token}"}


def duo_game(base: str) -> tuple[str, dict[int, str]]:
    """Create a duo game over HTTP and take its second seat; return (game id, {seat: token})."""
    grant = requests.post(base + "/api/v1/games", json={"mode": "duo"}, timeout=10).json()
    joined = requests.post(base + "/api/v1/games/join", json={"code": grant["join_code"]}, timeout=10).json()
    assert "token" in joined, joined
    return grant["game_id"], {0: grant["token"], 1: joined["token"]}


def solo_game(base: str) -> tuple[str, str, dict, int]:
    """Create a solo game; return (game id, token, a legal action, version)."""
    grant = requests.post(base + "/api/v1/games", json={"mode": "solo"}, timeout=10).json()
    assert "token" in grant, grant
    return grant["game_id"], grant["token"], grant["view"]["legal_actions"][0], grant["version"]


def next_move(base: str, game_id: str, tokens: dict[int, str]) -> tuple[str, dict, int]:
    """Return (token of the seat to move, a legal action of it, the game's version)."""
    table = requests.get(f"{base}/api/v1/games/{game_id}", timeout=10).json()
    token = tokens[table["view"]["active"]]
    mine = requests.get(f"{base}/api/v1/games/{game_id}", headers=bearer(token), timeout=10).json()
    return token, mine["view"]["legal_actions"][0], mine["version"]
