"""SqliteStore: the embedded default (one file, stdlib sqlite3, nothing else to install).

- WAL journal, so readers never wait for the writer; `synchronous=NORMAL`, which in WAL mode survives an
  application crash (a power cut may lose the last commits; the game then resyncs by version).
- One connection per thread (sqlite3 connections are not safe to share); every write is one
  `BEGIN IMMEDIATE` transaction, so the idempotency check, the compare-and-set
  (`UPDATE ... WHERE id=? AND version=?`), the idempotency record and the log append commit together.
- A game is one row: its document, its log (one line per version from 2 on, appended by each
  commit) and its idempotency records (JSON: the newest few per seat, base.remember).
- Lifetimes are wall-clock `expires_at` columns (the file outlives the process, a monotonic clock does
  not); expired rows read as absent and are purged lazily.
- Fan-out is an in-process broker: subscribers in *this process* hear commits made through *this store
  object*. Another process sharing the file hears nothing, so the server must run one worker with it
  (see `api.store.is_multiprocess_safe`).
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from .base import CommitResult, GameStore, StoreUnavailable, find_record, remember
from .broker import LocalBroker

# Purge expired rows at most this often (seconds).
_SWEEP_EVERY = 60.0
# How long a writer waits for the write lock held by another connection before giving up (ms).
_BUSY_TIMEOUT_MS = 5000

# The layout's number, kept in the file (PRAGMA user_version). A file of layout 2 (releases up to 0.2.1:
# idempotency records in a table of their own, one row per key for 24 hours) is brought to 3 in place
# (_UPGRADE: its records are dropped; a retry of a move made before the upgrade then gets a conflict,
# never a second application). Files of any other number were written by development builds before the
# first release: their tables are dropped and made afresh.
SCHEMA_VERSION = 3
_UPGRADE = {2: "ALTER TABLE games ADD COLUMN idem TEXT NOT NULL DEFAULT '[]'; DROP TABLE IF EXISTS idem;"}
_DROP = "DROP TABLE IF EXISTS games; DROP TABLE IF EXISTS idem; DROP TABLE IF EXISTS log;"
_SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    id TEXT PRIMARY KEY, version INTEGER NOT NULL, doc TEXT NOT NULL, log TEXT NOT NULL,
    expires_at REAL NOT NULL, idem TEXT NOT NULL DEFAULT '[]'
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS active (
    game_id TEXT PRIMARY KEY, at REAL NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS codes (
    code TEXT PRIMARY KEY, game_id TEXT NOT NULL, expires_at REAL NOT NULL
) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS hits (
    key TEXT PRIMARY KEY, count INTEGER NOT NULL, window_end REAL NOT NULL
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS games_expiry ON games (expires_at);
CREATE INDEX IF NOT EXISTS codes_expiry ON codes (expires_at);
CREATE INDEX IF NOT EXISTS hits_expiry ON hits (window_end);
CREATE TABLE IF NOT EXISTS links (
    game_id TEXT PRIMARY KEY, rematch_id TEXT NOT NULL, expires_at REAL NOT NULL
) WITHOUT ROWID;
"""


