"""RedisStore: the production backend, shared by every worker process and host.

One server, a primary that Sentinels watch (followed through failovers) or a Redis Cluster: the URL
decides (api/store/redis_connect.py makes the clients); everything below is the same for the three,
but the fan-out of a cluster (sharded pub/sub, api/store/redis_sharded.py).

Keys (all of one game hash-tagged by its id, so each Lua script touches a single cluster slot):

    cg:v1:g:{<gid>}:state        hash  v=<version> s=<document> t=<token>  lifetime = the game's ttl
                                       i=<idempotency records>: JSON [[key, version, fingerprint, seat],
                                       ...], the newest IDEMPOTENCY_WINDOW per seat (base.remember)
    cg:v1:g:{<gid>}:log          string  one line per version from 2 on    the game's ttl
    cg:v1:g:{<gid>}              pub/sub channel; message "<version>[\n<announcement>]" (public text)
    cg:v1:g:{<gid>}:presence     zset  "<seat>|<member>" scored by expiry (ms, server clock)
    cg:v1:g:{<gid>}:seats        string  the online seats last announced ("0,1")
    cg:v1:g:{<gid>}:presence     pub/sub channel (also matched by the pattern); message: the seats
                                 (on a cluster both channels are sharded: SPUBLISH, SSUBSCRIBE)
    cg:v1:active                 zset  game id scored by its latest move (unix seconds), trimmed when
                                 counted (one key: on Redis Cluster one slot, fine at this size)
    cg:v1:code:<code>            string  game id                            the code's ttl
    cg:v1:g:{<gid>}:rematch      string  the rematch game's id              the game's ttl when linked
    cg:v1:rl:<key>               string  counter                            the window

A commit is one Lua script: idempotency check, CAS on the version, write, EXPIRE,
idempotency record, log append and PUBLISH happen atomically in one round trip. (Releases up to 0.2.1
kept the records in a hash of their own, `cg:v1:g:{<gid>}:idem`, one field per key for 24 hours: such
a key is no longer read and expires by itself.)

A commit whose answer is lost (a timeout: the server may be frozen, not gone) is sent again, and the
server runs every copy it got, in order. So each commit carries a token of its own (`t`, the token of
the latest commit): a copy that finds its own token there was applied by an earlier copy and answers
"ok", where it would have met a version that moved on and answered "conflict" (a move applied yet
reported as refused). When no copy got an answer, nobody knows whether the commit was applied:
`commit` raises OutcomeUnknown instead of StoreUnavailable ("nothing was changed").

Durability (`wait_replicas`, ALCABOHNE_REDIS_WAIT_REPLICAS): replication is asynchronous, so a commit
acknowledged just before the primary dies may be missing on the replica promoted in its place. With
`wait_replicas` = N the commit is sent with a WAIT N on the same connection, in the same write; fewer
confirmations in time raise OutcomeUnknown (applied here, maybe lost in a failover), and the caller's
retry with the same idempotency key finds out.

Bytes per game are a budget (tests/perf/storage_bench.py): a game's idempotency records are one field
of its state hash, a few per seat (a key of their own would cost some 100 bytes more), and its log is
one string the commit APPENDs a short line to (a stream entry costs several times its few bytes).

Fan-out (one server, Sentinel): one PSUBSCRIBE `cg:v1:g:*` per store object on its own connection (no
socket_timeout, health checks every 30 s), read by redis-py's listener thread. If that connection drops,
redis-py reconnects and re-subscribes on the listener's next read; announcements published meanwhile are
lost, so the store then calls every `on_reset` hook given to `subscribe` (the hub answers by telling its
sockets to resync). Behind Sentinels the reconnect asks them for the primary, so after a failover it
lands on the new one; and since an old primary that was only cut off or frozen answers again as a
primary of nothing, the store also listens to the Sentinels (redis_connect.Connector.follow) and, when
they name a new primary, leaves the old one at once: commands, kept commit connections and this one.
On a cluster the store subscribes game by game instead (`watch`/`unwatch`, from the hub), see
redis_sharded.

A commit's message carries its version and the announcement the caller gave (`commit`'s `announce`,
public text: a move's log entry), never the document: anyone subscribed to the server, not only our
workers, may read the channel, and the document holds the seed, the salt and the seats' token hashes.
"""

from __future__ import annotations

import contextlib
import logging
import secrets
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import redis

from .base import (
    IDEMPOTENCY_WINDOW,
    CommitResult,
    GameStore,
    OutcomeUnknown,
    StoreUnavailable,
    version_only,
)
from .redis_connect import connect
from .redis_sharded import ShardedListener

