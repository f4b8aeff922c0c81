"""api.game.recent: a move starts from the version this process holds, without a read, and answers exactly
as if it had read (the commit's compare-and-set decides)."""
# ruff: noqa: F811 - pytest fixtures imported from fixtures_api are redefined as parameters

from __future__ import annotations

import engine
from api.game.model import Loaded
from api.game.recent import RecentGames
from tests.api.fixtures_api import Game, api_store, make_app, new_game, stored  # noqa: F401


def _counting_loads(store) -> list:
    calls: list = []
    load = store.load
    store.load = lambda game_id: calls.append(game_id) or load(game_id)
    return calls


def _legal(store, game_id: str, seat: int) -> list[dict]:
    _version, doc = stored(store, game_id)
    return engine.view(engine.from_position(doc["position"]), seat)["legal_actions"]


def test_moves_at_the_held_version_read_nothing(api_store) -> None:
    app = make_app(api_store)
    game = new_game(app.test_client(), "solo")
    resp = game.act(0, _legal(api_store, game.id, 0)[0])  # the first move reads and remembers
    loads = _counting_loads(api_store)
    for _ in range(5):
        game.version = resp.get_json()["version"]
        resp = game.act(0, resp.get_json()["view"]["legal_actions"][0])
        assert resp.status_code == 200, resp.get_json()
    assert loads == []
    assert api_store.load(game.id)[0] == game.version + 1 == 7


def test_a_move_on_a_version_held_but_no_longer_current_is_stale_and_changes_nothing(api_store) -> None:
    """Another process (a second app on the same store) moves on while this one still holds the old
    version: the move is built on that version, and the commit's compare-and-set refuses it (409)."""
    here, there = make_app(api_store), make_app(api_store)
    game = new_game(here.test_client(), "solo")
    resp = game.act(0, _legal(api_store, game.id, 0)[0])
    held = resp.get_json()["version"]
    legal_at_held = _legal(api_store, game.id, 0)
    other = Game(there.test_client(), game.id, game.tokens, held)
    assert other.act(0, legal_at_held[0]).status_code == 200
    before = stored(api_store, game.id)
    loads = _counting_loads(api_store)
    game.version = held  # what `here` holds, and what its client saw
    resp = game.act(0, legal_at_held[-1])
    assert resp.status_code == 409 and resp.get_json()["code"] == "stale_version"
    assert resp.get_json()["version"] == held + 1
    assert loads == [game.id]  # no read before the move; one to answer with the current view
    assert stored(api_store, game.id) == before


def test_recent_games_keep_the_newest_version_and_forget_the_least_recent() -> None:
    recent = RecentGames(size=2)
    a1, a2 = Loaded(1, {}, "a1"), Loaded(2, {}, "a2")
    recent.put("a", a2)
    recent.put("a", a1)  # older: ignored
    assert recent.get("a", 2) is a2 and recent.get("a", 1) is None
    recent.put("b", Loaded(1, {}, "b1"))
    recent.get("a", 2)  # a is now the most recent
    recent.put("c", Loaded(1, {}, "c1"))  # evicts b
    assert recent.get("b", 1) is None
    assert recent.get("a", 2) is a2 and recent.get("c", 1).raw == "c1"
