"""The websocket `GET /api/v1/games/{id}/ws` (docs/websocket.md) and its JSON Schema.

Three kinds of thread send on a socket, one at a time (the session's send lock): the socket's reader
thread (simple-websocket's), which answers the client's actions as they arrive and sends each ack
with the frames pushed meanwhile; the store's listener thread, which pushes a frame at once when
nobody else is sending and nothing waits (`direct`); and one handler thread per socket (a gunicorn
gthread pool thread), which drains the connection's outbox, where the hub (api.live.hub) queues every
other frame, and sends keepalives. A slow client only ever blocks its own threads. The reader
thread's own control frames (pings, pongs, close) go through the same socket lock.

Actions reuse the HTTP service (`GameService.act`) with the message id as the Idempotency-Key, so a
move sent over the socket and retried over HTTP (or the reverse) applies once.

The mover's order, stated here once: a socket gets the ack of its own action before the state of the
version that action made. While its action is being answered the socket is `acting`: the hub delivers
the commit during `act` (the fan-out), and whatever reaches this socket meanwhile, the move's own state
and the bot's answers, waits in `after_replies`, then goes out right behind the ack, in the same write
(`send_gathered`). tests/live/test_ws.py::test_the_ack_and_the_state_of_the_move_come_in_one_write
holds it. Every frame's text comes from api.live.frames.
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import socket
import threading
import time

from flask import Blueprint, current_app, g, jsonify, request
from flask_sock import Sock
from marshmallow import ValidationError
from simple_websocket import ConnectionClosed
from wsproto.events import TextMessage
from wsproto.utilities import LocalProtocolError

from api import auth, clientjson, logs
from api.errors import OUTCOME_UNKNOWN_DETAIL, ApiError, schema_detail
from api.http.schemas import ActionRequestSchema
from api.limits import client_key
from api.live import frames
from api.live.admission import Admission, Ticket
from api.live.frames import encode
from api.live.hub import CLOSE, FLUSH, INBOUND, Connection, Hub
from api.live.ws_schema import SCHEMA
from api.live.wssocket import SerialSocket
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
# Most frames written at once by a handler thread (an ack and the states queued behind it).
BATCH_FRAMES = 16
# What a send raises when the client is gone (or the reader thread closed the socket meanwhile: a frame
# after the close frame is a protocol error in wsproto).
GONE = (ConnectionClosed, OSError, LocalProtocolError)

ACTION_REQUEST = ActionRequestSchema()
# The largest version ActionRequestSchema accepts.
MAX_VERSION = 2**53

bp = Blueprint("live", __name__)
sock = Sock()


class WakeEvent(threading.Event):
    """simple-websocket's "a message arrived" event, which also wakes the handler thread's outbox
    (passed as SOCK_SERVER_OPTIONS["event_class"], a documented simple-websocket option)."""

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
        self.client = client_key(request.remote_addr)  # its rate-limit bucket (api.limits)
        ping = ws.ping_interval
        self.idle = float(ping) if ping else 25.0
        self.raw = ws.sock
        ws.sock = SerialSocket(ws.sock, SEND_TIMEOUT if ping else None)
        # Whoever sends a message (handler, or listener via `direct`) holds this from serializing the
        # frame (wsproto's compressor is stateful) to handing its bytes to the kernel.
        self.send_lock = threading.Lock()
        self.token: str | None = None
        self.conn: Connection | None = None
        self.request_id = logs.current_request_id()  # for the reader thread's log lines
        self.last_sent = time.monotonic()
        # True while this socket's own action is being answered: frames pushed meanwhile (the state of
        # that very move, a bot's answers) wait (in after_replies or the outbox), so the ack goes first.
        self.acting = False
        # Held by the thread answering the client's messages: the reader thread (answer_inline) or,
        # when that one finds it taken, this socket's handler thread.
        self.reading = threading.Lock()
        # While the reader thread answers: the frames pushed meanwhile, sent right after its replies.
        self.after_replies: list[str] | None = None
        self.ping_unanswered: float | None = None

    # ------------------------------------------------------------------ sending

    def send(self, message: dict | str) -> bool:
        """Send one frame now, waiting for the send lock; return False when the client is gone."""
        return self.send_batch([message if isinstance(message, str) else encode(message)])

    def send_batch(self, texts: list[str]) -> bool:
        """Send text frames in order with one write (ack and state of a move reach the client in one
        segment: one system call here, one wake-up there), waiting for the send lock; return False
        when the client is gone."""
        with self.send_lock:
            return self._write(texts)

    def _write(self, texts: list[str]) -> bool:
        """send_batch, with the send lock held."""
        try:
            if not self.ws.connected:
                return False
            self.ws.sock.send(b"".join(self.ws.ws.send(TextMessage(data=text)) for text in texts))
        except GONE:
            return False
        self.last_sent = time.monotonic()
        return True

    def flush(self) -> bool:
        """Send what a `direct` send left to send; return False when the client is gone."""
        with self.send_lock:
            try:
                self.ws.sock.flush()
            except GONE:
                return False
        return True

    def direct(self, text: str) -> bool:
        """Send `text` on the calling thread without blocking, when nobody else is sending and no rest
        of an earlier frame waits (see api.live.wssocket.SerialSocket.send_nowait). Return False to have it
        queued instead.

        Saves the store's listener thread a hand-over to the handler thread on most pushes; a client
        that reads slowly fills its kernel buffer, and then gets its frames through the outbox (where a
        send that cannot finish within SEND_TIMEOUT ends the session). While the reader thread answers
        an action, the frame is kept for its write, behind the ack (answer_inline).
        """
        if not self.send_lock.acquire(blocking=False):
            return False
        try:
            if self.acting:
                after = self.after_replies  # answered on the reader thread: goes out behind its replies
                if after is None:
                    return False
                after.append(text)
                return True
            if not self.ws.connected or self.ws.sock.pending:
                return False
            with contextlib.suppress(*GONE):  # the handler notices the closure
                # simple-websocket's send, but handing the frame over without waiting (api.live.wssocket);
                # a rest the kernel did not take is sent by the handler thread, before any later frame.
                self.ws.sock.send_nowait(self.ws.ws.send(TextMessage(data=text)))
                if self.ws.sock.pending:
                    self.conn.outbox.put(FLUSH)
            self.last_sent = time.monotonic()
            return True
        finally:
            self.send_lock.release()

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
        with self.send_lock, contextlib.suppress(*GONE):
            self.ws.close(reason=code, message=reason)
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
                self.conn.direct = None
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
        held = since if since <= first["version"] else 0
        conn = Connection(self.game_id, seat, auth.token_hash(self.token) if self.token else None,
                          held, len(first["view"]["players"]))
        # The frame order after hello (docs/websocket.md): the state (unless the client holds the current
        # version), then presence, then everything else. Messages that arrive meanwhile wait: `reading`
        # keeps the reader thread from answering them (answer_inline leaves them to this thread's loop),
        # and this thread reads them only after it queued the presence; the hub holds back presence
        # until send_presence.
        with self.reading:
            # Register first, then read: a commit between the two reaches us by the nudge or by the read.
            conn.direct = self.direct
            self.hub.attach(conn)
            self.conn = conn
            self.ws.event.wake = self.answer_inline
            try:
                self.hub.send_snapshot(conn)
            except ApiError as err:
                self.refuse(self.error(err.code, err.detail))
                return False
            self.hub.send_presence(conn)
            conn.wake()  # messages that came with or after the hello wait in the buffer: read them next
        return True

    def loop(self) -> None:
        """Send what the outbox holds and answer what the client sends, until either side closes."""
        conn = self.conn
        tick = max(self.idle / 4, 0.05)
        next_check = time.monotonic() + tick
        held = None  # a marker taken from the outbox while gathering frames: handled next round
        while True:
            if held is not None:
                item, held = held, None
            else:
                try:
                    item = conn.outbox.get(timeout=max(next_check - time.monotonic(), 0))
                except queue.Empty:
                    item = None
            if item is CLOSE:
                self.hang_up(*conn.close_as)
                return
            if item is INBOUND:
                with self.reading:  # the reader thread answers messages while it is free
                    replies: list[str] = []
                    if not self.read_all(replies):
                        return
                    if replies:
                        held = self.send_gathered(replies, [])
            elif isinstance(item, str):
                with self.reading:  # behind the replies of an action the reader thread is answering
                    held = self.send_gathered([], [item])
            if held is False:
                return
            if item is FLUSH and not self.flush():
                return
            now = time.monotonic()
            if now >= next_check:
                next_check = now + tick
                if not self.alive(now):
                    return

    def send_gathered(self, replies: list[str], queued: list[str]):
        """Send `replies`, then `queued` (frames taken from the outbox) and the frames waiting behind
        them, in one write; return the marker met in the outbox (None if none), or False when the
        client is gone.

        The outbox's frames count as queued until they are written, so a push meanwhile cannot go
        out directly ahead of them; and while this socket's replies are unsent it is still `acting`.
        """
        conn, marker = self.conn, None
        while len(queued) < BATCH_FRAMES:
            try:
                item = conn.outbox.get_nowait()
            except queue.Empty:
                break
            if not isinstance(item, str):
                marker = item
                break
            queued.append(item)
        sent = self.send_batch(replies + queued)
        if replies:  # answered here, with `reading` held: no action is being answered any more
            self.acting = False
        for _ in queued:
            conn.sent()
        return marker if sent else False

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
            self.conn.wake()
            return
        logs.bind_request_id(self.request_id)
        replies: list[str] = []
        sent = False
        try:
            try:
                self.after_replies = []
                if not self.read_all(replies):
                    self.conn.wake()  # closed: the handler thread ends the session
            except Exception:
                log.exception("websocket of %s failed", self.game_id)
                replies.append(encode(self.error("internal_error")))
                self.conn.close(close_code("internal_error"), "internal_error")
            finally:
                with self.send_lock:
                    # Under the lock that direct() takes: a frame pushed from now on goes out after these.
                    texts = replies + self.after_replies
                    self.after_replies, self.acting = None, False
                    sent = not texts or self._write(texts)
        except Exception:
            # This is simple-websocket's reader thread: an error escaping here would end it silently,
            # leaving a socket nobody reads or pings. Say so, and close the socket properly instead.
            log.exception("websocket of %s: answering failed; closing", self.game_id)
            self.hang_up(1011, "internal_error")
        finally:
            self.reading.release()
        if not sent:
            self.conn.wake()  # gone: the handler thread ends the session

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
        return now - self.last_sent < self.idle or self.send(frames.KEEPALIVE)

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
                              f"{clientjson.MAX_DEPTH} levels).", _id_of_malformed(text))
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
        if not (type(version) is int and 1 <= version <= MAX_VERSION and "action" in msg):
            # Anything but the plain case goes through the schema of POST /actions (api.http.schemas):
            # the same types, limits and errors as over HTTP (and 3.0 is 3 there too). The plain case
            # is what the schema accepts as it is; it skips the schema's cost on every move.
            try:
                request = ACTION_REQUEST.load({key: msg[key] for key in ("action", "version") if key in msg})
            except ValidationError as err:
                return self.error("invalid_request", schema_detail(err.messages), msg_id, errors=err.messages)
            version = request["version"]
        if self.token is None:
            return self.error("bad_token", "This socket watches the table: hello with a seat token to act.",
                              msg_id)
        # Until the answer is written (send_gathered), what is pushed to this socket is queued: it
        # follows the ack, in the same write.
        self.acting = True
        try:
            # Each commit goes to this process's sockets of the game at once (the opponent's first, this
            # one's queued behind the ack), through the hub (the service's fan-out); other processes
            # get it with the store's nudge.
            outcome = self.service.act(self.game_id, self.token, msg["action"], version, msg_id)
            if outcome.replayed:
                answer = json.loads(self.service.answer(outcome, self.base_url))
        except ApiError as err:
            return self.error(err.code, err.detail, msg_id, **err.extra)
        except OutcomeUnknown:  # sent, never answered: the client's resend with this id finds out
            return self.error("outcome_unknown", OUTCOME_UNKNOWN_DETAIL, msg_id)
        except StoreUnavailable:
            return self.error("store_unavailable", "", msg_id)
        if not outcome.replayed:
            # Applied now; the hub has queued its state (should that push have failed, the store's
            # nudge brings it to this worker's sockets like to any other's).
            return frames.ack(msg_id, outcome.version)
        # The answer of an earlier request with this id: its state may be news to this socket.
        new_version = answer["version"]
        self.conn.offer_state(new_version, lambda _previous: frames.answer_state_frame(answer))
        return frames.ack(msg_id, new_version)


def close_code(code: str) -> int:
    """Return the close code that follows an error frame of `code` which ends the socket."""
    return 1011 if code in SERVER_FAULTS else 1008


def _parse(text):
    """Return the client's message, or None when it is not JSON (or nests too deep: api.clientjson)."""
    try:
        return clientjson.loads(text)
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
