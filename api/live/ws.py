"""The websocket `GET /api/v1/games/{id}/ws` (docs/websocket.md) and its JSON Schema.

A socket's life (`Session`): hello, registration with the hub (api.live.hub) and the snapshot, then
the loop of its handler thread (a gunicorn gthread pool thread), which answers what the client sent
when the reader thread could not, writes the frames that had to wait, and sends keepalives. Everything
the socket sends goes through its `Sender` (api.live.wssocket): the one owner of its sending, which
also keeps the mover's order (the ack of an action before the state of the version it made).

A client's action is answered on the socket's reader thread (simple-websocket's), which received it
(`answer_inline`): `Sender.hold` before the move, `Sender.reply` with the answers after it, so the
move's own state, pushed during `act`, goes out right behind the ack in the same write. While the
handler thread is itself reading (messages that came before registration), the reader thread leaves
the message to it (`reading`).

Actions reuse the HTTP service (`GameService.act`) with the message id as the Idempotency-Key, so a
move sent over the socket and retried over HTTP (or the reverse) applies once. Every frame's text comes
from api.live.frames.
"""

from __future__ import annotations

import contextlib
import json
import logging
import socket
import threading
import time

from flask import Blueprint, current_app, g, jsonify, request
from flask_sock import Sock
from marshmallow import ValidationError
from simple_websocket import ConnectionClosed

from api.codec import untrusted_json
from api.errors import OUTCOME_UNKNOWN_DETAIL, ApiError, field_errors, schema_detail
from api.game import auth
from api.game.action_request import ActionRequestSchema, is_plain
from api.live import frames
from api.live.admission import Admission, Ticket
from api.live.frames import encode
from api.live.hub import Connection, Hub
from api.live.ws_schema import SCHEMA
from api.live.wssocket import CLOSE, INBOUND, SEND, Sender, SerialSocket
from api.ops import logs
from api.ops.limits import client_key
from api.store.base import OutcomeUnknown, StoreUnavailable

log = logging.getLogger(__name__)

WS_PATH = "/api/v1/games/<game_id:game_id>/ws"
SCHEMA_URL = "/api/v1/ws.schema.json"
# Seconds a new socket has to send its hello: a phone sends it at once; a socket that says nothing holds
# one of the few pending places (api.live.admission) for no longer than this.
HELLO_TIMEOUT = 5.0
# A send that cannot hand its bytes to the kernel in this many seconds means a dead or stuck client.
SEND_TIMEOUT = 10.0
# Seconds the server waits for the client's close frame after sending its own, before dropping the TCP
# connection: without the client's answer a browser reports 1006 and no reason (RFC 6455 7.1.1, 7.1.4).
CLOSE_WAIT = 2.0
# The close code after an error frame that ends the socket: 1011 when the server failed (try again
# later), 1008 (policy violation) for every refusal (docs/websocket.md, "Errors that close").
SERVER_FAULTS = frozenset({"internal_error", "store_unavailable"})
# Largest message accepted from a client (an action is well under 1 KB).
MAX_MESSAGE = 16 * 1024
MAX_ID = 255

ACTION_REQUEST = ActionRequestSchema()

bp = Blueprint("live", __name__)
sock = Sock()


class WakeEvent(threading.Event):
    """simple-websocket's "a message arrived" event, which also has the message answered at once
    (Session.answer_inline; passed as SOCK_SERVER_OPTIONS["event_class"], a documented simple-websocket
    option)."""

    wake = None

    def set(self) -> None:
        super().set()
        wake = self.wake
        if wake is not None:
            wake()


def init_app(app) -> None:
    """Register the websocket route and the schema document."""
    options = {"ping_interval": app.config["WS_PING_INTERVAL"], "max_message_size": MAX_MESSAGE}
    options.update(app.config.get("SOCK_SERVER_OPTIONS") or {})
    options["event_class"] = WakeEvent
    app.config["SOCK_SERVER_OPTIONS"] = options
    c = app.config
    app.extensions["alcabohne.ws_gate"] = Admission(
        c["WS_MAX_SOCKETS"], pending=c["WS_MAX_PENDING"], per_client=c["WS_MAX_PER_CLIENT"],
        per_game=c["WS_MAX_PER_GAME"], watchers_per_game=c["WS_MAX_WATCHERS_PER_GAME"])
    app.register_blueprint(bp)


