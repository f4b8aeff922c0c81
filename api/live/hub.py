"""The websocket hub of one worker process: store nudges -> the sockets of that game (docs/architecture.md).

One hub per app (so per gunicorn worker). On the first socket it makes the worker's ONE store
subscription (Redis: the store's PSUBSCRIBE, made before its listener thread starts; embedded stores:
the in-process broker). It keeps a registry game id -> connections behind a lock. A commit reaches
the sockets of the process that made it straight from the committing thread (`deliver`), and
the other processes' sockets by the store's nudge, which carries the committed document and the frames
the committer rendered for the other seats before committing (`nudge_frames`): the listener thread
forwards those, renders what else its sockets need (the mover's seat, watchers, sockets more than one
version behind: one `engine.view` and one JSON encoding per seat, no read), and gives each connection
its frame: sent at once when the socket is idle, else queued for the connection's own handler thread
(api.live.ws), so a slow or vanished client never blocks another socket. The log keeps no events, so the
nudge's frames begin with the version's events (a version whose nudge has none, e.g. a bot's move made
by a GET, derives them by a replay when a socket needs them). A nudge without the document (one that
could not be framed) is read first.

Presence goes through the store (`set_presence` / `online_seats`, expiring entries refreshed by a
heartbeat thread), so it is right across workers and hosts, and a worker killed with its sockets
drops out after the entries' lifetime. After the store's pub/sub connection comes back (`on_reset`),
every local socket gets a fresh state and presence (or `{"type": "resync"}` when the store still fails).
"""

from __future__ import annotations

import logging
import queue
import secrets
import threading
import time
from collections.abc import Callable, Iterable

from api import jsontext
from api.errors import ApiError
from api.live import frames
from api.night import table_info
from api.service import Commit, Events, GameService, Loaded, Observer
from api.store.base import GameStore, StoreUnavailable

log = logging.getLogger(__name__)

# Markers in a connection's outbox besides the text frames to send.
INBOUND = object()  # the client sent something: read it
CLOSE = object()  # end the connection (revoked token, overflow)
FLUSH = object()  # send the rest of a frame that a direct send could not hand over at once

# A client that lets this many frames pile up unsent is not reading: drop it (it will resync).
OUTBOX_LIMIT = 512


class Connection:
    """One websocket as the hub sees it: its game and seat, and the outbox its handler thread drains.

    `version` is the highest state version queued for the client (starting at the client's `since`):
    a state at or below it is never queued, so the client gets every version at most once, in order.

    `direct`, when the handler sets it, may send a frame at once on the calling thread (the store's
    listener thread, say): it is tried only while no frame waits in the outbox, so frames still go
    out in the order they were pushed; it returns False to decline (then the frame is queued).
    """

    def __init__(self, game_id: str, seat: int | None, token_hash: str | None, since: int, seats: int):
        self.id = secrets.token_hex(8)
        self.game_id = game_id
        self.seat = seat
        self.token_hash = token_hash
        self.seats = seats  # number of seats of the game (presence lists every seat)
        self.version = since
        self.outbox: queue.SimpleQueue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._presence: list[int] | None = None
        self._queued = 0  # frames in the outbox not yet sent by the handler
        self.direct: Callable[[str], bool] | None = None
        self.closing = False
        # How the handler thread closes the socket when it meets CLOSE (code, reason): see `close`.
        self.close_as: tuple[int, str] = (1008, "closed")
        # False until the hello's presence is offered (`offer_presence(first=True)`, after the snapshot):
        # presence announced meanwhile (the socket's own arrival, say) waits, so that a client always
        # gets the state before the presence (docs/websocket.md, "Frame order").
        self.greeted = False

    def wake(self) -> None:
        """Tell the handler thread that the client sent something (called by the reader thread)."""
        self.outbox.put(INBOUND)

    def push(self, text: str) -> None:
        """Send one frame at once when possible, else queue it; a client that stopped reading long ago
        is closed instead."""
        with self._lock:
            self._push(text)

    def _push(self, text: str) -> None:
        """push, with _lock held."""
        if self.closing:
            return
        if self._queued == 0 and self.direct is not None and self.direct(text):
            return
        if self._queued > OUTBOX_LIMIT:
            log.warning("socket %s of %s is not reading; closing it", self.id, self.game_id)
            self.close(1008, "not_reading")
            return
        self._queued += 1
        self.outbox.put(text)

    def sent(self) -> None:
        """The handler thread has sent a frame it took from the outbox."""
        with self._lock:
            self._queued -= 1

    def close(self, code: int = 1008, reason: str = "closed") -> None:
        """Ask the handler thread to end the connection (after the frames already queued) with the close
        `code` and `reason` (the code of the error frame queued before it, if any)."""
        self.close_as = (code, reason)
        self.closing = True
        self.outbox.put(CLOSE)

    def offer_state(self, version: int, frame: Callable[[int], str]) -> bool:
        """Queue `frame(previous version)` when `version` is newer than what the client holds.

        Returns whether it was queued. Serialized per connection: the listener thread (fan-out) and
        the handler thread (snapshot, own actions) may offer the same version at once.
        """
        with self._lock:
            if version <= self.version:
                return False
            previous, self.version = self.version, version
            self._push(frame(previous))
            return True

    def offer_presence(self, online: Iterable[int], *, first: bool = False) -> None:
        """Queue a presence frame when the online seats differ from the last ones queued. Before the
        hello's own presence (`first`), nothing is queued: that one comes right after the snapshot."""
        online = sorted(set(online))
        with self._lock:
            if first:
                self.greeted = True
            if not self.greeted or online == self._presence:
                return
            self._presence = online
            self._push(frames.presence_frame(online, self.seats))


