"""(c) Bad input gets its documented status and code as problem+json, and never changes a game."""
# ruff: noqa: F811 - pytest fixtures imported from fixtures_api are redefined as parameters

from __future__ import annotations

import json

import pytest

from api.store.base import StoreUnavailable
from api.store.memory import MemoryStore
from tests.api.fixtures_api import API, api_store, bearer, client, make_app, new_game  # noqa: F401

PROBLEM_KEYS = {"type", "title", "status", "detail", "code"}


def assert_problem(resp, status: int, code: str) -> dict:
    body = resp.get_json(force=True)
    assert resp.status_code == status, body
    assert resp.mimetype == "application/problem+json"
    assert set(body) >= PROBLEM_KEYS
    assert body["status"] == status and body["code"] == code, body
    return body


@pytest.fixture
def table(client, api_store):
    """A joined duo game: (game, active seat, waiting seat, raw stored document)."""
    game = new_game(client, "duo")
    active = game.get(None).get_json()["view"]["active"]
    return game, active, 1 - active


def post(game, seat, body, headers=None, **kw):
    headers = dict(headers or {})
    if seat is not None:
        headers.update(bearer(game.tokens[seat]))
    if "data" not in kw:
        kw["json"] = body
    return game.client.post(f"{API}/games/{game.id}/actions", headers=headers, **kw)


# (description, who acts: "active"/"waiting"/None, request keywords, status, code)
ACTION_CASES = [
    ("malformed JSON", "active", {"data": b'{"action": ', "content_type": "application/json"}, 400,
     "invalid_request"),
    ("not JSON at all", "active", {"data": b"action=end_phase", "content_type": "text/plain"}, 415,
     "invalid_request"),
    ("form body", "active", {"data": {"action": "x"}}, 415, "invalid_request"),
    ("a JSON list", "active", {"body": [1, 2]}, 400, "invalid_request"),
    ("no version", "active", {"body": {"action": {"type": "end_phase"}}}, 400, "invalid_request"),
    ("no action", "active", {"body": {"version": 2}}, 400, "invalid_request"),
    ("version as text", "active", {"body": {"action": {"type": "end_phase"}, "version": "2"}}, 400,
     "invalid_request"),
    ("version as bool", "active", {"body": {"action": {"type": "end_phase"}, "version": True}}, 400,
     "invalid_request"),
    ("version zero", "active", {"body": {"action": {"type": "end_phase"}, "version": 0}}, 400,
     "invalid_request"),
    ("unknown body key", "active", {"body": {"action": {"type": "end_phase"}, "version": 2, "x": 1}}, 400,
     "invalid_request"),
    ("action not an object", "active", {"body": {"action": "end_phase", "version": 2}}, 400,
     "invalid_action"),
    ("unknown action type", "active", {"body": {"action": {"type": "trade"}, "version": 2}}, 400,
     "invalid_action"),
    ("action without type", "active", {"body": {"action": {"field": 0}, "version": 2}}, 400,
     "invalid_action"),
    ("action missing a key", "active", {"body": {"action": {"type": "plant_hand"}, "version": 2}}, 400,
     "invalid_action"),
    ("action with an extra key", "active",
     {"body": {"action": {"type": "end_phase", "field": 0}, "version": 2}}, 400, "invalid_action"),
    ("field out of range", "active", {"body": {"action": {"type": "harvest", "field": 7}, "version": 2}}, 400,
     "invalid_action"),
    ("field of the wrong type", "active",
     {"body": {"action": {"type": "harvest", "field": "0"}, "version": 2}}, 400, "invalid_action"),
    ("unknown bean", "active",
     {"body": {"action": {"type": "discard_display", "bean": "XX"}, "version": 2}}, 400, "invalid_action"),
    ("third field not owned (duo)", "active",
     {"body": {"action": {"type": "harvest", "field": 2}, "version": 2}}, 422, "illegal_action"),
    ("joe in duo", "active",
     {"body": {"action": {"type": "give_hand", "index": 0, "boss": "joe"}, "version": 2}}, 422,
     "illegal_action"),
    ("oversized body", "active",
     {"body": {"action": {"type": "end_phase", "pad": "x" * 20000}, "version": 2}}, 413, "payload_too_large"),
    ("spectator acting", None, {"body": {"action": {"type": "end_phase"}, "version": 2}}, 401, "bad_token"),
    ("wrong token", "wrong", {"body": {"action": {"type": "end_phase"}, "version": 2}}, 401, "bad_token"),
    ("not a bearer header", "basic", {"body": {"action": {"type": "end_phase"}, "version": 2}}, 401,
     "bad_token"),
    ("out of turn", "waiting", {"body": {"action": {"type": "end_phase"}, "version": 2}}, 403,
     "not_your_turn"),
    ("stale version", "active", {"body": {"action": {"type": "end_phase"}, "version": 1}}, 409,
     "stale_version"),
    ("future version", "active", {"body": {"action": {"type": "end_phase"}, "version": 9}}, 409,
     "stale_version"),
    ("idempotency key too long", "active",
     {"body": {"action": {"type": "end_phase"}, "version": 2}, "headers": {"Idempotency-Key": "k" * 300}},
     400, "invalid_request"),
]


@pytest.mark.parametrize(("who", "request_kw", "status", "code"), [c[1:] for c in ACTION_CASES],
                         ids=[c[0] for c in ACTION_CASES])