log = logging.getLogger(__name__)

PREFIX = "cg:v1:"
PATTERN = PREFIX + "g:*"
_CHANNEL_HEAD = PREFIX + "g:{"

# A server that cannot be reached, or is up but cannot take commands now, is answered as 503: known by
# the class redis-py raises, never by the text (redis-py drops the "OOM", "READONLY", "MASTERDOWN" prefix
# from the text of the errors it has a class for). ConnectionError covers LOADING (BusyLoadingError) and
# a full pool; ClusterDownError covers MASTERDOWN.
_UNAVAILABLE = (
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    redis.exceptions.OutOfMemoryError,
    redis.exceptions.ReadOnlyError,
    redis.exceptions.ClusterDownError,
    redis.exceptions.TryAgainError,
)
# Replies redis-py has no class for come as a plain ResponseError with their code kept in the text.
_UNCLASSED_UNAVAILABLE = ("MISCONF", "NOREPLICAS", "BUSY ")

# Connections per store object (per worker process): enough for far more commands per second than a
# worker can make, few enough that many workers stay well under Redis's maxclients (10000).
POOL_SIZE = 64
# Idle connections kept aside for the commit script (see RedisStore._run): enough for the commits one
# worker has in flight at once in a burst, taken from (and beyond it given back to) the pool.
HOT_IDLE = 8
# Copies of a script sent before giving up on a broken connection, and the first pause between them
# (seconds, doubled each time): a few, so that a dead server is a quick 503 rather than a hang.
_ATTEMPTS, _BACKOFF = 3, 0.05
# A copy is sent again only within this many socket timeouts of the first (see RedisStore._run): a
# frozen server is then answered as outcome unknown after a few timeouts, instead of after every
# attempt's connect retries as well (each of which waits a timeout of its own).
_RESEND_WITHIN = 2
# Seconds the listener blocks per read: bounds how long close() waits for the thread to notice.
_LISTEN_SLICE = 0.25
# Backoff while the pub/sub connection is down (seconds): first retry, cap.
_RECONNECT_FIRST, _RECONNECT_CAP = 0.1, 2.0

# KEYS: state, log.  ARGV: expected, doc, ttl, idem key ('' for none), fingerprint, log, the key's seat,
# channel, announcement, commit token, "1" when the caller WAITs for replicas, the records kept per seat,
# "1" to store the log at its size (compact).
# Returns {status, version}: for a duplicate, the version the key's commit produced; "ok" also for a
# copy of the latest commit (its token). Those two answers write nothing, unless the caller WAITs: then
# they refresh a lifetime, a write that replicates after the commit they report, so that WAIT on this
# connection also covers it.
_COMMIT = """
local v, t, i = unpack(redis.call('HMGET', KEYS[1], 'v', 't', 'i'))
local current = v and tonumber(v) or 0
if t == ARGV[10] then
  if ARGV[11] == '1' then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
  return {'ok', current}
end
local records = {}
if ARGV[4] ~= '' and i then
  records = cjson.decode(i)
  for _, rec in ipairs(records) do
    if rec[1] == ARGV[4] then
      if rec[3] ~= ARGV[5] then return {'mismatch', current} end
      if ARGV[11] == '1' then redis.call('EXPIRE', KEYS[1], ARGV[3]) end
      return {'duplicate', rec[2]}
    end
  end
end
if current == 0 then return {'missing', 0} end
if current ~= tonumber(ARGV[1]) then return {'conflict', current} end
local new = tostring(current + 1)
if ARGV[4] ~= '' then
  local seat, mine = tonumber(ARGV[7]), 0
  table.insert(records, {ARGV[4], current + 1, ARGV[5], seat})
  for _, rec in ipairs(records) do
    if rec[4] == seat then mine = mine + 1 end
  end
  local k = 1
  while mine > tonumber(ARGV[12]) do
    if records[k][4] == seat then table.remove(records, k); mine = mine - 1 else k = k + 1 end
  end
  redis.call('HSET', KEYS[1], 'v', new, 's', ARGV[2], 't', ARGV[10], 'i', cjson.encode(records))
else
  redis.call('HSET', KEYS[1], 'v', new, 's', ARGV[2], 't', ARGV[10])
end
redis.call('EXPIRE', KEYS[1], ARGV[3])
if ARGV[13] == '1' then
  -- APPEND leaves a string room to grow by as much again (Redis doubles what it grows): in a game over,
  -- the log is written afresh at its size.
  redis.call('SET', KEYS[2], (redis.call('GET', KEYS[2]) or '') .. ARGV[6] .. '\\n')
else
  redis.call('APPEND', KEYS[2], ARGV[6] .. '\\n')
end
redis.call('EXPIRE', KEYS[2], ARGV[3])
if ARGV[9] == '' then
  redis.call('PUBLISH', ARGV[8], new)
else
  redis.call('PUBLISH', ARGV[8], new .. '\\n' .. ARGV[9])
end
return {'ok', current + 1}
"""

