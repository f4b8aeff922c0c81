"""The games this process committed or heard of lately: a bounded cache that spares a move its read.

A move names the version it was made at. When this process already holds that version of the game (it
committed it, or followed the store's announcement of it: GameService.follow), the move is applied to it
without reading the store. This changes no answer, because the commit is a compare-and-set on the
version: if the game has moved on meanwhile (an announcement still on its way, a write lost in a store
restart), the commit is refused and the move is answered from a fresh read, exactly as when two moves
race. Reads that answer "what is the game now" (GET, the socket's snapshot) never use it.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

# Games kept per process: the ones being played right now. A worker serving more live games than this
# reads the store for the older ones, as without the cache.
SIZE = 1024


class RecentGames:
    """game id -> the newest version seen (an api.game.model.Loaded, never mutated), least recent out."""

    def __init__(self, size: int = SIZE) -> None:
        self._size = size
        self._lock = threading.Lock()
        self._games: OrderedDict[str, Any] = OrderedDict()

    def put(self, game_id: str, game: Any) -> None:
        """Remember `game` (with its .version) unless a newer version of it is already here."""
        with self._lock:
            held = self._games.get(game_id)
            if held is not None and held.version >= game.version:
                return
            self._games[game_id] = game
            self._games.move_to_end(game_id)
            if len(self._games) > self._size:
                self._games.popitem(last=False)

    def get(self, game_id: str, version: int) -> Any | None:
        """Return the game at exactly `version` if that is the newest version held, else None."""
        with self._lock:
            held = self._games.get(game_id)
            if held is None or held.version != version:
                return None
            self._games.move_to_end(game_id)
            return held
