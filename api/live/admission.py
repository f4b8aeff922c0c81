"""Who may hold a websocket of this process (each holds a pool thread for its life: api.ops.sizing).

A socket is first *pending* (handshake done, no hello yet), then a *watcher* (hello without a token:
the public table) or *seated* (hello with a seat token). Without these rules one address could take
every place with token-less sockets and a player's own phone would be refused (issue 18):

- `WS_MAX_SOCKETS` (`limit`) counts hello'd sockets; the last `limit // 8` places (the reserve) are for
  seated players only: watchers get at most `limit - reserve`;
- pending sockets have their own few places (`pending`, beside the limit) and must say hello within
  HELLO_TIMEOUT seconds (api.live.ws), so opening sockets and saying nothing buys little;
- per client address (api.ops.limits.client_key) and per game, at most `per_client` and `per_game` sockets
  in any state, and at most `watchers_per_game` watchers of one game.

Counted per process, like the threads they guard. Beside them, per client address across the whole
server (every worker and host sharing the store: `Places`, in Redis, else in this one process): at most
`pending_per_client` pending sockets (a few: a phone says hello at once), `watchers_per_client` watchers
and `seated_per_client` seated sockets. So one address holds only a few of a process's pending places,
and a seated player from another address always finds one (issue 29). A place in Redis lasts LIVE_TTL
seconds unless its process renews it, which it does as its sockets come, say hello and go (at most every
LIVE_TTL / 3): a process whose sockets all sit still for LIVE_TTL lets their places lapse, so an address
may then hold up to that process's own per-client share more, until its next socket renews them.

A handshake past a cap gets 503 `server_busy` (the process is full) or 429 `rate_limited` (this client
or game holds its share), with Retry-After; a hello past the watchers' places gets a `server_busy` error
frame, past this client's watcher or seated places a `rate_limited` one, and the socket is closed.
"""

from __future__ import annotations

import contextlib
import logging
import math
import secrets
import sys
import threading
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field

from api.errors import ApiError

log = logging.getLogger(__name__)

# Seconds a refused client is asked to wait before trying again.
RETRY_AFTER = 10


# How long a server-wide place lasts without being refreshed: a pending one outlives the hello timeout
# (5 s, api.live.ws); a watcher's or seated one is refreshed by its process as it admits sockets (`Places`).
PENDING_TTL = 15.0
LIVE_TTL = 120.0


@dataclass
class Ticket:
    """One admitted socket: its client, its game and its state ("pending", "watcher" or "seated")."""

    client: str
    game_id: str
    state: str = "pending"
    uid: str = field(default_factory=lambda: secrets.token_hex(8))


class Places:
    """The sockets of each client address in each state, across the whole server: in this process (the
    in-process stores run one), or in Redis for every worker and host (`RedisPlaces`). Each place is
    an entry with an expiry, so the places of a process that died free themselves."""

    def __init__(self, clock: Callable[[], float] = time.time):
        self.clock = clock
        self._lock = threading.Lock()
        self._places: dict[tuple[str, str], dict[str, float]] = {}

    def take(self, client: str, state: str, uid: str, cap: int, ttl: float,
             leaving: str | None = None) -> bool:
        """Take a place of `client` in `state` for `uid` (leaving its place in state `leaving`, if
        given) unless `cap` (> 0) places are taken; return whether it was taken."""
        with self._lock:
            now = self.clock()
            places = self._places.setdefault((client, state), {})
            for other in [u for u, ends in places.items() if ends <= now]:
                del places[other]
            if cap and len(places) >= cap and uid not in places:
                return False
            places[uid] = now + ttl
            if leaving is not None:
                self._drop(client, leaving, uid)
            return True

    def drop(self, client: str, state: str, uid: str) -> None:
        with self._lock:
            self._drop(client, state, uid)

    def _drop(self, client: str, state: str, uid: str) -> None:
        places = self._places.get((client, state))
        if places is not None:
            places.pop(uid, None)
            if not places:
                del self._places[(client, state)]

    def refresh(self, tickets: list[Ticket], ttl: float) -> None:
        """Keep the places of live tickets (nothing to do in-process: they expire only in Redis)."""