class Hub:
    """The registry and fan-out of one process. Thread-safe.

    `ping_interval` (seconds) paces the presence heartbeat; presence entries live 3 intervals, so
    the seats of a worker that died without cleaning up go offline within about 4 intervals.
    """

    def __init__(self, store: GameStore, *, ping_interval: float, observer: Observer | None = None):
        self._service: GameService | None = None  # reads games for the fan-out: see bind
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

    # ------------------------------------------------------------------ the fan-out of GameService

    def bind(self, service: GameService) -> None:
        """Take the service whose commits this hub fans out; it reads games for the hub (the latest
        version, the events of a move, the recent versions a next move starts from)."""
        self._service = service

    def render(self, commit: Commit) -> str:
        """Return what rides the store's nudge of `commit` (nudge_frames), rendered before it is
        stored: other processes forward it instead of rendering."""
        game = commit.game
        return frames.nudge_frames(game.state(), game.version, commit.events, game.seats, commit.mover,
                                   table_info(game.doc))

    def deliver(self, commit: Commit) -> None:
        """Bring this process's sockets of the game to `commit`, just stored, on the committing thread:
        they need not wait for the store's nudge, and nothing is read back; the mover's sockets come
        last. Never raises: the change is stored whatever happens to a push."""
        game = commit.game
        try:
            conns = self.connections(commit.game_id)
            if conns and any(conn.version < game.version for conn in conns):
                self._refresh(commit.game_id, conns, game, commit.events, commit.mover)
        except Exception:
            log.exception("push of %s v%s failed", commit.game_id, game.version)

    # ------------------------------------------------------------------ registry

    def attach(self, conn: Connection) -> None:
        """Register `conn` (subscribing this process on first use), then announce its seat.

        Raises StoreUnavailable when the subscription or the presence record cannot be made; the
        connection is then not registered.
        """
        with self._lock:
            if self._cancel is None:
                self._cancel = self._store.subscribe(
                    self._on_nudge, on_reset=self._on_reset, on_presence=self._on_presence, snapshots=True)
                self._heartbeat = threading.Thread(target=self._beat, name="hub-presence", daemon=True)
                self._heartbeat.start()
            if conn.game_id not in self._games:
                self._store.watch(conn.game_id)  # Redis Cluster: SSUBSCRIBE to this game's nudges
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

    # ------------------------------------------------------------------ rendering

    def send_snapshot(self, conn: Connection) -> None:
        """Queue the current state for `conn` if it is newer than what the client holds.

        Raises ApiError (unknown_game) and StoreUnavailable from the load.
        """
        game, events = self._service.latest(conn.game_id)
        self._render(game, events, [conn])

    def send_presence(self, conn: Connection) -> None:
        """Queue the game's current presence for `conn`, the hello's presence, which follows its
        snapshot (raises StoreUnavailable)."""
        with self._presence_lock:
            conn.offer_presence(self._store.online_seats(conn.game_id), first=True)

    def _render(self, game: Loaded, events: Events, conns: list[Connection],
                last_seat: int | None = None) -> None:
        """Queue `game`'s state for every connection in `conns`, rendering each seat once; `events`
        (of game.version, see api.service.Events) go along to the sockets that held the version
        before. The sockets of `last_seat` (the mover, who knows the move already) are served after
        the others."""
        live = []
        for conn in conns:
            if conn.seat is not None and game.seats[conn.seat] != conn.token_hash:
                # The seat moved to another device (transfer): this socket no longer sees its cards.
                conn.push(frames.SEAT_MOVED)
                conn.close(1008, "bad_token")
            elif game.version > conn.version:
                live.append(conn)
        if not live:
            return
        if last_seat is not None:
            live.sort(key=lambda conn: conn.seat == last_seat)
        # The frames the committer rendered (nudge_frames) are the ones this would render.
        rendered = frames.read_nudge(game.frames) if events is not None else {}
        table = table_info(game.doc)
        derived: list = []  # the events, once derived (a move's come from a replay)

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
            conn.offer_state(game.version, lambda previous, seat=conn.seat: frame(
                seat, events is not None and previous == game.version - 1))
        announce = frames.rematch_frame(events)  # this version linked the rematch: offer it to everyone
        if announce is not None:
            for conn in live:
                conn.push(announce)

    # ------------------------------------------------------------------ store callbacks

    def _on_nudge(self, game_id: str, version: int, snapshot: tuple[str, str, str] | None = None) -> None:
        """A commit of `game_id` reached `version` (`snapshot`: its document, log entry and frames;
        None when the document could not ride the nudge, then it is read): push it to the local
        sockets here, on the listener thread."""
        conns = self.connections(game_id)
        if not conns or all(conn.version >= version for conn in conns):
            return  # not ours, or already sent (pushed by the worker that committed it)
        try:
            self._push(game_id, version, snapshot)
        except Exception:
            log.exception("push of %s v%s failed", game_id, version)

    def _push(self, game_id: str, version: int, snapshot: tuple[str, str, str] | None) -> None:
        conns = self.connections(game_id)
        if not conns or all(conn.version >= version for conn in conns):
            return
        if snapshot is None:
            self._refresh(game_id, conns)
        else:
            doc, entry, text = snapshot
            game = Loaded(version, jsontext.loads_own(doc), doc, frames=text)
            # A change at the table says its events itself (a list: the rematch frame looks at it); a
            # move's come with the nudge, decoded when needed, or else from a replay.
            events = self._service.events_of(game_id, game, entry)
            if callable(events):
                events = frames.nudge_events(text) or events
            self._refresh(game_id, conns, game, events)
            # The next move here starts from it (api.recent), decoded now that the sockets have their
            # frames, off the path of both pushes. A move that comes even sooner reads the game first.
            game.state()
            self._service.remember(game_id, game)

    def _refresh(self, game_id: str, conns: list[Connection], game: Loaded | None = None,
                 events: Events = None, last_seat: int | None = None) -> None:
        """Render `game` (None: read the latest version) for `conns` (`last_seat` last); a store outage
        tells them to resync. The observer hears how long it took (the server's part of a push)."""
        started = time.perf_counter()
        try:
            if game is None:
                game, events = self._service.latest(game_id)
            self._render(game, events, conns, last_seat)
        except ApiError:  # expired meanwhile: nothing to show
            return
        except StoreUnavailable:
            for conn in conns:
                conn.push(frames.RESYNC)
        finally:
            self._observer.push(time.perf_counter() - started)

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

    def _on_reset(self) -> None:
        """Nudges may have been lost while the store's pub/sub was down: bring every socket up to date."""
        by_game: dict[str, list[Connection]] = {}
        for conn in self.connections():
            by_game.setdefault(conn.game_id, []).append(conn)
        for game_id, conns in by_game.items():
            self._refresh(game_id, conns)
            self._on_presence(game_id)

    # ------------------------------------------------------------------ presence heartbeat

    def _beat(self) -> None:
        """Refresh the presence entries of every local seated socket, once per ping interval.

        The refresh also purges other processes' expired entries, which announces their seats offline.
        """
        while not self._stop.wait(self.beat):
            started = time.monotonic()
            for conn in self.connections():
                if conn.seat is None or conn.closing:
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
