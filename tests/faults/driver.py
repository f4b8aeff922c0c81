"""The load scenario of tests/faults and tests/perf/load_run.py: concurrent duo games played to a server.

Each game has one mover thread and two watchers (one websocket per seat). The mover sends the active
seat's move over HTTP with a fresh Idempotency-Key and retries the SAME key until it gets an answer
(connection refused or reset, 502/503: the server or the store is away), so it never has a move of
unknown fate when it stops. After each answer it waits for both watchers to hold the new version (push
latency is measured from just before the send to the other seat's watcher receiving that state) and
takes the next move from the active seat's pushed view. A watcher whose socket fails reconnects with
the version it holds (hello `since`), and reconnects on a `resync` frame, as the phone client does.

`drop_every=n`: every n-th move is sent on a raw connection that is closed, unread, as soon as the
mover's own watcher shows the move applied (a phone losing its network mid-move); the same key is then
sent again and must be answered as a replay of that one move.

`verify()` then checks against the store that no acknowledged move is lost or applied twice (the log
holds exactly versions 3..v, one per acknowledged key) and that every watcher converges to v.
"""

from __future__ import annotations

import contextlib
import http.client
import json
import random
import socket
import statistics
import threading
import time
import uuid
from dataclasses import dataclass, field
from urllib.parse import urlsplit

from api.cli.netclient import HttpApi, LiveSocket

# How long a mover keeps retrying one move (the longest fault: a server restart on a loaded machine).
RETRY_FOR = 60.0
# A push that has not arrived after this long counts as late; the mover then reads over HTTP.
PUSH_WAIT = 5.0
# What a request whose server died meanwhile raises: refused or reset (OSError), a status line or body
# cut short (http.client.HTTPException: BadStatusLine, IncompleteRead), a truncated JSON body.
NO_ANSWER = (OSError, http.client.HTTPException, ValueError)


@dataclass
class Stats:
    """What every game recorded (lists are appended from many threads: list.append is atomic)."""

    action_ms: list[float] = field(default_factory=list)
    push_ms: list[float] = field(default_factory=list)
    late_pushes: int = 0
    retries: int = 0
    replays: int = 0
    reconnects: int = 0  # websocket reconnects of the watchers (drops and resyncs)
    games: int = 0  # games played (an ended game is replaced by a new one)
    errors: list[str] = field(default_factory=list)
    started: float = 0.0
    ended: float = 0.0

    def summary(self) -> dict:
        def q(values: list[float], p: int) -> float | None:
            if len(values) < 2:
                return None
            return round(statistics.quantiles(values, n=100, method="inclusive")[p - 1], 1)

        seconds = max(self.ended - self.started, 1e-9)
        return {"games_played": self.games, "actions": len(self.action_ms), "seconds": round(seconds, 1),
                "actions_per_s": round(len(self.action_ms) / seconds, 1),
                "action_p50_ms": q(self.action_ms, 50), "action_p99_ms": q(self.action_ms, 99),
                "push_p50_ms": q(self.push_ms, 50), "push_p99_ms": q(self.push_ms, 99),
                "late_pushes": self.late_pushes, "retries": self.retries, "replays": self.replays,
                "reconnects": self.reconnects, "errors": len(self.errors)}


