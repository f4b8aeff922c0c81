"""The last two limits of issue 29 item 5, attacked from several loopback addresses (127.0.0.x, each its own
client: no proxy header involved) on real gunicorn (2 workers) and a private Redis.

- The computer's work is budgeted per client address, not only per game: one address that opened many
  games against the computer (and asked for hints, the same search) used to get every game's budget.
- Code guessing is limited per game (a check that names the game: the QR code of a code) as well as per
  address, and twelve addresses guessing together keep out no player with the right code: neither a
  join nor the seated host's check of its own transfer code, which the game's used-up budget refused.
"""

from __future__ import annotations

import json
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import requests
import simple_websocket

from tests.security.conftest import as_from, session_from
from tests.security.test_limits_rate import assert_rate_limited

API = "/api/v1"


def _move(http: requests.Session, url: str, token: str) -> requests.Response:
    """The first legal action of `token`'s seat at the game's current version."""
    auth = {"Authorization": f"Bearer {token}"}
    body = http.get(url, headers=auth, timeout=10).json()
    move = {"action": body["view"]["legal_actions"][0], "version": body["version"]}
    return http.post(url + "/actions", json=move, headers=auth, timeout=30)


def test_one_address_cannot_spend_the_computer_on_many_games(serve) -> None:
    server = serve(BOT_LIMIT=5, BOT_CLIENT_LIMIT=8, BOT_WINDOW=600)
    attacker = session_from("127.0.0.31")
    games = []
    for _ in range(4):  # four games against the computer, each far below its own budget of 5
        grant = attacker.post(f"{server.url}{API}/games", json={"mode": "duo", "bot": "greedy"}, timeout=10)
        assert grant.status_code == 201, grant.text
        games.append((f"{server.url}{API}/games/{grant.json()['game_id']}", grant.json()["token"]))
    answers = [_move(attacker, url, token) for _ in range(3) for url, token in games]  # 12 requests
    assert [r.status_code for r in answers] == [200] * 8 + [429] * 4
    for refused in answers[8:]:
        assert_rate_limited(refused, 600)
        assert "from this address" in refused.json()["detail"]
    # Nothing was applied: each game is where its last admitted move left it.
    url, token = games[-1]
    before = attacker.get(url, timeout=10).json()["version"]
    assert_rate_limited(_move(attacker, url, token), 600)
    # A hint is the same search: asked for from this address, it waits too.
    hint = attacker.get(url + "/hint", headers={"Authorization": f"Bearer {token}"}, timeout=30)
    assert_rate_limited(hint, 600)
    # So does a move over the websocket from the same client (through the trusted proxy on 127.0.0.1).
    ws = simple_websocket.Client.connect(url.replace("http", "ws", 1) + "/ws", headers=as_from("127.0.0.31"))
    try:
        ws.send(json.dumps({"type": "hello", "token": token, "since": 0}))
        state = json.loads(ws.receive(timeout=10))
        assert state["type"] == "state", state
        ws.send(json.dumps({"type": "action", "id": "w1", "version": state["version"],
                            "action": state["view"]["legal_actions"][0]}))
        while (frame := json.loads(ws.receive(timeout=10)))["type"] not in ("ack", "error"):
            pass
        assert (frame["id"], frame["code"]) == ("w1", "rate_limited") and 1 <= frame["retry_after"] <= 600
    finally:
        ws.close()
    assert attacker.get(url, timeout=10).json()["version"] == before
    # Another address has its own budget: its game against the computer moves and gets hints.
    player = session_from("127.0.0.32")
    grant = player.post(f"{server.url}{API}/games", json={"mode": "solo"}, timeout=10).json()
    bot_game = player.post(f"{server.url}{API}/games", json={"mode": "duo", "bot": "greedy"},
                           timeout=10).json()
    own = f"{server.url}{API}/games/{bot_game['game_id']}"
    assert _move(player, own, bot_game["token"]).status_code == 200
    hinted = player.get(own + "/hint", headers={"Authorization": f"Bearer {bot_game['token']}"}, timeout=30)
    assert hinted.status_code in (200, 403), hinted.text  # a hint, or not this seat's turn: never 429
    # A game without the computer costs none of it, even from the spent address.
    solo = f"{server.url}{API}/games/{grant['game_id']}"
    assert _move(player, solo, grant["token"]).status_code == 200
    mine = attacker.post(f"{server.url}{API}/games", json={"mode": "solo"}, timeout=10).json()
    assert _move(attacker, f"{server.url}{API}/games/{mine['game_id']}", mine["token"]).status_code == 200


