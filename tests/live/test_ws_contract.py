"""docs/websocket.md as a client sees it: which errors end the socket and how it is closed (with Node's
built-in WebSocket, which reports 1006 and no reason unless the closing handshake completes), a `since`
ahead of the server, and the order of the frames after hello.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from contextlib import ExitStack, suppress

import pytest
import redis
from simple_websocket import Client, ConnectionClosed

from api.cli.netclient import HttpApi, ws_url
from api.live import ws as live_ws
from api.store.memory import MemoryStore
from api.store.redis import RedisStore
from api.store.sqlite import SqliteStore
from tests.live.play import check_shape, duo_game, move
from tests.live.servers import Gunicorn, ThreadServer
from tests.node import node_command

pytestmark = pytest.mark.live

PING = 1.0

# Opens a socket, sends the hello given (unless it is empty), and prints, when the socket closes, the
# close code and reason, whether the close was clean, and every frame received.
NODE_CLIENT = r"""
const [url, hello] = process.argv.slice(1);
const ws = new WebSocket(url);
const frames = [];
ws.onopen = () => { if (hello) ws.send(hello); };
ws.onmessage = (e) => frames.push(JSON.parse(e.data));
ws.onclose = (e) => {
  console.log(JSON.stringify({code: e.code, reason: e.reason, clean: e.wasClean, frames}));
};
"""


def node_session(url: str, hello: str | None) -> dict:
    """Run NODE_CLIENT against `url`; return what it printed: {code, reason, clean, frames}."""
    done = subprocess.run([*node_command(), "-e", NODE_CLIENT, url, hello or ""], capture_output=True,
                          text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def python_session(url: str, hello: str | None) -> dict:
    """The same with simple-websocket's client (which reads the close frame but sends none back)."""
    ws = Client.connect(url)
    frames, code, reason = [], None, None
    try:
        if hello:
            ws.send(hello)
        while True:
            try:
                text = ws.receive(timeout=30)
            except ConnectionClosed as closed:
                code, reason = closed.reason, closed.message
                break
            assert text is not None, "the server neither answered nor closed"
            frames.append(json.loads(text))
    finally:
        with suppress(ConnectionClosed):
            ws.close()
        ws.thread.join(timeout=2)
    return {"code": code, "reason": reason, "frames": frames}


@pytest.fixture
def serve(no_leaked_threads) -> Iterator:
    """Start a ThreadServer on a MemoryStore with the given settings (pings every PING seconds)."""
    with ExitStack() as stack:
        def start(**config) -> ThreadServer:
            store = MemoryStore()
            stack.callback(store.close)
            return stack.enter_context(ThreadServer(store, WS_PING_INTERVAL=PING, **config))
        yield start


def refused(session, url: str, hello: str | None, code: str) -> None:
    """Assert that the hello is refused with one error frame of `code` (no id), then close 1008/`code`."""
    seen = session(url, hello)
    assert [(f["type"], f["id"], f["code"]) for f in seen["frames"]] == [("error", None, code)], seen
    check_shape(seen["frames"][0])
    assert (seen["code"], seen["reason"]) == (1008, code), seen
    if "clean" in seen:
        assert seen["clean"], seen


# ---------------------------------------------------------------------- refused hellos close cleanly


@pytest.mark.parametrize("session", [node_session, python_session], ids=["node", "python"])
def test_a_refused_hello_completes_the_closing_handshake_with_1008_and_the_code(serve, session) -> None:
    server = serve(HELLO_LIMIT=5, HELLO_WINDOW=600, WS_MAX_WATCHERS_PER_GAME=1, WS_MAX_PER_CLIENT=0,
                   WS_MAX_PER_GAME=0)
    http = HttpApi(server.url)
    game_id, tokens = duo_game(http)
    url = ws_url(server.url, game_id)
    refused(session, url, json.dumps({"type": "hello", "token": "forged-token"}), "bad_token")
    refused(session, url, "not json", "invalid_request")
    refused(session, ws_url(server.url, "no-such-game"), json.dumps({"type": "hello", "token": None}),
            "unknown_game")
    # A second watcher of a game whose one watcher's place is taken: server_busy.
    watcher = Client.connect(url)
    try:
        watcher.send(json.dumps({"type": "hello", "token": None}))
        assert json.loads(watcher.receive(timeout=10))["type"] == "state"
        refused(session, url, json.dumps({"type": "hello", "token": None}), "server_busy")
    finally:
        watcher.close()
        watcher.thread.join(timeout=2)
    # The sixth hello from this address within the window: rate_limited (refused hellos count too).
    seen = session(url, json.dumps({"type": "hello", "token": tokens[0]}))
    assert [f["code"] for f in seen["frames"]] == ["rate_limited"] and seen["frames"][0]["retry_after"] >= 1
    assert (seen["code"], seen["reason"]) == (1008, "rate_limited")


