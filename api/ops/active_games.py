"""The `alcabohne_active_games` gauge: games with an accepted move in the last ACTIVE_WINDOW seconds.

The store keeps the games' latest move times (`note_active` / `count_active`, part of the store
contract: a Redis sorted set shared by every worker and host, a table or a dict in the embedded
stores), so the count is the same whichever worker a scrape reaches, and nothing walks the keyspace.

Moves are not written one by one: a move notes its game here, and a flusher thread writes what was
noted in one call every FLUSH_EVERY seconds (and a scrape writes this process's notes first). A write
per move was a second round trip on every move's path, a third of the store's commands in a busy
game, for a gauge over five minutes; the gauge now lags by at most FLUSH_EVERY for moves made in
other processes.
"""

from __future__ import annotations

import logging
import threading
import time

from prometheus_client.core import GaugeMetricFamily

from api.store.base import GameStore

log = logging.getLogger(__name__)

# "Active" means an accepted move within this many seconds.
ACTIVE_WINDOW = 300
# Seconds between two writes of the moves noted in this process.
FLUSH_EVERY = 1.0


class ActiveGames:
    """Notes moves (`touch`), counts active games (`count`), and is a prometheus_client collector."""

    def __init__(self, store: GameStore, *, flush_every: float = FLUSH_EVERY) -> None:
        self._store = store
        self._flush_every = flush_every
        self._lock = threading.Lock()
        self._pending: dict[str, float] = {}  # moves noted since the last write
        self._flusher: threading.Thread | None = None
        self._closed = threading.Event()

    def touch(self, game_id: str) -> None:
        """Note a move of `game_id` now (never raises, never waits for the store)."""
        with self._lock:
            self._pending[game_id] = time.time()
            if self._flusher is None and not self._closed.is_set():
                # Started by the first move, so in the gunicorn worker (after the fork), not the master.
                self._flusher = threading.Thread(target=self._flush_loop, name="active-games", daemon=True)
                self._flusher.start()

    def flush(self) -> None:
        """Write the moves noted so far to the store in one call (never raises: metrics never fail a
        move; what cannot be written is dropped, the next move of the game notes it again)."""
        with self._lock:
            batch, self._pending = self._pending, {}
        if not batch:
            return
        try:
            self._store.note_active(batch)
        except Exception as err:  # noqa: BLE001 - an outage is reported by /readyz, not here
            log.debug("active games not recorded: %r", err)

    def close(self) -> None:
        """Stop the flusher now (writing what is noted) and start no other; for an app being shut down."""
        self._closed.set()
        with self._lock:
            flusher = self._flusher
        if flusher is not None:
            flusher.join()
        self.flush()

    def _flush_loop(self) -> None:
        # Ends when a period passes without moves (the next move starts another), so an idle process
        # keeps no thread for this; or at once on close().
        while not self._closed.wait(self._flush_every):
            with self._lock:
                if not self._pending:
                    self._flusher = None
                    return
            self.flush()
        with self._lock:
            self._flusher = None

    def count(self) -> int | None:
        """Return the number of active games, or None when the store cannot be asked."""
        self.flush()
        try:
            return self._store.count_active(time.time() - ACTIVE_WINDOW)
        except Exception:  # noqa: BLE001
            return None
    def collect(self):
        """prometheus_client collector protocol: one gauge, asked at scrape time."""
        family = GaugeMetricFamily("alcabohne_active_games",
                                   f"Games with an accepted move in the last {ACTIVE_WINDOW} s.",
                                   labels=["window"])
        found = self.count()
        if found is not None:
            family.add_metric([str(ACTIVE_WINDOW)], found)
        yield family
