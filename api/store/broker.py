"""In-process fan-out for the embedded stores (memory, SQLite).

Callbacks run on one daemon dispatcher thread owned by the broker, never on the committing thread: a
slow subscriber (a websocket send) must not delay the HTTP answer, and a callback that itself reads or
commits must not re-enter a store lock. This mirrors RedisStore, whose callbacks run on its listener
thread. Delivery is in-process only: another process sharing the same SQLite file sees nothing.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable

from .base import StoreUnavailable, version_only

log = logging.getLogger(__name__)

Callback = Callable[[str, int], None]
PresenceCallback = Callable[[str], None]

_STOP = object()


class LocalBroker:
    """Deliver (game_id, version, announcement) to the callbacks subscribed in this process."""

    def __init__(self, name: str = "store-broker") -> None:
        self._name = name
        self._lock = threading.Lock()
        self._callbacks: dict[int, Callback] = {}
        self._presence_callbacks: dict[int, PresenceCallback] = {}
        # game id -> {member: (seat, expires at)}, and the online seats last announced per game.
        self._presence: dict[str, dict[str, tuple[int, float]]] = {}
        self._announced: dict[str, list[int]] = {}
        self._next_id = 0
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._closed = False

    def subscribe(
        self, callback: Callback, on_presence: PresenceCallback | None = None, *, announcements: bool = False
    ) -> Callable[[], None]:
        """Register `callback` (and `on_presence`); return a function that cancels them (idempotent).
        With `announcements`, callback(game_id, version, announcement) gets what `publish` was given.

        Starts the dispatcher thread on first use, so a store nobody listens to owns no thread.
        Raises StoreUnavailable when the broker (its store) was closed.
        """
        with self._lock:
            if self._closed:
                raise StoreUnavailable("store is closed")
            token = self._next_id
            self._next_id += 1
            # Stored as callback(game_id, version, announcement) whatever the subscriber takes.
            self._callbacks[token] = callback if announcements else version_only(callback)
            if on_presence is not None:
                self._presence_callbacks[token] = on_presence
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()

        def cancel() -> None:
            with self._lock:
                self._callbacks.pop(token, None)
                self._presence_callbacks.pop(token, None)

        return cancel

    def publish(self, game_id: str, version: int, announcement: str = "") -> None:
        """Queue one announcement of a commit for every current subscriber; returns at once (no-op
        without subscribers). `announcement`: the commit's public text (GameStore.commit's `announce`)."""
        with self._lock:
            if self._thread is None or self._closed:
                return
        self._queue.put((game_id, version, announcement))

    def set_presence(self, game_id: str, member: str, seat: int, ttl: float) -> None:
        """Record, refresh (`ttl` > 0 seconds) or remove (`ttl` <= 0) one connection's entry; queue a
        presence announcement when the game's online seats differ from the last ones announced."""
        now = time.monotonic()
        with self._lock:
            entries = self._presence.setdefault(game_id, {})
            if ttl > 0:
                entries[member] = (seat, now + ttl)
            else:
                entries.pop(member, None)
            seats = self._live_seats(game_id, now)
            if seats == self._announced.get(game_id, []):
                return
            if seats:
                self._announced[game_id] = seats
            else:
                self._announced.pop(game_id, None)
            if self._thread is None or self._closed:
                return
        self._queue.put((game_id, None, None))

    def online_seats(self, game_id: str) -> list[int]:
        """Return the seats of `game_id` with an unexpired entry, ascending."""
        with self._lock:
            return self._live_seats(game_id, time.monotonic())

    def _live_seats(self, game_id: str, now: float) -> list[int]:
        """Drop expired entries of `game_id` (and the game when none is left); call with _lock held."""
        entries = self._presence.get(game_id)
        if not entries:
            self._presence.pop(game_id, None)
            return []
        for member in [m for m, (_, expires) in entries.items() if expires <= now]:
            del entries[member]
        if not entries:
            del self._presence[game_id]
        return sorted({seat for seat, _ in entries.values()})

    def close(self) -> None:
        """Stop the dispatcher thread after it has delivered what was already queued."""
        with self._lock:
            if self._closed:
                return
            self._closed = True
            thread = self._thread
        if thread is not None:
            self._queue.put(_STOP)
            # A callback may itself close the store; joining our own thread would deadlock.
            if thread is not threading.current_thread():
                thread.join(timeout=5)

    def _run(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            game_id, version, announcement = item  # type: ignore[misc]
            if version is None:  # a presence announcement
                with self._lock:
                    presence_callbacks = list(self._presence_callbacks.values())
                for on_presence in presence_callbacks:
                    try:
                        on_presence(game_id)
                    except Exception:
                        log.exception("store presence subscriber failed for %s", game_id)
                continue
            with self._lock:
                callbacks = list(self._callbacks.values())
            for callback in callbacks:
                try:
                    callback(game_id, version, announcement)
                except Exception:  # one faulty subscriber must not silence the others
                    log.exception("store subscriber failed for %s v%s", game_id, version)
