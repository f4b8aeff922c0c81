"""Rate limits that hold their stated rate, shared by every worker and host of a server.

Each limit is "at most `count` events in any `window` seconds": a moving window (the times of the last
`count` events are kept; an event is admitted when the oldest of them is more than `window` seconds old).
Unlike a fixed window, no burst across a window's edge gets twice the rate. A refusal is ApiError
`rate_limited` (429 over HTTP with Retry-After, an error frame with `retry_after` on the websocket), the
wait being the seconds until the oldest counted event leaves the window. What is limited (api.config,
docs/protocol.md §11):

- `create`: games created per client address, and `create_total` on the whole server (a store fills
  with games nobody plays, from however many addresses);
- `move`: action requests per seat of a game (HTTP and websocket alike); `bot`: action requests in one
  game against the computer, whose every move costs several times a human's in CPU; `bot_client`: the
  computer's work per client address in all its games together (those action requests, and hints:
  the same search), so that opening more games gets one address no more of it;
- `hello`: websocket hellos per client address;
- `transfer`: seat-transfer codes issued per client address (each is stored, and each claim adds a
  version to its game);
- `read`: GET requests for games (state, events, records, hints, QR codes) per client address;
- `guess`: failed join/transfer codes per client address; `guess_game`: failed codes checked against
  one game by a caller without a seat in it (the QR endpoint names the game; a join names none, only
  its code, so it cannot be counted per game). Code guessing on the whole server (`guess_total`) never
  refuses a client whose recent codes were all right: past JOIN_TOTAL_LIMIT failed codes in a window,
  only addresses that failed a code within it wait (`Limiter.guess`). So no group of addresses can keep a
  player with the right code out, while each guessing address is down to about one guess per window.

Where the counts live: on Redis (also behind Sentinel, or a Cluster) the `limits` library's moving window
(a list of times per key, updated by one Lua script; for moves, bot games and reads its sliding-window
counter: COUNTED) on the game store's own client; on the in-process
stores (memory, SQLite, which run one process) a moving window here. Weighed against counting in the game
store with a script of our own: `limits` is well kept (Flask-Limiter's base), exact, and runs the same on
the three Redis topologies; the store contract (api.store.base) stays free of rate limiting.

A client address is the peer address (or X-Forwarded-For's from a trusted proxy: api.ops.proxies): IPv4 per
address, IPv6 per /64, since one host or home usually holds a whole /64 and may pick any address in it.
"""

from __future__ import annotations

import contextlib
import ipaddress
import math
import sys
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from api.errors import ApiError
from api.store.base import GameStore, StoreUnavailable

# Everything refused from a client that has no address (a unix socket) shares one bucket.
UNKNOWN = "unknown"
# Key prefix of the counts in Redis (beside the games' cg:v1:).
PREFIX = "cg:v1:rl"


@dataclass(frozen=True)
class Limit:
    """At most `count` events in any `window` seconds."""

    count: int
    window: int


KINDS = ("create", "create_total", "move", "bot", "bot_client", "hello", "transfer", "read", "guess",
         "guess_game", "guess_total")
# Frequent kinds with large counts: on Redis a sliding-window counter (two integers per key, the previous
# window weighted by how much of it the moving window still covers) instead of a list of up to `count`
# times per key (600 moves a minute would keep ~12 KB per playing seat).
COUNTED = frozenset({"move", "bot", "bot_client", "read"})
# Settings (api.config) of each kind: (count key, window key).
SETTINGS = {
    "create": ("CREATE_LIMIT", "CREATE_WINDOW"),
    "create_total": ("CREATE_TOTAL_LIMIT", "CREATE_TOTAL_WINDOW"),
    "move": ("MOVE_LIMIT", "MOVE_WINDOW"),
    "bot": ("BOT_LIMIT", "BOT_WINDOW"),
    "bot_client": ("BOT_CLIENT_LIMIT", "BOT_CLIENT_WINDOW"),
    "hello": ("HELLO_LIMIT", "HELLO_WINDOW"),
    "transfer": ("TRANSFER_LIMIT", "TRANSFER_WINDOW"),
    "read": ("READ_LIMIT", "READ_WINDOW"),
    "guess": ("JOIN_LIMIT", "JOIN_WINDOW"),
    "guess_game": ("JOIN_GAME_LIMIT", "JOIN_WINDOW"),
    "guess_total": ("JOIN_TOTAL_LIMIT", "JOIN_WINDOW"),
}