@bp.get(SCHEMA_URL)
def ws_schema():
    """Serve the JSON Schema of the websocket messages."""
    return jsonify(SCHEMA)


@bp.before_request
def _admit():
    """Refuse a handshake from a browser page of another site, when allowed origins are configured, and
    one past this process's places for sockets (each holds a pool thread for its life): api.live.admission."""
    if not request.path.endswith("/ws"):
        return
    allowed = current_app.config["WS_ALLOWED_ORIGINS"]
    if allowed and request.headers.get("Origin") not in allowed:
        raise ApiError("forbidden_origin", f"Origin {request.headers.get('Origin')!r} may not open sockets.")
    admission: Admission = current_app.extensions["alcabohne.ws_gate"]
    # Counted out when the request (the socket's whole life) ends.
    game_id = (request.view_args or {}).get("game_id", "")
    g.ws_ticket = admission.enter(client_key(request.remote_addr), game_id)


@bp.teardown_request
def _count_out(_exc) -> None:
    ticket = g.pop("ws_ticket", None)
    if ticket is not None:
        current_app.extensions["alcabohne.ws_gate"].leave(ticket)


@sock.route(WS_PATH, bp=bp)
def live(ws, game_id):
    """Play one game live: hello, then states, presence, and actions with ack/error (docs/websocket.md)."""
    Session(ws, game_id).run()