_TAKE = """
local now, ends, cap = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
redis.call('zremrangebyscore', KEYS[1], '-inf', now)
if cap > 0 and redis.call('zcard', KEYS[1]) >= cap and not redis.call('zscore', KEYS[1], ARGV[4]) then
  return 0
end
redis.call('zadd', KEYS[1], ends, ARGV[4])
redis.call('expire', KEYS[1], math.ceil(ends - now) + 1)
if #KEYS > 1 then redis.call('zrem', KEYS[2], ARGV[4]) end
return 1
"""


class RedisPlaces(Places):
    """`Places` in Redis: a sorted set per client and state (member: a socket, score: its expiry), both
    of a client's keys in one hash slot (a Cluster runs the script on one node)."""

    def __init__(self, client, clock: Callable[[], float] = time.time):
        super().__init__(clock)
        self.client = client
        self._take = client.register_script(_TAKE)

    @staticmethod
    def key(client: str, state: str) -> str:
        return f"cg:v1:ws:{{{client}}}:{state}"

    def take(self, client: str, state: str, uid: str, cap: int, ttl: float,
             leaving: str | None = None) -> bool:
        keys = [self.key(client, state)] + ([self.key(client, leaving)] if leaving else [])
        now = self.clock()
        try:
            return bool(self._take(keys=keys, args=[now, now + ttl, cap, uid]))
        except Exception as err:  # noqa: BLE001
            # A store that cannot count lets the socket in: its hello then meets the store's own error
            # (store_unavailable, close 1011), the answer a client knows how to take.
            log.info("socket places not counted: %s: %s", type(err).__name__, err)
            return True

    def drop(self, client: str, state: str, uid: str) -> None:
        with contextlib.suppress(Exception):  # else the place expires by itself
            self.client.zrem(self.key(client, state), uid)

    def refresh(self, tickets: list[Ticket], ttl: float) -> None:
        ends = self.clock() + ttl
        try:
            for ticket in tickets:
                key = self.key(ticket.client, ticket.state)
                self.client.zadd(key, {ticket.uid: ends}, xx=True)
                self.client.expire(key, math.ceil(ttl) + 1)
        except Exception:  # noqa: BLE001 - refreshed at the next admission
            pass


