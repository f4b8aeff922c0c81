"""The benchmarks' baselines, added to the real app for a benchmark run only (never in production).

`create_app(config)` is `api.create_app(config)` plus two routes on the same server and Redis, so that a
benchmark compares a real move with the least a request can do there:
- GET /api/v1/bench/baseline (tests/perf/api_bench.py): one Redis GET and one SET, nothing else;
- GET /api/v1/bench/ws/<channel> (tests/perf/push_bench.py): a bare flask-sock + Redis pub/sub relay.
  Every text a socket sends is PUBLISHed as is; one PSUBSCRIBE per worker relays it to the *other*
  sockets of that channel (per-socket send lock). No store read, no engine, no rendering: what a real
  push costs beyond this is the game's own.
Both need a redis:// STORE_URL. gunicorn loads it as `tests.perf.baselines:create_app()` (push_bench,
through tests/live/servers.Gunicorn) or through `alcabohne serve`'s app_factory (api_bench).
"""

from __future__ import annotations

import contextlib
import secrets
import threading

import redis
from flask import Blueprint, jsonify
from flask_sock import Sock
from simple_websocket import ConnectionClosed

import api

PREFIX = "cg:v1:bench:"


def create_app(config: dict | None = None):
    """Return the production app with the two baseline routes added (STORE_URL must be redis://)."""
    app = api.create_app(config)
    url = app.config["STORE_URL"]
    if not url.startswith(("redis://", "rediss://")):
        raise ValueError(f"the baselines need a Redis store, not {url!r}")
    app.register_blueprint(_get_set(url))
    app.register_blueprint(_relay(url))
    return app


def _get_set(url: str) -> Blueprint:
    client = redis.Redis.from_url(url)
    bp = Blueprint("bench", __name__)

    @bp.get("/api/v1/bench/baseline")
    def baseline():
        """Read and write one small key."""
        key = PREFIX + secrets.token_hex(2)
        value = client.get(key)
        client.set(key, b"x" * 64, ex=300)
        return jsonify(found=value is not None)

    return bp


def _relay(url: str) -> Blueprint:
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
    # Its own Sock: the route reads the app's SOCK_SERVER_OPTIONS (ping interval, message size) like
    # the game's socket does, and needs nothing else from api.live.ws.
    sock = Sock()

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

    return bp

