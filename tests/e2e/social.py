"""Helpers of the game-night table tests: a phone's stored seats, the real HTTP API, and a game played
quickly to its end through the API with the seat tokens the phones hold (one request a move: each
answer is the mover's next view). The phones come back to the finished game; a phone following a game
live to its end is tests/e2e/test_game_end.py's."""

from __future__ import annotations

import json
import random
import re
import urllib.error
import urllib.request
import uuid


def game_id(page) -> str:
    return re.search(r"#/g/([\w-]+)", page.url).group(1)


def stored_games(page) -> dict:
    """This phone's localStorage record of its games: {id: {tokens: {seat: token}, ...}}."""
    return page.evaluate("() => JSON.parse(localStorage.getItem('alc.games') || '{}')")


def token_of(page, gid: str) -> tuple[int, str]:
    tokens = stored_games(page)[gid]["tokens"]
    seat, token = next(iter(tokens.items()))
    return int(seat), token


def call(server: str, method: str, path: str, token: str | None = None, body=None) -> tuple[int, dict]:
    headers = {"Accept": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = None
    if body is not None:
        headers["Content-Type"] = "application/json"
        data = json.dumps(body).encode()
    if method == "POST" and path.endswith("/actions"):
        headers["Idempotency-Key"] = str(uuid.uuid4())
    req = urllib.request.Request(server + "/api/v1" + path, data=data, method=method, headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status, json.loads(resp.read() or b"null")
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read() or b"null")


def moves_over_http(server: str, gid: str, tokens: dict[int, str], pick, limit: int) -> dict:
    """Make up to `limit` moves over the API, each `pick(legal)`, or fewer if the game ends; return the
    last answer. While the same seat moves on, one request a move (the answer is the mover's view); the
    computer's moves are made by the server before it answers."""
    answer = None
    for _ in range(limit):
        if answer is None or answer["view"]["active"] != answer["view"]["seat"]:
            status, public = call(server, "GET", f"/games/{gid}")
            assert status == 200, public
            if public["view"]["phase"] == "over":
                return public
            status, answer = call(server, "GET", f"/games/{gid}", tokens[public["view"]["active"]])
            assert status == 200, answer
        view = answer["view"]
        if view["phase"] == "over":
            return answer
        assert view["legal_actions"], "the active seat must have a move"
        status, answer = call(server, "POST", f"/games/{gid}/actions", tokens[view["active"]],
                              {"action": pick(view["legal_actions"]), "version": answer["version"]})
        assert status == 200, answer
    return answer


def play_to_end(server: str, gid: str, tokens: dict[int, str], seed: int = 0, limit: int = 5000) -> dict:
    """Play game `gid` to its end through the HTTP API, a random legal move at a time (ending a phase
    whenever that is allowed, so the deck runs out fast). Returns the final public answer."""
    rng = random.Random(seed)

    def pick(legal):
        ends = [a for a in legal if a["type"] == "end_phase"]
        return ends[0] if ends and rng.random() < 0.8 else rng.choice(legal)

    last = moves_over_http(server, gid, tokens, pick, limit)
    assert last["view"]["phase"] == "over", f"game {gid} not over after {limit} moves"
    status, public = call(server, "GET", f"/games/{gid}")
    assert status == 200, public
    return public
