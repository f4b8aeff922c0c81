"""(b) Racing moves and (d) idempotent retries: exactly one of many applies, a retry gets the first answer."""
# ruff: noqa: F811 - pytest fixtures imported from fixtures_api are redefined as parameters

from __future__ import annotations

import json
import threading

import engine
from tests.api.fixtures_api import API, Game, api_store, bearer, client, make_app, new_game, replay, stored  # noqa: F401

THREADS = 8


def race(app, game, version: int, legal: list[dict], round_no: int) -> list[tuple[int, dict, dict]]:
    """Send THREADS different legal actions at once, all based on `version`; return (status, body, action)."""
    barrier = threading.Barrier(THREADS)
    results = []
    lock = threading.Lock()

    def send(i: int):
        client = app.test_client()  # one client per thread: the test client is not shared
        action = legal[i % len(legal)]
        headers = {**bearer(game.tokens[0]), "Idempotency-Key": f"r{round_no}-{i}"}
        barrier.wait()
        resp = client.post(f"/api/v1/games/{game.id}/actions", headers=headers,
                           json={"action": action, "version": version})
        with lock:
            results.append((resp.status_code, resp.get_json(), action))

    threads = [threading.Thread(target=send, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return results


def test_racing_actions_exactly_one_applies(api_store):
    app = make_app(api_store)
    game = new_game(app.test_client(), "solo")
    start = stored(api_store, game.id)[1]["position"]
    applied = []
    for round_no in range(6):
        version, doc = stored(api_store, game.id)
        legal = engine.legal_actions(engine.from_position(doc["position"]))
        results = race(app, game, version, legal, round_no)
        statuses = sorted(status for status, _, _ in results)
        assert statuses == [200] + [409] * (THREADS - 1), statuses
        winner = next(action for status, _, action in results if status == 200)
        for status, body, _ in results:
            if status == 409:
                assert body["code"] == "stale_version" and body["version"] == version + 1
        applied.append(winner)
        assert stored(api_store, game.id)[0] == version + 1
    # The final state is what the winning actions give when applied one after another.
    final_version, doc = stored(api_store, game.id)
    assert final_version == 1 + len(applied)
    assert engine.to_position(replay(start, applied)) == doc["position"]


def test_concurrent_retries_of_one_action_apply_it_once(api_store):
    app = make_app(api_store)
    game = new_game(app.test_client(), "solo")
    legal = game.get(0).get_json()["view"]["legal_actions"]
    barrier = threading.Barrier(THREADS)
    answers = []

    def retry():
        client = app.test_client()
        barrier.wait()
        resp = client.post(f"/api/v1/games/{game.id}/actions", headers={**bearer(game.tokens[0]),
                           "Idempotency-Key": "same"}, json={"action": legal[0], "version": 1})
        answers.append((resp.status_code, resp.get_json()))

    threads = [threading.Thread(target=retry) for _ in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [status for status, _ in answers] == [200] * THREADS
    assert all(body == answers[0][1] for _, body in answers)
    assert stored(api_store, game.id)[0] == 2
    assert len(api_store.log_since(game.id, 0)) == 1


def play_first_legal(game, seat, key):
    action = game.get(seat).get_json()["view"]["legal_actions"][0]
    resp = game.act(seat, action, key=key)
    assert resp.status_code == 200, resp.get_json()
    game.version = resp.get_json()["version"]
    return action, resp


def test_retry_returns_the_first_answer_and_applies_nothing(client, api_store):
    game = new_game(client, "solo")
    action, first = play_first_legal(game, 0, "key-1")
    snapshot = api_store.load(game.id)
    again = game.act(0, action, version=1, key="key-1")
    assert again.status_code == 200
    assert again.get_json() == first.get_json()
    assert again.headers["Idempotent-Replayed"] == "true"
    assert "Idempotent-Replayed" not in first.headers
    assert api_store.load(game.id) == snapshot
    # Still the first answer after the game moved on.
    play_first_legal(game, 0, "key-2")
    late = game.act(0, action, version=1, key="key-1")
    assert late.status_code == 200 and late.get_json() == first.get_json()
    # The record keeps the version the request made; the answer is rendered again from the log: the
    # same bytes.
    assert late.data == first.data
    assert stored(api_store, game.id)[0] == 3


def test_a_retry_after_the_other_player_joined_is_the_first_answer_byte_for_byte(client, api_store):
    """The answer is rendered again from the log: the table (seat taken, names, the open join code)
    is the one of the version the move made, not the one after the join."""
    for dealer in (0, 1):
        body = {"mode": "duo", "dealer": dealer, "name": "Ann"}
        created = client.post(f"{API}/games", json=body).get_json()
        if created["view"]["active"] == 0:
            break
    assert created["view"]["active"] == 0 and created["join_code"]
    game = Game(client, created["game_id"], {0: created["token"]}, created["version"], created)
    action = created["view"]["legal_actions"][0]
    first = game.act(0, action, version=1, key="before-join")
    assert first.status_code == 200 and first.get_json()["join_code"] == created["join_code"]
    joined = client.post(f"{API}/games/join", json={"code": created["join_code"], "name": "Bo"})
    assert joined.status_code == 200
    again = game.act(0, action, version=1, key="before-join")
    assert again.status_code == 200 and again.headers["Idempotent-Replayed"] == "true"
    assert again.data == first.data
    assert game.get(0).get_json()["seats"][1] == {"seat": 1, "taken": True, "name": "Bo"}


def test_same_key_with_another_request_is_refused(client, api_store):
    game = new_game(client, "duo")
    active = game.get(None).get_json()["view"]["active"]
    action, _ = play_first_legal(game, active, "key-1")
    snapshot = api_store.load(game.id)
    other = {"type": "end_phase"} if action != {"type": "end_phase"} else {"type": "buy_field"}
    for resp in (
        game.act(active, other, version=2, key="key-1"),  # another action
        game.act(active, action, version=1, key="key-1"),  # another version
        game.act(1 - active, action, version=2, key="key-1"),  # another seat
    ):
        body = resp.get_json()
        assert resp.status_code == 422 and body["code"] == "idempotency_mismatch", body
    assert api_store.load(game.id) == snapshot


def test_stale_version_without_key_is_409_even_for_a_repeat(client, api_store):
    game = new_game(client, "solo")
    action, _ = play_first_legal(game, 0, None)
    resp = game.act(0, action, version=1)
    assert resp.status_code == 409
    assert resp.get_json()["version"] == 2


def test_retry_with_keys_in_another_order_is_the_same_request(client, api_store):
    game = new_game(client, "solo")
    action = next(a for a in game.get(0).get_json()["view"]["legal_actions"] if len(a) > 1)
    first = game.act(0, action, key="k")
    assert first.status_code == 200
    reordered = json.loads(json.dumps(dict(reversed(list(action.items())))))
    headers = {**bearer(game.tokens[0]), "Idempotency-Key": "k"}
    resp = client.post(f"/api/v1/games/{game.id}/actions", headers=headers,
                       data=json.dumps({"version": 1, "action": reordered}), content_type="application/json")
    assert resp.status_code == 200 and resp.data == first.data
