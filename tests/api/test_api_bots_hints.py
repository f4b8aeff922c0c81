"""Playing against a bot, hints and game records over HTTP (issue 6).

One duo game against the greedy bot is played to its end once per module (the human takes the hint
every time, so the game is fast and deterministic in shape); the tests then read it from every side.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

import engine
import engine.bots
from api.cli import main
from api.game import bots, gamelog, records
from api.store.memory import MemoryStore
from tests.api.fixtures_api import API, bearer, make_app, new_game, stored


@dataclass
class Finished:
    """A bot game played to its end through HTTP."""

    store: MemoryStore
    client: object
    game_id: str
    token: str
    created: dict
    answers: list[tuple[int, dict]]  # (version sent, answer) of every human action
    hints: list[tuple[dict, dict]]  # (hint answer, the view it was asked in)
    before_end: dict  # GET /record while the game was running (status, body)


def _play_against_greedy(client, store) -> Finished:
    resp = client.post(f"{API}/games", json={"mode": "duo", "bot": "greedy", "dealer": 1})
    assert resp.status_code == 201, resp.get_json()
    created = resp.get_json()
    game_id, token = created["game_id"], created["token"]
    answers, hints, before_end = [], [], None
    for _ in range(1000):
        game = client.get(f"{API}/games/{game_id}", headers=bearer(token)).get_json()
        if game["view"]["phase"] == "over":
            break
        assert game["view"]["active"] == 0, "the bot must have moved before the human is asked"
        if before_end is None:
            rec = client.get(f"{API}/games/{game_id}/record")
            before_end = {"status": rec.status_code, "body": rec.get_json(),
                          "text": rec.get_data(as_text=True)}
        hint = client.get(f"{API}/games/{game_id}/hint", headers=bearer(token)).get_json()
        hints.append((hint, game["view"]))
        resp = client.post(f"{API}/games/{game_id}/actions", headers=bearer(token),
                           json={"action": hint["action"], "version": game["version"]})
        assert resp.status_code == 200, resp.get_json()
        answers.append((game["version"], resp.get_json()))
    else:  # pragma: no cover
        pytest.fail("the game did not end")
    return Finished(store, client, game_id, token, created, answers, hints, before_end)


@pytest.fixture
def mem() -> Iterator[MemoryStore]:
    store = MemoryStore()
    yield store
    store.close()


@pytest.fixture
def api(mem: MemoryStore):
    """A test client over a fresh MemoryStore."""
    return make_app(mem).test_client()


@pytest.fixture(scope="module")
def finished() -> Iterator[Finished]:
    store = MemoryStore()
    client = make_app(store).test_client()
    yield _play_against_greedy(client, store)
    store.close()


@pytest.fixture(scope="module")
def record(finished: Finished) -> dict:
    resp = finished.client.get(f"{API}/games/{finished.game_id}/record")
    assert resp.status_code == 200, resp.get_json()
    return resp.get_json()


# ------------------------------------------------------------------ playing against a bot


def test_a_bot_takes_seat_1_at_creation_without_a_join_code(finished: Finished):
    body = finished.created
    assert body["seats"] == [{"seat": 0, "taken": True, "name": None},
                             {"seat": 1, "taken": True, "name": None, "bot": "greedy"}]
    assert body["join_code"] is None and body["join_url"] is None
    assert body["view"]["active"] == 0  # dealer 1: the human starts (R50)
    assert len(body["seed_commitment"]) == 64


def test_every_game_answer_shows_the_bot_seat_and_the_commitment(finished: Finished):
    got = finished.client.get(f"{API}/games/{finished.game_id}").get_json()
    assert got["seats"][1] == {"seat": 1, "taken": True, "name": None, "bot": "greedy"}
    assert got["seed_commitment"] == finished.created["seed_commitment"]
    for _sent, answer in finished.answers:
        assert answer["seats"][1]["bot"] == "greedy"
        assert answer["seed_commitment"] == finished.created["seed_commitment"]


def test_versions_rise_by_one_per_commit_bot_moves_included(finished: Finished):
    version, doc = stored(finished.store, finished.game_id)
    log = finished.store.log_since(finished.game_id, 0)
    assert [v for v, _ in log] == list(range(2, version + 1))
    entries = [gamelog.parse(raw) for _, raw in log]
    assert {e.seat for e in entries} == {0, 1}
    assert all(isinstance(e, gamelog.Move) for e in entries)
    # The human's answer is the human's own commit: exactly one version past what it was based on.
    for sent, answer in finished.answers:
        assert answer["version"] == sent + 1
    bot_moves = sum(e.seat == 1 for e in entries)
    assert bot_moves > 0 and bot_moves + len(finished.answers) == version - 1
    assert doc["position"]["phase"] == "over"


def test_the_bot_decides_from_its_own_view_with_a_seed_from_the_game_secret(record: dict):
    """Recompute every bot decision from engine.view(state, 1) and the derived seed alone."""
    checked = 0
    for entry, before, _after, _events in records.steps(record):
        if entry["seat"] != 1:
            continue
        seed = records.derived_seed(record["seed"], record["salt"], "bot", entry["version"] - 1, 1)
        assert engine.bots.choose("greedy", engine.view(before, 1), seed) == entry["action"]
        checked += 1
    assert checked > 10


def test_the_service_hands_the_bot_nothing_but_its_seat_view(monkeypatch):
    seen = []
    real = engine.bots.choose

    def spy(name, view, seed, **budget):
        seen.append((name, view, seed, budget))
        return real(name, view, seed, **budget)

    monkeypatch.setattr(engine.bots, "choose", spy)
    store = MemoryStore()
    try:
        client = make_app(store, BOT_MC_PLAYOUTS=8, BOT_MC_WIDTH=2).test_client()
        # dealer 0: seat 1 (the bot) starts, so it moves inside the create request (R50).
        body = client.post(f"{API}/games", json={"mode": "duo", "bot": "mc", "dealer": 0}).get_json()
        assert body["version"] == 1 + len(seen) > 1
        assert body["view"]["active"] == 0
        log = store.log_since(body["game_id"], 0)
        state = engine.new_game("duo", stored_seed(store, body["game_id"]), dealer=0)
        for (name, view, _seed, budget), (_v, raw) in zip(seen, log, strict=True):
            assert name == "mc" and budget == {"playouts": 8, "width": 2}
            assert view == engine.view(state, 1)
            assert view["players"][0]["hand"] is None and "seed" not in view
            state, _ = engine.apply(state, gamelog.parse(raw).action)
    finally:
        store.close()


def stored_seed(store, game_id: str) -> int:
    return stored(store, game_id)[1]["secret"][0]


def test_every_bot_version_is_published(mem: MemoryStore, api):
    seen, done = [], threading.Event()

    def on_commit(game_id: str, version: int) -> None:
        seen.append(version)
        done.set()

    cancel = mem.subscribe(on_commit)
    try:
        body = api.post(f"{API}/games", json={"mode": "duo", "bot": "greedy", "dealer": 0}).get_json()
        assert body["version"] > 2  # the bot started: several commits inside the create request
        assert done.wait(5)
        for _ in range(100):  # the broker delivers on its own thread
            if len(seen) == body["version"] - 1:
                break
            done.clear()
            done.wait(0.05)
        assert seen == list(range(2, body["version"] + 1))
    finally:
        cancel()


def test_a_get_never_commits_and_the_next_action_request_moves_a_bot_that_is_due(monkeypatch, api):
    client = api
    monkeypatch.setattr(bots, "play", lambda _service, _id, game: game)
    body = client.post(f"{API}/games", json={"mode": "duo", "bot": "greedy", "dealer": 0}).get_json()
    assert body["version"] == 1 and body["view"]["active"] == 1  # as if the server died here
    monkeypatch.undo()
    game_id, auth = body["game_id"], bearer(body["token"])
    # Reading changes nothing: the game, its events, a hint (not the caller's turn).
    for path in ("", "/events?since=0", "/hint"):
        client.get(f"{API}/games/{game_id}{path}", headers=auth)
    got = client.get(f"{API}/games/{game_id}", headers=auth).get_json()
    assert got["version"] == 1 and got["view"]["active"] == 1
    # An action request (here one made too early) lets the bot move first; the caller then hears of
    # the new version.
    action = {"type": "end_phase"}
    resp = client.post(f"{API}/games/{game_id}/actions", json={"action": action, "version": 1}, headers=auth)
    assert resp.status_code == 409 and resp.get_json()["code"] == "stale_version"
    got = client.get(f"{API}/games/{game_id}", headers=auth).get_json()
    assert got["version"] > 1 and got["view"]["active"] == 0


@pytest.mark.parametrize("body", [{"mode": "duo", "bot": "deep-blue"}, {"mode": "duo", "bot": 3}])
def test_a_bot_is_a_known_name(api, body):
    resp = api.post(f"{API}/games", json=body)
    assert resp.status_code == 400 and resp.get_json()["code"] == "invalid_request"


def test_solo_ignores_a_bot_like_a_dealer(api):
    resp = api.post(f"{API}/games", json={"mode": "solo", "bot": "greedy", "dealer": 1})
    assert resp.status_code == 201 and resp.get_json()["seats"] == [{"seat": 0, "taken": True, "name": None}]


def test_the_events_endpoint_reads_the_new_log_entries(finished: Finished):
    got = finished.client.get(f"{API}/games/{finished.game_id}/events?since=0",
                              headers=bearer(finished.token)).get_json()
    assert len(got["log"]) == got["version"] - 1
    assert all(isinstance(item["events"], list) for item in got["log"])
    assert [item["version"] for item in got["log"]] == list(range(2, got["version"] + 1))


# ------------------------------------------------------------------ hints


def test_every_hint_is_one_of_the_callers_legal_actions_with_a_reason(finished: Finished):
    assert finished.hints
    for hint, view in finished.hints:
        assert hint["seat"] == 0
        assert hint["action"] in view["legal_actions"]
        assert hint["reason"] and hint["reason_code"]


def test_a_hint_needs_the_callers_token(api):
    body = api.post(f"{API}/games", json={"mode": "duo", "bot": "greedy", "dealer": 1}).get_json()
    url = f"{API}/games/{body['game_id']}/hint"
    for headers in ({}, bearer("not-a-token")):
        resp = api.get(url, headers=headers)
        assert resp.status_code == 401 and resp.get_json()["code"] == "bad_token"


def test_a_hint_is_only_for_the_seat_to_move(api):
    game = new_game(api, "duo", dealer=1)  # two humans: seat 0 starts
    ok = api.get(f"{API}/games/{game.id}/hint", headers=bearer(game.tokens[0]))
    assert ok.status_code == 200
    assert ok.get_json()["action"] in game.get(0).get_json()["view"]["legal_actions"]
    resp = api.get(f"{API}/games/{game.id}/hint", headers=bearer(game.tokens[1]))
    assert resp.status_code == 403 and resp.get_json()["code"] == "not_your_turn"


def test_no_hint_after_the_end(finished: Finished):
    resp = finished.client.get(f"{API}/games/{finished.game_id}/hint", headers=bearer(finished.token))
    assert resp.status_code == 403 and resp.get_json()["code"] == "not_your_turn"


# ------------------------------------------------------------------ records


def test_no_record_before_the_end(finished: Finished):
    assert finished.before_end["status"] == 409
    assert finished.before_end["body"]["code"] == "game_not_over"
    _version, doc = stored(finished.store, finished.game_id)
    seed, salt = doc["secret"]
    assert str(seed) not in finished.before_end["text"] and salt not in finished.before_end["text"]


def test_the_record_holds_the_whole_game(finished: Finished, record: dict):
    version, doc = stored(finished.store, finished.game_id)
    assert record["format"] == records.FORMAT and record["mode"] == "duo"
    assert record["options"] == {"dealer": 1}
    assert record["seed_commitment"] == finished.created["seed_commitment"]
    assert record["seats"] == [{"seat": 0, "who": "human", "name": None},
                               {"seat": 1, "who": "bot", "bot": "greedy"}]
    assert [a["version"] for a in record["actions"]] == list(range(2, version + 1))
    assert record["result"] == doc["position"]["result"]


def test_alcabohne_verify_accepts_the_downloaded_record(record: dict, tmp_path, capsys):
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    assert main(["verify", str(path), "--commitment", record["seed_commitment"]]) == 0
    assert "OK" in capsys.readouterr().out
