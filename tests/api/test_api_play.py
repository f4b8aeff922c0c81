"""(a) Complete games through HTTP only, on every store: versions rise by one, secrets stay hidden."""
# ruff: noqa: F811 - pytest fixtures imported from fixtures_api are redefined as parameters

from __future__ import annotations

import pytest

from tests.api.fixtures_api import API, api_store, bearer, client, new_game, play_out, stored  # noqa: F401


# Whole games on every backend; a second random game on the quickest only (the rules it walks through
# are the HTTP layer's, the same on every store).
@pytest.mark.parametrize(("api_store", "seed"), [("memory", 1), ("memory", 2), ("sqlite", 1),
                                                 pytest.param("redis", 1, marks=pytest.mark.redis)],
                         indirect=["api_store"])
def test_solo_game_played_to_the_end(client, api_store, seed):
    game = new_game(client, "solo")
    steps = play_out(game, api_store, seed=seed)
    assert steps > 50
    final = game.get(0).get_json()
    assert final["version"] == 1 + steps
    assert final["view"]["phase"] == "over"
    assert final["view"]["result"]["winners"]


def test_duo_game_played_to_the_end_with_two_tokens(client, api_store):
    game = new_game(client, "duo")
    assert game.version == 2  # created, then joined
    steps = play_out(game, api_store, seed=3)
    final = game.get(1).get_json()
    assert final["version"] == 2 + steps
    assert final["view"]["result"] is not None
    # A finished game is kept a week, not a month.
    version, _ = stored(api_store, game.id)
    assert version == final["version"]


# A whole game's log on one backend; on the others a game's first 60 moves (some turns, their draws), whose
# log every store keeps the same way (the whole duo game above ends on each of them).
@pytest.mark.parametrize(("api_store", "moves"), [("memory", None), ("sqlite", 60),
                                                  pytest.param("redis", 60, marks=pytest.mark.redis)],
                         indirect=["api_store"])
def test_event_log_replays_the_game_for_each_seat(client, api_store, moves):
    game = new_game(client, "duo")
    if moves is None:
        play_out(game, api_store, seed=4, max_steps=5000)
    else:
        assert play_out(game, api_store, seed=4, max_steps=moves, whole=False) == moves
    for seat in (0, 1, None):
        headers = bearer(game.tokens[seat]) if seat is not None else {}
        log = client.get(f"{API}/games/{game.id}/events?since=0", headers=headers).get_json()
        versions = [entry["version"] for entry in log["log"]]
        assert versions == list(range(2, game.version + 1))
        assert log["log"][0]["events"] == [{"type": "seat_joined", "seat": 1, "name": None}]
        for entry in log["log"]:
            for event in entry["events"]:
                if event["type"] == "draw" and event["seat"] != seat:
                    assert set(event) == {"type", "seat"}
        since = game.version - 3
        later = client.get(f"{API}/games/{game.id}/events?since={since}", headers=headers).get_json()
        assert [e["version"] for e in later["log"]] == [game.version - 2, game.version - 1, game.version]


def test_stored_document_is_compact(client, api_store):
    game = new_game(client, "duo")
    _, raw = api_store.load(game.id)
    assert len(raw.encode()) <= 2048
