"""(e) Joining and moving seats, (f) the join rate limit, and the lifetimes of games and codes."""
# ruff: noqa: F811 - pytest fixtures imported from fixtures_api are redefined as parameters

from __future__ import annotations

import threading

import pytest

from api.game.auth import CODE_ALPHABET
from api.store.memory import MemoryStore
from tests.api.fixtures_api import (  # noqa: F401
    API,
    PUBLIC,
    Game,
    api_store,
    bearer,
    client,
    create,
    make_app,
    new_game,
    play_out,
    stored,
)

HOUR = 3600
DAY = 24 * HOUR


class Clock:
    """A clock the test moves by hand."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


def join(client, code):
    return client.post(f"{API}/games/join", json={"code": code})


def test_duo_creation_gives_seat_zero_and_a_join_code(client, api_store):
    body = create(client, "duo").get_json()
    assert body["seat"] == 0 and body["version"] == 1
    assert len(body["token"]) >= 43  # 256 random bits, URL-safe
    code = body["join_code"]
    assert len(code) == 6 and set(code) <= set(CODE_ALPHABET)
    assert body["join_url"] == f"{PUBLIC}/#join={code}"
    assert body["seats"] == [{"seat": 0, "taken": True, "name": None},
                             {"seat": 1, "taken": False, "name": None}]
    # The store keeps only the token's hash.
    _, raw = api_store.load(body["game_id"])
    assert body["token"] not in raw
    solo = create(client, "solo").get_json()
    assert solo["join_code"] is None and solo["join_url"] is None


def test_join_takes_the_free_seat_once(client, api_store):
    body = create(client, "duo").get_json()
    game_id, code = body["game_id"], body["join_code"]
    lobby = client.get(f"{API}/games/{game_id}", headers=bearer(body["token"])).get_json()
    assert lobby["join_code"] == code  # the creator can show it again
    assert "join_code" not in client.get(f"{API}/games/{game_id}").get_json()  # spectators cannot
    joined = join(client, f"{code[:3].lower()}-{code[3:]}")  # case and separators do not matter
    assert joined.status_code == 200, joined.get_json()
    seat = joined.get_json()
    assert seat["seat"] == 1 and seat["version"] == 2 and seat["token"] != body["token"]
    assert seat["view"]["players"][1]["hand"] is not None and seat["view"]["players"][0]["hand"] is None
    again = join(client, code)
    assert again.status_code == 404 and again.get_json()["code"] == "unknown_code"
    assert stored(api_store, game_id)[0] == 2
    assert "join_code" not in client.get(f"{API}/games/{game_id}", headers=bearer(body["token"])).get_json()


def test_two_devices_racing_for_one_seat(api_store):
    app = make_app(api_store)
    code = create(app.test_client(), "duo").get_json()["join_code"]
    barrier = threading.Barrier(6)
    statuses = []

    def attempt():
        c = app.test_client()
        barrier.wait()
        statuses.append(join(c, code).status_code)

    threads = [threading.Thread(target=attempt) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(statuses) == [200] + [404] * 5


def test_transfer_moves_a_seat_and_revokes_the_old_token(client, api_store):
    game = new_game(client, "duo")
    old = game.tokens[1]
    resp = client.post(f"{API}/games/{game.id}/transfer", headers=bearer(old))
    assert resp.status_code == 201, resp.get_json()
    offer = resp.get_json()
    assert offer["seat"] == 1 and offer["version"] == 2 and offer["expires_in"] > 0
    assert offer["transfer_url"] == f"{PUBLIC}/#join={offer['transfer_code']}"
    assert stored(api_store, game.id)[0] == 2  # asking for a code changes nothing
    spare = client.post(f"{API}/games/{game.id}/transfer", headers=bearer(old)).get_json()["transfer_code"]

    claimed = join(client, offer["transfer_code"])
    assert claimed.status_code == 200, claimed.get_json()
    new = claimed.get_json()
    assert new["seat"] == 1 and new["version"] == 3 and new["token"] not in (old, game.tokens[0])
    game.tokens[1], game.version = new["token"], 3

    for resp in (client.get(f"{API}/games/{game.id}", headers=bearer(old)),
                 client.post(f"{API}/games/{game.id}/transfer", headers=bearer(old)),
                 client.post(f"{API}/games/{game.id}/actions", headers=bearer(old),
                             json={"action": {"type": "end_phase"}, "version": 3})):
        assert resp.status_code == 401 and resp.get_json()["code"] == "bad_token"
    assert game.get(1).get_json()["seat"] == 1
    # Used and superseded transfer codes are dead.
    assert join(client, offer["transfer_code"]).status_code == 404
    assert join(client, spare).status_code == 404
    log = client.get(f"{API}/games/{game.id}/events?since=2").get_json()["log"]
    assert log == [{"version": 3, "events": [{"type": "seat_transferred", "seat": 1, "name": None}]}]
    # The game goes on with the new token.
    active = game.get(None).get_json()["view"]["active"]
    action = game.get(active).get_json()["view"]["legal_actions"][0]
    assert game.act(active, action).status_code == 200


def test_creator_seat_can_move_in_a_lobby_too(client):
    body = create(client, "duo").get_json()
    offer = client.post(f"{API}/games/{body['game_id']}/transfer", headers=bearer(body["token"])).get_json()
    claimed = join(client, offer["transfer_code"]).get_json()
    assert claimed["seat"] == 0 and claimed["version"] == 2
    # The join code still opens seat 1.
    assert join(client, body["join_code"]).get_json()["seat"] == 1


def test_spectators_cannot_ask_for_a_transfer(client):
    game = new_game(client, "solo")
    resp = client.post(f"{API}/games/{game.id}/transfer")
    assert resp.status_code == 401 and resp.get_json()["code"] == "bad_token"


def test_join_qr_code(client):
    body = create(client, "duo").get_json()
    url = f"{API}/games/{body['game_id']}/qr.svg"
    resp = client.get(url, headers=bearer(body["token"]))
    assert resp.status_code == 200 and resp.mimetype == "image/svg+xml"
    assert b"<svg" in resp.data
    assert client.get(url).status_code == 401  # the join code is for seated players to show
    assert client.get(url, query_string={"code": body["join_code"]}).status_code == 200
    assert client.get(url, query_string={"code": "ZZZZZZ"}).get_json()["code"] == "unknown_code"
    join(client, body["join_code"])
    assert client.get(url, headers=bearer(body["token"])).get_json()["code"] == "unknown_code"


def test_failed_joins_are_rate_limited_per_address():
    clock = Clock()
    store = MemoryStore(clock=clock)
    app = make_app(store, JOIN_LIMIT=3, JOIN_WINDOW=60)
    client = app.test_client()
    code = create(client, "duo").get_json()["join_code"]
    for _ in range(3):
        assert join(client, "ZZZZZZ").status_code == 404
    limited = join(client, code)  # even the right code waits: guessing must not pay off
    assert limited.status_code == 429
    assert limited.get_json()["code"] == "rate_limited"
    assert limited.headers["Retry-After"] == "60"
    other = app.test_client()
    resp = other.post(f"{API}/games/join", json={"code": "ZZZZZZ"}, environ_base={"REMOTE_ADDR": "10.0.0.9"})
    assert resp.status_code == 404  # another address has its own budget
    qr = client.get(f"{API}/games/abc/qr.svg", query_string={"code": "ZZZZZZ"})
    assert qr.status_code == 429  # checking codes through the QR endpoint counts too
    clock.now += 61
    assert join(client, code).status_code == 200


def lifetimes_app():
    clock = Clock()
    store = MemoryStore(clock=clock)
    return clock, store, make_app(store).test_client()


def test_lobby_expires_after_a_day():
    clock, store, client = lifetimes_app()
    body = create(client, "duo").get_json()
    clock.now += 23 * HOUR
    assert client.get(f"{API}/games/{body['game_id']}").status_code == 200
    clock.now += 2 * HOUR
    assert client.get(f"{API}/games/{body['game_id']}").status_code == 404
    assert join(client, body["join_code"]).status_code == 404


def test_games_stay_resumable_thirty_days_after_the_last_move():
    clock, store, client = lifetimes_app()
    game = new_game(client, "duo")
    clock.now += 29 * DAY
    active = game.get(None).get_json()["view"]["active"]
    action = game.get(active).get_json()["view"]["legal_actions"][0]
    assert game.act(active, action).status_code == 200
    clock.now += 29 * DAY  # 58 days after creation, 29 after the last move
    assert game.get(None).status_code == 200
    clock.now += 2 * DAY
    assert game.get(None).status_code == 404


def test_finished_games_are_kept_a_week():
    clock, store, client = lifetimes_app()
    game = new_game(client, "solo")
    play_out(game, store, seed=11)
    clock.now += 6 * DAY
    assert game.get(0).status_code == 200
    clock.now += 2 * DAY
    assert game.get(0).status_code == 404


@pytest.mark.parametrize("mode", ["duo", "solo"])
def test_views_of_new_games_hide_the_deck(client, api_store, mode):
    game: Game = new_game(client, mode, join=False)
    _, doc = stored(api_store, game.id)
    text = game.get(0).get_data(as_text=True)
    # The only seed-like key is the commitment (a SHA-256 of seed and a secret salt), never the seed.
    assert '"seed"' not in text and str(doc["position"]["seed"]) not in text
    assert text.count("seed") == text.count("seed_commitment")