class Watcher:
    """One seat's websocket, read on its own thread; records when each version arrived."""

    def __init__(self, base_url: str, game_id: str, token: str):
        self.live = LiveSocket(base_url, game_id, token)
        parts = urlsplit(base_url)
        self.address = (parts.hostname, parts.port)
        self.cond = threading.Condition()
        self.arrived: dict[int, float] = {}
        self.view: dict | None = None  # the newest state's view
        # The version of `view`, set with it under `cond`: the socket's own version moves on inside recv(),
        # before the view does, and a mover reading both between the two would take the older view for it.
        self.shown = 0
        self.reconnects = 0
        self.stop = False
        self.thread = threading.Thread(target=self._run, name=f"watch-{game_id[:6]}", daemon=True)

    @property
    def version(self) -> int:
        return self.shown

    def start(self) -> Watcher:
        self.thread.start()
        return self

    def _run(self) -> None:
        try:
            while not self.stop:
                if self.live.ws is None:
                    try:
                        # simple-websocket leaks its socket when the connect is refused (its Client
                        # never closes it): knock first while the server is down.
                        socket.create_connection(self.address, timeout=1).close()
                        self.live.connect()
                    except OSError:
                        time.sleep(0.1)
                        continue
                try:
                    frame = self.live.recv(timeout=0.25)
                except OSError:
                    self.live.close()
                    self.reconnects += 1
                    continue
                if frame is None:
                    continue
                if frame["type"] == "state":
                    with self.cond:
                        self.arrived[frame["version"]] = time.monotonic()
                        self.view = frame["view"]
                        self.shown = frame["version"]
                        self.cond.notify_all()
                elif frame["type"] == "resync":
                    self.live.close()  # the store's pub/sub was away: hello again with our version
                    self.reconnects += 1
        finally:
            self.live.close()

    def wait_for(self, version: int, timeout: float) -> float | None:
        """Return when `version` (or a newer one) arrived (monotonic seconds), None after `timeout`."""
        deadline = time.monotonic() + timeout
        with self.cond:
            while self.version < version:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                self.cond.wait(left)
            return min((t for v, t in self.arrived.items() if v >= version), default=time.monotonic())

    def close(self) -> None:
        self.stop = True
        self.thread.join(timeout=5)


def post_action(base_url: str, game_id: str, token: str, body: dict, key: str, *,
                abandon: threading.Event | None = None, timeout: float = 15.0) -> tuple[int, dict, bool]:
    """POST a move on a fresh connection; return (status, body, replayed). With `abandon`, close the
    connection unread as soon as it is set and raise ConnectionAbortedError (a dropped network)."""
    parts = urlsplit(base_url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=timeout)
    try:
        conn.request("POST", f"/api/v1/games/{game_id}/actions", json.dumps(body).encode(),
                     {"Content-Type": "application/json", "Authorization": f"Bearer {token}",
                      "Idempotency-Key": key})
        if abandon is not None:
            abandon.wait(timeout)
            raise ConnectionAbortedError("dropped before reading the answer")
        resp = conn.getresponse()
        data = resp.read()
        return resp.status, json.loads(data or b"{}"), resp.getheader("Idempotent-Replayed") == "true"
    finally:
        conn.close()


