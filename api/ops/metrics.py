"""Prometheus metrics at `GET /metrics` (text format), fed through the observer (api.game.model.Observer).

`MetricsObserver` is handed to the service and the hub when create_app builds them; they call it as
they work. Nothing here replaces or wraps their methods, so a rename cannot silently drop a metric.

Several gunicorn workers: each worker is a process with its own counters, and a scrape reaches ONE
worker at random. So under gunicorn set PROMETHEUS_MULTIPROC_DIR (an empty directory, wiped at start
by deploy/gunicorn.conf.py, which also marks dead workers): every worker then writes its values to
memory-mapped files there and whichever worker answers the scrape adds them all up (prometheus_client's
multiprocess mode). Without the variable (one process: `alcabohne serve`, tests) the usual in-memory
registry is used. The variable must be set before this module is first imported.

Metrics:
  alcabohne_actions_total{outcome,transport}   counter: every move, by outcome (ok, replayed, stale,
                                                illegal, invalid, not_your_turn, bad_token, unknown_game,
                                                unavailable, unknown, mismatch, error) and transport
                                                (http, ws); unknown: the store never answered the commit
  alcabohne_action_seconds{transport}           histogram: time to answer a move (load, apply, commit)
  alcabohne_open_sockets                        gauge: open websockets (summed over live workers)
  alcabohne_fanout_seconds                      histogram: one push of a game: its new state (from
                                                the commit, followed from the version before, or
                                                read) rendered per seat and queued or sent to this
                                                worker's sockets (the server's part of push latency)
  alcabohne_active_games{window="300"}          gauge: games with an accepted move in the last 5 minutes
                                                (asked from the store at scrape time:
                                                api.ops.active_games)
"""

from __future__ import annotations

import ipaddress
import logging
import os
import threading

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

from api.game.model import Observer
from api.ops.active_games import ActiveGames

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
    "outcome_unknown": "unknown",
}

bp = Blueprint("metrics", __name__)


class MetricsObserver(Observer):
    """Turns what the service and the hub report into the metrics; notes moves for `active`."""

    def __init__(self, active: ActiveGames) -> None:
        self.active = active
        self._lock = threading.Lock()
        self._live: set[str] = set()

    def action(self, game_id: str, outcome: str, seconds: float) -> None:
        transport = _transport()
        label = outcome if outcome in ("ok", "replayed") else OUTCOMES.get(outcome, "error")
        if outcome == "ok":
            self.active.touch(game_id)
        ACTION_SECONDS.labels(transport).observe(seconds)
        ACTIONS.labels(label, transport).inc()

    def push(self, seconds: float) -> None:
        FANOUT_SECONDS.observe(seconds)

    def socket_opened(self, conn_id: str) -> None:
        with self._lock:
            if conn_id in self._live:
                return
            self._live.add(conn_id)
        OPEN_SOCKETS.inc()

    def socket_closed(self, conn_id: str) -> None:
        with self._lock:
            if conn_id not in self._live:
                return
            self._live.discard(conn_id)
        OPEN_SOCKETS.dec()


def observer(store) -> MetricsObserver:
    """Return the observer that feeds this process's metrics from the service and hub over `store`."""
    return MetricsObserver(ActiveGames(store))


def register(app, watching: MetricsObserver) -> None:
    """Register GET /metrics, with the active-games gauge of `watching`."""
    app.extensions["alcabohne.active_games"] = watching.active
    app.register_blueprint(bp)


def _loopback(address: str | None) -> bool:
    try:
        ip = ipaddress.ip_address((address or "").split("%", 1)[0])
    except ValueError:
        return False
    mapped = getattr(ip, "ipv4_mapped", None)
    return (mapped or ip).is_loopback


def _transport() -> str:
    # Outside a request context: a websocket's reader thread, where api.live.ws answers actions.
    return "ws" if not has_request_context() or request.path.endswith("/ws") else "http"


@bp.get("/metrics")
def metrics():
    """Serve the metrics in Prometheus text format (every worker's, in multiprocess mode).

    With METRICS_LOCAL_ONLY (set by `alcabohne serve`, which listens on every interface), only a client
    on this host gets them; anyone else gets 404, as if there were none."""
    if current_app.config.get("METRICS_LOCAL_ONLY") and not _loopback(request.remote_addr):
        from api.errors import ApiError

        raise ApiError("not_found", "No such resource.")
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
