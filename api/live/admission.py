"""Who may hold a websocket of this process (each holds a pool thread for its life: api.sizing).

A socket is first *pending* (handshake done, no hello yet), then a *watcher* (hello without a token:
the public table) or *seated* (hello with a seat token). Without these rules one address could take
every place with token-less sockets and a player's own phone would be refused (issue 18):

- `WS_MAX_SOCKETS` (`limit`) counts hello'd sockets; the last `limit // 8` places (the reserve) are for
  seated players only: watchers get at most `limit - reserve`;
- pending sockets have their own few places (`pending`, beside the limit) and must say hello within
  HELLO_TIMEOUT seconds (api.live.ws), so opening sockets and saying nothing buys little;
- per client address (api.limits.client_key) and per game, at most `per_client` and `per_game` sockets
  in any state, and at most `watchers_per_game` watchers of one game.

Counted per process, like the threads they guard. A handshake past a cap gets 503 `server_busy` (the
process is full) or 429 `rate_limited` (this client or game holds its share), with Retry-After; a
watcher's hello past the watchers' places gets a `server_busy` error frame and the socket is closed.
"""

from __future__ import annotations

import threading
from collections import Counter
from dataclasses import dataclass

from api.errors import ApiError

# Seconds a refused client is asked to wait before trying again.
RETRY_AFTER = 10


@dataclass
class Ticket:
    """One admitted socket: its client, its game and its state ("pending", "watcher" or "seated")."""

    client: str
    game_id: str
    state: str = "pending"


class Admission:
    """The sockets of one process, by state, client and game. Thread-safe. 0 for a cap: none."""

    def __init__(self, limit: int, *, pending: int, per_client: int, per_game: int, watchers_per_game: int):
        self.limit = max(int(limit), 0)
        self.reserve = self.limit // 8
        self.pending_cap = max(int(pending), 0)
        self.per_client = max(int(per_client), 0)
        self.per_game = max(int(per_game), 0)
        self.watchers_per_game = max(int(watchers_per_game), 0)
        self._lock = threading.Lock()
        self._states: Counter[str] = Counter()
        self._clients: Counter[str] = Counter()
        self._games: Counter[str] = Counter()
        self._watching: Counter[str] = Counter()

    @property
    def open(self) -> int:
        """Sockets counted now, in every state."""
        with self._lock:
            return sum(self._states.values())

    def counts(self) -> dict[str, int]:
        """Sockets by state (pending, watcher, seated)."""
        with self._lock:
            return {state: self._states[state] for state in ("pending", "watcher", "seated")}

    def enter(self, client: str, game_id: str) -> Ticket:
        """Admit a handshake as pending; raise ApiError server_busy or rate_limited (counting nothing)."""
        with self._lock:
            hello_done = self._states["watcher"] + self._states["seated"]
            if (self.limit and hello_done >= self.limit) or (
                    self.pending_cap and self._states["pending"] >= self.pending_cap):
                raise _busy("This server process holds all the live connections it can.")
            if self.per_client and self._clients[client] >= self.per_client:
                raise _limited(f"At most {self.per_client} live connections from one address.")
            if self.per_game and self._games[game_id] >= self.per_game:
                raise _limited(f"At most {self.per_game} live connections to one game.")
            self._states["pending"] += 1
            self._clients[client] += 1
            self._games[game_id] += 1
            return Ticket(client, game_id)

    def hello(self, ticket: Ticket, *, seated: bool) -> None:
        """Move a pending socket to seated or watcher; raise ApiError server_busy when there is no room
        (the ticket stays pending until `leave`)."""
        with self._lock:
            if ticket.state != "pending":
                return
            watchers, hello_done = self._states["watcher"], self._states["watcher"] + self._states["seated"]
            if self.limit and hello_done >= self.limit:
                raise _busy("This server process holds all the live connections it can.")
            if not seated:
                if self.limit and watchers >= self.limit - self.reserve:
                    raise _busy("The places left are kept for seated players; watch again later.")
                if self.watchers_per_game and self._watching[ticket.game_id] >= self.watchers_per_game:
                    raise _busy(f"This game has its {self.watchers_per_game} watchers; watch again later.")
                self._watching[ticket.game_id] += 1
            self._states["pending"] -= 1
            ticket.state = "seated" if seated else "watcher"
            self._states[ticket.state] += 1

    def leave(self, ticket: Ticket) -> None:
        """Count out a socket that `enter` admitted (its request ended)."""
        with self._lock:
            self._states[ticket.state] -= 1
            self._clients[ticket.client] -= 1
            self._games[ticket.game_id] -= 1
            if ticket.state == "watcher":
                self._watching[ticket.game_id] -= 1
            for counter, key in ((self._clients, ticket.client), (self._games, ticket.game_id),
                                 (self._watching, ticket.game_id)):
                if counter[key] <= 0:
                    del counter[key]


def _busy(detail: str) -> ApiError:
    return _refusal("server_busy", detail)


def _limited(detail: str) -> ApiError:
    return _refusal("rate_limited", detail)


def _refusal(code: str, detail: str) -> ApiError:
    return ApiError(code, detail, headers={"Retry-After": str(RETRY_AFTER)}, retry_after=RETRY_AFTER)
