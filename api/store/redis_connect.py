"""How a Redis store URL becomes clients: one server, a Sentinel-watched primary, or a Redis Cluster.

    redis://[user:pass@]host:port/db, rediss://..., unix://...   one server (or an address that follows
                                                                 the primary)
    redis+sentinel://[user:pass@]h:p,h:p,h:p/<service>[?...]     ask the Sentinels for <service>'s primary
                                                                 and follow it through failovers
    redis+cluster://[user:pass@]h:p[,h:p...][?...]               a Redis Cluster (any reachable nodes)

Query options of the two multi-host schemes: `ssl=true` (TLS to the data nodes; `ssl_ca_certs=<file>`,
`ssl_certfile`, `ssl_keyfile` as in redis-py), and for Sentinel `db=<n>`, `sentinel_username` and
`sentinel_password` (the Sentinels' own auth, when they require one; the userinfo authenticates to the
primary) and `sentinel_ssl=true`. Every URL may also carry `wait_replicas=<n>` and `wait_timeout=<s>`
(see RedisStore), which the ALCABOHNE_REDIS_WAIT_* settings otherwise give.

A Connector hands RedisStore what differs between the three: the command client, the connection pool
that serves a given key (the cluster has one per node), and fresh connections for the pub/sub listener.
Everything the store does with them is the same code (api/store/redis.py).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, unquote, urlsplit

import redis
from redis.backoff import ExponentialBackoff, NoBackoff
from redis.cluster import ClusterNode, RedisCluster
from redis.commands.core import Script
from redis.connection import Encoder
from redis.retry import Retry
from redis.sentinel import (
    Sentinel,
    SentinelConnectionPool,
    SentinelManagedConnection,
    SentinelManagedSSLConnection,
)

log = logging.getLogger(__name__)

SCHEMES = ("redis", "rediss", "unix", "redis+sentinel", "redis+cluster")
# Options the store itself takes from the URL (removed before redis-py sees the rest).
STORE_OPTIONS = ("wait_replicas", "wait_timeout")
_TRUE = ("1", "true", "yes", "on")
# Seconds the Sentinel watcher blocks per read (bounds how long close() waits), and waits before it
# tries the Sentinels again when none could be heard.
_WATCH_SLICE, _WATCH_RETRY = 0.25, 1.0


class _BlockingSentinelPool(SentinelConnectionPool, redis.BlockingConnectionPool):
    """Sentinel's pool (it asks the Sentinels where the primary is before each connect) that waits for
    a free connection like the single-server store's pool, instead of failing past max_connections."""


class _Primary:
    """Mixin of a Sentinel-managed connection: once connected, it asks the server's ROLE and drops
    itself unless the server is a primary. While a failover spreads, a Sentinel may still name the old
    primary, which, restarted, is a replica holding a history the new primary does not have; the
    error makes redis-py ask the Sentinels again."""

    def on_connect_check_health(self, check_health: bool = True) -> None:
        super().on_connect_check_health(check_health=check_health)
        self.send_command("ROLE")
        role = self.read_response()
        if role[0] != "master":
            self.disconnect()
            raise redis.ConnectionError(f"{self.host}:{self.port} is a {role[0]}, not the primary")


class _PrimaryConnection(_Primary, SentinelManagedConnection):
    pass


class _PrimarySSLConnection(_Primary, SentinelManagedSSLConnection):
    pass