def test_bad_action_requests(table, api_store, who, request_kw, status, code):
    game, active, waiting = table
    before = api_store.load(game.id)
    kw = dict(request_kw)
    body = kw.pop("body", None)
    headers = kw.pop("headers", {})
    seat = {"active": active, "waiting": waiting}.get(who)
    if who == "wrong":
        headers["Authorization"] = "Bearer " + "x" * 43
    elif who == "basic":
        headers["Authorization"] = "Basic " + game.tokens[active]
    problem = assert_problem(post(game, seat, body, headers, **kw), status, code)
    assert api_store.load(game.id) == before, "a refused request changed the game"
    if code == "stale_version":
        assert problem["version"] == 2
        mine = problem["view"]
        assert mine["seat"] == active and mine["players"][active]["hand"] is not None
        assert mine["players"][waiting]["hand"] is None


def test_unknown_game(client):
    body = {"action": {"type": "end_phase"}, "version": 1}
    resp = client.post(f"{API}/games/nosuchgame/actions", json=body, headers=bearer("t"))
    assert_problem(resp, 404, "unknown_game")
    assert_problem(client.get(f"{API}/games/nosuchgame"), 404, "unknown_game")
    assert_problem(client.get(f"{API}/games/no.such:game"), 404, "not_found")  # not a game id at all
    assert_problem(client.get(f"{API}/games/nosuchgame/events"), 404, "unknown_game")


def test_reading_with_a_wrong_token_is_refused_not_downgraded(table):
    game, _, _ = table
    resp = game.client.get(f"{API}/games/{game.id}", headers=bearer("not-a-seat"))
    assert_problem(resp, 401, "bad_token")
    resp = game.client.get(f"{API}/games/{game.id}/events", headers=bearer("not-a-seat"))
    assert_problem(resp, 401, "bad_token")


@pytest.mark.parametrize("query", ["since=-1", "since=abc", "since=1.5"])
def test_bad_event_queries(table, query):
    game, _, _ = table
    assert_problem(game.client.get(f"{API}/games/{game.id}/events?{query}"), 400, "invalid_request")


BAD_CREATE = [{}, {"mode": "trio"}, {"mode": "duo", "dealer": 2},
              {"mode": "duo", "seed": 1}, {"mode": 1}, [], "duo"]


@pytest.mark.parametrize("body", BAD_CREATE)
def test_bad_create_requests(client, api_store, body):
    assert_problem(client.post(f"{API}/games", json=body), 400, "invalid_request")


def test_bad_join_codes(client):
    assert_problem(client.post(f"{API}/games/join", json={"code": "ZZZZZZ"}), 404, "unknown_code")
    assert_problem(client.post(f"{API}/games/join", json={"code": "0O1IL!"}), 404, "unknown_code")
    assert_problem(client.post(f"{API}/games/join", json={"code": 123456}), 400, "invalid_request")
    assert_problem(client.post(f"{API}/games/join", json={}), 400, "invalid_request")


def test_unknown_path_and_wrong_method(client):
    assert_problem(client.get(f"{API}/nothing-here"), 404, "not_found")
    resp = client.delete(f"{API}/games/abc")
    assert_problem(resp, 405, "method_not_allowed")
    assert set(resp.headers["Allow"].replace(" ", "").split(",")) >= {"GET"}
    resp = client.get(f"{API}/games/join")  # `join` is never read as a game id
    assert_problem(resp, 405, "method_not_allowed")
    assert "GET" not in resp.headers["Allow"] and "POST" in resp.headers["Allow"]
    resp = client.put(f"{API}/games")
    assert_problem(resp, 405, "method_not_allowed")
    assert "POST" in resp.headers["Allow"]


class DownStore(MemoryStore):
    """A store whose backend has gone away."""

    def load(self, game_id):
        raise StoreUnavailable("connection refused")

    def create(self, game_id, doc, ttl):
        raise StoreUnavailable("connection refused")

    def ping(self):
        return False


def test_store_down_is_503_not_500():
    client = make_app(DownStore()).test_client()
    problem = assert_problem(client.post(f"{API}/games", json={"mode": "solo"}), 503, "store_unavailable")
    assert problem["status"] == 503
    resp = client.get(f"{API}/games/abc")
    assert_problem(resp, 503, "store_unavailable")
    assert resp.headers["Retry-After"]
    assert_problem(client.get(f"{API}/health"), 503, "store_unavailable")


def test_cors_preflight_and_headers(client):
    resp = client.options(f"{API}/games/abc/actions", headers={
        "Origin": "http://elsewhere.test", "Access-Control-Request-Method": "POST",
        "Access-Control-Request-Headers": "authorization, content-type, idempotency-key"})
    assert resp.status_code == 200
    assert resp.headers["Access-Control-Allow-Origin"] == "*"
    allowed = resp.headers["Access-Control-Allow-Headers"].lower()
    for header in ("authorization", "content-type", "idempotency-key"):
        assert header in allowed
    assert "POST" in resp.headers["Access-Control-Allow-Methods"]
    created = client.post(f"{API}/games", json={"mode": "solo"}, headers={"Origin": "http://elsewhere.test"})
    assert created.headers["Access-Control-Allow-Origin"] == "*"
    assert "Set-Cookie" not in created.headers
    assert json.loads(created.data)["token"]
