"""A bare flask-sock + Redis pub/sub relay: the baseline of tests/perf/push_bench.py.

Registered only with WS_BASELINE (ALCABOHNE_WS_BASELINE=1) on a Redis store. It does the least a push
can do on this server: `POST /api/v1/bench/publish {"channel", "data"}` PUBLISHes `data`; one
PSUBSCRIBE per worker relays it, as is, to the sockets of `GET /api/v1/bench/ws/<channel>`. No store
read, no engine, no rendering: the difference to a real move is what the game adds.
"""

from __future__ import annotations

import contextlib
import threading

from flask import Blueprint, request
from simple_websocket import ConnectionClosed

PREFIX = "cg:v1:bench:"


def init_app(app, sock) -> None:
    """Add the relay routes to `app` (its STORE_URL must be a redis:// URL)."""
    import redis

    client = redis.Redis.from_url(app.config["STORE_URL"])
    lock = threading.Lock()
    sockets: dict[str, set] = {}
    send_locks: dict[int, threading.Lock] = {}
    state: dict = {}

    def relay(message) -> None:
        channel = message["channel"].decode()[len(PREFIX):]
        with lock:
            targets = [(ws, send_locks[id(ws)]) for ws in sockets.get(channel, ())]
        for ws, send_lock in targets:
            with send_lock, contextlib.suppress(ConnectionClosed, OSError):
                ws.send(message["data"].decode())

    def start() -> None:
        with lock:
            if "thread" not in state:
                pubsub = redis.Redis.from_url(app.config["STORE_URL"]).pubsub(ignore_subscribe_messages=True)
                pubsub.psubscribe(**{PREFIX + "*": relay})
                state["thread"] = pubsub.run_in_thread(sleep_time=0.25, daemon=True)

    bp = Blueprint("ws_baseline", __name__)

    @bp.post("/api/v1/bench/publish")
    def publish():
        """Publish one message to a channel."""
        body = request.get_json()
        client.publish(PREFIX + body["channel"], body["data"])
        return {"ok": True}

    @sock.route("/api/v1/bench/ws/<channel>", bp=bp)
    def relay_socket(ws, channel):
        """Receive what is published to `channel` until the client goes."""
        start()
        with lock:
            sockets.setdefault(channel, set()).add(ws)
            send_locks[id(ws)] = threading.Lock()
        try:
            with contextlib.suppress(ConnectionClosed):
                while ws.receive() is not None:  # the client sends nothing; this waits for the close
                    pass
        finally:
            with lock:
                sockets[channel].discard(ws)
                send_locks.pop(id(ws), None)

    app.register_blueprint(bp)
