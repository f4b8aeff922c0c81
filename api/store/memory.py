"""MemoryStore: the whole contract in one process's memory, for unit tests and throwaway servers.

One lock guards every structure, so each method is one indivisible step. Lifetimes use a monotonic clock
(immune to wall-clock jumps); expired entries read as absent and are purged lazily. Nothing persists and
fan-out is in-process only.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from .base import CommitResult, GameStore, IdemRecord, find_record, remember
from .broker import LocalBroker

# Purge everything expired at most this often (seconds); between sweeps lookups skip expired entries.
_SWEEP_EVERY = 60.0


@dataclass
class _Game:
    version: int
    doc: str
    expires_at: float
    log: list[str] = field(default_factory=list)  # the entry of version n + 2 at index n
    idem: list[IdemRecord] = field(default_factory=list)  # base.remember: the newest per seat


class MemoryStore(GameStore):
    """In-process store. `clock` returns seconds and must never go backwards (default time.monotonic)."""

    def __init__(self, *, clock: Callable[[], float] = time.monotonic) -> None:
        self._clock = clock
        self._lock = threading.Lock()
        self._games: dict[str, _Game] = {}
        self._codes: dict[str, tuple[str, float]] = {}
        self._active: dict[str, float] = {}  # game id -> unix time of its latest move
        self._hits: dict[str, tuple[int, float]] = {}
        self._links: dict[str, tuple[str, float]] = {}  # game id -> (rematch id, expiry)
        self._next_sweep = clock() + _SWEEP_EVERY
        self._broker = LocalBroker("memory-store-broker")

    # -- games -------------------------------------------------------------------------------------

    def create(self, game_id: str, doc: str, ttl: int) -> bool:
        """Store `doc` at version 1 for `ttl` seconds; return False if the game already exists."""
        with self._lock:
            now = self._tick()
            if self._live_game(game_id, now) is not None:
                return False
            self._games[game_id] = _Game(1, doc, now + ttl)
            return True

    def load(self, game_id: str) -> tuple[int, str] | None:
        """Return (version, doc), or None when the game does not exist or has expired."""
        with self._lock:
            game = self._live_game(game_id, self._tick())
            return None if game is None else (game.version, game.doc)

    def commit(
        self,
        game_id: str,
        expected_version: int,
        doc: str,
        *,
        ttl: int,
        idem_key: str | None = None,
        fingerprint: str = "",
        seat: int = 0,
        compact: bool = False,  # nothing to do: the log is a list
        log: str = "",
        announce: str = "",
    ) -> CommitResult:
        """Compare-and-set as specified in GameStore.commit; returns a CommitResult, never raises."""
        with self._lock:
            now = self._tick()
            game = self._live_game(game_id, now)
            current = 0 if game is None else game.version
            record = None if game is None or idem_key is None else find_record(game.idem, idem_key)
            if record is not None:
                if record[2] != fingerprint:
                    return CommitResult("mismatch", current)
                return CommitResult("duplicate", record[1])
            if game is None:
                return CommitResult("missing", 0)
            if game.version != expected_version:
                return CommitResult("conflict", game.version)
            game.version += 1
            game.doc = doc
            game.expires_at = now + ttl
            game.log.append(log)
            if idem_key is not None:
                game.idem = remember(game.idem, idem_key, game.version, fingerprint, seat)
            version = game.version
        # Outside the lock: the broker only queues, but nothing else needs to wait for it.
        self._broker.publish(game_id, version, announce)
        return CommitResult("ok", version)

    def log_since(self, game_id: str, version: int) -> list[tuple[int, str]]:
        """Return the kept log entries with version > `version`, oldest first ([] for a missing game)."""
        with self._lock:
            game = self._live_game(game_id, self._tick())
            if game is None:
                return []
            return [(v, entry) for v, entry in enumerate(game.log, start=2) if v > version]

    # -- rematch links -----------------------------------------------------------------------------

    def link_rematch(self, game_id: str, rematch_id: str) -> str | None:
        """As specified in GameStore.link_rematch (under the one lock)."""
        with self._lock:
            now = self._tick()
            game = self._live_game(game_id, now)
            if game is None:
                return None
            link = self._links.get(game_id)
            if link is not None and link[1] > now:
                return link[0]
            self._links[game_id] = (rematch_id, game.expires_at)
            return rematch_id

    # -- codes and rate limits ---------------------------------------------------------------------

    def note_active(self, moves: dict[str, float]) -> None:
        """Record the latest move time of each game (unix seconds)."""
        with self._lock:
            for game_id, at in moves.items():
                self._active[game_id] = max(at, self._active.get(game_id, at))

    def count_active(self, since: float) -> int:
        """Return how many games moved at or after `since`, forgetting the others."""
        with self._lock:
            self._active = {g: at for g, at in self._active.items() if at >= since}
            return len(self._active)

    def put_code(self, code: str, game_id: str, ttl: int) -> bool:
        """Map `code` to `game_id` for `ttl` seconds; return False if a live mapping exists."""
        with self._lock:
            now = self._tick()
            taken = self._codes.get(code)
            if taken is not None and taken[1] > now:
                return False
            self._codes[code] = (game_id, now + ttl)
            return True

    def get_code(self, code: str) -> str | None:
        """Return the game id of a live code, or None."""
        with self._lock:
            entry = self._codes.get(code)
            return entry[0] if entry is not None and entry[1] > self._tick() else None

    def delete_code(self, code: str) -> None:
        """Forget `code` (no error if it is unknown)."""
        with self._lock:
            self._codes.pop(code, None)

    def hit(self, key: str, limit: int, window: int, cost: int = 1) -> float | None:
        """Count events in the fixed window that started with the first one (see GameStore.hit)."""
        with self._lock:
            now = self._tick()
            count, ends = self._hits.get(key, (0, 0.0))
            if ends <= now:
                count, ends = 0, now + window
            if cost < 0:
                if count:
                    self._hits[key] = (max(count + cost, 0), ends)
                return None
            if count + cost > limit:
                return ends - now
            self._hits[key] = (count + cost, ends)
            return None

    # -- fan-out and lifecycle ---------------------------------------------------------------------

    def subscribe(
        self,
        callback: Callable[[str, int], None],
        *,
        on_reset: Callable[[], None] | None = None,
        on_presence: Callable[[str], None] | None = None,
        announcements: bool = False,
    ) -> Callable[[], None]:
        """Call `callback(game_id, version)` on the broker thread after each commit of this store.

        Returns the cancel function. `on_reset` is accepted and never called: nothing is lost in-process.
        """
        return self._broker.subscribe(callback, on_presence, announcements=announcements)

    def set_presence(self, game_id: str, member: str, seat: int, ttl: float) -> None:
        """Record, refresh or (ttl <= 0) remove a connection's presence entry (in-process, like fan-out)."""
        self._broker.set_presence(game_id, member, seat, ttl)

    def online_seats(self, game_id: str) -> list[int]:
        """Return the seats of `game_id` with a live presence entry, ascending."""
        return self._broker.online_seats(game_id)

    def ping(self) -> bool:
        """Return True: memory is always there."""
        return True

    def close(self) -> None:
        """Stop the broker thread; the data stays readable until the object is dropped."""
        self._broker.close()

    # -- internals (call with self._lock held) -----------------------------------------------------

    def _live_game(self, game_id: str, now: float) -> _Game | None:
        game = self._games.get(game_id)
        if game is not None and game.expires_at <= now:
            del self._games[game_id]
            return None
        return game

    def _tick(self) -> float:
        """Return the clock, sweeping expired entries once per _SWEEP_EVERY so memory stays bounded."""
        now = self._clock()
        if now >= self._next_sweep:
            self._next_sweep = now + _SWEEP_EVERY
            self._games = {k: g for k, g in self._games.items() if g.expires_at > now}
            self._codes = {k: c for k, c in self._codes.items() if c[1] > now}
            self._hits = {k: h for k, h in self._hits.items() if h[1] > now}
            self._links = {k: x for k, x in self._links.items() if x[1] > now}
        return now
