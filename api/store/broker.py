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
from collections.abc import Callable

from .base import StoreUnavailable

log = logging.getLogger(__name__)

Callback = Callable[[str, int], None]

_STOP = object()


class LocalBroker:
    """Deliver (game_id, version) nudges to the callbacks subscribed in this process."""

    def __init__(self, name: str = "store-broker") -> None:
        self._name = name
        self._lock = threading.Lock()
        self._callbacks: dict[int, Callback] = {}
        self._next_id = 0
        self._queue: queue.SimpleQueue[object] = queue.SimpleQueue()
        self._thread: threading.Thread | None = None
        self._closed = False

    def subscribe(self, callback: Callback) -> Callable[[], None]:
        """Register `callback`; return a function that cancels it (idempotent).

        Starts the dispatcher thread on first use, so a store nobody listens to owns no thread.
        Raises StoreUnavailable when the broker (its store) was closed.
        """
        with self._lock:
            if self._closed:
                raise StoreUnavailable("store is closed")
            token = self._next_id
            self._next_id += 1
            self._callbacks[token] = callback
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()

        def cancel() -> None:
            with self._lock:
                self._callbacks.pop(token, None)

        return cancel

    def publish(self, game_id: str, version: int) -> None:
        """Queue one nudge for every current subscriber; returns at once (no-op without subscribers)."""
        with self._lock:
            if self._thread is None or self._closed:
                return
        self._queue.put((game_id, version))

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
            game_id, version = item  # type: ignore[misc]
            with self._lock:
                callbacks = list(self._callbacks.values())
            for callback in callbacks:
                try:
                    callback(game_id, version)
                except Exception:  # one faulty subscriber must not silence the others
                    log.exception("store subscriber failed for %s v%s", game_id, version)
