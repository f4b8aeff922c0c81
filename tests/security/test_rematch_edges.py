"""Rematches on real gunicorn (2 workers) and a private Redis: however many phones race for a finished
game's rematch, there is one next game, and it counts once against the creation limit; the seat kept in it
for the other player expires like an unjoined game's, not after 30 days.

Issue 29, finding 9: an unclaimed rematch seat kept a game alive for 30 days; a rematch that two phones
raced for counted against the create limit more than once.
"""

from __future__ import annotations

from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
import redis
import requests

from tests.live.servers import Gunicorn
from tests.redis_server import RedisServer
from tests.security.conftest import as_from, serving
from tests.security.hostile import bearer
from tests.security.test_limits_rate import assert_rate_limited, create

API = "/api/v1"
HOME = "198.51.100.230"
SPENT = "198.51.100.231"  # the address whose budget test_a_rematch_from_a_spent_address_makes_nothing spends
DAY = 24 * 3600


@pytest.fixture(scope="module")
def server(redis_server: RedisServer) -> Iterator[Gunicorn]:
    """gunicorn (2 gthread workers, behind PROXY_COUNT=1) with 3 games created per address in 600 s; each
    test creates from its own address."""
    with serving(redis_server, {"CREATE_LIMIT": 3, "CREATE_WINDOW": 600}) as running:
        yield running


def play_to_the_end(url: str, game_id: str, tokens: dict[int, str]) -> None:
    """Play the first legal action until the game is over: one request per move (each answer carries
    the mover's view), and a read only when the turn passes to the other seat."""
    game_url = f"{url}{API}/games/{game_id}"
    with requests.Session() as http:
        seat = 0
        mine = http.get(game_url, headers=bearer(tokens[seat]), timeout=10).json()
        while mine["view"]["phase"] != "over":
            if mine["view"]["active"] != seat:
                seat = mine["view"]["active"]
                mine = http.get(game_url, headers=bearer(tokens[seat]), timeout=10).json()
                continue
            move = {"action": mine["view"]["legal_actions"][0], "version": mine["version"]}
            answer = http.post(game_url + "/actions", json=move, headers=bearer(tokens[seat]), timeout=10)
            assert answer.status_code == 200, answer.text
            mine = answer.json()


def test_racing_phones_get_one_rematch_counted_once_and_its_kept_seat_expires(server, redis_server) -> None:
    headers = as_from(HOME)
    game_id, tokens = duo_game_from(server.url, HOME)  # one game created (1 of 3)
    play_to_the_end(server.url, game_id, tokens)
    url = f"{server.url}{API}/games/{game_id}/rematch"

    def ask(token: str) -> requests.Response:
        return requests.post(url, headers={**bearer(token), **headers}, timeout=10)

    # Four phones of the first player ask at once (the same seat on several devices, or retries).
    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(ask, [tokens[0]] * 4))
    assert [r.status_code for r in answers] == [200] * 4, [r.text for r in answers]
    assert len({r.json()["game_id"] for r in answers}) == 1  # one next game
    rematch_id = answers[0].json()["game_id"]
    # It counted once (2 of 3): one more game may be created, then the limit holds.
    assert create(server.url, HOME).status_code == 201
    assert_rate_limited(create(server.url, HOME), 600)
    # The seat kept for the other player lives as long as an unjoined game's (a day), not 30 days.
    with redis.Redis.from_url(redis_server.url) as client:
        keys = [k for k in client.scan_iter(f"*{rematch_id}*") if client.type(k) != b"none"]
        ttls = [client.ttl(k) for k in keys]
    assert keys and all(0 < ttl <= DAY for ttl in ttls), dict(zip(keys, ttls, strict=True))
    # The other player takes the kept seat: now it lives as a game does.
    theirs = ask(tokens[1])
    assert theirs.status_code == 200 and theirs.json()["game_id"] == rematch_id
    with redis.Redis.from_url(redis_server.url) as client:
        state = [k for k in client.scan_iter(f"*{rematch_id}*:state")]
        assert state and client.ttl(state[0]) > DAY


def test_a_rematch_from_a_spent_address_makes_nothing(server) -> None:
    """Checked before the link is made: a refused call leaves no next game behind."""
    game_id, tokens = duo_game_from(server.url, SPENT)  # 1 of 3
    assert [create(server.url, SPENT).status_code for _ in range(2)] == [201, 201]  # 3 of 3: spent
    play_to_the_end(server.url, game_id, tokens)
    refused = requests.post(f"{server.url}{API}/games/{game_id}/rematch",
                            headers={**bearer(tokens[0]), **as_from(SPENT)}, timeout=10)
    assert_rate_limited(refused, 600)
    assert requests.get(f"{server.url}{API}/games/{game_id}", timeout=10).json().get("rematch") is None


def duo_game_from(url: str, address: str) -> tuple[str, dict[int, str]]:
    grant = requests.post(f"{url}{API}/games", json={"mode": "duo"}, headers=as_from(address),
                          timeout=10).json()
    joined = requests.post(f"{url}{API}/games/join", json={"code": grant["join_code"]},
                           headers=as_from(address), timeout=10).json()
    return grant["game_id"], {0: grant["token"], 1: joined["token"]}