class _SwitchWatcher(threading.Thread):
    """Hears the Sentinels announce a new primary (`+switch-master`) and calls `on_switch()` at once,
    and once each time it (re)subscribes (a switch may have passed unheard).

    redis-py asks the Sentinels only when it opens a connection, so without this the connections
    already open keep talking to the old primary. A primary that was cut off or too slow, not dead,
    stays a primary of nothing until the Sentinels make it a replica, seconds later: what is written
    there meanwhile is lost, and what is read there is another history. One Sentinel is heard at a
    time; the next is tried when its connection fails."""

    def __init__(self, addresses: list[tuple[str, int]], kwargs: dict[str, Any], service: str,
                 on_switch: Callable[[], None]) -> None:
        super().__init__(daemon=True, name="sentinel-switch-watcher")
        self._addresses, self._kwargs, self._service = addresses, kwargs, service
        self._on_switch = on_switch
        self._stopping = threading.Event()

    def stop(self) -> None:
        self._stopping.set()
        if self.is_alive() and self is not threading.current_thread():
            self.join(timeout=5 * _WATCH_SLICE)

    def run(self) -> None:
        while not self._stopping.is_set():
            for host, port in self._addresses:
                if self._stopping.is_set():
                    return
                try:
                    self._listen(host, port)
                except (redis.RedisError, OSError) as exc:
                    log.debug("sentinel %s:%s not heard: %s", host, port, exc)
            self._stopping.wait(_WATCH_RETRY)

    def _listen(self, host: str, port: int) -> None:
        client = redis.Redis(host=host, port=port, **self._kwargs)
        pubsub = client.pubsub(ignore_subscribe_messages=True)
        try:
            pubsub.subscribe("+switch-master")
            self._switched()
            while not self._stopping.is_set():
                message = pubsub.get_message(timeout=_WATCH_SLICE)
                if message and str(message["data"]).split(" ", 1)[0] == self._service:
                    self._switched()
        finally:
            pubsub.close()
            client.close()

    def _switched(self) -> None:
        try:
            self._on_switch()
        except (redis.RedisError, OSError) as exc:  # no Sentinel names a primary now: the next message will
            log.warning("sentinel: the primary could not be found after a switch: %s", exc)


class _LazyCluster:
    """A RedisCluster made on first use: its constructor asks the nodes for the slots at once, and a
    store is built before anything may touch the network (open_store connects lazily). Every attribute
    but those below is the cluster client's; making it raises what RedisCluster raises (no node
    reachable), which the store answers as StoreUnavailable."""

    def __init__(self, make: Callable[[], RedisCluster], pools: list) -> None:
        self._make = make
        self._pools = pools  # every node pool the client made (see _cluster)
        self._client: RedisCluster | None = None
        self._lock = threading.Lock()

    def get_encoder(self) -> Encoder:
        return Encoder("utf-8", "strict", True)  # as the client's: decode_responses

    def register_script(self, script: str) -> Script:
        return Script(self, script)  # hashes the text now, runs through the client later

    def close(self) -> None:
        with self._lock:
            client, self._client = self._client, None
        if client is not None:
            client.close()
        for pool in self._pools:  # also those of nodes the client dropped when the topology changed
            pool.disconnect()

    def __getattr__(self, name: str) -> Any:
        client = self._client
        if client is None:
            with self._lock:
                if self._client is None:
                    self._client = self._make()
                client = self._client
        return getattr(client, name)


@dataclass
class Connector:
    """The clients of one store URL (see the module docstring).

    `client` runs every command (routing by key on a cluster); `pool_for(key)` is the pool whose
    connections reach the server holding `key` (RedisStore's commit path sends on them itself);
    `listener()` makes the client of the pub/sub connection (single server and Sentinel: one for all
    games); `node_listener(key)` makes one for the cluster node that serves `key` (sharded pub/sub is
    per node). `sharded` tells the store which fan-out to use.
    """

    kind: str  # "single", "sentinel" or "cluster"
    client: Any  # redis.Redis, or a RedisCluster made on first use
    listener: Callable[[], redis.Redis] | None = None
    options: dict[str, str] = field(default_factory=dict)  # wait_replicas, wait_timeout from the URL
    _node_kwargs: dict[str, Any] = field(default_factory=dict)
    # Sentinel: makes the watcher of `follow` from its callback; the clients of the Sentinels.
    _watcher: Callable[[Callable[[], None]], _SwitchWatcher] | None = None
    _sentinel: Sentinel | None = None
    _following: list[_SwitchWatcher] = field(default_factory=list)

    @property
    def sharded(self) -> bool:
        return self.kind == "cluster"

    def pool_for(self, key: str) -> Any:
        """The connection pool of the server that holds `key`."""
        if self.kind != "cluster":
            return self.client.connection_pool
        node = self.client.get_node_from_key(key)
        return self.client.get_redis_connection(node).connection_pool

    def node_of(self, key: str) -> str:
        """The name ("host:port") of the cluster node serving `key`'s slot (cluster only)."""
        return self.client.get_node_from_key(key).name

    def node_listener(self, name: str) -> redis.Redis:
        """A client for the pub/sub connection to cluster node `name` (no socket timeout)."""
        host, _, port = name.rpartition(":")
        return redis.Redis(host=host, port=int(port), **self._node_kwargs)

    def refresh(self) -> None:
        """Learn the cluster's slots again (after a node failed or slots moved); no-op elsewhere."""
        if self.kind == "cluster":
            self.client.nodes_manager.initialize()

    def primary_moved(self) -> bool:
        """Behind Sentinels: ask them for the primary; True when it is not the one the connections
        were made to (redis-py then closes the idle ones, and drops the others as they come back to
        the pool). Always False elsewhere. Raises redis errors (no Sentinel answers)."""
        if self.kind != "sentinel":
            return False
        pool = self.client.connection_pool
        before = pool.master_address
        return before is not None and pool.get_master_address() != before

    def follow(self, on_switch: Callable[[], None]) -> None:
        """Behind Sentinels: from now on, whenever the Sentinels announce a new primary, call
        `on_switch()` if it moved (`primary_moved`; on the watcher's thread). No-op elsewhere."""
        if self._watcher is not None and not self._following:
            watcher = self._watcher(lambda: self.primary_moved() and on_switch())
            self._following.append(watcher)
            watcher.start()

    def close(self) -> None:
        """Stop the Sentinel watcher and close the connections to the Sentinels (the store closes the
        rest): left to the garbage collector, they are closed whenever it gets to them."""
        while self._following:
            self._following.pop().stop()
        if self._sentinel is not None:
            for client in self._sentinel.sentinels:
                client.close()


