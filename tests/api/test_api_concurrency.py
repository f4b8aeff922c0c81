"""(b) Racing moves and (d) idempotent retries: exactly one of many applies, a retry gets the first answer."""
# ruff: noqa: F811 - pytest fixtures imported from fixtures_api are redefined as parameters

from __future__ import annotations

import hashlib
import json
import threading

import engine
from tests.api.fixtures_api import api_store, bearer, client, make_app, new_game, replay, stored  # noqa: F401

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
    start = stored(api_store, game.id)[1]["p"]
    applied = []
    for round_no in range(6):
        version, doc = stored(api_store, game.id)
        legal = engine.legal_actions(engine.from_position(doc["p"]))
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
    assert engine.to_position(replay(start, applied)) == doc["p"]


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
    # The record keeps what the answer is rendered from (api.service._replay_record): the same bytes.
    assert late.data == first.data
    assert stored(api_store, game.id)[0] == 3


def test_an_answer_stored_whole_by_an_older_release_is_replayed_as_is(client, api_store):
    """Before the replay records, the idempotency record held the answer's JSON text itself."""
    game = new_game(client, "solo")
    action = game.get(0).get_json()["view"]["legal_actions"][0]
    fingerprint = hashlib.sha256(json.dumps([0, {"action": action, "version": 1}], sort_keys=True)
                                 .encode()).hexdigest()
    old_answer = json.dumps({"game_id": game.id, "version": 2, "written": "by an older release"})
    version, raw = api_store.load(game.id)
    assert api_store.commit(game.id, version, raw, ttl=600, idem_key="old-key", fingerprint=fingerprint,
                            response=old_answer).status == "ok"
    resp = game.act(0, action, version=1, key="old-key")
    assert resp.status_code == 200 and resp.headers["Idempotent-Replayed"] == "true"
    assert resp.data.decode() == old_answer


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
