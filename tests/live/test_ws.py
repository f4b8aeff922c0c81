"""The websocket of docs/websocket.md against a live in-process server (werkzeug, threaded).

Pings every PING seconds so that keepalive, pong watch and presence run in test time.
"""

from __future__ import annotations

import http.client
import json
import logging
import random
import socket
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import ExitStack, suppress
from pathlib import Path

import pytest
import redis
from simple_websocket import Client, ConnectionClosed
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection, Ping, Request, TextMessage

import engine
from api.cli.netclient import ApiError, HttpApi, LiveSocket, ws_url
from api.game.model import Observer
from api.live.ws_schema import SCHEMA
from api.ops import logs
from api.store.memory import MemoryStore
from api.store.redis import RedisStore
from api.store.sqlite import SqliteStore
from tests.live.play import check_no_leak, check_shape, duo_game, move
from tests.live.servers import ThreadServer

pytestmark = pytest.mark.live

PING = 1.0
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def no_server_errors(caplog: pytest.LogCaptureFixture) -> Iterator[None]:
    """Fail a test after which the server logged an error (an unhandled exception, a 500)."""
    with caplog.at_level(logging.WARNING):
        yield
    errors = [r for r in caplog.records if r.levelno >= logging.ERROR]
    assert not errors, [r.getMessage() for r in errors]


def _store(kind: str, request: pytest.FixtureRequest, tmp_path):
    if kind == "memory":
        return MemoryStore()
    if kind == "sqlite":
        return SqliteStore(tmp_path / "games.db")
    server = request.getfixturevalue("redis_server")
    server.start()
    with redis.Redis.from_url(server.url) as client:
        client.flushall()
    return RedisStore(server.url)


class Live:
    """A running server plus everything a test opens against it (closed at teardown)."""

    def __init__(self, server: ThreadServer, store, stack: ExitStack):
        self.server = server
        self.store = store
        self.url = server.url
        self.http = HttpApi(server.url)
        self._stack = stack

    def socket(self, game_id: str, token: str | None, since: int = 0) -> LiveSocket:
        live = LiveSocket(self.url, game_id, token, since=since)
        self._stack.callback(live.close)
        return live.connect()

    def position(self, game_id: str) -> tuple[int, dict]:
        version, raw = self.store.load(game_id)
        return version, json.loads(raw)["position"]


def _serve(store, stack: ExitStack, **config) -> Live:
    stack.callback(store.close)
    server = ThreadServer(store, WS_PING_INTERVAL=PING, **config)
    stack.enter_context(server)
    return Live(server, store, stack)