class Game:
    """One duo game: its seats' tokens, watchers, mover thread and what was acknowledged."""

    def __init__(self, base_url: str, stats: Stats, rng: random.Random, drop_every: int = 0):
        http = HttpApi(base_url)
        grant = http.create("duo")
        joined = http.join(grant["join_code"])
        self.base_url = base_url
        self.game_id = grant["game_id"]
        self.tokens = {grant["seat"]: grant["token"], joined["seat"]: joined["token"]}
        self.version = joined["version"]
        self.stats = stats
        self.rng = rng
        self.drop_every = drop_every
        self.acked: list[tuple[str, int]] = []  # (idempotency key, version answered)
        self.watchers = {seat: Watcher(base_url, self.game_id, token).start()
                         for seat, token in self.tokens.items()}
        self.stop = threading.Event()
        self.over = False
        self.final: dict[int, int] | None = None  # each seat's socket version when retired
        self.thread = threading.Thread(target=self._run, name=f"game-{self.game_id[:6]}", daemon=True)

    def _view_of(self, seat: int) -> dict:
        """The seat's view at self.version: pushed, or read over HTTP when its socket lags."""
        watcher = self.watchers[seat]
        with watcher.cond:
            if watcher.version == self.version and watcher.view is not None:
                return watcher.view
        deadline = time.monotonic() + RETRY_FOR
        while True:
            try:
                game = HttpApi(self.base_url).get(self.game_id, self.tokens[seat])
                if game["version"] == self.version:
                    return game["view"]
                raise AssertionError(f"{self.game_id}: store at v{game['version']}, we hold v{self.version}")
            except NO_ANSWER as err:
                if time.monotonic() > deadline:
                    raise TimeoutError(f"{self.game_id}: cannot read the game: {err}") from err
                time.sleep(0.1)
            except Exception as err:  # noqa: BLE001 - 503 while the store is away
                if "503" not in str(err) or time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def _act(self, seat: int, action: dict, key: str, drop: bool) -> dict:
        """Send the move until answered (same key every time); return the answer."""
        body = {"action": action, "version": self.version}
        deadline = time.monotonic() + RETRY_FOR
        if drop:
            applied = threading.Event()
            watcher = self.watchers[seat]
            waiter = threading.Thread(target=lambda: watcher.wait_for(self.version + 1, 10) and applied.set(),
                                      daemon=True)
            waiter.start()
            with contextlib.suppress(OSError):  # the point: no answer is read
                post_action(self.base_url, self.game_id, self.tokens[seat], body, key, abandon=applied)
            waiter.join()
        while True:
            try:
                status, answer, replayed = post_action(self.base_url, self.game_id, self.tokens[seat], body,
                                                       key)
            except NO_ANSWER:
                status, answer, replayed = 0, {}, False
            if status == 200:
                if replayed:
                    self.stats.replays += 1
                if drop and not replayed:
                    self.stats.errors.append(f"{self.game_id}: a dropped move was applied by its retry only")
                return answer
            if status not in (0, 502, 503, 504) or time.monotonic() > deadline:
                raise AssertionError(f"{self.game_id} v{self.version}: {status} {answer}")
            self.stats.retries += 1
            time.sleep(0.1)

    def _run(self) -> None:
        moves = 0
        try:
            while not self.stop.is_set():
                seat = self._active
                view = self._view_of(seat)
                if view["phase"] == "over":
                    self.over = True
                    return
                action = self.rng.choice(view["legal_actions"])
                key = str(uuid.uuid4())
                moves += 1
                drop = bool(self.drop_every) and moves % self.drop_every == 0
                sent = time.monotonic()
                answer = self._act(seat, action, key, drop)
                self.stats.action_ms.append((time.monotonic() - sent) * 1000)
                if answer["version"] != self.version + 1:
                    self.stats.errors.append(f"{self.game_id}: answered v{answer['version']} for a move at "
                                             f"v{self.version}")
                self.acked.append((key, answer["version"]))
                self.version = answer["version"]
                self._active = answer["view"]["active"]
                for other, watcher in self.watchers.items():
                    arrived = watcher.wait_for(self.version, PUSH_WAIT)
                    if arrived is None:
                        self.stats.late_pushes += 1
                    elif other != seat and not drop:
                        self.stats.push_ms.append((arrived - sent) * 1000)
        except Exception as err:  # noqa: BLE001 - reported by verify()
            self.stats.errors.append(f"{self.game_id}: {err!r}")

    def start(self) -> None:
        self._active = HttpApi(self.base_url).get(self.game_id)["view"]["active"]
        self.thread.start()

    def finish(self) -> None:
        self.stop.set()
        self.thread.join(timeout=RETRY_FOR + 10)

    def retire(self, converge_within: float = 20.0) -> None:
        """After the game ended: note where each socket converged, then close them (frees the server's
        threads for the next game)."""
        self.thread.join(timeout=5)
        self.final = {}
        for seat, watcher in self.watchers.items():
            watcher.wait_for(self.version, converge_within)
            self.final[seat] = watcher.version
        self.close()

    def close(self) -> None:
        # Every watcher told first, then joined: each notices within one read slice, all at once.
        for watcher in self.watchers.values():
            watcher.stop = True
        for watcher in self.watchers.values():
            watcher.close()


