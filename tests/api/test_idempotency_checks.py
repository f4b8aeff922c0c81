"""docs/protocol.md §9-§10: once the token is checked and the action budget charged, an Idempotency-Key
this game has recorded decides before every other check: the same request replays its answer, another
request under the key gets 422 idempotency_mismatch, whether it is stale, ahead, not the caller's turn,
malformed or illegal. Checks before that point (the form, the token, the budget) still come first, and
an error answer records nothing. On every store."""
# ruff: noqa: F811 - pytest fixtures imported from fixtures_api are redefined as parameters

from __future__ import annotations

import pytest

from api.game.gamelog import IDEMPOTENCY_KEY_MAX
from api.store.base import IDEMPOTENCY_WINDOW
from tests.api.fixtures_api import API, api_store, bearer, client, make_app, new_game  # noqa: F401

KEY = "6b1f4a52-0e7d-4f3a-9c28-1d5e7b9a0c34"
ILLEGAL = {"type": "harvest", "field": 1}  # field 1 is empty at the start
INVALID = {"type": "fly"}


@pytest.fixture
def moved(client):
    """A duo game in which the active seat made its first legal move under KEY: (game, active, waiting,
    first request body, first answer)."""
    game = new_game(client, "duo")
    view = game.get(0).get_json()["view"]
    active = view["active"]
    view = game.get(active).get_json()["view"]
    body = {"action": view["legal_actions"][0], "version": game.version}
    first = post(game, active, body, KEY)
    assert first.status_code == 200, first.get_json()
    assert first.headers.get("Idempotent-Replayed") is None
    game.version = first.get_json()["version"]
    return game, active, 1 - active, body, first


def post(game, seat, body, key=None):
    headers = bearer(game.tokens[seat]) if seat is not None else {}
    if key is not None:
        headers["Idempotency-Key"] = key
    return game.client.post(f"{API}/games/{game.id}/actions", json=body, headers=headers)


def code_of(resp) -> tuple[int, str]:
    return resp.status_code, resp.get_json()["code"]


def cases(game, active: int, waiting: int, first: dict) -> dict[str, tuple[int, dict, tuple[int, str]]]:
    """Requests other than `first` that fail a check after the key's: (seat, body, their error without
    the key)."""
    now = game.version
    return {
        "stale": (active, {"action": ILLEGAL, "version": now - 1}, (409, "stale_version")),
        "ahead": (active, {"action": first["action"], "version": now + 5}, (409, "stale_version")),
        "not your turn": (waiting, {"action": first["action"], "version": now}, (403, "not_your_turn")),
        "invalid": (active, {"action": INVALID, "version": now}, (400, "invalid_action")),
        "illegal": (active, {"action": ILLEGAL, "version": now}, (422, "illegal_action")),
    }


@pytest.mark.parametrize("case", ["stale", "ahead", "not your turn", "invalid", "illegal"])
def test_a_recorded_key_with_another_request_is_a_mismatch_whatever_else_fails(moved, api_store, case):
    game, active, waiting, first, _ = moved
    seat, body, plain = cases(game, active, waiting, first)[case]
    before = api_store.load(game.id)
    assert code_of(post(game, seat, body, KEY)) == (422, "idempotency_mismatch")
    # Without the key (or with a fresh one) the same request gets the check's own error.
    assert code_of(post(game, seat, body)) == plain
    assert code_of(post(game, seat, body, "fresh-" + case)) == plain
    assert api_store.load(game.id) == before, "a refused request changed the game"


def test_the_same_request_under_its_key_replays_the_first_answer(moved, api_store):
    game, active, _, first, answer = moved
    before = api_store.load(game.id)
    again = post(game, active, first, KEY)
    assert again.status_code == 200
    assert again.headers["Idempotent-Replayed"] == "true"
    assert again.get_data() == answer.get_data()
    assert api_store.load(game.id) == before


def test_checks_before_the_key_come_first(moved, api_store):
    """The form, the game, the token: a recorded key does not reach past them."""
    game, active, _, first, _ = moved
    assert code_of(post(game, active, {"action": first["action"]}, KEY)) == (400, "invalid_request")
    assert code_of(post(game, None, first, KEY)) == (401, "bad_token")
    resp = game.client.post(f"{API}/games/{game.id}/actions", json=first,
                            headers={**bearer("x" * 43), "Idempotency-Key": KEY})
    assert code_of(resp) == (401, "bad_token")
    resp = game.client.post(f"{API}/games/nosuchgame/actions", json=first,
                            headers={**bearer(game.tokens[active]), "Idempotency-Key": KEY})
    assert code_of(resp) == (404, "unknown_game")


