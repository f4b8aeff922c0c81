"""Prometheus metrics at `GET /metrics` (text format), fed by hooks around the service and the hub.

Nothing here is called from the hot paths' own code: `instrument(app)` (create_app) wraps the
instance methods `GameService.act`, `Hub.attach`/`detach` and the hub's per-push step, so api/ws.py,
api/hub.py and api/service.py stay unaware of metrics.

Several gunicorn workers: each worker is a process with its own counters, and a scrape reaches ONE
worker at random. So under gunicorn set PROMETHEUS_MULTIPROC_DIR (an empty directory, wiped at start
by deploy/gunicorn.conf.py, which also marks dead workers): every worker then writes its values to
memory-mapped files there and whichever worker answers the scrape adds them all up (prometheus_client's
multiprocess mode). Without the variable (one process: `alcabohne serve`, tests) the usual in-memory
registry is used. The variable must be set before this module is first imported.

Metrics:
  alcabohne_actions_total{outcome,transport}   counter: every move, by outcome (ok, replayed, stale,
                                                illegal, invalid, not_your_turn, bad_token, unknown_game,
                                                unavailable, mismatch, error) and transport (http, ws)
  alcabohne_action_seconds{transport}           histogram: time to answer a move (load, apply, commit)
  alcabohne_open_sockets                        gauge: open websockets (summed over live workers)
  alcabohne_fanout_seconds                      histogram: one push of a game: its new state (read
                                                only when not given) rendered per seat, or forwarded
                                                as the committer rendered it, and queued or sent to
                                                this worker's sockets (the server's part of push
                                                latency)
  alcabohne_active_games{window="300"}          gauge: games with an accepted move in the last 5 minutes
                                                (asked from the store at scrape time; see api.active_games)
"""

from __future__ import annotations

import functools
import logging
import os
import threading
import time

from flask import Blueprint, Response, current_app, has_request_context, request
from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
)

from api.active_games import ActiveGames
from api.errors import ApiError
from api.store.base import StoreUnavailable

log = logging.getLogger(__name__)

# The *_created series (a timestamp per counter) only double the scrape size here.
disable_created_metrics()

MULTIPROCESS = bool(os.environ.get("PROMETHEUS_MULTIPROC_DIR"))
# Module level: one set per process (prometheus_client refuses to register a name twice).
ACTIONS = Counter("alcabohne_actions", "Moves answered, by outcome and transport.", ["outcome", "transport"])
ACTION_SECONDS = Histogram(
    "alcabohne_action_seconds", "Time to answer a move (load, apply, commit).", ["transport"],
    buckets=(0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0))
# livesum: the sockets of a worker that died (marked dead by gunicorn's child_exit hook) stop counting.
OPEN_SOCKETS = Gauge("alcabohne_open_sockets", "Open websockets.", multiprocess_mode="livesum")
FANOUT_SECONDS = Histogram(
    "alcabohne_fanout_seconds",
    "One push: a game's state rendered (read first if not given) and queued to this worker's sockets.",
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1.0))

# ApiError code -> outcome label (a small, fixed set of label values).
OUTCOMES = {
    "stale_version": "stale",
    "illegal_action": "illegal",
    "invalid_action": "invalid",
    "invalid_request": "invalid",
    "not_your_turn": "not_your_turn",
    "bad_token": "bad_token",
    "unknown_game": "unknown_game",
    "idempotency_mismatch": "mismatch",
    "store_unavailable": "unavailable",
}

bp = Blueprint("metrics", __name__)


def instrument(app) -> None:
    """Wrap the app's service and hub with the hooks that feed the metrics; register GET /metrics."""
    service = app.extensions["alcabohne.service"]
    active = app.extensions["alcabohne.active_games"] = ActiveGames(service.store)
    service.act = _timed_act(service.act, active)
    hub = app.extensions.get("alcabohne.hub")
    if hub is not None:
        _count_sockets(hub)
    app.register_blueprint(bp)


def _transport() -> str:
    # Outside a request context: a websocket's reader thread, where api.ws answers actions.
    return "ws" if not has_request_context() or request.path.endswith("/ws") else "http"


def _timed_act(act, active: ActiveGames):
    @functools.wraps(act)
    def timed(game_id, *args, **kwargs):
        transport = _transport()
        outcome = "error"
        started = time.perf_counter()
        try:
            answer, replayed = act(game_id, *args, **kwargs)
            outcome = "replayed" if replayed else "ok"
            if not replayed:
                active.touch(game_id)
            return answer, replayed
        except ApiError as err:
            outcome = OUTCOMES.get(err.code, "error")
            raise
        except StoreUnavailable:
            outcome = "unavailable"
            raise
        finally:
            ACTION_SECONDS.labels(transport).observe(time.perf_counter() - started)
            ACTIONS.labels(outcome, transport).inc()

    return timed


def _count_sockets(hub) -> None:
    """Count a socket from a successful attach to its detach (attach may fail after detaching itself)."""
    attach, detach = hub.attach, hub.detach
    lock = threading.Lock()
    live: set[str] = set()

    def counted_attach(conn):
        attach(conn)
        with lock:
            if conn.id not in live:
                live.add(conn.id)
                OPEN_SOCKETS.inc()

    def counted_detach(conn):
        try:
            detach(conn)
        finally:
            with lock:
                if conn.id in live:
                    live.discard(conn.id)
                    OPEN_SOCKETS.dec()

    hub.attach, hub.detach = counted_attach, counted_detach
    # The hub's one step per push of a game (read it unless given, render each seat, queue or send),
    # run by its renderer threads for store nudges and by a handler thread for its own moves.
    refresh = getattr(hub, "_refresh", None)
    if refresh is not None:
        def timed_refresh(game_id, conns, *args):
            started = time.perf_counter()
            try:
                return refresh(game_id, conns, *args)
            finally:
                FANOUT_SECONDS.observe(time.perf_counter() - started)

        hub._refresh = timed_refresh


@bp.get("/metrics")
def metrics():
    """Serve the metrics in Prometheus text format (every worker's, in multiprocess mode)."""
    scrape = CollectorRegistry()
    scrape.register(current_app.extensions["alcabohne.active_games"])
    if MULTIPROCESS:
        from prometheus_client import multiprocess

        multiprocess.MultiProcessCollector(scrape)
        body = generate_latest(scrape)
    else:
        from prometheus_client import REGISTRY

        body = generate_latest(REGISTRY) + generate_latest(scrape)
    return Response(body, content_type=CONTENT_TYPE_LATEST, headers={"Cache-Control": "no-store"})