@pytest.fixture(params=["memory", "sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def live(request, tmp_path, no_leaked_threads) -> Iterator[Live]:
    """A live server on each store (sqlite: the embedded default with its in-process broker)."""
    with ExitStack() as stack:
        yield _serve(_store(request.param, request, tmp_path), stack)


@pytest.fixture
def mem_live(no_leaked_threads) -> Iterator[Live]:
    """A live server on a MemoryStore, for tests about the socket rather than the backend."""
    with ExitStack() as stack:
        yield _serve(MemoryStore(), stack)


def is_state(version: int | None = None):
    return lambda f: f["type"] == "state" and (version is None or f["version"] == version)


def presence_of(frame: dict) -> dict[int, bool]:
    return {s["seat"]: s["online"] for s in frame["seats"]}


# ---------------------------------------------------------------------- the conversation


def test_a_move_reaches_the_other_seat_on_every_store(live: Live) -> None:
    game_id, tokens = duo_game(live.http)
    a = live.socket(game_id, tokens[0])
    b = live.socket(game_id, tokens[1])
    first = a.wait(is_state(), keep=True)  # keep: presence may come first
    assert first["version"] == 2 and first["view"]["seat"] == 0
    assert b.wait(is_state())["view"]["seat"] == 1
    assert presence_of(a.wait(lambda f: f["type"] == "presence" and all(presence_of(f).values()))) == {
        0: True, 1: True}
    for _ in range(5):
        answer = move(live.http, game_id, tokens)
        for sock in (a, b):
            frame = sock.wait(is_state(answer["version"]))
            check_shape(frame)
            assert frame["events"]  # one version behind: the events of that version come along


def test_a_commit_reaches_every_socket_without_reading_the_game_back(live: Live) -> None:
    """The fan-out (docs/architecture.md) at its cheapest: the committing process advances its own
    sockets from what it committed, so no socket waits for a store read."""
    game_id, tokens = duo_game(live.http)
    socks = [live.socket(game_id, tokens[0]), live.socket(game_id, tokens[1])]
    views = [sock.wait(is_state(2), keep=True)["view"] for sock in socks]
    reads = []
    load_latest = live.store.load_latest
    live.store.load_latest = lambda *args: reads.append(args) or load_latest(*args)
    try:
        for i in range(6):
            if i % 2:  # over HTTP
                version = move(live.http, game_id, tokens)["version"]
            else:  # over the socket of the seat to move
                version, position = live.position(game_id)
                active = position["active"]
                socks[active].send({"type": "action", "id": uuid.uuid4().hex, "version": version,
                                    "action": views[active]["legal_actions"][0]})
                version += 1
            for seat, sock in enumerate(socks):
                views[seat] = sock.wait(is_state(version), keep=True)["view"]
                assert views[seat]["seat"] == seat
    finally:
        live.store.load_latest = load_latest
    assert reads == []


def test_the_mover_gets_its_ack_before_the_state_of_its_move(live: Live) -> None:
    """docs/websocket.md: ack, then the state of the move (then any later versions), even though the
    state is pushed to the game's other sockets before the ack is sent."""
    game_id, tokens = duo_game(live.http)
    socks = [live.socket(game_id, tokens[0]), live.socket(game_id, tokens[1])]
    views = [sock.wait(is_state(2), keep=True)["view"] for sock in socks]
    for _ in range(8):
        version, position = live.position(game_id)
        active = position["active"]
        msg_id = uuid.uuid4().hex
        socks[active].send({"type": "action", "id": msg_id, "version": version,
                            "action": views[active]["legal_actions"][0]})
        before: list[dict] = []
        assert socks[active].wait(lambda f, i=msg_id: f.get("id") == i, seen=before)["type"] == "ack"
        assert not [f for f in before if f["type"] == "state" and f["version"] > version], before
        for seat, sock in enumerate(socks):
            views[seat] = sock.wait(is_state(version + 1), keep=True)["view"]


def _frames_of(conn: WSConnection, data: bytes) -> list[dict]:
    conn.receive_data(data)
    return [json.loads(e.data) for e in conn.events() if isinstance(e, TextMessage)]


def test_the_ack_and_the_state_of_the_move_come_in_one_write(live: Live) -> None:
    """api.live.ws sends an action's ack and the state of that move (queued meanwhile) with one write: the
    first read after the action holds both, ack first (one system call there, one wake-up here)."""
    game_id, tokens = duo_game(live.http)
    version, position = live.position(game_id)
    active = position["active"]
    sock, conn = _raw_client(live.url, game_id, tokens[active])
    try:
        frames: list[dict] = []
        while not {"state", "presence"} <= {f["type"] for f in frames}:
            frames += _frames_of(conn, sock.recv(65536))
        view = next(f for f in frames if f["type"] == "state")["view"]
        sock.settimeout(0.3)
        with suppress(TimeoutError):  # whatever else the hello brought (a second presence)
            while sock.recv(65536):
                pass
        sock.settimeout(5)
        sock.sendall(conn.send(TextMessage(json.dumps({"type": "action", "id": "m1", "version": version,
                                                       "action": view["legal_actions"][0]}))))
        first = _frames_of(conn, sock.recv(65536))
        kinds = [(f["type"], f.get("version")) for f in first]
        assert kinds[:2] == [("ack", version + 1), ("state", version + 1)], kinds
    finally:
        sock.close()


class _ActionThreads(Observer):
    """An observer (api.game.model.Observer) that notes the thread answering each action and the request
    id its log lines carry, and passes everything on to the observer it stands in front of."""

    def __init__(self, inner: Observer, names: list, request_ids: list | None) -> None:
        self.inner, self.names, self.request_ids = inner, names, request_ids

    def action(self, game_id: str, outcome: str, seconds: float) -> None:
        self.names.append(threading.current_thread().name)
        if self.request_ids is not None:
            self.request_ids.append(logs.current_request_id())
        self.inner.action(game_id, outcome, seconds)

    def push(self, seconds: float) -> None:
        self.inner.push(seconds)

    def socket_opened(self, conn_id: str) -> None:
        self.inner.socket_opened(conn_id)

    def socket_closed(self, conn_id: str) -> None:
        self.inner.socket_closed(conn_id)


def _threads_of_act(live: Live, request_ids: list | None = None) -> list[str]:
    """Return the list the server's service fills, through its observer, with the name of the thread
    that answered each action (and `request_ids` with the request id its log lines carry)."""
    service = live.server.app.extensions["alcabohne.service"]
    names: list[str] = []
    service.observer = _ActionThreads(service.observer, names, request_ids)
    return names


def test_an_action_is_answered_on_the_sockets_reader_thread(mem_live: Live) -> None:
    """api.live.ws answers a registered socket's action on simple-websocket's reader thread, which received
    it, not after a hand-over to the socket's handler thread; ack and state still come in order, and
    its log lines carry the request id of the socket's handshake."""
    request_ids: list = []
    names = _threads_of_act(mem_live, request_ids)
    game_id, tokens = duo_game(mem_live.http)
    socks = [mem_live.socket(game_id, tokens[0]), mem_live.socket(game_id, tokens[1])]
    views = [sock.wait(is_state(2), keep=True)["view"] for sock in socks]
    # Until a socket's hello frames are out (state, then presence: the other seat's arrival too), its
    # handler thread answers what comes in (docs/websocket.md, "Frame order"): act only after them.
    # The presence may be written while that thread still reads what came with the hello: a message
    # answered after it shows the hello is through (what the handler answers, it answers before letting go).
    for seat, sock in enumerate(socks):
        sock.wait(lambda f: f["type"] == "presence" and all(s["online"] for s in f["seats"]), keep=True)
        sock.send({"type": "probe", "id": f"probe-{seat}"})
        assert sock.wait(lambda f, i=f"probe-{seat}": f.get("id") == i)["code"] == "invalid_request"
    movers = []
    for _ in range(4):
        version, position = mem_live.position(game_id)
        active = position["active"]
        movers.append(active)
        msg_id = socks[active].action(views[active]["legal_actions"][0], version)
        assert socks[active].wait(lambda f, i=msg_id: f.get("id") == i)["type"] == "ack"
        for seat, sock in enumerate(socks):
            views[seat] = sock.wait(is_state(version + 1), keep=True)["view"]
    assert len(names) == 4 and all("simple_websocket.Base._thread" in name for name in names), names
    # Every move has its socket's id: the same for the same socket, another for the other socket.
    ids = dict(zip(movers, request_ids, strict=True))
    assert all(request_ids) and [ids[seat] for seat in movers] == request_ids, (movers, request_ids)
    assert len(set(ids.values())) == len(ids), ids


def test_an_action_sent_with_the_hello_is_answered_after_the_snapshot(mem_live: Live) -> None:
    """An action that arrives before the socket is registered (in the hello's own write) waits in the
    buffer and is answered by the handler thread after the hello's state and presence (docs/websocket.md,
    "Frame order"): its ack before the state of the move."""
    names = _threads_of_act(mem_live)
    game_id, tokens = duo_game(mem_live.http)
    version, position = mem_live.position(game_id)
    active = position["active"]
    view = mem_live.http.get(game_id, tokens[active])["view"]
    host, port = mem_live.url.removeprefix("http://").split(":")
    conn = WSConnection(ConnectionType.CLIENT)
    sock = socket.create_connection((host, int(port)), timeout=5)
    try:
        sock.sendall(conn.send(Request(host=host, target=f"/api/v1/games/{game_id}/ws")))
        while not any(isinstance(e, AcceptConnection) for e in conn.events()):
            conn.receive_data(sock.recv(4096))
        hello = {"type": "hello", "token": tokens[active], "since": 0}
        action = {"type": "action", "id": "early", "version": version, "action": view["legal_actions"][0]}
        sock.sendall(conn.send(TextMessage(json.dumps(hello))) + conn.send(TextMessage(json.dumps(action))))
        frames: list[dict] = []
        while not any(f["type"] == "state" and f["version"] == version + 1 for f in frames):
            frames += _frames_of(conn, sock.recv(65536))
        kinds = [(f["type"], f.get("version")) for f in frames if f["type"] != "keepalive"]
        # The hello's state and presence first, then the ack, then the move's state.
        assert kinds[:2] == [("state", version), ("presence", None)], kinds
        assert [k for k in kinds if k[0] != "presence"] == [("state", version), ("ack", version + 1),
                                                            ("state", version + 1)], kinds
    finally:
        sock.close()
    assert len(names) == 1 and "simple_websocket" not in names[0], names


def test_every_frame_is_documented_and_states_come_in_order(mem_live: Live) -> None:
    game_id, tokens = duo_game(mem_live.http)
    a = mem_live.socket(game_id, tokens[0])
    seen: list[dict] = []
    last = None
    for _ in range(6):
        last = move(mem_live.http, game_id, tokens)["version"]
    a.wait(is_state(last), seen=seen)
    seen.append(a.wait(lambda f: f["type"] == "keepalive", timeout=PING * 5, seen=seen))
    kinds = {f["type"] for f in seen}
    assert {"presence", "keepalive"} <= kinds
    versions = [f["version"] for f in seen if f["type"] == "state"]
    assert versions == sorted(set(versions))
    for frame in seen:
        check_shape(frame)


def test_a_socket_for_seat_0_never_sees_seat_1s_hand_or_the_deck(mem_live: Live) -> None:
    game_id, tokens = duo_game(mem_live.http)
    socks = {seat: mem_live.socket(game_id, tokens[seat]) for seat in (0, 1)}
    watcher = mem_live.socket(game_id, None)
    rng = random.Random(4)
    checked = 0
    for _ in range(60):
        answer = move(mem_live.http, game_id, tokens, rng)
        version, position = mem_live.position(game_id)
        assert version == answer["version"]
        for seat, sock in socks.items():
            seen: list[dict] = []
            seen.append(sock.wait(is_state(version), seen=seen))
            for frame in seen:
                check_no_leak(frame, position, seat)
                checked += 1
        for frame in [watcher.wait(is_state(version))]:
            assert all(p["hand"] is None for p in frame["view"]["players"])
            check_no_leak(frame, position, -1)
        if position["phase"] == "over":
            break
    assert checked > 100


def test_a_watcher_sees_the_table_view_and_may_not_act(mem_live: Live) -> None:
    game_id, tokens = duo_game(mem_live.http)
    watcher = mem_live.socket(game_id, None)
    frame = watcher.wait(is_state())
    assert frame["view"]["seat"] is None
    assert all(p["hand"] is None for p in frame["view"]["players"])
    msg_id = watcher.action({"type": "end_phase"}, frame["version"])
    error = watcher.wait(lambda f: f["type"] == "error")
    assert (error["id"], error["code"], error["status"]) == (msg_id, "bad_token", 401)
    assert mem_live.http.get(game_id)["version"] == frame["version"]


@pytest.mark.parametrize("hello, code", [
    ("not json", "invalid_request"),
    (json.dumps({"type": "action"}), "invalid_request"),
    (json.dumps({"type": "hello", "since": -1}), "invalid_request"),
    (json.dumps({"type": "hello", "token": "forged-token"}), "bad_token"),
])
def test_a_bad_hello_gets_an_error_and_the_socket_closes(mem_live: Live, hello: str, code: str) -> None:
    game_id, _ = duo_game(mem_live.http)
    raw = Client.connect(ws_url(mem_live.url, game_id))
    try:
        raw.send(hello)
        frame = json.loads(raw.receive(timeout=5))
        assert (frame["type"], frame["code"], frame["id"]) == ("error", code, None)
        with pytest.raises(ConnectionClosed) as closed:  # the server hangs up: 1008, the code as reason
            for _ in range(2):
                raw.receive(timeout=5)
        assert (closed.value.reason, closed.value.message) == (1008, code)
    finally:
        with suppress(ConnectionClosed):
            raw.close()
        raw.thread.join(timeout=2)


def test_an_unknown_game_gets_unknown_game(mem_live: Live) -> None:
    sock = LiveSocket(mem_live.url, "no-such-game", None).connect()
    try:
        frame = sock.wait(lambda f: f["type"] == "error")
        assert (frame["code"], frame["status"]) == ("unknown_game", 404)
    finally:
        sock.close()


# ---------------------------------------------------------------------- actions


def test_actions_over_the_socket_get_ack_or_the_http_error_codes(mem_live: Live) -> None:
    game_id, tokens = duo_game(mem_live.http)
    active = mem_live.http.get(game_id)["view"]["active"]
    mover = mem_live.socket(game_id, tokens[active])
    other = mem_live.socket(game_id, tokens[1 - active])
    state = mover.wait(is_state())
    version = state["version"]

    def answer(sock: LiveSocket, action, at: int, **extra) -> dict:
        msg_id = str(uuid.uuid4())
        sock.send({"type": "action", "id": msg_id, "version": at, "action": action, **extra})
        return sock.wait(lambda f: f.get("id") == msg_id, keep=True)

    legal = state["view"]["legal_actions"][0]
    assert answer(other, legal, version)["code"] == "not_your_turn"
    stale = answer(mover, legal, version - 1)
    assert (stale["code"], stale["status"], stale["version"]) == ("stale_version", 409, version)
    assert stale["view"]["seat"] == active
    assert answer(mover, {"type": "fly"}, version)["code"] == "invalid_action"
    assert answer(mover, {"type": "harvest", "field": 1}, version)["code"] == "illegal_action"
    mover.send({"type": "action", "version": version, "action": legal})
    assert mover.wait(lambda f: f["type"] == "error")["code"] == "invalid_request"
    assert mem_live.http.get(game_id)["version"] == version  # nothing applied

    ack = answer(mover, legal, version)
    assert (ack["type"], ack["version"]) == ("ack", version + 1)
    assert mover.wait(is_state(version + 1))["events"]
    assert other.wait(is_state(version + 1))["view"]["seat"] == 1 - active


END = {"type": "end_phase"}


@pytest.mark.parametrize("body", [
    {"action": END, "version": "2"}, {"action": END, "version": 2.5}, {"action": END, "version": True},
    {"action": END, "version": 0}, {"action": END, "version": 2**53 + 1}, {"action": END, "version": None},
    {"action": END, "version": [2]}, {"action": END}, {"version": 2},
])
def test_an_action_request_is_validated_alike_over_http_and_the_socket(mem_live: Live, body) -> None:
    """One validation (the schema of POST /actions) for both: the same types, limits and errors."""
    game_id, tokens = duo_game(mem_live.http)
    active = mem_live.http.get(game_id)["view"]["active"]
    with pytest.raises(ApiError) as refused:
        mem_live.http.call("POST", f"/games/{game_id}/actions", body, token=tokens[active])
    status, problem = refused.value.status, refused.value.body
    sock = mem_live.socket(game_id, tokens[active])
    try:
        sock.wait(is_state())
        sock.send({"type": "action", "id": "m1", **body})
        frame = sock.wait(lambda f: f["type"] == "error")
    finally:
        sock.close()
    assert (status, problem["code"]) == (400, "invalid_request")
    assert (frame["status"], frame["code"], frame["id"]) == (400, "invalid_request", "m1")
    assert frame["detail"] == problem["detail"] and frame["errors"] == problem["errors"]
    assert mem_live.http.get(game_id)["version"] == 2  # nothing applied


def test_a_whole_float_version_is_an_integer_over_http_and_the_socket(mem_live: Live) -> None:
    game_id, tokens = duo_game(mem_live.http)
    active = mem_live.http.get(game_id)["view"]["active"]
    sock = mem_live.socket(game_id, tokens[active])
    try:
        state = sock.wait(is_state())
        sock.send({"type": "action", "id": "m1", "version": float(state["version"]),
                   "action": state["view"]["legal_actions"][0]})
        ack = sock.wait(lambda f: f.get("id") == "m1")
        assert (ack["type"], ack["version"]) == ("ack", state["version"] + 1)
    finally:
        sock.close()


def test_a_retried_message_id_applies_once_over_socket_and_http(mem_live: Live) -> None:
    game_id, tokens = duo_game(mem_live.http)
    active = mem_live.http.get(game_id)["view"]["active"]
    sock = mem_live.socket(game_id, tokens[active])
    state = sock.wait(is_state())
    action = state["view"]["legal_actions"][0]
    msg_id = str(uuid.uuid4())
    for _ in range(2):
        sock.action(action, state["version"], msg_id)
        ack = sock.wait(lambda f: f.get("id") == msg_id)
        assert (ack["type"], ack["version"]) == ("ack", state["version"] + 1)
    # The same key over HTTP gets the first answer; the game moved exactly once.
    again = mem_live.http.act(game_id, tokens[active], action, state["version"], key=msg_id)
    assert again["version"] == state["version"] + 1
    assert mem_live.http.get(game_id)["version"] == state["version"] + 1
    with pytest.raises(ApiError) as err:
        mem_live.http.act(game_id, tokens[active], {"type": "buy_field"}, state["version"], key=msg_id)
    assert err.value.code == "idempotency_mismatch"


# ---------------------------------------------------------------------- resync


def test_a_client_reconnecting_with_since_gets_exactly_the_current_state(live: Live) -> None:
    game_id, tokens = duo_game(live.http)
    first = live.socket(game_id, tokens[0])
    held = first.wait(is_state())["version"]
    first.close()
    for _ in range(3):
        move(live.http, game_id, tokens)
    current = live.http.get(game_id, tokens[0])
    again = live.socket(game_id, tokens[0], since=held)
    seen: list[dict] = []
    frame = again.wait(is_state(), seen=seen)
    assert frame["version"] == current["version"]
    assert frame["view"] == current["view"]
    assert "events" not in frame  # several versions behind: the events are at GET /events
    time.sleep(0.3)
    while (extra := again.recv(0.1)) is not None:
        assert extra["type"] != "state"
    # Already up to date: no state at all, only presence (and keepalives).
    up_to_date = live.socket(game_id, tokens[1], since=current["version"])
    frames = []
    while (extra := up_to_date.recv(0.3)) is not None:
        frames.append(extra)
    assert frames and all(f["type"] != "state" for f in frames)


@pytest.mark.redis
def test_after_the_store_connection_returns_sockets_get_the_missed_state(request, no_leaked_threads) -> None:
    """Only Redis can lose announcements (the in-process broker never does)."""
    with ExitStack() as stack:
        live = _serve(_store("redis", request, None), stack)
        _missed_state_comes_after_reset(live)


def _missed_state_comes_after_reset(live: Live) -> None:
    game_id, tokens = duo_game(live.http)
    sock = live.socket(game_id, tokens[0])
    version = sock.wait(is_state())["version"]
    # Cut the hub's pub/sub connection, commit while it is down, let it come back.
    with redis.Redis.from_url(live.store.url) as admin:
        admin.client_kill_filter(_type="pubsub")
        answer = move(live.http, game_id, tokens)
    frame = sock.wait(is_state(answer["version"]), timeout=10)
    assert frame["version"] == version + 1


# ---------------------------------------------------------------------- presence


def _raw_client(url: str, game_id: str, token: str) -> tuple[socket.socket, WSConnection]:
    """A websocket client that answers nothing unless told: wsproto over a plain socket."""
    host, port = url.removeprefix("http://").split(":")
    conn = WSConnection(ConnectionType.CLIENT)
    sock = socket.create_connection((host, int(port)), timeout=5)
    sock.sendall(conn.send(Request(host=host, target=f"/api/v1/games/{game_id}/ws")))
    accepted = False
    while not accepted:
        conn.receive_data(sock.recv(4096))
        accepted = any(isinstance(e, AcceptConnection) for e in conn.events())
    sock.sendall(conn.send(TextMessage(json.dumps({"type": "hello", "token": token, "since": 0}))))
    return sock, conn


def _wait_offline(sock: LiveSocket, seat: int, timeout: float) -> float:
    frame = sock.wait(lambda f: f["type"] == "presence" and not presence_of(f)[seat], timeout=timeout)
    assert frame
    return time.monotonic()


def test_presence_the_other_seat_sees_an_abrupt_drop_at_once(mem_live: Live) -> None:
    game_id, tokens = duo_game(mem_live.http)
    a = mem_live.socket(game_id, tokens[0])
    b = mem_live.socket(game_id, tokens[1])
    a.wait(lambda f: f["type"] == "presence" and presence_of(f) == {0: True, 1: True})
    b.ws.sock.shutdown(socket.SHUT_RDWR)  # the phone vanishes: no close frame
    dropped = time.monotonic()
    assert _wait_offline(a, 1, timeout=2 * PING) - dropped < 2 * PING
    b.close()
    back = mem_live.socket(game_id, tokens[1])
    assert presence_of(a.wait(lambda f: f["type"] == "presence"))[1] is True
    back.close()


def test_presence_a_client_that_stops_answering_pings_drops_within_two_intervals(mem_live: Live) -> None:
    game_id, tokens = duo_game(mem_live.http)
    a = mem_live.socket(game_id, tokens[0])
    raw, conn = _raw_client(mem_live.url, game_id, tokens[1])
    try:
        a.wait(lambda f: f["type"] == "presence" and presence_of(f) == {0: True, 1: True})
        # Answer the first ping, then freeze (read nothing, answer nothing) like a suspended phone.
        answered = False
        while not answered:
            conn.receive_data(raw.recv(65536))
            for event in conn.events():
                if isinstance(event, Ping):
                    raw.sendall(conn.send(event.response()))
                    answered = True
        frozen = time.monotonic()
        assert _wait_offline(a, 1, timeout=3 * PING) - frozen < 2 * PING
    finally:
        raw.close()


# ---------------------------------------------------------------------- origin and schema


def test_origins_are_checked_only_when_configured(no_leaked_threads) -> None:
    with ExitStack() as stack:
        live = _serve(MemoryStore(), stack, WS_ALLOWED_ORIGINS=["https://beans.example"])
        game_id, tokens = duo_game(live.http)
        handshake = {"Upgrade": "websocket", "Connection": "Upgrade", "Sec-WebSocket-Version": "13",
                     "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ==", "Origin": "https://evil.example"}
        conn = http.client.HTTPConnection(live.url[7:], timeout=5)
        try:
            conn.request("GET", f"/api/v1/games/{game_id}/ws", headers=handshake)
            refused = conn.getresponse()
            assert refused.status == 403
            assert json.loads(refused.read())["code"] == "forbidden_origin"
        finally:
            conn.close()
        ok = Client.connect(ws_url(live.url, game_id), headers={"Origin": "https://beans.example"})
        ok.send(json.dumps({"type": "hello", "token": tokens[0]}))
        assert json.loads(ok.receive(timeout=5))["type"] == "state"
        ok.close()
        ok.thread.join(timeout=2)


def test_the_schema_is_served_and_matches_the_docs(mem_live: Live) -> None:
    served = mem_live.http.call("GET", "/ws.schema.json")
    assert served == json.loads(json.dumps(SCHEMA))
    documented = json.loads((ROOT / "docs" / "websocket.schema.json").read_text())
    assert documented == served, "regenerate: python -m api.live.ws_schema > docs/websocket.schema.json"


def test_a_transferred_seat_ends_the_old_devices_socket(mem_live: Live) -> None:
    game_id, tokens = duo_game(mem_live.http)
    old = mem_live.socket(game_id, tokens[0])
    old.wait(is_state())
    code = mem_live.http.call("POST", f"/games/{game_id}/transfer", token=tokens[0])["transfer_code"]
    mem_live.http.join(code)
    frame = old.wait(lambda f: f["type"] == "error")
    assert (frame["code"], frame["id"]) == ("bad_token", None)
    with pytest.raises(OSError):
        old.wait(lambda f: False, timeout=5)


def test_engine_is_what_renders(mem_live: Live) -> None:
    """The socket's view is exactly engine.view of the stored position for that seat."""
    game_id, tokens = duo_game(mem_live.http)
    sock = mem_live.socket(game_id, tokens[1])
    frame = sock.wait(is_state())
    version, position = mem_live.position(game_id)
    assert frame["version"] == version
    assert frame["view"] == engine.view(engine.from_position(position), 1)