def test_the_action_budget_comes_before_the_key(api_store):
    """A seat past its action budget gets 429 even for a replay: the budget is charged first."""
    client = make_app(api_store, MOVE_LIMIT=3, MOVE_WINDOW=600).test_client()
    game = new_game(client, "duo")
    active = game.get(0).get_json()["view"]["active"]
    view = game.get(active).get_json()["view"]
    body = {"action": view["legal_actions"][0], "version": game.version}
    assert post(game, active, body, KEY).status_code == 200
    assert post(game, active, body, KEY).headers["Idempotent-Replayed"] == "true"
    assert code_of(post(game, active, {"action": ILLEGAL, "version": game.version + 1}, KEY)) == (
        422, "idempotency_mismatch")
    assert code_of(post(game, active, body, KEY)) == (429, "rate_limited")


def test_an_error_answer_records_nothing(moved, api_store):
    """A key whose request was refused is free: the corrected request under it applies."""
    game, active, _, _, _ = moved
    view = game.get(active).get_json()["view"]
    assert code_of(post(game, active, {"action": ILLEGAL, "version": game.version}, "k2")) == (
        422, "illegal_action")
    good = {"action": view["legal_actions"][0], "version": game.version}
    applied = post(game, active, good, "k2")
    assert applied.status_code == 200 and applied.headers.get("Idempotent-Replayed") is None
    assert applied.get_json()["version"] == game.version + 1


def test_a_read_the_store_does_not_confirm_is_read_again_before_refusing(api_store):
    """Behind Sentinels a read may come from an old primary a moment after a failover, holding a
    version the new one never had. A move whose key the store does not know, made at a version other
    than the one read, is refused only if the store itself is not at that version: here it is, so the
    move is applied, once."""
    game = new_game(make_app(api_store).test_client(), "duo")
    active = game.get(0).get_json()["view"]["active"]
    body = {"action": game.get(active).get_json()["view"]["legal_actions"][0], "version": game.version}
    version, raw = api_store.load(game.id)
    load, reads = api_store.load, []

    def one_read_ahead(game_id):  # the first read: one version the store does not have
        reads.append(game_id)
        return (version + 1, raw) if len(reads) == 1 else load(game_id)

    api_store.load = one_read_ahead
    fresh = make_app(api_store).test_client()  # holds no version yet: its move reads the game
    headers = {**bearer(game.tokens[active]), "Idempotency-Key": KEY}
    resp = fresh.post(f"{API}/games/{game.id}/actions", json=body, headers=headers)
    assert resp.status_code == 200, resp.get_json()
    assert resp.get_json()["version"] == version + 1
    assert len(reads) >= 2, "the read was not checked"
    api_store.load = load
    assert api_store.load(game.id)[0] == version + 1
    again = fresh.post(f"{API}/games/{game.id}/actions", json=body, headers=headers)
    assert again.headers["Idempotent-Replayed"] == "true"


def test_a_seat_keeps_its_last_keys_and_a_forgotten_one_gets_stale_version(api_store):
    """docs/protocol.md §10: the last IDEMPOTENCY_WINDOW keys of each seat are remembered. A retry under
    an older one names a version its own move has passed: 409 stale_version with the current version
    and view, and nothing is applied again. On every store."""
    game = new_game(make_app(api_store).test_client(), "solo")
    sent = []
    for i in range(IDEMPOTENCY_WINDOW + 1):
        body = {"action": game.get(0).get_json()["view"]["legal_actions"][0], "version": game.version}
        first = post(game, 0, body, f"key-{i}")
        assert first.status_code == 200, first.get_json()
        game.version = first.get_json()["version"]
        sent.append((f"key-{i}", body, first.get_data()))
    before = api_store.load(game.id)
    for key, body, answer in sent[1:]:  # the newest: replayed, byte for byte
        again = post(game, 0, body, key)
        assert again.headers["Idempotent-Replayed"] == "true" and again.get_data() == answer
    key, body, _ = sent[0]
    retry = post(game, 0, body, key)
    assert code_of(retry) == (409, "stale_version")
    assert retry.get_json()["version"] == game.version
    assert retry.get_json()["view"]["seat"] == 0
    assert api_store.load(game.id) == before, "a forgotten key's move was applied again"


def test_a_key_of_the_greatest_length_is_taken_and_a_longer_one_refused(api_store):
    """The limit is the same for the header and the websocket's message id (one space of keys)."""
    from api.live.ws import MAX_ID

    assert MAX_ID == IDEMPOTENCY_KEY_MAX
    game = new_game(make_app(api_store).test_client(), "solo")
    body = {"action": game.get(0).get_json()["view"]["legal_actions"][0], "version": game.version}
    refused = post(game, 0, body, "k" * (IDEMPOTENCY_KEY_MAX + 1))
    assert code_of(refused) == (400, "invalid_request")
    assert "Idempotency-Key" in str(refused.get_json().get("errors"))
    assert post(game, 0, body, "k" * IDEMPOTENCY_KEY_MAX).status_code == 200
    assert post(game, 0, body, "k" * IDEMPOTENCY_KEY_MAX).headers["Idempotent-Replayed"] == "true"