class SqliteStore(GameStore):
    """Store in one SQLite file at `path` (created with its directory if missing).

    `clock` returns wall-clock seconds (default time.time). Raises StoreUnavailable when the file cannot
    be opened or the schema cannot be created.
    """

    def __init__(self, path: str | os.PathLike[str], *, clock: Callable[[], float] = time.time) -> None:
        self.path = os.fspath(path)
        self._clock = clock
        self._local = threading.local()
        self._conns_lock = threading.Lock()
        # Every open connection by the thread that owns it, so close() can close them all and dead
        # threads' connections can be reclaimed (werkzeug's threaded server starts a thread per request).
        self._conns: dict[threading.Thread, sqlite3.Connection] = {}
        self._closed = False
        self._next_sweep = 0.0
        self._broker = LocalBroker("sqlite-store-broker")
        parent = os.path.dirname(os.path.abspath(self.path))
        try:
            os.makedirs(parent, exist_ok=True)
        except OSError as exc:
            raise StoreUnavailable(f"cannot create {parent}: {exc}") from exc
        with self._errors():
            conn = self._conn()
            conn.execute("PRAGMA journal_mode=WAL")
            found = conn.execute("PRAGMA user_version").fetchone()[0]
            if found in _UPGRADE:
                conn.executescript(f"BEGIN IMMEDIATE; {_UPGRADE[found]} "
                                   f"PRAGMA user_version={SCHEMA_VERSION}; COMMIT;")
            elif found != SCHEMA_VERSION:
                conn.executescript(_DROP)
                conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
            conn.executescript(_SCHEMA)

    # -- games -------------------------------------------------------------------------------------

    def create(self, game_id: str, doc: str, ttl: int) -> bool:
        """Store `doc` at version 1 for `ttl` seconds; return False if a live game has this id."""
        with self._write() as (conn, now):
            row = conn.execute("SELECT expires_at FROM games WHERE id=?", (game_id,)).fetchone()
            if row is not None and row[0] > now:
                return False
            if row is not None:  # an expired game with this id: purge it and its records first
                self._purge_game(conn, game_id)
            conn.execute(
                "INSERT INTO games (id, version, doc, log, expires_at) VALUES (?, 1, ?, '', ?)",
                (game_id, doc, now + ttl),
            )
            return True

    def load(self, game_id: str) -> tuple[int, str] | None:
        """Return (version, doc), or None when the game does not exist or has expired."""
        with self._errors():
            row = (
                self._conn()
                .execute(
                    "SELECT version, doc FROM games WHERE id=? AND expires_at>?", (game_id, self._clock())
                )
                .fetchone()
            )
        return None if row is None else (row[0], row[1])

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
        compact: bool = False,  # nothing to do: SQLite writes the row at its size
        log: str = "",
        announce: str = "",
    ) -> CommitResult:
        """Compare-and-set as specified in GameStore.commit; raises StoreUnavailable on I/O failure."""
        with self._write() as (conn, now):
            row = conn.execute(
                "SELECT version, idem FROM games WHERE id=? AND expires_at>?", (game_id, now)
            ).fetchone()
            current = 0 if row is None else row[0]
            records = [] if row is None else json.loads(row[1])
            if idem_key is not None:
                record = find_record(records, idem_key)
                if record is not None:
                    if record[2] != fingerprint:
                        return CommitResult("mismatch", current)
                    return CommitResult("duplicate", record[1])
            if row is None:
                return CommitResult("missing", 0)
            new_version = expected_version + 1
            # The compare-and-set proper. Under BEGIN IMMEDIATE nobody else can write in between, so the
            # version check above would do; the WHERE clause keeps the update correct on its own.
            if idem_key is not None:
                records = remember(records, idem_key, new_version, fingerprint, seat)
            updated = conn.execute(
                "UPDATE games SET version=?, doc=?, log=log || ?, expires_at=?, idem=?"
                " WHERE id=? AND version=?",
                (new_version, doc, log + "\n", now + ttl, _json(records), game_id, expected_version),
            ).rowcount
            if updated == 0:
                return CommitResult("conflict", current)
        # Published only after COMMIT succeeded, so a subscriber that reloads sees the new version.
        self._broker.publish(game_id, new_version, announce)
        return CommitResult("ok", new_version)

    def log_since(self, game_id: str, version: int) -> list[tuple[int, str]]:
        """Return the log entries with version > `version`, oldest first ([] for a missing game)."""
        with self._errors():
            row = (
                self._conn()
                .execute("SELECT log FROM games WHERE id=? AND expires_at>?", (game_id, self._clock()))
                .fetchone()
            )
        if row is None or not row[0]:
            return []
        return [(v, entry) for v, entry in enumerate(row[0].split("\n")[:-1], start=2) if v > version]

    # -- rematch links -----------------------------------------------------------------------------

    def link_rematch(self, game_id: str, rematch_id: str) -> str | None:
        """As specified in GameStore.link_rematch (one BEGIN IMMEDIATE transaction)."""
        with self._write() as (conn, now):
            game = conn.execute("SELECT expires_at FROM games WHERE id=? AND expires_at>?",
                                (game_id, now)).fetchone()
            if game is None:
                return None
            link = conn.execute("SELECT rematch_id FROM links WHERE game_id=? AND expires_at>?",
                                (game_id, now)).fetchone()
            if link is not None:
                return link[0]
            conn.execute("INSERT OR REPLACE INTO links (game_id, rematch_id, expires_at) VALUES (?, ?, ?)",
                         (game_id, rematch_id, game[0]))
            return rematch_id

    # -- codes and rate limits ---------------------------------------------------------------------

    def note_active(self, moves: dict[str, float]) -> None:
        """Record the latest move time of each game (unix seconds), in one transaction."""
        with self._write() as (conn, _now):
            conn.executemany(
                "INSERT INTO active (game_id, at) VALUES (?, ?)"
                " ON CONFLICT (game_id) DO UPDATE SET at = max(at, excluded.at)",
                list(moves.items()),
            )

    def count_active(self, since: float) -> int:
        """Return how many games moved at or after `since`, forgetting the others."""
        with self._write() as (conn, _now):
            conn.execute("DELETE FROM active WHERE at < ?", (since,))
            return conn.execute("SELECT count(*) FROM active").fetchone()[0]

    def put_code(self, code: str, game_id: str, ttl: int) -> bool:
        """Map `code` to `game_id` for `ttl` seconds; return False if a live mapping exists."""
        with self._write() as (conn, now):
            row = conn.execute("SELECT expires_at FROM codes WHERE code=?", (code,)).fetchone()
            if row is not None and row[0] > now:
                return False
            conn.execute(
                "INSERT OR REPLACE INTO codes (code, game_id, expires_at) VALUES (?, ?, ?)",
                (code, game_id, now + ttl),
            )
            return True

    def get_code(self, code: str) -> str | None:
        """Return the game id of a live code, or None."""
        with self._errors():
            row = (
                self._conn()
                .execute("SELECT game_id FROM codes WHERE code=? AND expires_at>?", (code, self._clock()))
                .fetchone()
            )
        return None if row is None else row[0]

    def delete_code(self, code: str) -> None:
        """Forget `code` (no error if it is unknown)."""
        with self._write() as (conn, _now):
            conn.execute("DELETE FROM codes WHERE code=?", (code,))

    def hit(self, key: str, limit: int, window: int, cost: int = 1) -> float | None:
        """Count events in the fixed window that started with the first one (see GameStore.hit)."""
        with self._write() as (conn, now):
            row = conn.execute("SELECT count, window_end FROM hits WHERE key=?", (key,)).fetchone()
            count, ends = (0, now + window) if row is None or row[1] <= now else row
            if cost < 0:
                if count:
                    conn.execute("UPDATE hits SET count=? WHERE key=?", (max(count + cost, 0), key))
                return None
            if count + cost > limit:
                return ends - now
            conn.execute(
                "INSERT OR REPLACE INTO hits (key, count, window_end) VALUES (?, ?, ?)",
                (key, count + cost, ends),
            )
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
        """Call `callback(game_id, version)` on the broker thread after each commit through this object.

        In-process only (see the module docstring). Returns the cancel function. `on_reset` is accepted
        and never called: nothing is lost in-process.
        """
        return self._broker.subscribe(callback, on_presence, announcements=announcements)

    def set_presence(self, game_id: str, member: str, seat: int, ttl: float) -> None:
        """Record, refresh or (ttl <= 0) remove a connection's presence entry (in-process, like fan-out)."""
        self._broker.set_presence(game_id, member, seat, ttl)

    def online_seats(self, game_id: str) -> list[int]:
        """Return the seats of `game_id` with a live presence entry, ascending."""
        return self._broker.online_seats(game_id)

    def ping(self) -> bool:
        """Return True when the database file answers a query, False otherwise."""
        try:
            with self._errors():
                self._conn().execute("SELECT 1").fetchone()
        except StoreUnavailable:
            return False
        return True

    def close(self) -> None:
        """Stop the broker thread and close every thread's connection; later calls raise StoreUnavailable."""
        self._broker.close()
        with self._conns_lock:
            self._closed = True
            conns, self._conns = self._conns, {}
        for conn in conns.values():
            conn.close()

    # -- internals ---------------------------------------------------------------------------------

    def _conn(self) -> sqlite3.Connection:
        """Return this thread's connection, opening it on first use."""
        conn = getattr(self._local, "conn", None)
        if conn is not None:
            return conn
        with self._conns_lock:
            if self._closed:
                raise StoreUnavailable("store is closed")
            for thread in [t for t in self._conns if not t.is_alive()]:
                self._conns.pop(thread).close()  # its thread is gone, so nobody else uses it
            # isolation_level=None: we issue BEGIN/COMMIT ourselves. check_same_thread=False only so
            # close() may close connections of other threads; each is otherwise used by its own thread.
            conn = sqlite3.connect(
                self.path, timeout=_BUSY_TIMEOUT_MS / 1000, isolation_level=None, check_same_thread=False
            )
            conn.execute(f"PRAGMA busy_timeout={_BUSY_TIMEOUT_MS}")
            conn.execute("PRAGMA synchronous=NORMAL")
            self._conns[threading.current_thread()] = conn
        self._local.conn = conn
        return conn

    @contextmanager
    def _errors(self) -> Iterator[None]:
        """Turn SQLite's operational failures (locked past the busy timeout, I/O, no file) into 503s."""
        try:
            yield
        except sqlite3.OperationalError as exc:
            raise StoreUnavailable(f"sqlite: {exc}") from exc
        except sqlite3.ProgrammingError as exc:  # used after close()
            raise StoreUnavailable(f"sqlite: {exc}") from exc

    @contextmanager
    def _write(self) -> Iterator[tuple[sqlite3.Connection, float]]:
        """Run the body in one BEGIN IMMEDIATE transaction; yield (connection, now).

        Commits when the body returns (also by an early `return`), rolls back when it raises.
        """
        with self._errors():
            conn = self._conn()
            conn.execute("BEGIN IMMEDIATE")
            try:
                now = self._clock()
                if now >= self._next_sweep:
                    self._next_sweep = now + _SWEEP_EVERY
                    self._sweep(conn, now)
                yield conn, now
                conn.execute("COMMIT")
            except BaseException:
                # SQLite may already have rolled back by itself (e.g. after an I/O error).
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise

    @staticmethod
    def _purge_game(conn: sqlite3.Connection, game_id: str) -> None:
        conn.execute("DELETE FROM games WHERE id=?", (game_id,))

    @staticmethod
    def _sweep(conn: sqlite3.Connection, now: float) -> None:
        """Delete everything expired (inside the caller's write transaction)."""
        conn.execute("DELETE FROM games WHERE expires_at<=?", (now,))
        conn.execute("DELETE FROM codes WHERE expires_at<=?", (now,))
        conn.execute("DELETE FROM hits WHERE window_end<=?", (now,))
        conn.execute("DELETE FROM links WHERE expires_at<=?", (now,))


def _json(records: list) -> str:
    """Return the compact JSON text of idempotency records."""
    return json.dumps(records, ensure_ascii=False, separators=(",", ":"))