def connect(url: str, *, timeout: float, pool_size: int) -> Connector:
    """Return the Connector of `url` (no network I/O yet: every client connects lazily).

    Raises ValueError for a URL that names no host, service or scheme this module knows.
    """
    scheme = url.partition("://")[0].lower()
    command = dict(
        decode_responses=True,
        socket_timeout=timeout,
        socket_connect_timeout=timeout,
        health_check_interval=30,
        retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), 2),
    )
    # The pub/sub connection blocks in reads for as long as the games are quiet: no socket timeout (a
    # read with one turns every quiet period into a reconnect); health checks every 30 s find dead peers.
    listening = dict(command, socket_timeout=None, retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), 1))
    if scheme in ("redis", "rediss", "unix"):
        url, options = _split_options(url)
        # A blocking pool: redis-py's default pool raises "Too many connections" (a 503 here) as soon as
        # more threads than its limit talk at once, which a worker with hundreds of websocket threads
        # reaches in a burst; a round trip takes well under a millisecond, so waiting is cheap.
        pool = redis.BlockingConnectionPool.from_url(url, max_connections=pool_size, timeout=timeout,
                                                     **command)
        return Connector("single", redis.Redis.from_pool(pool),
                         lambda: redis.Redis.from_url(url, **listening), options)
    if scheme == "redis+sentinel":
        return _sentinel(url, command, listening, timeout, pool_size)
    if scheme == "redis+cluster":
        return _cluster(url, command, listening, timeout, pool_size)
    raise ValueError(f"not a Redis URL (use {', '.join(s + '://' for s in SCHEMES)}): {url!r}")


def _split_options(url: str) -> tuple[str, dict[str, str]]:
    """Take the store's own options out of a URL's query; return (the rest of the URL, options)."""
    base, sep, query = url.partition("?")
    if not sep:
        return url, {}
    pairs = parse_qsl(query, keep_blank_values=True)
    options = {k: v for k, v in pairs if k in STORE_OPTIONS}
    rest = "&".join(f"{k}={v}" for k, v in pairs if k not in STORE_OPTIONS)
    return (f"{base}?{rest}" if rest else base), options


def _hosts(netloc: str, url: str) -> tuple[list[tuple[str, int]], dict[str, Any]]:
    """Return ([(host, port)...], auth kwargs) of a multi-host netloc "user:pass@h:p,h:p"."""
    auth: dict[str, Any] = {}
    userinfo, at, hostlist = netloc.rpartition("@")
    if at:
        user, colon, password = userinfo.partition(":")
        if colon:
            auth["password"] = unquote(password)
            if user:
                auth["username"] = unquote(user)
        elif user:
            auth["password"] = unquote(user)  # "secret@host": a bare password, as redis-cli takes it
    hosts = []
    for item in hostlist.split(","):
        host, colon, port = item.strip().rpartition(":")
        if not colon or not host or not port.isdigit():
            raise ValueError(f"every host needs host:port in {url!r}")
        hosts.append((host.strip("[]"), int(port)))
    if not hosts:
        raise ValueError(f"no host in {url!r}")
    return hosts, auth