WHAT = {
    "create": "games created from this address",
    "create_total": "games created on this server",
    "move": "actions of this seat",
    "bot": "actions in this game against the computer",
    "bot_client": "moves and hints of the computer asked for from this address",
    "hello": "websocket connections from this address",
    "transfer": "seat transfers from this address",
    "read": "game reads from this address",
    "guess": "failed join or transfer codes from this address",
    "guess_game": "failed codes checked against this game",
    "guess_total": "failed join or transfer codes on this server",
}


def client_key(address: str | None) -> str:
    """Return the bucket of a client address: an IPv4 address itself, IPv6 its /64 network (an
    IPv4-mapped IPv6 address counts as its IPv4 address)."""
    if not address:
        return UNKNOWN
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return UNKNOWN
    if ip.version == 6 and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    if ip.version == 4:
        return str(ip)
    return str(ipaddress.IPv6Network((ip, 64), strict=False))


class LocalWindows:
    """Moving windows of one process (the in-process stores), with the method names of `limits`'
    storages: `acquire_entry` admits `amount` events at once if the window has room, `get_moving_window`
    returns (time of the oldest counted event, events counted). `clock` is injectable for tests."""

    # Past this many keys, a call drops the keys whose events have all left their windows.
    SWEEP_AT = 10_000

    def __init__(self, clock: Callable[[], float] = time.time):
        self.clock = clock
        self._lock = threading.Lock()
        self._events: dict[str, tuple[deque[float], float]] = {}

    def _window(self, key: str, expiry: float, now: float) -> deque[float]:
        events, _ = self._events.get(key, (None, 0.0))
        if events is None:
            if len(self._events) >= self.SWEEP_AT:
                self._events = {k: (q, e) for k, (q, e) in self._events.items() if q and q[-1] > now - e}
            events = deque()
        while events and events[0] <= now - expiry:
            events.popleft()
        self._events[key] = (events, expiry)
        return events

    def acquire_entry(self, key: str, limit: int, expiry: int, amount: int = 1) -> bool:
        with self._lock:
            now = self.clock()
            events = self._window(key, expiry, now)
            if len(events) + amount > limit:
                return False
            events.extend([now] * amount)
            return True

    def get_moving_window(self, key: str, limit: int, expiry: int) -> tuple[float, int]:
        with self._lock:
            now = self.clock()
            events = self._window(key, expiry, now)
            count = min(len(events), limit)
            return (events[-count] if count else now), count


def _redis_windows(client):
    """`limits`' Redis storage (moving windows by Lua script) on the store's own client: a redis.Redis
    (one server, or the Sentinels' current primary) or a RedisCluster."""
    from limits.storage import RedisStorage

    class StoreRedisStorage(RedisStorage):
        def __init__(self) -> None:
            # The URL only satisfies the constructor: every command goes to `client` (get_connection).
            super().__init__("redis://localhost", key_prefix=PREFIX)

        def get_connection(self, readonly: bool = False):
            return client

    return StoreRedisStorage()


def windows_for(store: GameStore, clock: Callable[[], float] | None = None):
    """Return where the limits of `store` count: Redis for a Redis store, else this process (on the
    store's own clock when it has one: tests move it)."""
    redis_store = sys.modules.get("api.store.redis")  # not imported: no Redis store (and no cost to load it)
    if redis_store is not None and isinstance(store, redis_store.RedisStore):
        return _redis_windows(store._client)  # its command client: one server, Sentinel's primary, Cluster
    return LocalWindows(clock or getattr(store, "_clock", None) or time.time)


