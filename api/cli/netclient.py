"""`alcabohne play --server URL`: play over the network like any third-party client would.

Only the public API is used: HTTP (urllib) to create or join a game, the websocket (simple-websocket's
client) for live states, presence and actions. The table is drawn by api.cli.terminal from the views the
server sends. The same two classes serve the live tests and the push benchmark.

As a library (docs/clients.md): `HttpApi` for the HTTP operations (`call` reaches every path under
/api/v1), `LiveSocket` for one game's websocket, `ApiError` for a problem answer. Neither retries or
reconnects by itself: `play_online` shows how (a key reused for the same move, `connect()` again with
backoff).
"""

from __future__ import annotations

import collections
import contextlib
import json
import socket
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable
from urllib.parse import urlsplit, urlunsplit

from simple_websocket import Client, ConnectionClosed
from simple_websocket import ConnectionError as WsConnectionError

API = "/api/v1"


class ApiError(Exception):
    """An HTTP answer other than 2xx: `status`, and the problem document in `body`."""

    def __init__(self, status: int, body: dict):
        super().__init__(f"{status} {body.get('code', '')}: {body.get('detail', '')}")
        self.status = status
        self.body = body
        self.code = body.get("code")


class HttpApi:
    """The HTTP API at `base_url` (e.g. http://192.168.1.20:8000)."""

    def __init__(self, base_url: str, *, timeout: float = 10.0):
        """`timeout`: seconds per request before it raises OSError (the move may have been applied)."""
        self.base_url = base_url.rstrip("/")
        self.timeout = timeout

    def call(self, method: str, path: str, body: dict | None = None, *, token: str | None = None,
             headers: dict | None = None) -> dict:
        """Return the decoded JSON answer; raise ApiError for a non-2xx answer, OSError when unreachable."""
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base_url + API + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if token:
            req.add_header("Authorization", f"Bearer {token}")
        for name, value in (headers or {}).items():
            req.add_header(name, value)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return json.loads(resp.read() or b"{}")
        except urllib.error.HTTPError as err:
            with err:
                try:
                    problem = json.loads(err.read() or b"{}")
                except ValueError:
                    problem = {}
            raise ApiError(err.code, problem) from None

    def create(self, mode: str, name: str | None = None) -> dict:
        """Create a game (`name`: the creator's); return the grant (game_id, seat, token, version,
        view[, join_code])."""
        return self.call("POST", "/games", {"mode": mode, **({"name": name} if name else {})})

    def join(self, code: str, name: str | None = None) -> dict:
        """Take the seat a join code opens (`name`: the joining player's); return the grant."""
        return self.call("POST", "/games/join", {"code": code, **({"name": name} if name else {})})

    def get(self, game_id: str, token: str | None = None) -> dict:
        """Return the game as `token`'s seat (or the table) sees it."""
        return self.call("GET", f"/games/{game_id}", token=token)

    def act(self, game_id: str, token: str, action: dict, version: int, key: str | None = None) -> dict:
        """Make a move over HTTP; return the answer (raise ApiError, e.g. 409 stale_version).

        `key` is the Idempotency-Key (a fresh UUID when None): to resend a move whose answer was lost
        (OSError, 503 outcome_unknown), pass the same key again; the server applies it at most once.
        """
        return self.call("POST", f"/games/{game_id}/actions", {"action": action, "version": version},
                         token=token, headers={"Idempotency-Key": key or str(uuid.uuid4())})


def ws_url(base_url: str, game_id: str) -> str:
    """Return the websocket URL of a game on the server at `base_url`."""
    parts = urlsplit(base_url)
    scheme = "wss" if parts.scheme == "https" else "ws"
    return urlunsplit((scheme, parts.netloc, f"{parts.path.rstrip('/')}{API}/games/{game_id}/ws", "", ""))


class _Client(Client):
    """simple-websocket's client, which closes its TCP socket when the server refuses the handshake
    (the library leaves it open to the garbage collector: a ResourceWarning per refused connect)."""

    def __init__(self, *args, **kwargs) -> None:
        try:
            super().__init__(*args, **kwargs)
        except BaseException:
            sock = getattr(self, "sock", None)
            if sock is not None:
                sock.close()
            raise