def run_load(base_url: str, *, games: int, seconds: float, seed: int = 7, drop_every: int = 0,
             fault=None, fault_at: float = 0.0, moves_after: int = 0) -> tuple[list[Game], Stats]:
    """Keep `games` games going for `seconds` (a game that ends is replaced by a new one); call
    `fault(games so far)` once after `fault_at` seconds. With `moves_after`, stop sooner: once every game
    that was going when the fault returned (when play began, without a fault) has ended or had that many
    moves acknowledged since. Return every game played (stopped; the sockets of the unfinished ones still
    open for verify()) and the stats."""
    stats = Stats()
    rng = random.Random(seed)
    played = [Game(base_url, stats, random.Random(rng.random()), drop_every) for _ in range(games)]
    stats.started = time.monotonic()
    for game in played:
        game.start()
    pending_fault = fault
    # Each game going after the fault, and how many of its moves were acknowledged by then.
    since: dict[Game, int] | None = None if fault is not None else {game: 0 for game in played}
    while (now := time.monotonic()) < stats.started + seconds:
        if pending_fault is not None and now >= stats.started + fault_at:
            pending_fault, call = None, pending_fault
            call(played)
            since = {game: len(game.acked) for game in played if not game.over}
        if moves_after and since is not None and all(
                game.over or len(game.acked) - count >= moves_after for game, count in since.items()):
            break
        for game in played:
            if game.over and game.final is None:
                game.retire()
        while sum(not game.over for game in played) < games:
            try:
                game = Game(base_url, stats, random.Random(rng.random()), drop_every)
            except Exception:  # noqa: BLE001 - the server is away (a fault): try again shortly
                break
            game.start()
            played.append(game)
        time.sleep(0.1)
    for game in played:
        game.stop.set()
    for game in played:
        game.finish()
    stats.ended = time.monotonic()
    stats.reconnects = sum(w.reconnects for game in played for w in game.watchers.values())
    stats.games = len(played)
    return played, stats


def socket_workers(games: list[Game], server) -> set[int]:
    """Return the pids of the workers of `server` (a tests.live.servers.Gunicorn) holding the games'
    sockets now."""
    return {pid for game in games for w in game.watchers.values() if (pid := server.worker_of(w.live))}


def verify(games: list[Game], store, *, converge_within: float = 20.0) -> list[str]:
    """Return the problems found (empty: nothing lost, nothing twice, every client converged); closes
    the watchers."""
    problems = []
    try:
        for game in games:
            if game.thread.is_alive():
                problems.append(f"{game.game_id}: the mover did not stop")
                continue
            found = store.load(game.game_id)
            if found is None:
                problems.append(f"{game.game_id}: the game is gone")
                continue
            version, _doc = found
            logged = [v for v, _ in store.log_since(game.game_id, 2)]
            versions = [v for _, v in game.acked]
            keys = [k for k, _ in game.acked]
            if len(set(keys)) != len(keys):
                problems.append(f"{game.game_id}: a key was acknowledged twice")
            # Versions 1 and 2: creation and join. Then exactly one version per acknowledged move.
            if versions != list(range(3, 3 + len(versions))):
                problems.append(f"{game.game_id}: acknowledged versions {versions[:5]}... are not 3, 4, ...")
            if version != 2 + len(versions):
                problems.append(f"{game.game_id}: store at v{version}, {len(versions)} moves acknowledged")
            if logged != list(range(3, version + 1)):
                problems.append(f"{game.game_id}: log holds {logged[:5]}... not 3..{version}")
            for seat, watcher in game.watchers.items():
                if game.final is None:
                    watcher.wait_for(version, converge_within)
                held = game.final[seat] if game.final is not None else watcher.version
                if held != version:
                    problems.append(f"{game.game_id}: seat {seat}'s socket holds v{held}, not v{version}")
    finally:
        for game in games:  # every watcher told first, then joined (see Game.close)
            for watcher in game.watchers.values():
                watcher.stop = True
        for game in games:
            game.close()
    return problems