class Session:
    """One socket's life: hello, registration and snapshot, then the send/receive loop."""

    def __init__(self, ws, game_id: str):
        self.ws = ws
        self.game_id = game_id
        self.hub: Hub = current_app.extensions["alcabohne.hub"]
        self.service = current_app.extensions["alcabohne.service"]
        self.base_url = current_app.config["PUBLIC_URL"] or request.host_url
        self.client = client_key(request.remote_addr)  # its rate-limit bucket (api.ops.limits)
        ping = ws.ping_interval
        self.idle = float(ping) if ping else 25.0
        self.raw = ws.sock
        ws.sock = SerialSocket(ws.sock, SEND_TIMEOUT if ping else None)
        self.sender = Sender(ws, ws.sock)  # everything sent on this socket (its `since` comes with hello)
        self.token: str | None = None
        self.conn: Connection | None = None
        self.request_id = logs.current_request_id()  # for the reader thread's log lines
        # Held by the thread answering the client's messages: the reader thread (answer_inline) or,
        # when that one finds it taken, this socket's handler thread.
        self.reading = threading.Lock()
        self.ping_unanswered: float | None = None

    # ------------------------------------------------------------------ sending

    def send(self, message: dict | str) -> bool:
        """Send one frame now (Sender.write); return False when the client is gone."""
        return self.sender.write([message if isinstance(message, str) else encode(message)])

    @staticmethod
    def error(code: str, detail: str = "", msg_id=None, **extra) -> dict:
        """Return an error frame with the HTTP status and code of §6 (api.live.frames)."""
        return frames.error(code, detail, msg_id, **extra)

    def refuse(self, frame: dict) -> None:
        """Send `frame`, an error without id, and close the socket with the close code of its code and
        the code as the reason."""
        if self.send(frame):
            self.hang_up(close_code(frame["code"]), frame["code"])

    def hang_up(self, code: int, reason: str, *, wait: bool = True) -> None:
        """Close the socket: send a close frame with `code` and `reason`, wait up to CLOSE_WAIT seconds
        for the client's close frame (the reader thread ends when it comes, or when the client drops
        the connection), then shut the TCP connection down. Without `wait` (a client that stopped
        answering), or on the reader thread itself, it is shut down at once."""
        # simple-websocket's reader thread, meeting its ping time while it waits for the client's close
        # frame, would call close() again for a missing pong and die with ConnectionClosed; marked as
        # answered, it tries to ping, which wsproto refuses after a close, and ends quietly.
        self.ws.pong_received = True
        self.sender.send_close(code, reason)
        reader = self.ws.thread
        if wait and reader is not None and reader is not threading.current_thread():
            reader.join(CLOSE_WAIT)
        with contextlib.suppress(OSError):
            self.raw.shutdown(socket.SHUT_RDWR)

    # ------------------------------------------------------------------ life

    def run(self) -> None:
        try:
            if self.hello():
                self.loop()
        except StoreUnavailable as err:
            log.warning("websocket of %s: store unavailable: %s", self.game_id, err)
            self.refuse(self.error("store_unavailable"))
        except Exception:
            # Never let an error escape to Flask: it would write an HTTP 500 onto the upgraded socket.
            log.exception("websocket of %s failed", self.game_id)
            self.refuse(self.error("internal_error"))
        finally:
            if self.conn is not None:
                self.sender.close()  # nothing more is pushed to it
                self.hub.detach(self.conn)
                self.ws.event.wake = None
            # Whatever ended the session (a failed send included), free the reader thread now.
            with contextlib.suppress(OSError):
                self.raw.shutdown(socket.SHUT_RDWR)

    def hello(self) -> bool:
        """Read and check the hello, register the socket, queue the snapshot; return False to end."""
        try:
            text = self.ws.receive(timeout=HELLO_TIMEOUT)
        except ConnectionClosed:
            return False
        if text is None:
            self.refuse(self.error("invalid_request", "Send {\"type\": \"hello\", ...} first."))
            return False
        try:
            self.service.limiter.charge("hello", self.client)
        except ApiError as err:
            self.refuse(self.error(err.code, err.detail, **err.extra))
            return False
        msg = _parse(text)
        token = msg.get("token") if isinstance(msg, dict) else None
        since = msg.get("since", 0) if isinstance(msg, dict) else None
        if (not isinstance(msg, dict) or msg.get("type") != "hello" or not _is_int(since) or since < 0
                or not (token is None or isinstance(token, str))):
            self.refuse(self.error("invalid_request",
                                   'The first message is {"type": "hello", "token": "...", "since": n}.'))
            return False
        try:
            # A player coming back lets the bot make the moves it is due (a GET never commits).
            self.service.resume(self.game_id)
            first = self.service.get(self.game_id, token or None, self.base_url)
            # A watcher takes one of the places left to watchers; a seated player may use the reserve.
            ticket: Ticket | None = g.get("ws_ticket")
            if ticket is not None:
                current_app.extensions["alcabohne.ws_gate"].hello(ticket, seated=first["seat"] is not None)
        except ApiError as err:
            self.refuse(self.error(err.code, err.detail, **err.extra))
            return False
        self.token = token or None
        seat = first["seat"]
        # A client that says it holds a version the server never made (a store restored from a backup,
        # a client's bug) gets the whole current state: it replaces what the client holds.
        self.sender.version = since if since <= first["version"] else 0
        conn = Connection(self.game_id, seat, auth.token_hash(self.token) if self.token else None,
                          len(first["view"]["players"]), self.sender)
        # The frame order after hello (docs/websocket.md): the state (unless the client holds the current
        # version), then presence, then everything else. Messages that arrive meanwhile wait: `reading`
        # keeps the reader thread from answering them (answer_inline leaves them to this thread's loop),
        # and this thread reads them only after it queued the presence; the hub holds back presence
        # until send_presence.
        with self.reading:
            # Register first, then read: a commit between the two reaches us by the announcement or by
            # the read.
            self.hub.attach(conn)
            self.conn = conn
            self.ws.event.wake = self.answer_inline
            try:
                self.hub.send_snapshot(conn)
            except ApiError as err:
                self.refuse(self.error(err.code, err.detail))
                return False
            self.hub.send_presence(conn)
            # Messages that came with or after the hello waited in the buffer: answer them here, still
            # holding `reading`; from now on the reader thread answers what comes (answer_inline).
            replies: list[str] = []
            if not self.read_all(replies) or not self.sender.reply(replies):
                return False
        return True

    def loop(self) -> None:
        """Answer what the client sends, write what waits, until either side closes."""
        sender = self.sender
        tick = max(self.idle / 4, 0.05)
        next_check = time.monotonic() + tick
        while True:
            signal = sender.next(next_check - time.monotonic())
            if signal is CLOSE:
                sender.drain()  # the frames pushed before the close (the error that ends the socket)
                self.hang_up(*sender.close_as)
                return
            if signal is INBOUND:
                with self.reading:  # the reader thread answers messages while it is free
                    replies: list[str] = []
                    if not self.read_all(replies) or not sender.reply(replies):
                        return
            elif signal is SEND and not sender.drain():
                return
            now = time.monotonic()
            if now >= next_check:
                next_check = now + tick
                if not self.alive(now):
                    return

    def answer_inline(self) -> None:
        """The client sent a message: answer it here, on the socket's reader thread, and send the
        replies with the frames pushed meanwhile (the move's own state) in one write. Never raises.

        Spares a move the hand-over from the reader thread to the handler thread (a wake-up, and a wait
        for the GIL in a worker with hundreds of threads) before it reaches the store. While the handler
        thread is reading (a message that came before registration), the message is left to it. The
        reader thread reads nothing else meanwhile, as the handler thread did not before: a socket's
        actions are answered one after the other either way.
        """
        if not self.reading.acquire(blocking=False):
            self.sender.wake()
            return
        logs.bind_request_id(self.request_id)
        replies: list[str] = []
        sent = False
        try:
            try:
                if not self.read_all(replies):
                    self.sender.wake()  # closed: the handler thread ends the session
            except Exception:
                log.exception("websocket of %s failed", self.game_id)
                replies.append(encode(self.error("internal_error")))
                self.sender.close(close_code("internal_error"), "internal_error")
            finally:
                sent = self.sender.reply(replies)
        except Exception:
            # This is simple-websocket's reader thread: an error escaping here would end it silently,
            # leaving a socket nobody reads or pings. Say so, and close the socket properly instead.
            log.exception("websocket of %s: answering failed; closing", self.game_id)
            self.hang_up(1011, "internal_error")
        finally:
            self.reading.release()
        if not sent:
            self.sender.wake()  # gone: the handler thread ends the session

    def alive(self, now: float) -> bool:
        """Check the client between frames; return False when it is gone or has stopped answering.

        simple-websocket only drops a client whose pong is still missing at the next ping (up to two
        intervals after its last sign of life); a pong later than half an interval ends it here, so
        the other seat sees the drop within 2 x WS_PING_INTERVAL (about 1.75 at worst).
        """
        if not self.ws.connected:
            return False
        if self.ws.ping_interval and not self.ws.pong_received:
            if self.ping_unanswered is None:
                self.ping_unanswered = now
            elif now - self.ping_unanswered >= self.idle / 2:
                log.info("websocket of %s: no pong for %.1f s", self.game_id, now - self.ping_unanswered)
                self.hang_up(1011, "ping_timeout", wait=False)
                return False
        else:
            self.ping_unanswered = None
        # Browsers cannot see pings: a frame at least every interval tells the client we live.
        return now - self.sender.last_sent < self.idle or self.send(frames.KEEPALIVE)

    def read_all(self, replies: list[str]) -> bool:
        """Handle every message waiting, adding the answers to `replies` (the caller sends them, and
        the frames pushed meanwhile after them); return False when the client is gone."""
        while True:
            try:
                text = self.ws.receive(timeout=0)
            except ConnectionClosed:
                return False
            if text is None:
                return True
            reply = self.handle(text)
            if reply is not None:
                replies.append(encode(reply))

    def handle(self, text) -> dict | None:
        """Answer one client message: an action gets ack or error; hello again is ignored."""
        msg = _parse(text)
        if msg is None:  # not JSON we read (too deep, half a surrogate pair): answer with its id if any
            return self.error("invalid_request", "Messages are JSON objects (UTF-8 text, nested at most "
                              f"{untrusted_json.MAX_DEPTH} levels).", _id_of_malformed(text))
        msg_id = msg.get("id") if isinstance(msg, dict) else None
        msg_id = msg_id if isinstance(msg_id, str) and 0 < len(msg_id) <= MAX_ID else None
        kind = msg.get("type") if isinstance(msg, dict) else None
        if kind == "hello":
            return None
        if kind != "action":
            return self.error("invalid_request", "Messages are hello or action.", msg_id)
        if msg_id is None:
            return self.error("invalid_request", f"An action needs an id (1-{MAX_ID} characters).")
        version = msg.get("version")
        if not is_plain(msg):
            # Anything but the plain case goes through the one action-request schema (POST /actions
            # uses it too): the same types, limits and errors as over HTTP (and 3.0 is 3 there too).
            # The plain case is what the schema accepts as it is; it skips the schema's cost.
            try:
                request = ACTION_REQUEST.load({key: msg[key] for key in ("action", "version") if key in msg})
            except ValidationError as err:
                return self.error("invalid_request", schema_detail(err.messages), msg_id,
                                  errors=field_errors(err.messages, "body"))
            version = request["version"]
        if self.token is None:
            return self.error("bad_token", "This socket watches the table: hello with a seat token to act.",
                              msg_id)
        # The mover's order (api.live.wssocket): until the answer is written (Sender.reply), what is
        # pushed to this socket waits, to follow the ack in the same write.
        self.sender.hold()
        try:
            # Each commit advances this process's sockets of the game at once (the opponent's first, this
            # one's held behind the ack), through the hub (the service's fan-out); other processes
            # follow the store's announcement.
            outcome = self.service.act(self.game_id, self.token, msg["action"], version, msg_id,
                                       client=self.client)
            if outcome.replayed:
                answer = json.loads(self.service.answer(outcome, self.base_url))
        except ApiError as err:
            return self.error(err.code, err.detail, msg_id, **err.extra)
        except OutcomeUnknown:  # sent, never answered: the client's resend with this id finds out
            return self.error("outcome_unknown", OUTCOME_UNKNOWN_DETAIL, msg_id)
        except StoreUnavailable:
            return self.error("store_unavailable", "", msg_id)
        if not outcome.replayed:
            # Applied now; the hub has pushed its state (should that push have failed, the store's
            # announcement brings it to this worker's sockets like to any other's).
            return frames.ack(msg_id, outcome.version)
        # The answer of an earlier request with this id: its state may be news to this socket.
        new_version = answer["version"]
        self.sender.offer(new_version, lambda _previous: frames.answer_state_frame(answer))
        return frames.ack(msg_id, new_version)


def close_code(code: str) -> int:
    """Return the close code that follows an error frame of `code` which ends the socket."""
    return 1011 if code in SERVER_FAULTS else 1008


def _parse(text):
    """Return the client's message, or None when it is not JSON (or nests too deep:
    api.codec.untrusted_json)."""
    try:
        return untrusted_json.loads(text)
    except (TypeError, ValueError):
        return None


def _id_of_malformed(text) -> str | None:
    """Return the message id of a message `_parse` refused, when the text has a usable one (so the
    client can tell which of its messages was refused), else None."""
    try:
        msg = json.loads(text)
    except (TypeError, ValueError, RecursionError):
        return None
    msg_id = msg.get("id") if isinstance(msg, dict) else None
    if not (isinstance(msg_id, str) and 0 < len(msg_id) <= MAX_ID):
        return None
    try:
        msg_id.encode("utf-8")
    except UnicodeEncodeError:
        return None
    return msg_id


def _is_int(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
