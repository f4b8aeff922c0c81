"""Game-night additions over HTTP: player names, rematch, the tutorial flag (its game: test_tutorial.py),
the end breakdown, and the host's own join link (api.game: names, rematch, start, seats)."""
# ruff: noqa: F811 - pytest fixtures imported from fixtures_api are redefined as parameters

from __future__ import annotations

import json
import threading

import pytest

from api.game import records
from api.store.memory import MemoryStore
from api.store.sqlite import SqliteStore
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
    assert doc["names"] == ["Ann", "Bo <b>"]
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
    assert version == 1 and doc["seats"][1] is None and "names" not in doc


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
    seat = 0
    answer = game.get(seat).get_json()
    while answer["view"]["phase"] != "over":
        if answer["view"]["active"] != seat:  # each answer is the mover's view: read the next mover's
            # (a computer's seat has no token: its moves follow ours, so read our own view again)
            seat = answer["view"]["active"] if answer["view"]["active"] in game.tokens else seat
            answer = game.get(seat).get_json()
            continue
        resp = game.act(seat, answer["view"]["legal_actions"][0], version=answer["version"])
        assert resp.status_code == 200, resp.get_json()
        answer = resp.get_json()
    game.version = answer["version"]
    return game.get(0).get_json()


# ------------------------------------------------------------------ rematch


def rematch(client, game_id: str, token: str | None):
    headers = bearer(token) if token is not None else {}
    return client.post(f"{API}/games/{game_id}/rematch", headers=headers)


def count_games(store) -> int:
    """Return how many games the backend holds (read from its own structures: no mock)."""
    if isinstance(store, MemoryStore):
        return len(store._games)
    if isinstance(store, SqliteStore):
        return store._conn().execute("SELECT COUNT(*) FROM games").fetchone()[0]
    return sum(1 for _ in store.client.scan_iter("cg:v1:g:*:state"))


def test_rematch_is_refused_before_the_end_and_to_watchers(client, api_store):
    game = new_game(client, "duo", dealer=0)
    problem(rematch(client, game.id, game.tokens[0]), 409, "game_not_over")
    problem(rematch(client, game.id, None), 401, "bad_token")
    problem(rematch(client, game.id, "not-a-token"), 401, "bad_token")
    problem(rematch(client, "nosuchgame", game.tokens[0]), 404, "unknown_game")
    finish(game)
    problem(rematch(client, game.id, None), 401, "bad_token")
    assert game.get(None).get_json()["rematch"] is None
    assert count_games(api_store) == 1


def test_a_duo_rematch_keeps_the_players_and_swaps_the_start_player(client, api_store):
    host = create(client, "duo", dealer=0, name="Ann").get_json()
    guest = join(client, host["join_code"], name="Bo").get_json()
    game = Game(client, host["game_id"], {0: host["token"], 1: guest["token"]}, guest["version"])
    assert host["view"]["active"] == 1  # dealer 0: seat 1 starts (R50)
    end = finish(game)
    first = rematch(client, game.id, game.tokens[1])
    assert first.status_code == 200, first.get_json()
    grant = first.get_json()
    new_id = grant["game_id"]
    assert new_id != game.id and grant["seat"] == 1 and grant["version"] == 1
    assert grant["seats"] == [{"seat": 0, "taken": False, "name": "Ann"},
                              {"seat": 1, "taken": True, "name": "Bo"}]
    assert grant["view"]["active"] == 0 and grant["view"]["mode"] == "duo"  # the other player starts now
    assert grant["join_code"] is None and grant["rematch"] is None
    # The finished game shows the link (a version of its own) to everyone, watchers included.
    old = game.get(None).get_json()
    assert old["rematch"] == new_id and old["version"] == end["version"] + 1
    log = client.get(f"{API}/games/{game.id}/events?since={end['version']}").get_json()["log"]
    link = {"type": "rematch", "seat": 1, "game_id": new_id}
    assert log == [{"version": end["version"] + 1, "events": [link]}]
    # Asking again from the same seat: the same game, the same token, nothing new.
    again = rematch(client, game.id, game.tokens[1]).get_json()
    assert (again["game_id"], again["token"], again["version"]) == (new_id, grant["token"], 1)
    # The other player's first call takes the seat kept for them; a second call changes nothing.
    other = rematch(client, game.id, game.tokens[0]).get_json()
    assert other["game_id"] == new_id and other["seat"] == 0 and other["version"] == 2
    assert other["token"] not in (grant["token"], game.tokens[0])
    assert [s["taken"] for s in other["seats"]] == [True, True]
    assert rematch(client, game.id, game.tokens[0]).get_json()["token"] == other["token"]
    # The new tokens hold their seats there, and only there.
    for seat, token in ((0, other["token"]), (1, grant["token"])):
        assert client.get(f"{API}/games/{new_id}", headers=bearer(token)).get_json()["seat"] == seat
        problem(client.get(f"{API}/games/{game.id}", headers=bearer(token)), 401, "bad_token")
    assert count_games(api_store) == 2
    # The finished game's record still verifies its moves (the link is no move).
    assert client.get(f"{API}/games/{game.id}/record").status_code == 200
    new_game_doc = stored(api_store, new_id)[1]
    assert new_game_doc["names"] == ["Ann", "Bo"] and new_game_doc["options"] == {"dealer": 1}


