"""How many gunicorn threads a worker needs for websockets; shared by `alcabohne serve` (api.cli.serve)
and deploy/gunicorn.conf.py, so that both size the pool the same way.

With the gthread worker, an open websocket holds one pool thread for its whole life (its handler,
which also sends everything the socket gets) plus one simple-websocket reader thread outside the pool.
A worker whose pool is full of sockets accepts nothing else: new sockets *and* plain HTTP requests
hang (flask-sock #78). So a worker's `threads` = the sockets it is expected to hold + headroom for HTTP,
and a worker refuses sockets past `socket_cap(threads)` (api.live.ws: 503 server_busy, counted by SocketGate).
Memory is cheap here: a socket's two threads cost little beside the threads themselves
(docs/architecture.md, "Measured notes").
"""

from __future__ import annotations

import math
import os
import threading

# Pool threads kept free for plain HTTP (create, join, actions, GET) beside the sockets of a worker.
HTTP_HEADROOM = 32
# Open sockets expected at peak across all workers, for a table server (`alcabohne serve`: a few phones
# per table, a few tables) and for a deployment (deploy/gunicorn.conf.py). ALCABOHNE_SOCKETS overrides.
TABLE_SOCKETS = 64
DEPLOY_SOCKETS = 400


def expected_sockets(default: int) -> int:
    """Return ALCABOHNE_SOCKETS when set (a positive integer), else `default`."""
    value = os.environ.get("ALCABOHNE_SOCKETS", "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else default


def threads_for(sockets: int, workers: int) -> int:
    """Return gunicorn's `threads` per worker so that `workers` together hold `sockets` open websockets
    and still answer HTTP (sockets spread over workers by the kernel, not evenly: 25% slack)."""
    return math.ceil(1.25 * sockets / max(workers, 1)) + HTTP_HEADROOM


def worker_connections_for(threads: int) -> int:
    """Return gunicorn's `worker_connections`: never below the pool, which it would silently cap."""
    return max(1000, 2 * threads)


def socket_cap(threads: int) -> int:
    """Return the open websockets a worker with `threads` pool threads should accept (WS_MAX_SOCKETS):
    the pool less the HTTP headroom, so that plain requests always find a thread."""
    return max(threads - HTTP_HEADROOM, 1)


class SocketGate:
    """A process's open websockets, counted against a cap (`limit`, 0 = none). Thread-safe."""

    def __init__(self, limit: int):
        self.limit = max(int(limit), 0)
        self._open = 0
        self._lock = threading.Lock()

    @property
    def open(self) -> int:
        """The sockets counted now."""
        return self._open

    def enter(self) -> bool:
        """Count one more socket and return True; return False (counting nothing) at the cap."""
        with self._lock:
            if self.limit and self._open >= self.limit:
                return False
            self._open += 1
            return True

    def leave(self) -> None:
        """Count one socket fewer (one that `enter` let in has ended)."""
        with self._lock:
            self._open -= 1
