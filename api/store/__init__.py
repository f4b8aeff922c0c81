"""Game stores behind one contract (base.GameStore); `open_store` picks one from a URL.

    redis://host:port/db, rediss://...   RedisStore: production, any number of workers and hosts
    redis+sentinel://h:p,h:p,h:p/<name>  RedisStore on the primary the Sentinels name, through failovers
    redis+cluster://h:p[,h:p...]         RedisStore on a Redis Cluster (api/store/redis_connect.py)
    sqlite:///rel.db, sqlite:////abs.db  SqliteStore: the embedded default, one worker
    None (or "")                          SqliteStore at <data_dir>/games.db
    memory://                             MemoryStore: tests and throwaway servers, one worker
"""

from __future__ import annotations

import os
from pathlib import Path

from .base import IDEMPOTENCY_WINDOW, CommitResult, GameStore, StoreUnavailable

__all__ = [
    "IDEMPOTENCY_WINDOW",
    "CommitResult",
    "GameStore",
    "StoreUnavailable",
    "default_data_dir",
    "is_multiprocess_safe",
    "open_store",
]

SQLITE_FILE = "games.db"


def default_data_dir() -> Path:
    """Return $XDG_DATA_HOME/alcabohne, or ~/.local/share/alcabohne when XDG_DATA_HOME is unset/empty."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return Path(base) / "alcabohne"


def open_store(url: str | None, data_dir: str | None = None, *, wait_replicas: int | None = None,
               wait_timeout: float | None = None) -> GameStore:
    """Return the store that `url` names (see the module docstring).

    `data_dir` (default: default_data_dir()) is where a SQLite store keeps its file when the URL is
    None or names a relative path (`sqlite:///games.db`); `sqlite:////abs/games.db` (four slashes, as in
    SQLAlchemy) is absolute. Raises ValueError for an unknown scheme or a
    malformed URL, StoreUnavailable when the SQLite file cannot be created. Redis connects lazily.

    `wait_replicas` and `wait_timeout` (Redis only; see RedisStore) default to the URL's options, else
    to the settings REDIS_WAIT_REPLICAS and REDIS_WAIT_TIMEOUT of the environment (api.config).
    """
    if not url:
        return _sqlite(Path(data_dir) if data_dir else default_data_dir(), SQLITE_FILE)
    scheme, sep, rest = url.partition("://")
    scheme = scheme.lower()
    if not sep:
        raise ValueError(f"store URL needs a scheme (redis://, sqlite:///, memory://): {url!r}")
    if scheme in ("redis", "rediss", "unix", "redis+sentinel", "redis+cluster"):
        from api import config

        from .redis import RedisStore

        query = url.partition("?")[2]
        env = config.from_env()
        if wait_replicas is None and "wait_replicas=" not in query:
            wait_replicas = env.get("REDIS_WAIT_REPLICAS")
        if wait_timeout is None and "wait_timeout=" not in query:
            wait_timeout = env.get("REDIS_WAIT_TIMEOUT")
        return RedisStore(url, wait_replicas=wait_replicas, wait_timeout=wait_timeout)
    if scheme == "sqlite":
        # sqlite:///x.db -> "x.db" (relative); sqlite:////abs/x.db -> "/abs/x.db" (SQLAlchemy's convention).
        if not rest.startswith("/") or rest == "/":
            raise ValueError(f"sqlite URL must look like sqlite:///path/to/file.db: {url!r}")
        path = rest[1:]
        if os.path.isabs(path):
            return _sqlite(Path(path).parent, Path(path).name)
        if path.endswith("/") or path == "":
            raise ValueError(f"sqlite URL names a directory, not a file: {url!r}")
        full = (Path(data_dir) if data_dir else default_data_dir()) / path
        return _sqlite(full.parent, full.name)
    if scheme == "memory":
        from .memory import MemoryStore

        return MemoryStore()
    raise ValueError(f"unknown store URL scheme {scheme!r} (use redis://, rediss://, redis+sentinel://, "
                     f"redis+cluster://, sqlite:///, memory://)")


def is_multiprocess_safe(store: GameStore) -> bool:
    """Return True when several worker processes may share `store` (fan-out crosses processes).

    Only Redis: SQLite and memory fan out in-process, so a server using them must run one worker.
    """
    from .redis import RedisStore

    return isinstance(store, RedisStore)


def _sqlite(directory: Path, name: str) -> GameStore:
    from .sqlite import SqliteStore

    return SqliteStore(directory / name)
