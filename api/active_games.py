"""The `alcabohne_active_games` gauge: games with an accepted move in the last ACTIVE_WINDOW seconds.

Redis: one sorted set `cg:v1:active` (game id scored by the time of its last move), trimmed and counted
at scrape time, so every worker and host sees the same number. Counting the games in Redis instead
(SCAN over the keys) would cost a walk of the whole keyspace per scrape. On Redis Cluster the set is one
key (one slot): fine at this size, a hot key only at very large scale.

Moves are not written one by one: a move notes its game here, and a flusher thread writes what was
noted with one ZADD every FLUSH_EVERY seconds (and a scrape writes this process's notes first). A ZADD
per move was a second round trip on every move's path, a third of the store's commands in a busy
game, for a gauge over five minutes; the gauge now lags by at most FLUSH_EVERY for moves made in
other processes. The in-process stores run one worker, so a dict is the whole truth there.
"""

from __future__ import annotations

import logging
import threading
import time

from prometheus_client.core import GaugeMetricFamily

log = logging.getLogger(__name__)

# "Active" means an accepted move within this many seconds.
ACTIVE_WINDOW = 300
# Seconds between two writes of the moves noted in this process.
FLUSH_EVERY = 1.0


class ActiveGames:
    """Notes moves (`touch`), counts active games (`count`), and is a prometheus_client collector."""

    KEY = "cg:v1:active"

    def __init__(self, store, *, flush_every: float = FLUSH_EVERY) -> None:
        from api.store.redis import RedisStore

        # The store's own pool: no extra connections to open or to close.
        self._redis = store.client if isinstance(store, RedisStore) else None
        self._flush_every = flush_every
        self._lock = threading.Lock()
        self._seen: dict[str, float] = {}  # without Redis: every game's last move
        self._pending: dict[str, float] = {}  # with Redis: moves noted since the last write
        self._flusher: threading.Thread | None = None

    def touch(self, game_id: str) -> None:
        """Note a move of `game_id` now (never raises, never waits for the network)."""
        now = time.time()
        with self._lock:
            if self._redis is None:
                self._seen[game_id] = now
                return
            self._pending[game_id] = now
            if self._flusher is None:
                # Started by the first move, so in the gunicorn worker (after the fork), not the master.
                self._flusher = threading.Thread(target=self._flush_loop, name="active-games", daemon=True)
                self._flusher.start()

    def flush(self) -> None:
        """Write the moves noted so far to Redis in one ZADD (never raises: metrics never fail a move;
        what cannot be written is dropped, the next move of the game notes it again)."""
        with self._lock:
            batch, self._pending = self._pending, {}
        if not batch or self._redis is None:
            return
        try:
            self._redis.zadd(self.KEY, batch)
        except Exception as err:  # noqa: BLE001 - an outage is reported by /readyz, not here
            log.debug("active games not recorded: %r", err)

    def _flush_loop(self) -> None:
        # Ends when a period passes without moves (the next move starts another): an idle process, or an
        # app a test has dropped, keeps no thread for this.
        while True:
            time.sleep(self._flush_every)
            with self._lock:
                if not self._pending:
                    self._flusher = None
                    return
            self.flush()

    def count(self) -> int | None:
        """Return the number of active games, or None when the store cannot be asked."""
        cutoff = time.time() - ACTIVE_WINDOW
        if self._redis is None:
            with self._lock:
                for game_id in [g for g, t in self._seen.items() if t < cutoff]:
                    del self._seen[game_id]
                return len(self._seen)
        self.flush()
        try:
            pipe = self._redis.pipeline(transaction=True)
            pipe.zremrangebyscore(self.KEY, "-inf", cutoff)
            pipe.zcard(self.KEY)
            return int(pipe.execute()[1])
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
