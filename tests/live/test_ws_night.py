"""Game-night additions on the websocket (docs/websocket.md): names in every state frame, and the
rematch frame that every socket of a finished game gets when either player asks for the next game."""
# ruff: noqa: F811 - the fixtures of tests.live.test_ws are imported (no_server_errors is autouse there and here)

from __future__ import annotations

import json
import uuid

import pytest

from api.cli.netclient import HttpApi, LiveSocket
from tests.live.play import check_shape
from tests.live.servers import Gunicorn
from tests.live.test_gunicorn import _on_another_worker, _pid, server  # noqa: F401
from tests.live.test_ws import Live, is_state, live, mem_live, no_server_errors  # noqa: F401

pytestmark = pytest.mark.live


def finish(live: Live, game_id: str, tokens: dict[int, str]) -> int:
    """Play the game to its end through the server's HTTP routes (first legal actions); return its last
    version. Each answer carries the mover's new view, so the game is read again only when the turn
    passes. The requests go to the app in this process (its test client: the same routes, service and
    hub, without a TCP connection per request); what the tests watch comes after the end, on sockets."""
    client = live.server.app.test_client()
    url = f"/api/v1/games/{game_id}"

    def answer(resp) -> dict:
        assert resp.status_code == 200, resp.get_json()
        return resp.get_json()

    seat = 0
    game = answer(client.get(url, headers={"Authorization": f"Bearer {tokens[seat]}"}))
    while game["view"]["phase"] != "over":
        if game["view"]["active"] != seat:
            seat = game["view"]["active"]
            game = answer(client.get(url, headers={"Authorization": f"Bearer {tokens[seat]}"}))
            continue
        move = {"action": game["view"]["legal_actions"][0], "version": game["version"]}
        headers = {"Authorization": f"Bearer {tokens[seat]}", "Idempotency-Key": str(uuid.uuid4())}
        game = answer(client.post(url + "/actions", json=move, headers=headers))
    return game["version"]


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
    # The asking phone waits in the new game, its seat taken and the other kept for the other player.
    waiting = live.socket(new_id, grant["token"])
    first = waiting.wait(is_state(1))
    assert [s["taken"] for s in first["seats"]] == [False, True]
    # The other phone joins with one call: the same game, its kept seat, its own token; the waiting
    # phone gets that as a join (a version with the seat_joined event and both seats taken).
    other = live.http.call("POST", f"/games/{game_id}/rematch", token=tokens[0])
    assert other["game_id"] == new_id and other["seat"] == 0 and other["token"] != grant["token"]
    joined = waiting.wait(is_state(2))
    assert joined["events"] == [{"type": "seat_joined", "seat": 0, "name": "Ann"}]
    assert [s["name"] for s in joined["seats"]] == ["Ann", "Bo"] and all(s["taken"] for s in joined["seats"])


@pytest.mark.redis
@pytest.mark.gunicorn
def test_the_rematch_frame_reaches_sockets_on_every_worker(server: Gunicorn) -> None:
    """gunicorn with 2 workers on Redis: the worker that links the rematch pushes to its own sockets,
    the other worker's sockets hear of it through the store's nudge."""
    http = HttpApi(server.url)
    # The tutorial: a solo game that ends within some dozens of moves; each answer carries the seat's
    # new view, nothing to read in between.
    grant = http.call("POST", "/games", {"mode": "solo", "name": "Ann", "tutorial": True})
    game_id, token = grant["game_id"], grant["token"]
    game = grant
    while game["view"]["phase"] != "over":
        game = http.act(game_id, token, game["view"]["legal_actions"][0], game["version"])
    opened: list[LiveSocket] = []
    try:
        player = LiveSocket(server.url, game_id, token).connect()
        opened.append(player)
        pid = _pid(server, player)
        watcher, other = _on_another_worker(server, game_id, None, pid, opened)
        assert other != pid
        new_id = http.call("POST", f"/games/{game_id}/rematch", token=token)["game_id"]
        for sock in (player, watcher):
            assert sock.wait(lambda f: f["type"] == "rematch") == {"type": "rematch", "game_id": new_id}
    finally:
        for sock in opened:
            sock.close()
