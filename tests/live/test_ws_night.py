"""Game-night additions on the websocket (docs/websocket.md): names in every state frame, and the
rematch frame that every socket of a finished game gets when either player asks for the next game."""
# ruff: noqa: F811 - the fixtures of tests.live.test_ws are imported (no_server_errors is autouse there and here)

from __future__ import annotations

import json

import pytest

from tests.live.play import check_shape, move
from tests.live.test_ws import Live, is_state, live, mem_live, no_server_errors  # noqa: F401

pytestmark = pytest.mark.live


def finish(live: Live, game_id: str, tokens: dict[int, str]) -> int:
    """Play the game to its end over HTTP (first legal actions); return its last version."""
    while True:
        game = live.http.get(game_id)
        if game["view"]["phase"] == "over":
            return game["version"]
        move(live.http, game_id, tokens)


def test_state_frames_carry_the_names_of_the_seats(live: Live) -> None:
    host = live.http.call("POST", "/games", {"mode": "duo", "name": "Ann"})
    sock = live.socket(host["game_id"], host["token"])
    first = sock.wait(is_state(1))
    check_shape(first)
    assert first["seats"] == [{"seat": 0, "taken": True, "name": "Ann"},
                              {"seat": 1, "taken": False, "name": None}]
    assert first["rematch"] is None
    live.http.call("POST", "/games/join", {"code": host["join_code"], "name": "<i>Bo</i>"})
    joined = sock.wait(is_state(2))
    check_shape(joined)
    # The host's phone learns the joiner's name from the join's own state frame.
    assert joined["seats"][1] == {"seat": 1, "taken": True, "name": "<i>Bo</i>"}
    assert joined["events"] == [{"type": "seat_joined", "seat": 1, "name": "<i>Bo</i>"}]


def test_every_socket_of_a_finished_game_hears_of_the_rematch(live: Live) -> None:
    host = live.http.call("POST", "/games", {"mode": "duo", "name": "Ann", "dealer": 0})
    guest = live.http.call("POST", "/games/join", {"code": host["join_code"], "name": "Bo"})
    game_id, tokens = host["game_id"], {0: host["token"], 1: guest["token"]}
    last = finish(live, game_id, tokens)
    socks = [live.socket(game_id, tokens[0], last), live.socket(game_id, tokens[1], last),
             live.socket(game_id, None, last)]
    for sock in socks:  # registered (presence comes after the hello)
        sock.wait(lambda f: f["type"] == "presence")
    grant = live.http.call("POST", f"/games/{game_id}/rematch", token=tokens[1])
    new_id = grant["game_id"]
    for sock in socks:
        seen: list[dict] = []
        frame = sock.wait(lambda f: f["type"] == "rematch", seen=seen)
        check_shape(frame)
        assert frame == {"type": "rematch", "game_id": new_id}
        state = next(f for f in seen if f["type"] == "state")
        assert state["version"] == last + 1 and state["rematch"] == new_id
        # No token in any broadcast.
        assert grant["token"] not in json.dumps(seen) and tokens[1] not in json.dumps(seen)
    # The other phone joins with one call: the same game, its kept seat, its own token.
    other = live.http.call("POST", f"/games/{game_id}/rematch", token=tokens[0])
    assert other["game_id"] == new_id and other["seat"] == 0 and other["token"] != grant["token"]
    # And the new game's sockets see both names.
    sock = live.socket(new_id, other["token"])
    state = sock.wait(is_state())
    assert [s["name"] for s in state["seats"]] == ["Ann", "Bo"] and all(s["taken"] for s in state["seats"])