# KEYS: the game's state, its rematch link.  ARGV: the rematch id.  Returns the game's rematch id, or
# nil for a missing game. The link gets the game's remaining lifetime (GameStore.link_rematch).
_LINK = """
local ttl = redis.call('PTTL', KEYS[1])
if ttl == -2 then return false end
local linked = redis.call('GET', KEYS[2])
if linked then return linked end
if ttl > 0 then
  redis.call('SET', KEYS[2], ARGV[1], 'PX', ttl)
else
  redis.call('SET', KEYS[2], ARGV[1])
end
return ARGV[1]
"""

# KEYS: presence, seats.  ARGV: "<seat>|<member>", ttl (ms; <= 0 removes), channel.  Returns the online
# seats ("0,1"). The server's clock decides expiry, so hosts with skewed clocks agree.
_PRESENCE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local ttl = tonumber(ARGV[2])
if ttl > 0 then
  redis.call('ZADD', KEYS[1], now + ttl, ARGV[1])
else
  redis.call('ZREM', KEYS[1], ARGV[1])
end
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
local seen, seats = {}, {}
for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  local seat = tonumber(string.match(m, '^(%d+)|'))
  if seat and not seen[seat] then seen[seat] = true; table.insert(seats, seat) end
end
table.sort(seats)
local now_seats = table.concat(seats, ',')
local before = redis.call('GET', KEYS[2]) or ''
local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if last[2] then
  local left = math.max(tonumber(last[2]) - now, 1)
  redis.call('PEXPIRE', KEYS[1], left)
  redis.call('SET', KEYS[2], now_seats, 'PX', left)
else
  redis.call('DEL', KEYS[1], KEYS[2])
end
if now_seats ~= before then redis.call('PUBLISH', ARGV[3], now_seats) end
return now_seats
"""

# KEYS: presence.  Returns the unexpired members.
_ONLINE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return redis.call('ZRANGEBYSCORE', KEYS[1], '(' .. now, '+inf')
"""

# KEYS: state, log.  ARGV: doc, ttl.  A log left by an earlier game with this id (it may outlive its
# state by a moment) belongs to that game.
_CREATE = """
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'v', '1', 's', ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[2])
redis.call('DEL', KEYS[2])
return 1
"""

# KEYS: counter.  ARGV: window.  TTL < 0 repairs a counter that lost its expiry.
# GameStore.hit: KEYS[1] the counter; ARGV limit, window (ms), cost. Returns -1 (counted, or taken
# back) or the milliseconds left of the window (refused, nothing counted).
_HIT = """
local n = tonumber(redis.call('GET', KEYS[1]) or '0')
local cost = tonumber(ARGV[3])
if cost < 0 then
  if n > 0 then redis.call('DECRBY', KEYS[1], math.min(-cost, n)) end
  return -1
end
if n + cost > tonumber(ARGV[1]) then
  local left = redis.call('PTTL', KEYS[1])
  if left > 0 then return left end
  return tonumber(ARGV[2])
end
redis.call('INCRBY', KEYS[1], cost)
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
return -1
"""


def game_key(game_id: str, part: str) -> str:
    """Return the key of one part ("state", "log", "presence", ...) of a game."""
    return f"{_CHANNEL_HEAD}{game_id}}}:{part}"


def game_channel(game_id: str) -> str:
    """Return the pub/sub channel of a game."""
    return f"{_CHANNEL_HEAD}{game_id}}}"


_PRESENCE_TAIL = "}:presence"


def _game_of_channel(channel: str) -> str | None:
    if channel.startswith(_CHANNEL_HEAD) and channel.endswith("}"):
        return channel[len(_CHANNEL_HEAD) : -1]
    return None