class LiveSocket:
    """One websocket to one game: hello on connect, JSON frames in and out.

    `version` is the newest state version received; `recv` drops states at or below it (docs/protocol.md §12),
    except the first state after a hello: the server's current state, taken even when it is older than
    the version sent (a store restored from a backup; docs/websocket.md).
    """

    def __init__(self, base_url: str, game_id: str, token: str | None, *, since: int = 0):
        """`token` None watches the table view; `since` is the version already held (hello sends it)."""
        self.url = ws_url(base_url, game_id)
        self.token = token
        self.version = since
        self.ws: Client | None = None
        self.backlog: collections.deque[dict] = collections.deque()  # frames set aside by wait(keep=True)
        self._hello_state = False  # the next state answers our hello

    def connect(self) -> LiveSocket:
        """Open the socket and send hello with the newest version held. Raises OSError when refused."""
        self.close()
        try:
            self.ws = _Client.connect(self.url)
        except WsConnectionError as err:
            raise OSError(f"websocket refused: {err}") from None
        with contextlib.suppress(OSError):  # small frames: do not wait for delayed ACKs (Nagle)
            self.ws.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.send({"type": "hello", "token": self.token, "since": self.version})
        self._hello_state = True
        return self

    def send(self, message: dict) -> None:
        """Send one message; raise OSError when the socket is gone."""
        if self.ws is None:
            raise OSError("not connected")
        try:
            self.ws.send(json.dumps(message))
        except ConnectionClosed as err:
            raise OSError("socket closed") from err

    def recv(self, timeout: float | None = None) -> dict | None:
        """Return the next frame (stale states skipped), None on timeout; raise OSError when closed."""
        if self.backlog:
            return self.backlog.popleft()
        deadline = None if timeout is None else time.monotonic() + timeout
        while True:
            left = None if deadline is None else max(deadline - time.monotonic(), 0)
            if self.ws is None:
                raise OSError("not connected")
            try:
                text = self.ws.receive(timeout=left)
            except ConnectionClosed as err:
                raise OSError("socket closed") from err
            if text is None:
                return None
            frame = json.loads(text)
            if frame.get("type") == "state":
                taken, self._hello_state = self._hello_state, False
                if frame["version"] <= self.version and not taken:
                    continue
                self.version = frame["version"]
            return frame

    def wait(self, match: Callable[[dict], bool], timeout: float = 10.0, *, keep: bool = False,
             seen: list[dict] | None = None) -> dict:
        """Return the first frame for which `match` is true. Frames passed over are appended to `seen`
        and, with `keep`, set aside for the next `recv` calls.

        Raises TimeoutError, or OSError when the socket closes first.
        """
        deadline = time.monotonic() + timeout
        passed: list[dict] = []
        try:
            while True:
                frame = self._read(max(deadline - time.monotonic(), 0)) if keep else \
                    self.recv(max(deadline - time.monotonic(), 0))
                if frame is None:
                    raise TimeoutError("no matching frame in time")
                if match(frame):
                    return frame
                passed.append(frame)
                if seen is not None:
                    seen.append(frame)
        finally:
            if keep:
                self.backlog.extend(passed)

    def _read(self, timeout: float) -> dict | None:
        """recv, but never from the backlog (wait(keep=True) appends to it)."""
        backlog, self.backlog = self.backlog, collections.deque()
        try:
            return self.recv(timeout)
        finally:
            backlog.extend(self.backlog)
            self.backlog = backlog

    def action(self, action: dict, version: int, msg_id: str | None = None) -> str:
        """Send an action message; return its id (the Idempotency-Key: pass it again as `msg_id` to
        resend the same move after a reconnect). Its answer is an `ack` or `error` frame with that id."""
        msg_id = msg_id or str(uuid.uuid4())
        self.send({"type": "action", "id": msg_id, "version": version, "action": action})
        return msg_id

    def close(self) -> None:
        """Close the socket (no error if it is already gone)."""
        ws, self.ws = self.ws, None
        if ws is None:
            return
        try:
            ws.close()
        except (ConnectionClosed, OSError):
            ws.sock.close()
        if ws.thread is not None:
            ws.thread.join(timeout=2)


