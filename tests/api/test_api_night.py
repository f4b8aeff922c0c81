"""Game-night additions over HTTP: player names, rematch, the tutorial deal, the end breakdown, and the
host's own join link (api.night, api.service)."""
# ruff: noqa: F811 - pytest fixtures imported from fixtures_api are redefined as parameters

from __future__ import annotations

import json

import pytest

from tests.api.fixtures_api import (  # noqa: F401
    API,
    Game,
    api_store,
    bearer,
    client,
    create,
    mclient,
    memory_store,
    new_game,
    stored,
)


def join(client, code, **body):
    return client.post(f"{API}/games/join", json={"code": code, **body})


def problem(resp, status: int, code: str) -> dict:
    assert resp.status_code == status, resp.get_json()
    assert resp.mimetype == "application/problem+json"
    body = resp.get_json()
    assert body["code"] == code
    return body


# ------------------------------------------------------------------ names


def test_names_given_at_create_and_join_are_in_every_answer_and_the_record(client, api_store):
    host = create(client, "duo", name="  Ann  ").get_json()
    assert host["seats"] == [{"seat": 0, "taken": True, "name": "Ann"},
                             {"seat": 1, "taken": False, "name": None}]
    joined = join(client, host["join_code"], name="Bo <b>").get_json()
    expected = [{"seat": 0, "taken": True, "name": "Ann"}, {"seat": 1, "taken": True, "name": "Bo <b>"}]
    assert joined["seats"] == expected
    game = Game(client, host["game_id"], {0: host["token"], 1: joined["token"]}, joined["version"])
    for seat in (0, 1, None):
        assert game.get(seat).get_json()["seats"] == expected
    # The join's log entry names the joiner (the host's phone learns it from the event, too).
    log = client.get(f"{API}/games/{game.id}/events?since=1").get_json()["log"]
    assert log == [{"version": 2, "events": [{"type": "seat_joined", "seat": 1, "name": "Bo <b>"}]}]
    # Stored once, as given (trimmed); the record carries them.
    _, doc = stored(api_store, game.id)
    assert doc["n"] == ["Ann", "Bo <b>"]
    finish(game)
    record = client.get(f"{API}/games/{game.id}/record").get_json()
    assert record["seats"] == [{"seat": 0, "who": "human", "name": "Ann"},
                               {"seat": 1, "who": "human", "name": "Bo <b>"}]


def test_without_names_seats_have_null_names_and_the_bot_never_has_one(mclient):
    body = create(mclient, "duo", bot="greedy", name="Ann").get_json()
    assert body["seats"] == [{"seat": 0, "taken": True, "name": "Ann"},
                             {"seat": 1, "taken": True, "name": None, "bot": "greedy"}]
    plain = create(mclient, "solo", name=None).get_json()
    assert plain["seats"] == [{"seat": 0, "taken": True, "name": None}]


@pytest.mark.parametrize("name", ["", "   ", "a" * 25, " " + "b" * 25, "a\x00b", "tab\there", "new\nline",
                                  "\x7f", "bidi\u202eevil", "x" * 65, 7, True, ["Ann"], {"n": 1}])
def test_a_bad_name_is_refused_and_changes_nothing(mclient, memory_store, name):
    problem(mclient.post(f"{API}/games", json={"mode": "duo", "name": name}), 400, "invalid_request")
    host = create(mclient, "duo").get_json()
    resp = join(mclient, host["join_code"], name=name)
    body = problem(resp, 400, "invalid_request")
    assert "name" in json.dumps(body["errors"])
    version, doc = stored(memory_store, host["game_id"])
    assert version == 1 and doc["s"][1] is None and "n" not in doc


FAMILY = "👩\u200d👩\u200d👧"  # joined by zero-width joiners: a format character, not a control


@pytest.mark.parametrize(("given", "kept"), [("Ann", "Ann"), (" Zoë ", "Zoë"), ("a" * 24, "a" * 24),
                                             ("  " + "c" * 24 + "  ", "c" * 24), ("<script>", "<script>"),
                                             ("李 小龍", "李 小龍"), (FAMILY, FAMILY)])
def test_a_good_name_is_kept_trimmed_as_plain_text(mclient, given, kept):
    body = create(mclient, "solo", name=given).get_json()
    assert body["seats"][0]["name"] == kept


def test_a_transfer_keeps_the_name_unless_a_new_one_is_given(mclient):
    game = new_game(mclient, "duo", name="Ann")
    offer = mclient.post(f"{API}/games/{game.id}/transfer", headers=bearer(game.tokens[0])).get_json()
    moved = join(mclient, offer["transfer_code"]).get_json()
    assert moved["seat"] == 0 and moved["seats"][0]["name"] == "Ann"
    offer = mclient.post(f"{API}/games/{game.id}/transfer", headers=bearer(moved["token"])).get_json()
    moved = join(mclient, offer["transfer_code"], name="Anna").get_json()
    assert moved["seats"][0]["name"] == "Anna"


# ------------------------------------------------------------------ helpers


def finish(game: Game) -> dict:
    """Play `game` to its end with each active seat's first legal action; return the last answer."""
    answer = game.get(0).get_json()
    game.version = answer["version"]
    while answer["view"]["phase"] != "over":
        seat = answer["view"]["active"]
        mine = game.get(seat).get_json()
        resp = game.act(seat, mine["view"]["legal_actions"][0], version=mine["version"])
        assert resp.status_code == 200, resp.get_json()
        game.version = resp.get_json()["version"]
        answer = game.get(0).get_json()
        game.version = answer["version"]
    return answer
