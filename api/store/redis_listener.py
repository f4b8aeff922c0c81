"""The Redis store's pub/sub listener: one PSUBSCRIBE connection per process and the thread reading it.

Why not redis-py's PubSub.run_in_thread: it polls with a timeout, so every message costs four system
calls (set a timeout, poll, receive, unset the timeout), and each releases the GIL. In a worker with
hundreds of busy threads a thread that releases the GIL waits to get it back, and this thread is on
the path of every push to another worker's sockets (measured: it waited ~400 us per message for ~120
us of work). Here the connection is blocking and the thread does one receive per batch of messages.
redis-py still makes the connection (URL, AUTH, TLS, RESP2) and parses the replies (hiredis).

Without a read timeout, dead peers are found by TCP keepalive (no answer for KEEPALIVE_IDLE +
KEEPALIVE_INTERVAL x KEEPALIVE_COUNT seconds); `stop` shuts the socket down to end a blocking read.
"""

from __future__ import annotations

import contextlib
import logging
import socket
import threading
from collections.abc import Callable

import redis

log = logging.getLogger(__name__)

# Backoff while the connection is down (seconds): first retry, cap.
RECONNECT_FIRST, RECONNECT_CAP = 0.1, 2.0
KEEPALIVE_IDLE, KEEPALIVE_INTERVAL, KEEPALIVE_COUNT = 10, 5, 3


class Listener:
    """Reads `pattern`'s messages and calls `on_message(channel, data)` for each, on its own thread.

    `on_reconnect()` is called on that thread each time the connection was lost and is back (messages
    may have been missed meanwhile). Neither callback may raise.
    """

    def __init__(self, url: str, pattern: str, on_message: Callable[[str, str], None],
                 on_reconnect: Callable[[], None], *, connect_timeout: float) -> None:
        self._pattern = pattern
        self._on_message = on_message
        self._on_reconnect = on_reconnect
        keepalive = {}
        for name, value in (("TCP_KEEPIDLE", KEEPALIVE_IDLE), ("TCP_KEEPINTVL", KEEPALIVE_INTERVAL),
                            ("TCP_KEEPCNT", KEEPALIVE_COUNT)):
            if hasattr(socket, name):  # Linux; elsewhere the system's keepalive times apply
                keepalive[getattr(socket, name)] = value
        self._pool = redis.ConnectionPool.from_url(
            url, protocol=2, decode_responses=True, socket_timeout=None,
            socket_connect_timeout=connect_timeout, socket_keepalive=True,
            socket_keepalive_options=keepalive, health_check_interval=0)
        self._conn = None
        self._stopping = threading.Event()
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Subscribe, then start the thread (so nothing published after this returns is missed).

        Raises redis.ConnectionError or redis.TimeoutError when the server cannot be reached."""
        self._conn = self._subscribe()
        self._thread = threading.Thread(target=self._run, name="store-listener", daemon=True)
        self._thread.start()

    def _subscribe(self):
        conn = self._pool.make_connection()
        try:
            conn.connect()
            conn.send_command("PSUBSCRIBE", self._pattern)
            conn.read_response()  # ["psubscribe", pattern, 1]
        except BaseException:
            conn.disconnect()
            raise
        return conn

    def _run(self) -> None:
        delay = 0.0
        while not self._stopping.is_set():
            conn = self._conn
            try:
                if conn is None:
                    conn = self._conn = self._subscribe()
                    delay = 0.0
                    log.warning("redis pub/sub connection restored; subscribers must resync")
                    self._on_reconnect()
                while True:
                    reply = conn.read_response()  # blocks: one receive for what has arrived
                    if isinstance(reply, list) and len(reply) == 4 and reply[0] == "pmessage":
                        try:
                            self._on_message(reply[2], reply[3])
                        except Exception:  # a bug in a callback must not end the listening
                            log.exception("pub/sub message on %s not handled", reply[2])
            except (redis.RedisError, OSError) as err:  # lost, refused, or an error reply: start over
                if self._stopping.is_set():
                    break
                if conn is not None:
                    conn.disconnect()
                self._conn = None
                if delay == 0.0:
                    log.warning("redis pub/sub connection lost (%s); reconnecting", err)
                    delay = RECONNECT_FIRST
                else:
                    delay = min(delay * 2, RECONNECT_CAP)
                self._stopping.wait(delay)
        if self._conn is not None:
            self._conn.disconnect()

    def stop(self, timeout: float) -> None:
        """End the thread (waiting up to `timeout` seconds) and close the connection."""
        self._stopping.set()
        conn = self._conn
        sock = getattr(conn, "_sock", None)  # redis-py's socket: shut down, it ends the blocking read now
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        thread = self._thread
        if thread is not None and thread is not threading.current_thread():
            thread.join(timeout)
        self._pool.disconnect()