def play_online(server: str, *, join: str | None = None, duo: bool = False, name: str | None = None,
                inp: Callable[[str], str] = input, out: Callable[[str], None] = print) -> int:
    """Play one game on `server` in the terminal: create a solo (or `duo`) game, or `join` with a code;
    `name` is this player's name at the table. The players' names come with every state.

    Returns 0 when the game ends or the player quits, 1 when the server cannot be used.
    """
    from api.cli.terminal import narrate, render, result_text, seat_label

    http = HttpApi(server)
    try:
        grant = http.join(join, name) if join else http.create("duo" if duo else "solo", name)
    except (ApiError, OSError) as err:
        out(f"The server refused: {err}")
        return 1
    game_id, token, seat = grant["game_id"], grant["token"], grant["seat"]
    names = _names(grant.get("seats"))
    named = f" ({seat_label(seat, names)})" if seat < len(names) and names[seat] else ""
    out(f"Al Cabohne online - game {game_id} - you are player {seat + 1}{named}")
    if grant.get("join_code"):
        out(f"The second player joins with: alcabohne play --server {server} --join {grant['join_code']}"
            f"   (or opens {grant['join_url']})")
    live = LiveSocket(server, game_id, token)
    view, waiting_shown, online = None, False, None
    try:
        while True:
            if live.ws is None and not _reconnect(live, out):
                return 1
            try:
                frame = live.recv(timeout=60)
            except OSError:
                live.close()
                continue
            if frame is None:  # silence for too long: the server or the network is gone
                live.close()
                continue
            kind = frame["type"]
            if kind == "presence":
                now = [s["seat"] for s in frame["seats"] if s["online"] and s["seat"] != seat]
                if online is not None and now != online and len(frame["seats"]) > 1:
                    out("  The other player is " + ("back." if now else "offline."))
                online = now
                continue
            if kind == "error" and frame.get("id") is None:
                out(f"The server closed the game: {frame['detail']}")
                return 1
            if kind != "state":
                continue
            view = frame["view"]
            names = _names(frame.get("seats")) or names
            for line in narrate(frame.get("events", []), seat, names):
                out(line)
            if view["phase"] == "over":
                out(render(view, names))
                out(result_text(view, names))
                return 0
            if view["active"] != seat:
                if not waiting_shown:
                    out(f"Waiting for {seat_label(view['active'], names)}...")
                    waiting_shown = True
                continue
            waiting_shown = False
            if not _take_turn(live, view, frame["version"], inp, out, names):
                out(f"Bye. The game stays open for 30 days: game {game_id}.")
                return 0
    finally:
        live.close()


def _names(seats: list[dict] | None) -> list[str | None]:
    """The seats' names from a grant or a state's `seats` (None for a seat without one), or []."""
    if not seats:
        return []
    out: list[str | None] = [None] * (max(x["seat"] for x in seats) + 1)
    for x in seats:
        out[x["seat"]] = x.get("name") or None
    return out


def _reconnect(live: LiveSocket, out: Callable[[str], None]) -> bool:
    """Connect again with backoff (0.5 s doubling to 10 s, for about a minute); False if it never works."""
    delay = 0.5
    for _ in range(10):
        try:
            live.connect()
            return True
        except OSError:
            out(f"  (connection lost; retrying in {delay:.1f} s)")
            time.sleep(delay)
            delay = min(delay * 2, 10.0)
    out("The server cannot be reached.")
    return False


def _take_turn(live: LiveSocket, view: dict, version: int, inp, out, names=None) -> bool:
    """Show the table, ask for an action, send it and wait for its answer (again while it is refused);
    return False when the player quits."""
    from api.cli.terminal import ask_action

    while True:
        action = ask_action(view, inp, out, names)
        if action is None:
            return False
        try:
            msg_id = live.action(action, version)
            # The state of our move comes with the ack (before or after it): the main loop renders it.
            answer = live.wait(lambda f, i=msg_id: f.get("id") == i and f["type"] in ("ack", "error"),
                               timeout=30, keep=True)
        except (OSError, TimeoutError):
            live.close()  # reconnect; the state's version then tells whether the move was applied
            return True
        if answer["type"] == "ack" or answer["code"] == "stale_version":
            return True  # either way a newer state is on its way
        out(f"  Refused: {answer['detail']}")