def test_a_right_code_always_gets_in_while_twelve_addresses_guess(serve) -> None:
    limit, per_game = 3, 4
    server = serve(JOIN_LIMIT=limit, JOIN_GAME_LIMIT=per_game, JOIN_TOTAL_LIMIT=6, JOIN_WINDOW=600)
    host = session_from("127.0.0.40")
    games = [host.post(f"{server.url}{API}/games", json={"mode": "duo"}, timeout=10).json() for _ in range(3)]
    target = games[0]
    qr_url = f"{server.url}{API}/games/{target['game_id']}/qr.svg"
    stop = threading.Event()
    seen: dict[str, Counter] = {}

    def guess(address: str) -> None:
        """Wrong join codes and wrong codes checked against the target game, until told to stop."""
        http, counts = session_from(address), seen.setdefault(address, Counter())
        with http:
            while not stop.is_set():
                counts["qr", http.get(qr_url, params={"code": "YYYYYY"}, timeout=10).status_code] += 1
                counts["join", http.post(f"{server.url}{API}/games/join", json={"code": "ZZZZZZ"},
                                         timeout=10).status_code] += 1

    guessers = [f"127.0.0.{n}" for n in range(101, 113)]
    with ThreadPoolExecutor(len(guessers)) as pool:
        running = [pool.submit(guess, address) for address in guessers]
        try:
            deadline = time.monotonic() + 60
            # The attack is on: every guesser is being refused, and the game's budget is used up.
            while not (len(seen) == len(guessers) and all(c["join", 429] for c in seen.values())
                       and sum(c["qr", 404] for c in seen.values()) == per_game):
                assert time.monotonic() < deadline, seen
                assert not any(f.done() for f in running), [f.exception() for f in running if f.done()]
                time.sleep(0.05)
            # The game's own budget is used up: a fresh address may not check a code against it ...
            assert_rate_limited(session_from("127.0.0.70").get(qr_url, params={"code": "XXXXXX"}, timeout=10),
                                600)
            # ... but every player with the right code gets in, each from an address that guessed nothing.
            for n, game in enumerate(games):
                joined = session_from(f"127.0.0.{50 + n}").post(f"{server.url}{API}/games/join",
                                                                json={"code": game["join_code"]}, timeout=10)
                assert joined.status_code == 200 and joined.json()["seat"] == 1, joined.text
            # The seated host moves its seat to another phone: the QR code of that transfer code is drawn
            # for it although the game's guess budget is used up (a seat is no guesser) ...
            auth = {"Authorization": f"Bearer {target['token']}"}
            moved = host.post(f"{server.url}{API}/games/{target['game_id']}/transfer", headers=auth,
                              timeout=10)
            assert moved.status_code == 201, moved.text
            code = moved.json()["transfer_code"]
            drawn = host.get(qr_url, params={"code": code}, headers=auth, timeout=10)
            assert drawn.status_code == 200 and drawn.headers["Content-Type"].startswith("image/svg+xml")
            # ... and the other phone claims the seat with it.
            claimed = session_from("127.0.0.60").post(f"{server.url}{API}/games/join", json={"code": code},
                                                      timeout=10)
            assert claimed.status_code == 200 and claimed.json()["seat"] == 0, claimed.text
        finally:
            stop.set()
        for future in running:
            future.result()
    # Meanwhile each guessing address had at most its own few looks at a code (a wrong code is 404),
    # and the target game at most its budget of checks from all of them together.
    looks = {address: counts["join", 404] + counts["qr", 404] for address, counts in seen.items()}
    assert all(n <= limit for n in looks.values()), looks
    assert sum(counts["qr", 404] for counts in seen.values()) <= per_game, seen
    assert all(counts["join", 429] and counts["qr", 429] for counts in seen.values()), seen
