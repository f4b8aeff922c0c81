"""A bare flask-sock + Redis pub/sub relay: the baseline of tests/perf/push_bench.py.

Registered only with WS_BASELINE (ALCABOHNE_WS_BASELINE=1) on a Redis store. It does the least a push
can do on this server: every text a socket of `GET /api/v1/bench/ws/<channel>` sends is PUBLISHed
as is; one PSUBSCRIBE per worker relays it to the *other* sockets of that channel (per-socket send
lock). No store read, no engine, no rendering: what a real move costs beyond this is the game's own.
"""

from __future__ import annotations

import contextlib
import threading

from simple_websocket import ConnectionClosed

PREFIX = "cg:v1:bench:"


def init_app(app, sock) -> None:
    """Add the relay route to `app` (its STORE_URL must be a redis:// URL)."""
    import redis
    from flask import Blueprint

    url = app.config["STORE_URL"]
    client = redis.Redis.from_url(url)
    lock = threading.Lock()
    sockets: dict[str, dict] = {}  # channel -> {ws: its send lock}
    listener: dict = {}

    def relay(message) -> None:
        channel, _, sender = message["channel"].decode()[len(PREFIX):].partition("|")
        with lock:
            targets = [(ws, send_lock) for ws, send_lock in sockets.get(channel, {}).items()
                       if str(id(ws)) != sender]
        for ws, send_lock in targets:
            with send_lock, contextlib.suppress(ConnectionClosed, OSError):
                ws.send(message["data"].decode())

    def start() -> None:
        with lock:
            if not listener:
                pubsub = redis.Redis.from_url(url).pubsub(ignore_subscribe_messages=True)
                pubsub.psubscribe(**{PREFIX + "*": relay})  # before the listener thread starts
                listener["thread"] = pubsub.run_in_thread(sleep_time=0.25, daemon=True)

    bp = Blueprint("ws_baseline", __name__)

    @sock.route("/api/v1/bench/ws/<channel>", bp=bp)
    def relay_socket(ws, channel):
        """Publish what the client sends; receive what the channel's other sockets send."""
        start()
        with lock:
            sockets.setdefault(channel, {})[ws] = threading.Lock()
        try:
            with contextlib.suppress(ConnectionClosed):
                while (text := ws.receive()) is not None:
                    client.publish(f"{PREFIX}{channel}|{id(ws)}", text)
        finally:
            with lock:
                sockets[channel].pop(ws, None)

    app.register_blueprint(bp)