def test_a_socket_without_hello_is_closed_with_1008_after_the_hello_timeout(serve, monkeypatch) -> None:
    monkeypatch.setattr(live_ws, "HELLO_TIMEOUT", 0.5)
    server = serve()
    game_id, _ = duo_game(HttpApi(server.url))
    refused(node_session, ws_url(server.url, game_id), None, "invalid_request")


@pytest.mark.redis
def test_a_hello_the_store_cannot_answer_gets_store_unavailable_and_close_1011(redis_server,
                                                                             no_leaked_threads) -> None:
    """A server fault ends the socket like a refusal, with 1011: the client reconnects with backoff."""
    redis_server.start()
    store = RedisStore(redis_server.url)
    try:
        with ThreadServer(store, WS_PING_INTERVAL=PING) as server:
            game_id, _ = duo_game(HttpApi(server.url))
            redis_server.stop()
            try:
                seen = node_session(ws_url(server.url, game_id), json.dumps({"type": "hello", "token": None}))
            finally:
                redis_server.start()
    finally:
        store.close()
    assert [(f["id"], f["code"]) for f in seen["frames"]] == [(None, "store_unavailable")], seen
    assert (seen["code"], seen["reason"], seen["clean"]) == (1011, "store_unavailable", True), seen


# ---------------------------------------------------------------------- errors after the hello


def _open(url: str, token: str | None, since: int = 0) -> tuple[Client, list[dict]]:
    """Open a socket, say hello, and return it with the frames up to and including the first presence."""
    ws = Client.connect(url)
    ws.send(json.dumps({"type": "hello", "token": token, "since": since}))
    frames = []
    while not frames or frames[-1]["type"] != "presence":
        text = ws.receive(timeout=10)
        assert text is not None, frames
        frames.append(json.loads(text))
    return ws, frames


def _next(ws: Client, match, timeout: float = 10) -> dict:
    deadline = time.monotonic() + timeout
    while True:
        text = ws.receive(timeout=max(deadline - time.monotonic(), 0))
        assert text is not None, "no matching frame"
        frame = json.loads(text)
        if match(frame):
            return frame


def test_errors_answering_messages_after_the_hello_leave_the_socket_open(serve) -> None:
    """With or without a usable id, an error answering a message after the hello closes nothing."""
    server = serve()
    http = HttpApi(server.url)
    game_id, tokens = duo_game(http)
    active = http.get(game_id)["view"]["active"]
    ws, frames = _open(ws_url(server.url, game_id), tokens[active])
    try:
        state = frames[0]
        refusals = [("not json", None), ('{"type": "action", "id": "a1", "version": [1]', None),
                    (json.dumps({"type": "chat"}), None), (json.dumps({"type": "chat", "id": "c1"}), "c1"),
                    (json.dumps({"type": "action", "version": 2, "action": {"type": "end_phase"}}), None)]
        for message, msg_id in refusals:
            ws.send(message)
            error = _next(ws, lambda f: f["type"] == "error")
            assert (error["code"], error["id"]) == ("invalid_request", msg_id), (message, error)
            check_shape(error)
        ws.send(json.dumps({"type": "action", "id": "m1", "version": state["version"],
                            "action": state["view"]["legal_actions"][0]}))
        assert _next(ws, lambda f: f.get("id") == "m1") == {"type": "ack", "id": "m1",
                                                             "version": state["version"] + 1}
    finally:
        ws.close()
        ws.thread.join(timeout=2)


def test_a_moved_seat_gets_bad_token_then_close_1008(serve) -> None:
    server = serve()
    http = HttpApi(server.url)
    game_id, tokens = duo_game(http)
    ws, _ = _open(ws_url(server.url, game_id), tokens[0])
    try:
        code = http.call("POST", f"/games/{game_id}/transfer", token=tokens[0])["transfer_code"]
        http.call("POST", "/games/join", {"code": code})
        error = _next(ws, lambda f: f["type"] == "error")
        assert (error["id"], error["code"]) == (None, "bad_token")
        with pytest.raises(ConnectionClosed) as closed:
            _next(ws, lambda f: False)
        assert (closed.value.reason, closed.value.message) == (1008, "bad_token")
    finally:
        with suppress(ConnectionClosed):
            ws.close()
        ws.thread.join(timeout=2)


# ---------------------------------------------------------------------- since, and the frame order