class RedisStore(GameStore):
    """Store in the Redis of `url`: one server, a Sentinel-watched primary or a Cluster (redis_connect).

    `timeout` bounds connecting and each command (seconds). Connecting is lazy: the constructor does
    not touch the network and never raises StoreUnavailable; the first command does. At most
    `pool_size` connections per server are open at once (besides the pub/sub ones); a thread that
    finds them all busy waits for one (up to `timeout`) instead of failing.

    `wait_replicas` > 0 (default: the URL's `wait_replicas`, else 0) makes every create and commit
    wait, on the same connection, until that many replicas have it (Redis WAIT, at most
    `wait_timeout` seconds): with asynchronous replication a change acknowledged just before the
    primary dies may be missing on the replica promoted in its place, unless a replica had it. A
    change that was applied but not confirmed in time raises OutcomeUnknown (503 outcome_unknown): a
    retry with the same idempotency key answers "duplicate" once the replicas have it (the script
    writes again, so that this WAIT covers the earlier write), or applies it afresh if a failover
    lost it.
    """

    def __init__(self, url: str, *, timeout: float = 5.0, pool_size: int = POOL_SIZE,
                 wait_replicas: int | None = None, wait_timeout: float | None = None) -> None:
        self.url = url
        self._conn = connect(url, timeout=timeout, pool_size=pool_size)
        options = self._conn.options
        self.wait_replicas = int(options.get("wait_replicas", 0) if wait_replicas is None else wait_replicas)
        self.wait_timeout = float(options.get("wait_timeout", 1.0) if wait_timeout is None else wait_timeout)
        if self.wait_replicas < 0 or (self.wait_replicas and not 0 < self.wait_timeout < timeout):
            raise ValueError(f"wait_replicas must be >= 0 and wait_timeout within (0, {timeout}) seconds")
        self._client = self._conn.client
        # On a cluster a classic PUBLISH reaches every node: the scripts announce on sharded channels.
        publish = "'SPUBLISH'" if self._conn.sharded else "'PUBLISH'"
        register = self._client.register_script
        self._commit = register(_COMMIT.replace("'PUBLISH'", publish))
        self._hot: list[Any] = []  # idle connections of the commit script, last used first (LIFO)
        self._hot_open = not self._conn.sharded  # one pool to keep them from; a cluster has one per node
        self._create = register(_CREATE)
        self._hit = register(_HIT)
        self._presence = register(_PRESENCE.replace("'PUBLISH'", publish))
        self._online = register(_ONLINE)
        self._link = register(_LINK)

        self._sub_lock = threading.Lock()
        self._callbacks: dict[int, Callable[[str, int], None]] = {}
        self._resets: dict[int, Callable[[], None]] = {}
        self._presence_callbacks: dict[int, Callable[[str], None]] = {}
        self._next_token = 0
        self._sub_client: redis.Redis | None = None
        self._pubsub: Any = None  # redis.client.PubSub, created by the first subscribe()
        self._thread: Any = None  # redis.client.PubSubWorkerThread
        self._sharded: ShardedListener | None = None  # instead of the two above on a cluster
        self._stopping = threading.Event()
        self._outage_delay = 0.0  # > 0 while the pub/sub connection is down
        self._timeout = timeout
        self._conn.follow(self._on_switch)  # behind Sentinels: hear of a new primary at once

    # -- games -------------------------------------------------------------------------------------

    def create(self, game_id: str, doc: str, ttl: int) -> bool:
        """Store `doc` at version 1 for `ttl` seconds; return False if the game exists."""
        keys = [game_key(game_id, "state"), game_key(game_id, "log")]
        with _errors():
            return self._run(self._create, keys, [doc, ttl], wrote=lambda created: created == 1) == 1

    def load(self, game_id: str) -> tuple[int, str] | None:
        """Return (version, doc), or None when the game does not exist or has expired."""
        with _errors():
            version, doc = self._client.hmget(game_key(game_id, "state"), ["v", "s"])
        return None if version is None else (int(version), doc)

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
        """Compare-and-set as specified in GameStore.commit, in one Lua script; raises StoreUnavailable,
        OutcomeUnknown when the answer (or the replicas' confirmation) did not come."""
        keys = [game_key(game_id, "state"), game_key(game_id, "log")]
        args = [
            expected_version, doc, ttl, "" if idem_key is None else idem_key, fingerprint, log,
            int(seat), game_channel(game_id), announce, secrets.token_hex(6),
            "1" if self.wait_replicas else "", IDEMPOTENCY_WINDOW, "1" if compact else "",
        ]  # fmt: skip
        with _errors():
            status, version = self._run(self._commit, keys, args, wrote=lambda r: r[0] in ("ok", "duplicate"))
        return CommitResult(status, int(version))

    def _run(self, script: Any, keys: list[str], args: list, *, wrote: Callable[[Any], bool]) -> Any:
        """Return the reply of `script` run on a connection to the server of `keys`: one write, one read
        (with WAIT, when the store waits for replicas, in the same write).

        The hot path of every move. redis-py's command path (retry wrapper, telemetry hooks, reply
        callbacks) costs CPU beside the round trip itself (docs/architecture.md, "Measured notes"),
        and CPU in a worker with hundreds of threads is paid again
        by every thread waiting for the GIL. So is taking a connection from redis-py's pool: its
        lock, telemetry and a poll() per use, which checks that nothing was left unread; a system call
        lets the GIL go, and the thread waits to get it back. The connections of this method never
        hold unread data (the replies are read in full, or the connection is dropped), so it keeps up
        to HOT_IDLE of them aside (one server, or the Sentinels' primary), taken from the pool once.

        A broken connection (a restarted server, a primary that died or became a replica) is dropped
        and the script sent again on another, after a short backoff: a copy that finds its own commit
        token, or its idempotency key, never applies twice. NOSCRIPT (a restart, a promoted replica)
        loads the script and sends again; MOVED/ASK (cluster slots moved), or a broken connection to a
        cluster node (it may have failed over to its replica), learns the slots again.
        `wrote(reply)` tells whether the reply reports a change that WAIT must confirm. Raises redis
        errors; OutcomeUnknown when a copy was sent and none got an answer, or the replicas did not
        confirm in time.
        """
        command = ("EVALSHA", script.sha, len(keys), *keys, *args)
        wait = ("WAIT", self.wait_replicas, int(self.wait_timeout * 1000)) if self.wait_replicas else None
        sent = False  # the server may have run a copy
        failure: Exception | None = None
        started = time.monotonic()
        for attempt in range(_ATTEMPTS):
            pool = self._conn.pool_for(keys[0])
            if attempt:
                # A copy sent long ago went unanswered: the server is frozen or far away, not restarted.
                # Another copy would only add to the wait (connecting retries too): say it is unknown.
                if sent and time.monotonic() - started > _RESEND_WITHIN * _timeout_of(pool):
                    break
                self._stopping.wait(_BACKOFF * 2 ** (attempt - 1))
            conn = None
            if self._hot_open:
                with contextlib.suppress(IndexError):
                    conn = self._hot.pop()  # atomic under the GIL: no lock
                if conn is not None and not pool.owns_connection(conn):  # to a primary the Sentinels replaced
                    pool.release(conn)  # closes it
                    conn = None
            clean = False  # nothing unread on the connection
            error: redis.ResponseError | None = None
            replica = False  # the script ran on a node that is a replica now (WAIT said so)
            try:
                if conn is None:
                    conn = pool.get_connection()
                conn.send_packed_command(conn.pack_commands([command, wait] if wait else [command]))
                sent = True
                try:
                    reply = conn.read_response()
                except redis.ResponseError as exc:  # read in full: WAIT's answer follows
                    error = exc
                acked = None
                if wait:
                    try:
                        acked = conn.read_response()
                    except redis.ResponseError as exc:  # a replica refuses WAIT: its node was demoted
                        replica, failure = error is None, exc
                clean = True
            except (redis.ConnectionError, redis.TimeoutError) as exc:
                failure = exc
                if self._conn.sharded:  # the node may be gone and its slots served by its replica now
                    with contextlib.suppress(redis.RedisError, redis.exceptions.RedisClusterException):
                        self._conn.refresh()
                continue
            finally:
                if conn is None:
                    pass  # no connection to be had
                elif clean and self._hot_open and len(self._hot) < HOT_IDLE:
                    self._hot.append(conn)
                else:
                    if not clean:
                        conn.disconnect()  # the pool connects it again when it is next used
                    pool.release(conn)
            if isinstance(error, redis.exceptions.NoScriptError):
                self._client.script_load(script.script)  # on a cluster: every primary
                continue
            if isinstance(error, redis.exceptions.AskError) or replica:  # MOVED is an AskError too
                self._conn.refresh()
                failure = error or failure
                continue
            if error is not None:
                raise error
            if wait and wrote(reply) and int(acked) < self.wait_replicas:
                # Few replicas, or none: this may be a primary the Sentinels have replaced. If so, leave
                # it now, so that the caller's retry (the same key) reaches the new one.
                with contextlib.suppress(redis.RedisError):
                    if self._conn.primary_moved():
                        self._on_switch()
                raise OutcomeUnknown(f"redis: {acked} of {self.wait_replicas} replicas confirmed a change "
                                     f"within {self.wait_timeout} s")
            return reply
        if isinstance(failure, redis.ResponseError):  # the cluster's slots kept moving: not run
            raise StoreUnavailable(f"redis: {failure}") from failure
        if sent:
            raise OutcomeUnknown(f"redis: no answer to a commit: {failure}") from failure
        raise failure or StoreUnavailable("redis: the script could not be loaded")

    def load_latest(self, game_id: str) -> tuple[int, str, str | None] | None:
        """Return (version, doc, log entry of that version or None) in one MULTI round trip."""
        with _errors():
            pipe = self._client.pipeline(transaction=True)
            pipe.hmget(game_key(game_id, "state"), ["v", "s"])
            pipe.get(game_key(game_id, "log"))
            (version, doc), log = pipe.execute()
        if version is None:
            return None
        entries = _entries(log)
        entry = entries[-1][1] if entries and entries[-1][0] == int(version) else None
        return int(version), doc, entry

    def log_since(self, game_id: str, version: int) -> list[tuple[int, str]]:
        """Return the log entries with version > `version`, oldest first ([] for a missing game)."""
        with _errors():
            log = self._client.get(game_key(game_id, "log"))
        return [(v, entry) for v, entry in _entries(log) if v > version]

    # -- rematch links -----------------------------------------------------------------------------

    def link_rematch(self, game_id: str, rematch_id: str) -> str | None:
        """As specified in GameStore.link_rematch (one script on the game's slot)."""
        with _errors():
            return self._link(keys=[game_key(game_id, "state"), game_key(game_id, "rematch")],
                              args=[rematch_id])

    # -- codes and rate limits ---------------------------------------------------------------------

    def note_active(self, moves: dict[str, float]) -> None:
        """ZADD the latest move times (GT: a later time only); raises StoreUnavailable (also once the
        store is closed: a late flush of api.ops.active_games must not open a connection again)."""
        if self._stopping.is_set():
            raise StoreUnavailable("store is closed")
        if moves:
            with _errors():
                self._client.zadd(PREFIX + "active", moves, gt=True)

    def count_active(self, since: float) -> int:
        """Trim the set below `since` and count what is left, in one MULTI; raises StoreUnavailable."""
        with _errors():
            pipe = self._client.pipeline(transaction=True)
            pipe.zremrangebyscore(PREFIX + "active", "-inf", f"({since}")
            pipe.zcard(PREFIX + "active")
            return int(pipe.execute()[1])

    def put_code(self, code: str, game_id: str, ttl: int) -> bool:
        """Map `code` to `game_id` for `ttl` seconds; return False if the code is taken."""
        with _errors():
            return bool(self._client.set(PREFIX + "code:" + code, game_id, ex=ttl, nx=True))

    def get_code(self, code: str) -> str | None:
        """Return the game id of a live code, or None."""
        with _errors():
            return self._client.get(PREFIX + "code:" + code)

    def delete_code(self, code: str) -> None:
        """Forget `code` (no error if it is unknown)."""
        with _errors():
            self._client.delete(PREFIX + "code:" + code)

    def hit(self, key: str, limit: int, window: int, cost: int = 1) -> float | None:
        """Count events in the fixed window that started with the first one (see GameStore.hit): one
        script, so every worker and host sharing this Redis shares the limit."""
        with _errors():
            left = int(self._hit(keys=[PREFIX + "rl:" + key], args=[limit, int(window * 1000), cost]))
        return None if left < 0 else left / 1000


    # -- fan-out -----------------------------------------------------------------------------------

    def subscribe(
        self,
        callback: Callable[[str, int], None],
        *,
        on_reset: Callable[[], None] | None = None,
        on_presence: Callable[[str], None] | None = None,
        announcements: bool = False,
    ) -> Callable[[], None]:
        """Call `callback(game_id, version)` on the listener thread after every commit by any process
        (with `announcements`: `callback(game_id, version, announcement or None)`, see GameStore).

        `on_reset()` is called (on the same thread) after the pub/sub connection was lost and restored:
        announcements may have been missed, so every client should resync. `on_presence(game_id)` is called
        when a game's online seats changed (see `set_presence`). Returns the cancel function.
        Raises StoreUnavailable when the first subscription cannot reach the server.
        """
        with self._sub_lock:
            if self._stopping.is_set():
                raise StoreUnavailable("store is closed")
            if self._thread is None:
                self._start_listener()
            token = self._next_token
            self._next_token += 1
            # Stored as callback(game_id, version, announcement) whatever the subscriber takes.
            self._callbacks[token] = callback if announcements else version_only(callback)
            if on_reset is not None:
                self._resets[token] = on_reset
            if on_presence is not None:
                self._presence_callbacks[token] = on_presence

        def cancel() -> None:
            with self._sub_lock:
                self._callbacks.pop(token, None)
                self._resets.pop(token, None)
                self._presence_callbacks.pop(token, None)

        return cancel

    def _start_listener(self) -> None:
        """PSUBSCRIBE, then start the listener thread (call with _sub_lock held). On a cluster: start
        the sharded listener, which subscribes game by game (watch)."""
        if self._conn.sharded:
            with _errors():
                self._client.ping()  # as with PSUBSCRIBE: an unreachable cluster fails the first subscribe
            self._sharded = ShardedListener(
                self._conn, lambda game_id: [game_channel(game_id), game_channel(game_id) + ":presence"],
                lambda channel, data: self._on_message({"channel": channel, "data": data}),
                self._catch_up, lambda: self._on_reconnect(None))
            self._sharded.start()
            self._thread = self._sharded
            return
        # Its own client (redis_connect): no socket_timeout on the pub/sub connection, health checks.
        client = self._conn.listener()
        pubsub = client.pubsub(ignore_subscribe_messages=True)
        try:
            with _errors():
                # Subscribed before the thread starts: PubSub is not thread-safe (redis-py #968, #3297).
                pubsub.psubscribe(**{PATTERN: self._on_message})
        except StoreUnavailable:
            pubsub.close()
            client.close()
            raise
        # Runs after redis-py's own re-subscribe callback on every reconnect of this connection.
        pubsub.connection.register_connect_callback(self._on_reconnect)
        self._sub_client, self._pubsub = client, pubsub
        self._thread = pubsub.run_in_thread(
            sleep_time=_LISTEN_SLICE, daemon=True, exception_handler=self._on_listener_error
        )

    def watch(self, game_id: str) -> None:
        """On a cluster, SSUBSCRIBE to the game's channels (soon, on the listener thread); elsewhere the
        pattern subscription hears every game already."""
        sharded = self._sharded
        if sharded is not None:
            sharded.watch(game_id)

    def unwatch(self, game_id: str) -> None:
        """On a cluster, SUNSUBSCRIBE from the game's channels (soon); elsewhere nothing to do."""
        sharded = self._sharded
        if sharded is not None:
            sharded.unwatch(game_id)

    def _catch_up(self, game_id: str) -> None:
        """The sharded subscription of `game_id` is in place: tell the subscribers with its current
        version, so that a socket that read the game before a commit it did not hear resyncs."""
        try:
            with _errors():
                version = self._client.hget(game_key(game_id, "state"), "v")
        except StoreUnavailable:
            self._on_reconnect(None)  # cannot tell: every socket resyncs
            return
        if version is not None:
            with self._sub_lock:
                callbacks = list(self._callbacks.values())
            for callback in callbacks:
                try:
                    callback(game_id, int(version), None)
                except Exception:
                    log.exception("store subscriber failed for %s v%s", game_id, version)

    def _on_message(self, message: dict[str, Any]) -> None:
        channel = message["channel"]
        if channel.endswith(_PRESENCE_TAIL) and channel.startswith(_CHANNEL_HEAD):
            self._on_presence_message(channel[len(_CHANNEL_HEAD) : -len(_PRESENCE_TAIL)])
            return
        game_id = _game_of_channel(channel)
        if game_id is None:
            return
        head, _, announcement = message["data"].partition("\n")
        try:
            version = int(head)
        except (TypeError, ValueError):
            log.warning("ignoring malformed announcement on %s", channel)
            return
        with self._sub_lock:
            callbacks = list(self._callbacks.values())
        for callback in callbacks:
            try:
                callback(game_id, version, announcement)
            except Exception:  # one faulty subscriber must not silence the others
                log.exception("store subscriber failed for %s v%s", game_id, version)

    def _on_presence_message(self, game_id: str) -> None:
        with self._sub_lock:
            callbacks = list(self._presence_callbacks.values())
        for on_presence in callbacks:
            try:
                on_presence(game_id)
            except Exception:
                log.exception("store presence subscriber failed for %s", game_id)

    # -- presence ----------------------------------------------------------------------------------

    def set_presence(self, game_id: str, member: str, seat: int, ttl: float) -> None:
        """Record, refresh or (ttl <= 0) remove a connection's entry in one script; the script publishes
        on the game's presence channel when the online seats changed. Raises StoreUnavailable."""
        keys = [game_key(game_id, "presence"), game_key(game_id, "seats")]
        channel = game_channel(game_id) + ":presence"
        with _errors():
            self._presence(keys=keys, args=[f"{int(seat)}|{member}", int(ttl * 1000), channel])

    def online_seats(self, game_id: str) -> list[int]:
        """Return the seats of `game_id` with an unexpired entry, ascending. Raises StoreUnavailable."""
        with _errors():
            members = self._online(keys=[game_key(game_id, "presence")])
        return sorted({int(m.partition("|")[0]) for m in members})

    def _on_listener_error(self, exc: BaseException, pubsub: Any, thread: Any) -> None:
        """Called on the listener thread when a read fails; wait, then let the loop reconnect."""
        if self._stopping.is_set():
            thread.stop()
            return
        if self._outage_delay == 0.0:
            log.warning("redis pub/sub connection lost (%s); reconnecting", exc)
            self._outage_delay = _RECONNECT_FIRST
        else:
            self._outage_delay = min(self._outage_delay * 2, _RECONNECT_CAP)
        # Drop the broken socket so the next read reconnects (and re-subscribes) from scratch.
        if pubsub.connection is not None:
            pubsub.connection.disconnect()
        self._stopping.wait(self._outage_delay)

    def _on_switch(self) -> None:
        """The Sentinels named a new primary: what still talks to the old one must not go on. Commits
        drop their kept connections as they take them (RedisStore._run) and redis-py the pooled ones;
        the pub/sub connection is cut, so that its listener reconnects to the new primary and tells the
        subscribers to resync (the old one, if alive, publishes only its own lost writes)."""
        log.warning("redis: the Sentinels named a new primary; leaving the old one")
        pubsub = self._pubsub
        sock = getattr(getattr(pubsub, "connection", None), "_sock", None)
        if sock is not None:
            # shutdown, not close: the listener thread may be reading from it; it sees the error and
            # reconnects (_on_listener_error), and the socket is closed there.
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def _on_reconnect(self, connection: Any) -> None:
        """Connect callback of the pub/sub connection: the subscribers may have missed announcements."""
        self._outage_delay = 0.0
        log.warning("redis pub/sub connection restored; subscribers must resync")
        with self._sub_lock:
            resets = list(self._resets.values())
        for reset in resets:
            try:
                reset()
            except Exception:
                log.exception("store on_reset hook failed")

    @property
    def client(self) -> redis.Redis:
        """The command connection pool (tests look at the raw keys through it)."""
        return self._client

    # -- lifecycle ---------------------------------------------------------------------------------

    def ping(self) -> bool:
        """Return True when the server answers PING, False otherwise (never raises)."""
        try:
            return bool(self._client.ping())
        except (redis.RedisError, redis.exceptions.RedisClusterException):
            return False

    def close(self) -> None:
        """Stop the listener thread and close all connections (idempotent)."""
        self._conn.close()
        with self._sub_lock:
            self._stopping.set()
            thread, self._thread = self._thread, None
            sub_client, self._sub_client = self._sub_client, None
        if isinstance(thread, ShardedListener):
            thread.stop()
        elif thread is not None:
            thread.stop()
            if thread is not threading.current_thread():
                thread.join(timeout=5 * _LISTEN_SLICE + self._timeout)
        if sub_client is not None:
            sub_client.close()
        self._hot_open = False
        while True:  # a commit may take one meanwhile: pop, never check-then-pop
            try:
                conn = self._hot.pop()
            except IndexError:
                break
            self._client.connection_pool.release(conn)  # never a cluster's: it keeps none aside
        self._client.close()


def _timeout_of(pool: Any) -> float:
    """The socket timeout of `pool`'s connections (seconds; the URL may set it)."""
    return float(pool.connection_kwargs.get("socket_timeout") or 5.0)


def _entries(log: str | None) -> list[tuple[int, str]]:
    """Return the (version, entry) pairs of a stored log string: its n-th line is version n + 1's."""
    return list(enumerate(log.split("\n")[:-1], start=2)) if log else []


@contextmanager
def _errors() -> Iterator[None]:
    """Turn "cannot reach / cannot write now" into StoreUnavailable; other errors are bugs and pass."""
    try:
        yield
    except _UNAVAILABLE as exc:
        raise StoreUnavailable(f"redis: {type(exc).__name__}: {exc}") from exc
    except redis.exceptions.RedisClusterException as exc:  # no node reachable, a slot not served
        raise StoreUnavailable(f"redis cluster: {type(exc).__name__}: {exc}") from exc
    except redis.ResponseError as exc:
        if str(exc).startswith(_UNCLASSED_UNAVAILABLE):
            raise StoreUnavailable(f"redis: {exc}") from exc
        raise
