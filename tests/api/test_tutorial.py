"""The guided game over HTTP (api/game/tutorial.py): a short solo game from a prepared table that,
played along its hints, shows every part of a turn and ends with a result; its record verifies."""
# ruff: noqa: F811 - pytest fixtures imported from fixtures_api are redefined as parameters

from __future__ import annotations

from api.game import records
from tests.api.fixtures_api import API, Game, bearer, create, mclient, memory_store  # noqa: F401

MAX_TURNS = 8


def _play_along_hints(client, body) -> tuple[dict, dict, int]:
    """Play the game along GET /hint to its end; return (what was seen: kind -> first turn, the final
    answer, the turns)."""
    game = Game(client, body["game_id"], {0: body["token"]}, body["version"])
    seen: dict[str, int] = {}
    turn = 1
    for _ in range(400):
        mine = game.get(0).get_json()
        assert mine.get("tutorial") is True
        view = mine["view"]
        if view["phase"] == "over":
            return seen, mine, turn
        legal = view["legal_actions"]
        if view["phase"] == "protection":
            seen.setdefault("protection", turn)
        # The front card fits no field: harvesting is the way on, and there is a choice of field.
        if (view["phase"] == "plant" and view["planted"] == 0 and view["players"][0]["hand"]
                and not any(a["type"] == "plant_hand" for a in legal)):
            assert sum(a["type"] == "harvest" for a in legal) >= 2, legal
            seen.setdefault("front_stuck", turn)
        hint = client.get(f"{API}/games/{game.id}/hint", headers=bearer(game.tokens[0])).get_json()
        resp = game.act(0, hint["action"], version=mine["version"])
        assert resp.status_code == 200, resp.get_json()
        game.version = resp.get_json()["version"]
        for event in resp.get_json()["events"]:
            kind = event["type"] + ("_" + event["source"] if event["type"] in ("plant", "give") else "")
            if event["type"] == "harvest" and event.get("coins"):
                kind = "harvest_paid"
            seen.setdefault(kind, turn)
            turn += event["type"] == "turn"
    raise AssertionError("the guided game did not end")


def test_the_guided_game_is_short_shows_every_phase_and_ends_with_a_result(mclient):
    first = create(mclient, "solo", tutorial=True, name="Ann").get_json()
    again = create(mclient, "solo", tutorial=True).get_json()
    assert first["tutorial"] is True and first["view"]["mode"] == "solo"
    # The same table each time (hand, bosses, piles), on the last pass; a fresh game and secret salt.
    for key in ("players", "bosses", "display", "deck_size", "discard_top", "pass"):
        assert first["view"][key] == again["view"][key]
    assert first["view"]["pass"] == 3 and first["view"]["deck_size"] <= 30
    assert first["game_id"] != again["game_id"] and first["seed_commitment"] != again["seed_commitment"]
    assert "tutorial" not in create(mclient, "solo").get_json()

    seen, end, turns = _play_along_hints(mclient, first)
    assert turns <= MAX_TURNS, (turns, seen)
    assert {"plant_hand", "plant_display", "harvest_paid", "reveal", "capture", "from_discard", "draw",
            "protection", "boss_harvest", "front_stuck", "game_over"} <= set(seen), seen
    assert "pay" in seen or seen.get("harvest", 99) <= seen["protection"], seen
    assert "give_display" in seen or "give_hand" in seen, seen
    # Following the hints wins the short game (a first game that ends well).
    result = end["view"]["result"]
    assert result["winners"] == [0], result

    # The record starts from the prepared table and verifies like any game's.
    record = mclient.get(f"{API}/games/{first['game_id']}/record").get_json()
    assert "position" in record["options"]
    assert records.verify(record, first["seed_commitment"]) == result