def _tls(query: dict[str, str], prefix: str = "") -> dict[str, Any]:
    """redis-py's TLS keyword arguments from the query options `ssl`, `ssl_ca_certs`, ... (with a prefix)."""
    if query.get(prefix + "ssl", "").lower() not in _TRUE:
        return {}
    tls: dict[str, Any] = {"ssl": True}
    for name in ("ssl_ca_certs", "ssl_certfile", "ssl_keyfile", "ssl_cert_reqs"):
        if query.get(prefix + name):
            tls[name] = query[prefix + name]
    return tls


def _sentinel(url: str, command: dict, listening: dict, timeout: float, pool_size: int) -> Connector:
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    options = {k: query.pop(k) for k in STORE_OPTIONS if k in query}
    hosts, auth = _hosts(parts.netloc, url)
    service = unquote(parts.path.strip("/"))
    if not service or "/" in service:
        raise ValueError(f"a Sentinel URL names one service: redis+sentinel://h:p,h:p/<service>: {url!r}")
    node = dict(auth, **_tls(query), db=int(query.get("db", 0)))
    sentinel_auth = {k: query[f"sentinel_{k}"] for k in ("username", "password")
                     if query.get(f"sentinel_{k}")}
    sentinel_kwargs = dict(sentinel_auth, **_tls(query, "sentinel_"), socket_timeout=timeout,
                           socket_connect_timeout=timeout, decode_responses=True)
    sentinel = Sentinel(hosts, sentinel_kwargs=sentinel_kwargs, **node)
    primary = _PrimarySSLConnection if node.get("ssl") else _PrimaryConnection
    client = sentinel.master_for(service, connection_pool_class=_BlockingSentinelPool,
                                 connection_class=primary, max_connections=pool_size, timeout=timeout,
                                 **command)
    watched = dict(sentinel_kwargs, health_check_interval=30)
    return Connector("sentinel", client,
                     lambda: sentinel.master_for(service, connection_class=primary, **listening), options,
                     _watcher=lambda on_switch: _SwitchWatcher(hosts, watched, service, on_switch),
                     _sentinel=sentinel)


def _cluster(url: str, command: dict, listening: dict, timeout: float, pool_size: int) -> Connector:
    parts = urlsplit(url)
    if parts.path.strip("/"):
        raise ValueError(f"a Redis Cluster has one database: no path in {url!r}")
    query = dict(parse_qsl(parts.query))
    options = {k: query.pop(k) for k in STORE_OPTIONS if k in query}
    hosts, auth = _hosts(parts.netloc, url)
    node = dict(auth, **_tls(query))
    # RedisCluster retries a command on another attempt itself (after learning the slots again);
    # `retry` is its own setting, per node clients take the rest.
    cluster_kwargs = {k: v for k, v in command.items() if k != "retry"}
    # Blocking pools per node, as for one server (a burst of threads waits instead of failing with "Too
    # many connections"). RedisCluster takes a pool class only when it is given a URL: the first node's
    # (host and port only: the rest rides the keyword arguments); the others are startup nodes.
    first_host, first_port = hosts[0]
    first = f"redis://[{first_host}]:{first_port}" if ":" in first_host else f"redis://{first_host}:{first_port}"
    # When the topology changes (a node failed, came back as a replica) the client makes new node
    # clients and drops old ones without closing their connections: remember every pool, closed with
    # the store.
    pools: list[redis.BlockingConnectionPool] = []

    class NodePool(redis.BlockingConnectionPool):
        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)
            pools.append(self)

    client = _LazyCluster(lambda: RedisCluster(
        url=first, startup_nodes=[ClusterNode(h, p) for h, p in hosts[1:]],
        connection_pool_class=NodePool, max_connections=pool_size, timeout=timeout,
        retry=Retry(ExponentialBackoff(cap=0.5, base=0.05), 2), **node, **cluster_kwargs), pools)
    # A node's pub/sub connection must not reconnect by itself: redis-py would re-subscribe quietly and
    # the announcements lost meanwhile would go unreported. The listener sees the error, recovers (on_reset).
    return Connector("cluster", client, None, options, {**node, **listening, "retry": Retry(NoBackoff(), 0)})
