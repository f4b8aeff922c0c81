"""The websocket hub of one worker process: a commit -> the sockets of that game (docs/architecture.md).

One hub per app (so per gunicorn worker). On the first socket it makes the worker's ONE store
subscription (Redis: the store's PSUBSCRIBE, made before its listener thread starts; embedded stores:
the in-process broker). It keeps a registry game id -> connections behind a lock.

One verb brings sockets to a version: `advance`. The commit's own process advances its sockets from what
it just stored, on the committing thread (GameService calls `advance` once per commit, after the store).
Every other process hears the store's announcement of the commit, which carries the version and, for a
move, its log entry (the seat and the action's code: nothing secret; never the document, the seed or the
token hashes), and advances its sockets from what its reader (`GameReader`: two read methods of
GameService, nothing else) returns for that version: the move applied to the version before when this
process holds it, else a read of the game. Rendering is here and in api.live.frames, one `engine.view`
and one JSON encoding per seat; each socket's Sender (api.live.wssocket) sends its frame at once when
the socket is idle, else keeps it for the socket's own handler thread, so a slow or vanished client
never blocks another socket.

Presence goes through the store (`set_presence` / `online_seats`, expiring entries refreshed by a
heartbeat thread), so it is right across workers and hosts, and a worker killed with its sockets
drops out after the entries' lifetime. After the store's pub/sub connection comes back (`on_reset`),
every local socket is advanced to a fresh read and gets presence (or `{"type": "resync"}` when the
store still fails).
"""

from __future__ import annotations

import logging
import secrets
import threading
import time
from collections.abc import Callable, Iterable
from typing import Protocol

from api.errors import ApiError
from api.game.model import Commit, Events, Loaded, Observer
from api.game.seats import table_info
from api.live import frames
from api.live.wssocket import Sender
from api.store.base import GameStore, StoreUnavailable

log = logging.getLogger(__name__)


class GameReader(Protocol):
    """How the hub reads games (api.game.service.GameService implements it): two reads, no writes."""

    def latest(self, game_id: str) -> tuple[Loaded, Events]:
        """Return the stored game and the events of its version. Raises ApiError (unknown_game),
        StoreUnavailable."""

    def follow(self, game_id: str, version: int, announcement: str | None) -> tuple[Loaded, Events]:
        """Return the game at `version` (or later), whose commit the store announced with
        `announcement`, and the events of the version returned. Raises like `latest`."""


class Connection:
    """One websocket as the hub sees it: its game and seat, and its Sender (what it holds, what waits).

    `greeted` is False until the hello's presence is offered (`offer_presence(first=True)`, after the
    snapshot): presence announced meanwhile (the socket's own arrival, say) waits, so that a client
    always gets the state before the presence (docs/websocket.md, "Frame order").
    """

    def __init__(self, game_id: str, seat: int | None, token_hash: str | None, seats: int, sender: Sender):
        self.id = secrets.token_hex(8)
        self.game_id = game_id
        self.seat = seat
        self.token_hash = token_hash
        self.seats = seats  # number of seats of the game (presence lists every seat)
        self.sender = sender
        self.greeted = False
        self._presence: list[int] | None = None

    @property
    def version(self) -> int:
        """The highest state version queued for the client."""
        return self.sender.version

    def offer_presence(self, online: Iterable[int], *, first: bool = False) -> None:
        """Push a presence frame when the online seats differ from the last ones pushed. Before the
        hello's own presence (`first`), nothing is pushed: that one comes right after the snapshot.
        Called under the hub's presence lock only."""
        online = sorted(set(online))
        if first:
            self.greeted = True
        if not self.greeted or online == self._presence:
            return
        self._presence = online
        self.sender.push(frames.presence_frame(online, self.seats))