class Admission:
    """The sockets of one process, by state, client and game. Thread-safe. 0 for a cap: none."""

    def __init__(self, limit: int, *, pending: int, per_client: int, per_game: int, watchers_per_game: int,
                 pending_per_client: int = 0, watchers_per_client: int = 0, seated_per_client: int = 0,
                 places: Places | None = None):
        self.limit = max(int(limit), 0)
        # Across the whole server, per client address (see the module docstring).
        self.client_caps = {"pending": max(int(pending_per_client), 0),
                            "watcher": max(int(watchers_per_client), 0),
                            "seated": max(int(seated_per_client), 0)}
        self.places = places or Places()
        self._tickets: dict[str, Ticket] = {}
        self._refreshed = 0.0
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
            ticket = Ticket(client, game_id)
            self._states["pending"] += 1
            self._clients[client] += 1
            self._games[game_id] += 1
            self._tickets[ticket.uid] = ticket
        self._refresh_due()
        try:
            taken = self.places.take(client, "pending", ticket.uid, self.client_caps["pending"], PENDING_TTL)
        except BaseException:
            self.leave(ticket, counted=False)
            raise
        if not taken:
            self.leave(ticket, counted=False)
            raise _limited(f"At most {self.client_caps['pending']} connections from one address may wait "
                           "for their hello on this server.")
        return ticket

    def hello(self, ticket: Ticket, *, seated: bool) -> None:
        """Move a pending socket to seated or watcher; raise ApiError server_busy when there is no room,
        rate_limited when this client holds its places of that kind (the ticket stays pending until
        `leave`)."""
        state = "seated" if seated else "watcher"
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
        cap = self.client_caps[state]
        self._refresh_due()
        if not self.places.take(ticket.client, state, ticket.uid, cap, LIVE_TTL, leaving="pending"):
            what = "seated players" if seated else "watchers"
            raise _limited(f"At most {cap} {what} from one address on this server.")
        with self._lock:
            if not seated:
                self._watching[ticket.game_id] += 1
            self._states["pending"] -= 1
            ticket.state = state
            self._states[ticket.state] += 1

    def leave(self, ticket: Ticket, *, counted: bool = True) -> None:
        """Count out a socket that `enter` admitted (its request ended)."""
        with self._lock:
            if self._tickets.pop(ticket.uid, None) is None:
                return
            self._states[ticket.state] -= 1
            self._clients[ticket.client] -= 1
            self._games[ticket.game_id] -= 1
            if ticket.state == "watcher":
                self._watching[ticket.game_id] -= 1
            for counter, key in ((self._clients, ticket.client), (self._games, ticket.game_id),
                                 (self._watching, ticket.game_id)):
                if counter[key] <= 0:
                    del counter[key]
        if counted:
            self.places.drop(ticket.client, ticket.state, ticket.uid)
            self._refresh_due()

    def _refresh_due(self) -> None:
        """Renew the server-wide places of this process's live sockets, a third of their life at most
        after the last renewal: done as sockets come, so a busy address's places never lapse."""
        now = time.monotonic()
        with self._lock:
            if now - self._refreshed < LIVE_TTL / 3:
                return
            self._refreshed = now
            live = [t for t in self._tickets.values() if t.state != "pending"]
        if live:
            self.places.refresh(live, LIVE_TTL)


def places_for(store) -> Places:
    """Where the server-wide places of `store`'s server are counted: its Redis, else this process."""
    redis_store = sys.modules.get("api.store.redis")  # not imported: no Redis store (and no cost to load it)
    if redis_store is not None and isinstance(store, redis_store.RedisStore):
        return RedisPlaces(store._client)  # its command client: one server, Sentinel's primary, Cluster
    return Places()


def init_app(app, store) -> None:
    """Give the websocket gate (api.live.ws) its server-wide places per client address, and let a client
    that hangs up during its handshake (or any request) go without a traceback or a 500."""
    from simple_websocket import ConnectionClosed

    app.register_error_handler(ConnectionError, _gone)
    app.register_error_handler(ConnectionClosed, _gone)
    gate: Admission = app.extensions["alcabohne.ws_gate"]
    c = app.config
    gate.places = places_for(store)
    gate.client_caps = {"pending": max(int(c["WS_MAX_PENDING_PER_CLIENT"]), 0),
                        "watcher": max(int(c["WS_MAX_WATCHERS_PER_CLIENT"]), 0),
                        "seated": max(int(c["WS_MAX_SEATED_PER_CLIENT"]), 0)}


def _gone(err: Exception):
    """The client hung up (reset, broken pipe, a websocket closed during its handshake): there is nobody
    to answer. Under gunicorn the response writes nothing (as flask-sock's own end of a socket does);
    elsewhere it is an empty 400 that the client never reads."""
    from flask import Response, request

    log.info("client gone during %s %s: %s", request.method, request.path, type(err).__name__)

    class Nothing(Response):
        def __call__(self, environ, start_response):
            if "gunicorn.socket" in environ:
                raise StopIteration()  # gunicorn then closes the connection without writing
            return super().__call__(environ, start_response)

    return Nothing(status=400)


def _busy(detail: str) -> ApiError:
    return _refusal("server_busy", detail)


def _limited(detail: str) -> ApiError:
    return _refusal("rate_limited", detail)


def _refusal(code: str, detail: str) -> ApiError:
    return ApiError(code, detail, headers={"Retry-After": str(RETRY_AFTER)}, retry_after=RETRY_AFTER)