class Limiter:
    """The limits of one server. `limits` maps a kind (KINDS) to its Limit; a kind left out, or with a
    count of 0, is not limited. `windows` (default: windows_for(store)) counts."""

    def __init__(self, store: GameStore, limits: dict[str, Limit], *, windows=None,
                 clock: Callable[[], float] | None = None):
        self.store = store
        self.limits = {kind: limit for kind, limit in limits.items() if limit.count > 0}
        self.windows = windows if windows is not None else windows_for(store, clock)
        # The clock the windows count on (Redis: this host's wall clock, as `limits` uses).
        self.clock = clock or getattr(self.windows, "clock", None) or time.time

    @classmethod
    def from_config(cls, store: GameStore, config) -> Limiter:
        """Build from the settings of api.config (a mapping)."""
        return cls(store, {kind: Limit(int(config[c]), int(config[w])) for kind, (c, w) in SETTINGS.items()})

    # -- counting ----------------------------------------------------------------------------------

    def _acquire(self, key: str, count: int, window: int, cost: int = 1) -> bool:
        try:
            return self.windows.acquire_entry(key, count, window, cost)
        except Exception as err:  # the store's backend failing: as every other store error, 503
            raise _unavailable(err) from None

    def _counted(self, key: str, cap: int, window: int) -> tuple[float, int]:
        try:
            return self.windows.get_moving_window(key, cap, window)
        except Exception as err:
            raise _unavailable(err) from None

    def _refuse(self, kind: str, key: str, limit: Limit, cap: int | None = None,
                detail: str = "") -> ApiError:
        oldest, counted = self._counted(key, cap or limit.count, limit.window)
        wait = max(1, math.ceil(oldest + limit.window - self.clock())) if counted else 1
        wait = min(wait, limit.window)
        text = detail or f"At most {limit.count} {WHAT[kind]} in any {limit.window} s"
        return ApiError("rate_limited", f"{text}; retry in {wait} s.", headers={"Retry-After": str(wait)},
                        retry_after=wait)

    def charge(self, kind: str, who: str, cost: int = 1) -> None:
        """Count `cost` events of `kind` for `who` (a client_key, a seat, a game or "*"); raise
        rate_limited when they do not fit in the window (then nothing is counted)."""
        limit = self.limits.get(kind)
        if limit is None:
            return
        key = f"{kind}:{who}"
        if kind in COUNTED and hasattr(self.windows, "acquire_sliding_window_entry"):
            try:
                if self.windows.acquire_sliding_window_entry(key, limit.count, limit.window, cost):
                    return
                prev, prev_left, cur, cur_left = self.windows.get_sliding_window(key, limit.window)
            except Exception as err:
                raise _unavailable(err) from None
            # When the weighted count next drops by one (as limits' SlidingWindowCounterRateLimiter).
            waits = [prev_left % (limit.window / prev)] if prev else []
            waits += [cur_left % limit.window] if cur else []
            wait = min(max(1, math.ceil(min(waits, default=1))), limit.window)
            raise ApiError("rate_limited", f"At most {limit.count} {WHAT[kind]} in {limit.window} s "
                           f"(a sliding window); retry in {wait} s.", headers={"Retry-After": str(wait)},
                           retry_after=wait)
        if not self._acquire(key, limit.count, limit.window, cost):
            raise self._refuse(kind, key, limit)

    def create(self, client: str, *, refuse: bool = True) -> None:
        """Count a game created by `client`: per address first (so that an address past its own limit
        spends nothing of the server's), then on the whole server. With `refuse` False (the game is
        made already: a rematch whose link this call won, after `check_create`), count what fits and
        never raise."""
        if refuse:
            self.charge("create", client)
            self.charge("create_total", "*")
            return
        for kind, who in (("create", client), ("create_total", "*")):
            limit = self.limits.get(kind)
            if limit is not None:
                self._acquire(f"{kind}:{who}", limit.count, limit.window)

    def check_create(self, client: str) -> None:
        """Raise rate_limited, counting nothing, when `client` (or the server) may create no game now."""
        for kind, who in (("create", client), ("create_total", "*")):
            limit = self.limits.get(kind)
            key = f"{kind}:{who}"
            if limit is not None and self._counted(key, limit.count, limit.window)[1] >= limit.count:
                raise self._refuse(kind, key, limit)

    # -- code guesses ------------------------------------------------------------------------------
    #
    # An attempt is counted before the code is looked at, so that a burst at once cannot all pass;
    # a right code then earns a credit (`guessed_right`): the failures are attempts less credits. Both
    # are moving windows of the same length, so a credit leaves its window with its attempt. (The
    # server-wide count only decides who waits; it holds up to 100 x JOIN_TOTAL_LIMIT attempts.)

    def _rights(self, kind: str, who: str, limit: Limit) -> int:
        return self._counted(f"{kind}-ok:{who}", limit.count * 100, limit.window)[1]

    def _failures(self, kind: str, who: str, limit: Limit) -> int:
        attempts = self._counted(f"{kind}:{who}", limit.count * 100, limit.window)[1]
        return max(attempts - self._rights(kind, who, limit), 0)

    def _attempt(self, kind: str, who: str, limit: Limit, detail: str = "") -> None:
        """Count an attempt in one indivisible step, room being the limit plus the right codes."""
        cap = limit.count + self._rights(kind, who, limit)
        if not self._acquire(f"{kind}:{who}", cap, limit.window):
            raise self._refuse(kind, f"{kind}:{who}", limit, cap=cap, detail=detail)

    def guess(self, client: str, game_id: str | None = None) -> None:
        """Count a code attempt from `client` (against `game_id` when the request names one); raise
        rate_limited, counting nothing, when the address or the game has used up its failed guesses,
        or when the server as a whole is past its failed guesses and this address failed one within
        the window (an address whose codes were all right is never refused for others' guesses)."""
        guess, game, total = (self.limits.get(k) for k in ("guess", "guess_game", "guess_total"))
        if (guess is not None and total is not None
                and self._failures("guess_total", "*", total) >= total.count
                and self._failures("guess", client, guess) > 0):
            raise self._refuse("guess", f"guess:{client}", guess, cap=guess.count * 100, detail=(
                f"More than {total.count} wrong codes were tried on this server in {total.window} s: "
                "an address that tried a wrong code waits until that attempt leaves the window"))
        if guess is not None:
            self._attempt("guess", client, guess)
        if game is not None and game_id is not None:
            try:
                self._attempt("guess_game", game_id, game)
            except ApiError:
                if guess is not None:  # the code is not looked at: no failure of the client's
                    self._acquire(f"guess-ok:{client}", guess.count * 100, guess.window)
                raise
        if total is not None:
            self._acquire("guess_total:*", total.count * 100, total.window)

    def guessed_right(self, client: str, game_id: str | None = None) -> None:
        """The attempt counted by `guess` opened a seat (or found the caller's own): not a failure."""
        for kind, who in (("guess", client), ("guess_game", game_id), ("guess_total", "*")):
            limit = self.limits.get(kind)
            if limit is not None and who is not None:
                self._acquire(f"{kind}-ok:{who}", limit.count * 100, limit.window)


def _unavailable(err: Exception) -> StoreUnavailable:
    return StoreUnavailable(f"rate limits: {type(err).__name__}: {err}")


def init_app(app) -> None:
    """Count every read of a game (GET or HEAD under /api/v1/games/, the websocket aside: its hellos
    have their own limit) against the client's `read` limit, before the route runs."""
    from flask import request

    def limit_reads() -> None:
        if request.method in ("GET", "HEAD") and request.path.startswith("/api/v1/games/") \
                and not request.path.endswith("/ws"):
            # A store that cannot count (full, a read-only replica) may still serve the read: the limit
            # gives way rather than turn every read into a 503.
            with contextlib.suppress(StoreUnavailable):
                app.extensions["alcabohne.service"].limiter.charge("read", client_key(request.remote_addr))

    app.before_request(limit_reads)