def test_a_rematch_against_the_computer_keeps_the_bot(mclient, memory_store):
    body = create(mclient, "duo", bot="random", dealer=1, name="Ann").get_json()
    game = Game(mclient, body["game_id"], {0: body["token"]}, body["version"])
    finish(game)
    grant = rematch(mclient, game.id, game.tokens[0]).get_json()
    assert grant["seats"] == [{"seat": 0, "taken": True, "name": "Ann"},
                              {"seat": 1, "taken": True, "name": None, "bot": "random"}]
    # dealer 1 before (seat 0 started); now the dealer is seat 0, so the bot starts and has moved.
    assert grant["version"] > 1 and grant["view"]["active"] == 0
    assert grant["join_code"] is None


def test_a_solo_rematch(mclient, memory_store):
    game = new_game(mclient, "solo", name="Ann")
    problem(rematch(mclient, game.id, game.tokens[0]), 409, "game_not_over")
    finish(game)
    grant = rematch(mclient, game.id, game.tokens[0]).get_json()
    assert grant["view"]["mode"] == "solo" and grant["seats"] == [{"seat": 0, "taken": True, "name": "Ann"}]
    assert game.get(0).get_json()["rematch"] == grant["game_id"]


def test_racing_rematch_calls_from_both_seats_make_one_game(client, api_store):
    game = new_game(client, "duo", dealer=1)
    finish(game)
    app = client.application
    barrier = threading.Barrier(10)
    answers: list[tuple[int, dict]] = []
    lock = threading.Lock()

    def call(i: int) -> None:
        seat = i % 2
        own = app.test_client()
        barrier.wait()
        resp = rematch(own, game.id, game.tokens[seat])
        with lock:
            answers.append((resp.status_code, resp.get_json()))

    threads = [threading.Thread(target=call, args=(i,)) for i in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert [status for status, _ in answers] == [200] * 10, answers
    assert len({body["game_id"] for _, body in answers}) == 1
    for seat in (0, 1):
        assert len({body["token"] for _, body in answers if body["seat"] == seat}) == 1
    assert count_games(api_store) == 2
    new_id = answers[0][1]["game_id"]
    assert game.get(None).get_json()["rematch"] == new_id
    version, doc = stored(api_store, new_id)
    assert version == 2 and "rematch" not in doc["seats"]  # one join: the second seat's first claim


# ------------------------------------------------------------------ tutorial


def test_a_duo_tutorial_is_refused(mclient, memory_store):
    resp = mclient.post(f"{API}/games", json={"mode": "duo", "tutorial": True})
    body = problem(resp, 400, "invalid_request")
    assert "tutorial" in json.dumps(body["errors"])
    for bad in (1, "true", None, "yes"):
        problem(mclient.post(f"{API}/games", json={"mode": "solo", "tutorial": bad}), 400, "invalid_request")
    assert count_games(memory_store) == 0


# ------------------------------------------------------------------ end breakdown


@pytest.mark.parametrize("mode", ["duo", "solo"])
def test_the_result_explains_the_score(client, api_store, mode):
    game = new_game(client, mode)
    end = finish(game)
    result = end["view"]["result"]
    factor = 2 if mode == "solo" else 1
    parts = result["breakdown"]
    assert [p["coins_before"] + p["final_harvest"] for p in parts["players"]] == result["scores"]
    assert parts["mafia"]["factor"] == factor
    assert factor * (parts["mafia"]["treasury_before"] + parts["mafia"]["final_harvest"]) == result["mafia"]
    tie = result["winners"] == ["mafia"] and max(result["scores"]) == result["mafia"]
    assert result["tie_to_mafia"] is tie  # every case: tests/engine/test_scoring.py
    # What the final harvest paid is what its events say.
    log = client.get(f"{API}/games/{game.id}/events?since={end['version'] - 1}").get_json()["log"]
    events = log[-1]["events"]
    for seat in range(len(result["scores"])):
        paid = sum(e["coins"] for e in events
                   if e["type"] == "harvest" and e.get("final") and e["seat"] == seat)
        assert parts["players"][seat]["final_harvest"] == paid
    boss = sum(e["coins"] for e in events if e["type"] == "boss_harvest" and e.get("final"))
    assert parts["mafia"]["final_harvest"] == boss
    # Everyone sees the same result; the record carries it and still verifies.
    assert game.get(None).get_json()["view"]["result"] == result
    record = client.get(f"{API}/games/{game.id}/record").get_json()
    assert record["result"] == result
    assert records.verify(record) == result
    # A record made before the breakdown existed verifies too; an altered breakdown does not.
    old = dict(record, result={k: result[k] for k in ("scores", "mafia", "winners")})
    assert records.verify(old) == result
    record["result"]["breakdown"]["mafia"]["treasury_before"] += 1
    with pytest.raises(records.RecordError):
        records.verify(record)



# ------------------------------------------------------------------ own join link


def test_joining_with_ones_own_token_gives_back_ones_own_seat(client, api_store):
    host = create(client, "duo", name="Ann").get_json()
    code = host["join_code"]
    # The host's phone opens its own join link: seat 0 again, the same token, nothing changes.
    resp = client.post(f"{API}/games/join", json={"code": code}, headers=bearer(host["token"]))
    assert resp.status_code == 200, resp.get_json()
    mine = resp.get_json()
    assert (mine["game_id"], mine["seat"], mine["version"]) == (host["game_id"], 0, 1)
    assert mine["token"] == host["token"]
    assert mine["seats"][1] == {"seat": 1, "taken": False, "name": None}
    assert mine["join_code"] == code  # still open for the other player
    version, doc = stored(api_store, host["game_id"])
    assert version == 1 and doc["seats"][1] is None
    # The other player still joins with it.
    guest = join(client, code, name="Bo").get_json()
    assert guest["seat"] == 1 and guest["version"] == 2
    # A token of another game does not count: it is an ordinary join (here: the code is used up).
    other = create(client, "duo").get_json()
    resp = client.post(f"{API}/games/join", json={"code": other["join_code"]}, headers=bearer(host["token"]))
    assert resp.get_json()["seat"] == 1 and resp.get_json()["token"] != host["token"]
    # A malformed Authorization header is refused like everywhere else.
    resp = client.post(f"{API}/games/join", json={"code": code}, headers={"Authorization": "Basic x"})
    problem(resp, 401, "bad_token")


def test_ones_own_token_with_a_used_code_is_still_unknown(mclient):
    """A used code no longer names its game: the client keeps its own token per game and resumes from it."""
    host = create(mclient, "duo").get_json()
    join(mclient, host["join_code"])
    resp = mclient.post(f"{API}/games/join", json={"code": host["join_code"]}, headers=bearer(host["token"]))
    problem(resp, 404, "unknown_code")