def test_a_since_ahead_of_the_server_gets_the_whole_current_state(serve) -> None:
    server = serve()
    http = HttpApi(server.url)
    game_id, tokens = duo_game(http)
    current = http.get(game_id, tokens[1])
    for since in (current["version"] + 1, 10**6):
        ws, frames = _open(ws_url(server.url, game_id), tokens[1], since=since)
        try:
            assert [f["type"] for f in frames] == ["state", "presence"], frames
            assert (frames[0]["version"], frames[0]["view"]) == (current["version"], current["view"])
            assert "events" not in frames[0]
        finally:
            ws.close()
            ws.thread.join(timeout=2)


def _hellos(url: str, game_id: str, tokens: dict[int, str], times: int) -> None:
    """Say hello `times` times from each seat and as a watcher, with since 0, current and ahead, while
    the other seat's socket stays open (so presence changes as each one arrives): every time the state
    comes first (unless since is current), then presence, and nothing else before them."""
    http = HttpApi(url)
    other, _ = _open(ws_url(url, game_id), tokens[1])
    try:
        version = http.get(game_id)["version"]
        for i in range(times):
            token = (tokens[0], None)[i % 2]
            since = (0, version, version + 5)[i % 3]
            ws, frames = _open(ws_url(url, game_id), token, since)
            try:
                kinds = [f["type"] for f in frames]
                assert kinds == (["presence"] if since == version else ["state", "presence"]), (i, kinds)
                for frame in frames:
                    check_shape(frame)
            finally:
                ws.close()
                ws.thread.join(timeout=2)
    finally:
        other.close()
        other.thread.join(timeout=2)


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
def test_after_hello_the_state_comes_before_presence_every_time(serve, kind, tmp_path) -> None:
    if kind == "sqlite":
        with ExitStack() as stack:
            store = SqliteStore(tmp_path / "games.db")
            stack.callback(store.close)
            server = stack.enter_context(ThreadServer(store, WS_PING_INTERVAL=PING))
            game_id, tokens = duo_game(HttpApi(server.url))
            _hellos(server.url, game_id, tokens, 50)
        return
    server = serve()
    game_id, tokens = duo_game(HttpApi(server.url))
    _hellos(server.url, game_id, tokens, 50)


@pytest.mark.redis
@pytest.mark.gunicorn
def test_after_hello_the_state_comes_before_presence_on_gunicorn_and_redis(redis_server) -> None:
    redis_server.start()
    with redis.Redis.from_url(redis_server.url) as client:
        client.flushall()
    with Gunicorn(redis_server.url, workers=2, ping=PING) as server:
        http = HttpApi(server.url)
        game_id, tokens = duo_game(http)
        move(http, game_id, tokens)
        _hellos(server.url, game_id, tokens, 50)



# ---------------------------------------------------------------------- idempotency over the socket


def test_a_used_id_with_another_action_is_a_mismatch_over_the_socket_too(serve) -> None:
    """docs/protocol.md §9: the message id decides before the version, the turn and the rules."""
    server = serve()
    http = HttpApi(server.url)
    game_id, tokens = duo_game(http)
    active = http.get(game_id)["view"]["active"]
    mover, frames = _open(ws_url(server.url, game_id), tokens[active])
    other, _ = _open(ws_url(server.url, game_id), tokens[1 - active])
    try:
        state = frames[0]
        first = {"type": "action", "id": "k1", "version": state["version"],
                 "action": state["view"]["legal_actions"][0]}
        mover.send(json.dumps(first))
        now = _next(mover, lambda f: f.get("id") == "k1")["version"]
        illegal = {"type": "harvest", "field": 1}
        refusals = [(mover, now + 3, first["action"], "stale_version"),
                    (other, now, first["action"], "not_your_turn"),
                    (mover, now, {"type": "fly"}, "invalid_action"), (mover, now, illegal, "illegal_action")]
        for sock, version, action, plain in refusals:
            for msg_id, code in (("k1", "idempotency_mismatch"), (f"new-{plain}", plain)):
                sock.send(json.dumps({"type": "action", "id": msg_id, "version": version, "action": action}))
                error = _next(sock, lambda f, i=msg_id: f.get("id") == i)
                assert (error["type"], error["code"]) == ("error", code), error
        mover.send(json.dumps(first))  # the same message again: its ack, nothing applied
        assert _next(mover, lambda f: f.get("id") == "k1") == {"type": "ack", "id": "k1", "version": now}
        assert http.get(game_id)["version"] == now
    finally:
        for ws in (mover, other):
            ws.close()
            ws.thread.join(timeout=2)
