"""The store contract: every backend (Redis, SQLite, memory) implements exactly this.

A game is one opaque JSON document (the latest state and the table, built by the game room, api/game)
with a version, and a log of one short line per later version (what was done, api.game.gamelog).
Version 1 is written by `create`; every later change is one `commit`, an atomic compare-and-set that
also records the idempotency key, appends the log line, refreshes the lifetime and announces the new
version to subscribers. Nothing here knows the rules of the game.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

# How many idempotency records a game keeps per seat: the newest ones. A client has at most one move in
# flight and resends it with the same key until it gets an answer, so the key it may still resend is its
# latest; the others leave room for a second phone or tab on the same seat. Bounded by count, not by
# time, so that a game's records take a few hundred bytes however long it is played (the game room
# stores a fixed-length digest of each key: api.game.gamelog.key_digest). A retry of a forgotten key
# cannot apply twice: its move made a version, so its `expected_version` is behind the game's and it is
# a "conflict".
IDEMPOTENCY_WINDOW = 4


class StoreUnavailable(RuntimeError):
    """The backend cannot be reached; the API answers 503 and changes nothing."""


class OutcomeUnknown(StoreUnavailable):
    """A commit was sent and no answer came back (a timeout): it may or may not have been applied. The
    API says so (503 outcome_unknown): the caller resends with the same idempotency key to find out."""


@dataclass(frozen=True)
class CommitResult:
    """What `commit` did.

    status:
      "ok"        the document was written; `version` is the new version (expected + 1).
      "duplicate" the idempotency key was already used with the same fingerprint; nothing was written;
                  `version` is the version that first commit produced (the caller renders its
                  answer again from the log).
      "mismatch"  the idempotency key was already used with a different fingerprint; nothing written.
      "conflict"  the stored version is not `expected_version`; nothing written; `version` is current.
      "missing"   there is no such game (or it expired); nothing written; `version` is 0.
    """

    status: Literal["ok", "duplicate", "mismatch", "conflict", "missing"]
    version: int


class GameStore(ABC):
    """One backend. All methods are thread-safe; none raises for a missing game except where noted.

    Every method may raise StoreUnavailable when the backend cannot be reached.
    """

    @abstractmethod
    def create(self, game_id: str, doc: str, ttl: int) -> bool:
        """Store a new game at version 1 with a lifetime of `ttl` seconds.

        Returns False (and changes nothing) when `game_id` already exists.
        """

    @abstractmethod
    def load(self, game_id: str) -> tuple[int, str] | None:
        """Return (version, doc) of a game, or None when it does not exist or has expired."""

    @abstractmethod
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
        compact: bool = False,
        log: str = "",
        announce: str = "",
    ) -> CommitResult:
        """Atomically replace the document if the stored version equals `expected_version`.

        In one indivisible step: if `idem_key` is among the game's idempotency records (of any seat),
        answer "duplicate" (same fingerprint, with the version that key produced) or "mismatch"
        (different one); otherwise if the version differs answer "conflict"; otherwise write `doc` at
        version expected+1, set the lifetime to `ttl` seconds, record `idem_key -> (fingerprint, new
        version)` for `seat` (when a key is given; the seat keeps its newest IDEMPOTENCY_WINDOW records
        and forgets older ones; the records live as long as the game), append `log` (one line: no
        newline) as the entry of the new version (with `compact`, the caller's word that the log will
        hardly grow again, the game being over: the backend then keeps it in no more bytes than it
        needs, where it would leave room to grow), and announce (game_id, new_version, `announce`) to
        the subscribers of every process. `announce` is text without meaning to the store, stored
        nowhere; every subscriber (any process, any client of a shared Redis) reads it, so the caller
        puts nothing secret in it (api.game.service: a move's log entry, or nothing).
        """

    @abstractmethod
    def log_since(self, game_id: str, version: int) -> list[tuple[int, str]]:
        """Return the log entries (version, log) with version > `version`, oldest first. Every commit
        since the game's creation has its entry: the log of a live game is complete."""

    def load_latest(self, game_id: str) -> tuple[int, str, str | None] | None:
        """Return (version, doc, log) where `log` is the log entry of that very version (None for
        version 1), or None when the game does not exist. One consistent read: backends that can do it
        in one round trip override this."""
        found = self.load(game_id)
        if found is None:
            return None
        version, doc = found
        entry = next((log for v, log in self.log_since(game_id, version - 1) if v == version), None)
        return version, doc, entry

    @abstractmethod
    def link_rematch(self, game_id: str, rematch_id: str) -> str | None:
        """Make `rematch_id` the rematch of game `game_id` unless it has one already, in one indivisible
        step (concurrent callers all get the same answer); return the game's rematch id (`rematch_id`
        when this call made the link), or None when `game_id` does not exist. The link lives as long as
        the game had left to live when it was made. The rematch game itself is stored with `create`
        (api.game.rematch: whoever finds it missing creates it; `create` lets one win).
        """

    # Active games: which games had a move lately, for the alcabohne_active_games gauge
    # (api.ops.active_games), counted across every process that shares the backend.

    @abstractmethod
    def note_active(self, moves: dict[str, float]) -> None:
        """Record the time (unix seconds) of the latest move of each game in `moves` (a later time
        replaces an earlier one)."""

    @abstractmethod
    def count_active(self, since: float) -> int:
        """Return how many games had a move at or after `since` (unix seconds); records older than
        `since` may be forgotten."""

    @abstractmethod
    def put_code(self, code: str, game_id: str, ttl: int) -> bool:
        """Map a join/transfer code to a game for `ttl` seconds; False if the code is already in use."""

    @abstractmethod
    def get_code(self, code: str) -> str | None:
        """Return the game id of a live code, or None."""

    @abstractmethod
    def delete_code(self, code: str) -> None:
        """Forget a code (it was used or replaced)."""

    @abstractmethod
    def hit(self, key: str, limit: int, window: int, cost: int = 1) -> float | None:
        """Rate limits (api.ops.limits), shared by every process on this backend: count `cost` events for
        `key` in a fixed window of `window` seconds that starts with the key's first counted event.

        Returns None when the count stays within `limit` (the events are counted), else the seconds
        until the window ends (> 0; the events are not counted, so a refused client does not push its
        own window on). A negative `cost` takes back events counted in the current window (never below
        0) and returns None. One indivisible step: concurrent callers never both take the last unit.
        """

    @abstractmethod
    def subscribe(
        self,
        callback: Callable[[str, int], None],
        *,
        on_reset: Callable[[], None] | None = None,
        on_presence: Callable[[str], None] | None = None,
        announcements: bool = False,
    ) -> Callable[[], None]:
        """Call `callback(game_id, version)` after every commit by any process sharing this backend.

        With `announcements`, the call is `callback(game_id, version, announcement)`: the `announce`
        text given to that commit ("" if none), or None when the backend tells of a version without
        its commit's announcement (Redis Cluster, below).

        Returns a function that cancels the subscription. Delivery is at-most-once (pub/sub): clients
        resync by version. (Redis Cluster also tells of a game's current version, with None for its
        announcement, once its subscription is in place: that may repeat a version already heard.) Only
        the games passed to `watch` are sure to be heard; most backends hear every game.

        `on_reset()`, when given, is called after announcements may have been lost (Redis:
        the pub/sub connection dropped and came back); every client should then resync. The in-process
        backends never lose announcements and never call it. `on_presence(game_id)`, when given, is called
        after the online seats of a game changed (see `set_presence`). Callbacks run on a thread owned
        by the store.
        """

    def watch(self, game_id: str) -> None:  # noqa: B027 - optional hook
        """This process now holds a socket of `game_id`: deliver its announcements (and presence changes) to
        the subscribers from now on. Called once per game as its first local socket attaches, under
        the caller's lock: it must return at once and never raise. Only a backend whose fan-out is per
        game (Redis Cluster: sharded pub/sub) needs it; the others deliver every game anyway."""

    def unwatch(self, game_id: str) -> None:  # noqa: B027 - optional hook
        """The last local socket of `game_id` went away: its announcements may stop (as for `watch`)."""

    # Presence: which seats of a game have a live connection (websocket) somewhere. It is no part of
    # the game document and changes no version: it is a set of expiring entries, one per connection,
    # so that the connections of a process that died without saying goodbye vanish by themselves.

    @abstractmethod
    def set_presence(self, game_id: str, member: str, seat: int, ttl: float) -> None:
        """Mark connection `member` (unique per connection) as holding `seat` of `game_id` for `ttl`
        seconds; call again to refresh; `ttl <= 0` removes the entry at once.

        Whenever the set of online seats of the game differs from what the previous call on that game
        found (including entries that expired meanwhile), every subscriber's `on_presence(game_id)` is
        called, in every process sharing the backend. Expired entries are noticed on the next call.
        """

    @abstractmethod
    def online_seats(self, game_id: str) -> list[int]:
        """Return the seats of `game_id` with at least one unexpired entry, ascending."""

    @abstractmethod
    def ping(self) -> bool:
        """Return True when the backend answers."""

    def close(self) -> None:  # noqa: B027 - optional hook
        """Release connections and threads."""


def version_only(callback: Callable[[str, int], None]) -> Callable[[str, int, object], None]:
    """Adapt a subscriber that takes (game_id, version) to the (game_id, version, announcement) call the
    stores make internally."""
    return lambda game_id, version, _announcement: callback(game_id, version)


# The idempotency records of a game, as the embedded stores keep them (Redis keeps the same list as
# JSON in its commit script): [key, version produced, fingerprint, seat], oldest first.
IdemRecord = list


def find_record(records: list[IdemRecord], key: str) -> IdemRecord | None:
    """Return the record of `key` among `records`, or None."""
    return next((record for record in records if record[0] == key), None)


def remember(records: list[IdemRecord], key: str, version: int, fingerprint: str,
             seat: int) -> list[IdemRecord]:
    """Return `records` with `key`'s record added for `seat`, less that seat's oldest records beyond
    IDEMPOTENCY_WINDOW (the other seats' records stay)."""
    kept = [*records, [key, version, fingerprint, seat]]
    extra = sum(1 for record in kept if record[3] == seat) - IDEMPOTENCY_WINDOW
    while extra > 0:
        oldest = next(i for i, record in enumerate(kept) if record[3] == seat)
        del kept[oldest]
        extra -= 1
    return kept