class Hub:
    """The registry and fan-out of one process. Thread-safe.

    `ping_interval` (seconds) paces the presence heartbeat; presence entries live 3 intervals, so
    the seats of a worker that died without cleaning up go offline within about 4 intervals.
    """

    def __init__(self, store: GameStore, *, ping_interval: float, observer: Observer | None = None):
        self._reader: GameReader | None = None  # see bind
        self._store = store
        self._observer = observer or Observer()
        self._lock = threading.Lock()
        self._games: dict[str, set[Connection]] = {}
        self._cancel: Callable[[], None] | None = None
        self._heartbeat: threading.Thread | None = None
        self._stop = threading.Event()
        # Presence has no version: reads and offers go in one order, so a socket never ends up with
        # an older read offered after a newer one.
        self._presence_lock = threading.Lock()
        self.beat = max(float(ping_interval or 25.0), 0.2)
        self.presence_ttl = 3 * self.beat

    # ------------------------------------------------------------------ bringing sockets to a version

    def bind(self, reader: GameReader) -> None:
        """Take the reader of games (the service whose commits this hub advances; called once by it)."""
        self._reader = reader

    def advance(self, commit: Commit) -> None:
        """Bring this process's sockets of the game to `commit`, just stored, on the committing thread:
        they need not wait for the store's announcement, and nothing is read; the mover's sockets come
        last. Never raises: the change is stored whatever happens to a push."""
        game = commit.game
        self._advance(commit.game_id, game.version, lambda: (game, commit.events), commit.mover)

    def _on_announcement(self, game_id: str, version: int, announcement: str | None = None) -> None:
        """The store announced a commit of `game_id` at `version` (listener thread): bring the local
        sockets to it, from what the reader returns (nothing when every socket holds it already: the
        commit was made here, or the game has no socket here)."""
        self._advance(game_id, version, lambda: self._reader.follow(game_id, version, announcement))

    def _on_reset(self) -> None:
        """Announcements may have been lost while the store's pub/sub was down: bring every socket to
        the game's latest version, and its presence up to date."""
        for game_id in {conn.game_id for conn in self.connections()}:
            self._advance(game_id, None, lambda game_id=game_id: self._reader.latest(game_id))
            self._on_presence(game_id)

    def _advance(self, game_id: str, version: int | None, source: Callable[[], tuple[Loaded, Events]],
                 last_seat: int | None = None) -> None:
        """Bring the local sockets of `game_id` to the game `source()` returns (with its version's
        events), the sockets of `last_seat` last; nothing when every socket holds `version` already
        (None: unknown before the read). A store outage tells them to resync; a game expired meanwhile
        shows nothing. Never raises. The observer hears how long it took (the server's part of a push)."""
        conns = self.connections(game_id)
        if not conns or (version is not None and all(conn.version >= version for conn in conns)):
            return
        started = time.perf_counter()
        try:
            game, events = source()
            self._offer(game, events, conns, last_seat)
        except ApiError:
            return
        except StoreUnavailable:
            for conn in conns:
                conn.sender.push(frames.RESYNC)
        except Exception:
            log.exception("push of %s v%s failed", game_id, version)
        finally:
            self._observer.push(time.perf_counter() - started)

    def _offer(self, game: Loaded, events: Events, conns: list[Connection],
               last_seat: int | None = None) -> None:
        """Offer `game`'s state to every connection in `conns`, rendering each seat once; `events`
        (of game.version, see api.game.model.Events) go along to the sockets that held the version before.
        The sockets of `last_seat` (the mover, who knows the move already) are served after the others."""
        live = []
        for conn in conns:
            if conn.seat is not None and game.seats[conn.seat] != conn.token_hash:
                # The seat moved to another device (transfer): this socket no longer sees its cards.
                conn.sender.push(frames.SEAT_MOVED)
                conn.sender.close(1008, "bad_token")
            elif game.version > conn.version:
                live.append(conn)
        if not live:
            return
        if last_seat is not None:
            live.sort(key=lambda conn: conn.seat == last_seat)
        table = table_info(game.doc)
        rendered: dict[tuple[int | None, bool], str] = {}
        derived: list = []  # the events, once derived (a move's may come from a replay)

        def frame(seat: int | None, with_events: bool) -> str:
            key = (seat, with_events)
            if key not in rendered:  # rendered when first needed: the first socket need not wait for others
                shown = None
                if with_events:
                    if not derived:
                        derived.append(events() if callable(events) else events)
                    shown = derived[0]
                rendered[key] = frames.state_frame(game.state(), game.version, seat, shown, table)
            return rendered[key]

        for conn in live:
            conn.sender.offer(game.version, lambda previous, seat=conn.seat: frame(
                seat, events is not None and previous == game.version - 1))
        announce = frames.rematch_frame(events)  # this version linked the rematch: offer it to everyone
        if announce is not None:
            for conn in live:
                conn.sender.push(announce)

    # ------------------------------------------------------------------ registry

    def attach(self, conn: Connection) -> None:
        """Register `conn` (subscribing this process on first use), then announce its seat.

        Raises StoreUnavailable when the subscription or the presence record cannot be made; the
        connection is then not registered.
        """
        with self._lock:
            if self._cancel is None:
                self._cancel = self._store.subscribe(self._on_announcement, on_reset=self._on_reset,
                                                     on_presence=self._on_presence, announcements=True)
                self._heartbeat = threading.Thread(target=self._beat, name="hub-presence", daemon=True)
                self._heartbeat.start()
            if conn.game_id not in self._games:
                self._store.watch(conn.game_id)  # Redis Cluster: SSUBSCRIBE to this game's announcements
            self._games.setdefault(conn.game_id, set()).add(conn)
        self._observer.socket_opened(conn.id)
        if conn.seat is not None:
            try:
                self._store.set_presence(conn.game_id, conn.id, conn.seat, self.presence_ttl)
            except StoreUnavailable:
                self.detach(conn)
                raise

    def detach(self, conn: Connection) -> None:
        """Forget `conn` and withdraw its presence entry (never raises)."""
        with self._lock:
            conns = self._games.get(conn.game_id)
            known = conns is not None and conn in conns
            if known:
                conns.discard(conn)
                if not conns:
                    del self._games[conn.game_id]
                    self._store.unwatch(conn.game_id)
        if known:
            self._observer.socket_closed(conn.id)
        if conn.seat is not None:
            try:
                self._store.set_presence(conn.game_id, conn.id, conn.seat, 0)
            except StoreUnavailable:
                pass  # the entry expires by itself
            except Exception as err:  # e.g. the store was closed at shutdown: never fail the socket's end
                log.warning("presence of socket %s not withdrawn: %r", conn.id, err)

    def connections(self, game_id: str | None = None) -> list[Connection]:
        """Return the local connections (of one game, or all)."""
        with self._lock:
            if game_id is not None:
                return list(self._games.get(game_id, ()))
            return [c for conns in self._games.values() for c in conns]

    def close(self) -> None:
        """Cancel the subscription and stop the heartbeat (the sockets' handlers end on their own)."""
        with self._lock:
            cancel, self._cancel = self._cancel, None
            beat, self._heartbeat = self._heartbeat, None
        self._stop.set()
        if cancel is not None:
            cancel()
        if beat is not None and beat is not threading.current_thread():
            beat.join(timeout=5)

    # ------------------------------------------------------------------ the hello

    def send_snapshot(self, conn: Connection) -> None:
        """Offer the current state to `conn` if it is newer than what the client holds.

        Raises ApiError (unknown_game) and StoreUnavailable from the read.
        """
        game, events = self._reader.latest(conn.game_id)
        self._offer(game, events, [conn])

    def send_presence(self, conn: Connection) -> None:
        """Offer the game's current presence to `conn`, the hello's presence, which follows its
        snapshot (raises StoreUnavailable)."""
        with self._presence_lock:
            conn.offer_presence(self._store.online_seats(conn.game_id), first=True)

    # ------------------------------------------------------------------ presence

    def _on_presence(self, game_id: str) -> None:
        """The online seats of `game_id` changed somewhere: tell the local sockets (listener thread)."""
        with self._presence_lock:
            conns = self.connections(game_id)
            if not conns:
                return
            try:
                online = self._store.online_seats(game_id)
            except StoreUnavailable:
                return
            for conn in conns:
                conn.offer_presence(online)

    # ------------------------------------------------------------------ presence heartbeat

    def _beat(self) -> None:
        """Refresh the presence entries of every local seated socket, once per ping interval.

        The refresh also purges other processes' expired entries, which announces their seats offline.
        """
        while not self._stop.wait(self.beat):
            started = time.monotonic()
            for conn in self.connections():
                if conn.seat is None or conn.sender.closing:
                    continue
                try:
                    self._store.set_presence(conn.game_id, conn.id, conn.seat, self.presence_ttl)
                except StoreUnavailable:
                    break  # try again next beat
                except Exception:
                    log.exception("presence heartbeat failed")
                    break
            spent = time.monotonic() - started
            if spent > self.beat / 2:
                log.warning("presence heartbeat took %.1f s for %d sockets", spent, len(self.connections()))
