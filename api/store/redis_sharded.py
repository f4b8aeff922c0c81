"""The pub/sub listener of a store on Redis Cluster: sharded pub/sub, one game at a time.

A classic PUBLISH on a cluster is copied to every node, and pattern subscriptions see all of it: the
fan-out would grow with the cluster instead of being spread over it. So the scripts SPUBLISH on the
game's channels (hash-tagged by game: the slot of the game's keys), and this listener SSUBSCRIBEs to
the channels of the games this process holds a socket of (`watch`), on the node that serves each
game's slot, one connection per node, all read by one thread.

`watch`/`unwatch` only queue the change and wake the thread (the hub calls them under its lock); the
thread sends the SSUBSCRIBE/SUNSUBSCRIBE. Between a socket's first read of its game and the moment
the subscription is in place a commit could go unheard, so once the server confirms a game's
subscription the listener calls `caught_up(game_id)` (the store reads the version and tells the
subscribers, who resync when they are behind).

When a node's connection fails (the node died, its slots moved to a replica), the listener drops every
connection, learns the slots again and subscribes every watched game anew, retrying with a backoff;
then it calls `reset()`: announcements may have been lost meanwhile.
"""

from __future__ import annotations

import contextlib
import logging
import select
import socket
import threading
from collections.abc import Callable
from typing import Any

import redis

from .redis_connect import Connector

log = logging.getLogger(__name__)

# Seconds a quiet listener sleeps between health checks of its connections (and the stop flag).
_SLICE = 0.25
# Backoff while the cluster cannot be reached (seconds): first retry, cap.
_RETRY_FIRST, _RETRY_CAP = 0.1, 2.0


class ShardedListener:
    """Read the sharded channels of the watched games; see the module docstring. Thread-safe."""

    def __init__(
        self,
        connector: Connector,
        channels: Callable[[str], list[str]],
        deliver: Callable[[str, str], None],
        caught_up: Callable[[str], None],
        reset: Callable[[], None],
    ) -> None:
        self._connector = connector
        self._channels = channels  # game id -> its channels (one slot)
        self._deliver = deliver  # (channel, data) of every message
        self._caught_up = caught_up
        self._reset = reset
        self._lock = threading.Lock()
        self._watched: set[str] = set()
        self._pending: dict[str, bool] = {}  # game id -> subscribe (True) / unsubscribe (False)
        self._nodes: dict[str, Any] = {}  # node name -> redis.client.PubSub
        self._where: dict[str, str] = {}  # subscribed game id -> node name
        self._first_channel: dict[str, str] = {}  # a game's first channel -> game id (confirmations)
        self._wake_r, self._wake_w = socket.socketpair()
        self._wake_r.setblocking(False)
        self._wake_w.setblocking(False)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="redis-sharded-listener", daemon=True)

    def start(self) -> None:
        self._thread.start()

    def watch(self, game_id: str) -> None:
        with self._lock:
            self._watched.add(game_id)
            self._pending[game_id] = True
        self._wake()

    def unwatch(self, game_id: str) -> None:
        with self._lock:
            self._watched.discard(game_id)
            self._pending[game_id] = False
        self._wake()

    def stop(self) -> None:
        self._stop.set()
        self._wake()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join(timeout=5)
        self._drop_all()
        self._wake_r.close()
        self._wake_w.close()

    def _wake(self) -> None:
        with contextlib.suppress(OSError):  # already woken (a full buffer), or stopped
            self._wake_w.send(b"x")

    # -- the thread ------------------------------------------------------------------------------

    def _run(self) -> None:
        delay = 0.0
        while not self._stop.is_set():
            try:
                if delay:  # recovering: subscribe everything again, then tell the subscribers
                    self._connector.refresh()
                    with self._lock:
                        self._pending = dict.fromkeys(self._watched, True)
                    self._apply()
                    log.warning("redis cluster pub/sub restored; subscribers must resync")
                    delay = 0.0
                    self._reset()
                self._apply()
                self._pump()
            except (redis.RedisError, redis.exceptions.RedisClusterException, OSError) as exc:
                if self._stop.is_set():
                    break
                if delay == 0.0:
                    log.warning("redis cluster pub/sub connection lost (%s); reconnecting", exc)
                delay = min(delay * 2, _RETRY_CAP) if delay else _RETRY_FIRST
                self._drop_all()
                self._stop.wait(delay)

    def _apply(self) -> None:
        """Send the queued (un)subscriptions."""
        with self._lock:
            pending, self._pending = self._pending, {}
        for game_id, subscribe in pending.items():
            try:
                self._subscribe(game_id) if subscribe else self._unsubscribe(game_id)
            except BaseException:
                with self._lock:  # not sent: keep it for the next attempt (unless superseded)
                    self._pending.setdefault(game_id, subscribe)
                raise

    def _subscribe(self, game_id: str) -> None:
        channels = self._channels(game_id)
        name = self._connector.node_of(channels[0])
        if self._where.get(game_id) == name:
            return
        if game_id in self._where:
            self._unsubscribe(game_id)
        pubsub = self._nodes.get(name)
        if pubsub is None:
            pubsub = self._connector.node_listener(name).pubsub()
            self._nodes[name] = pubsub
        self._first_channel[channels[0]] = game_id
        pubsub.ssubscribe(*channels)
        self._where[game_id] = name

    def _unsubscribe(self, game_id: str) -> None:
        name = self._where.pop(game_id, None)
        if name is None or name not in self._nodes:
            return
        channels = self._channels(game_id)
        self._first_channel.pop(channels[0], None)
        self._nodes[name].sunsubscribe(*channels)

    def _pump(self) -> None:
        """Deliver what every connection has, then wait for more (or a wake-up) for up to _SLICE."""
        for pubsub in list(self._nodes.values()):
            while True:
                message = pubsub.get_message(timeout=0)
                if message is None:
                    break
                self._handle(message)
        socks = [p.connection._sock for p in self._nodes.values() if p.connection is not None]
        ready, _, _ = select.select([s for s in socks if s is not None] + [self._wake_r], [], [], _SLICE)
        if self._wake_r in ready:
            try:
                while self._wake_r.recv(4096):
                    pass
            except BlockingIOError:
                pass

    def _handle(self, message: dict[str, Any]) -> None:
        kind, channel = message["type"], message["channel"]
        if kind == "smessage":
            self._deliver(channel, message["data"])
        elif kind == "ssubscribe":
            game_id = self._first_channel.get(channel)
            if game_id is not None:
                self._caught_up(game_id)

    def _drop_all(self) -> None:
        nodes, self._nodes = self._nodes, {}
        self._where.clear()
        self._first_channel.clear()
        for pubsub in nodes.values():
            with contextlib.suppress(Exception):  # already broken
                pubsub.reset()  # closes its connection and forgets its subscriptions (no resubscribing)
