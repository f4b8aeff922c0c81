"""The game service: load -> apply -> commit. No Flask here; callers pass plain values in and get
JSON-ready dicts out, or an ApiError.

The stored document (compact JSON, its fields named in `create`, format DOC_FORMAT) holds the latest
engine position, the seats' token hashes, the open join code and timestamps; the log (api.gamelog)
holds what was done. Every change is one `store.commit` (compare-and-set on the version, idempotency
record, log entry, publish). Every payload leaving here went through `engine.view` or
`engine.redact_events` for the caller's seat: never the seed, the deck order or another seat's hand.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import engine
import engine.bots
from api import auth, gamelog, jsontext, night, records
from api.errors import ApiError
from api.game import tutorial as tutorial_deal
from api.ops.limits import Limiter
from api.recent import RecentGames
from api.store.base import CommitResult, GameStore, OutcomeUnknown, StoreUnavailable
from engine.bots import hint as hint_bot

MODES = ("duo", "solo")
# The format of the stored document and log; a release that changes either bumps it (and says how to
# read the older one). Plain field names: short keys would save about 70 bytes of some 1,500 per game.
DOC_FORMAT = 1
GAME_ID_RE = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")
# The seat-hash placeholder of a bot's seat: never equal to a token hash (64 hex digits).
BOT_SEAT = "bot"
# A safety net for one run of bot moves (a bot's whole turn is a dozen actions at most).
MAX_BOT_MOVES = 200

# The unredacted events of one version: None (version 1 has none), the list, or a function that
# returns the list (derived by replaying the game, only when some socket needs them).
Events = list | Callable[[], list] | None


def dumps(obj) -> str:
    """Compact JSON, the form of everything written to the store (api.jsontext)."""
    return jsontext.dumps(obj)


@dataclass(frozen=True)
class Lifetimes:
    """Seconds a game is kept after its last change, by kind (see api.config)."""

    game: int
    finished: int
    lobby: int
    transfer: int


@dataclass
class Loaded:
    """A game as read from the store."""

    version: int
    doc: dict
    raw: str
    parsed: object = None  # the engine state of doc["position"], when the caller has it already
    events: list | None = None  # the version's unredacted events, when this process made or followed it

    @property
    def seats(self) -> list[str | None]:
        return self.doc["seats"]

    def state(self):
        """Return the engine state of the document, decoded once (states are never mutated)."""
        if self.parsed is None:
            self.parsed = engine.from_position(self.doc["position"])
        return self.parsed


@dataclass(frozen=True)
class Commit:
    """One change of a game, as a value: the game at the version it makes, that version's events
    (unredacted: whoever shows them redacts them per seat) and the seat that moved (None: a change at
    the table). Once it is stored, the fan-out advances this process's sockets to it."""

    game_id: str
    game: Loaded
    events: list[dict]
    mover: int | None


@dataclass(frozen=True)
class Outcome:
    """What `act` did: the version the caller's action made (just now, or when it was first sent:
    `replayed`), for `seat`. `GameService.answer` renders the HTTP answer from it."""

    game_id: str
    seat: int
    version: int
    replayed: bool
    commit: Commit | None = None  # the caller's own commit, when applied now


class FanOut(Protocol):
    """Who brings this process's websockets to each commit (api.live.hub.Hub; other processes' hubs hear
    the store's announcement instead)."""

    def bind(self, reader: GameService) -> None:
        """Take the reader of games (its `latest` and `follow` only; called once, by the service)."""

    def advance(self, commit: Commit) -> None:
        """Bring this process's sockets of the game to `commit`, just stored. Never raises."""


class Observer:
    """What the service and the hub report as they work, for metrics and logs (api.ops.metrics): they
    call these; nothing replaces their methods. This base class ignores everything."""

    def action(self, game_id: str, outcome: str, seconds: float) -> None:
        """An action request was answered: `outcome` is "ok", "replayed" or an ApiError code (or
        "store_unavailable", "error"), after `seconds`."""

    def push(self, seconds: float) -> None:
        """The hub brought the sockets of one game of this process to a new version in `seconds`."""

    def socket_opened(self, conn_id: str) -> None:
        """A websocket joined the hub of this process."""

    def socket_closed(self, conn_id: str) -> None:
        """A websocket that joined left the hub."""


class GameService:
    """All game operations against one store. Thread-safe: it holds no mutable state of its own
    (its cache of recent versions is thread-safe).

    Every change goes through `_commit`: the players' actions, the bot's moves, joins and transfers
    alike. It stores the change, which the store announces once to every process, then has `fanout`
    (the websocket hub) advance this process's sockets to it; `observer` hears how requests went.
    """

    def __init__(self, store: GameStore, lifetimes: Lifetimes, *, limiter: Limiter | None = None,
                 bot_budgets: dict[str, dict] | None = None, fanout: FanOut | None = None,
                 observer: Observer | None = None):
        self.store = store
        self.ttl = lifetimes
        # Rate limits (api.ops.limits): none when not given (tests of the service alone).
        self.limiter = limiter or Limiter(store, {})
        # Per bot name, the budget keywords of engine.bots.choose (api.config BOT_MC_PLAYOUTS, _WIDTH).
        self.bot_budgets = bot_budgets or {}
        self.recent = RecentGames()  # what a move may start from without a read (api.recent)
        self.fanout = fanout
        self.observer = observer or Observer()
        if fanout is not None:
            fanout.bind(self)

    # ----------------------------------------------------------------- reading

    def _load(self, game_id: str) -> Loaded:
        """Return the stored game; raise unknown_game."""
        if not GAME_ID_RE.match(game_id):
            raise ApiError("unknown_game", "Game ids are 1-64 characters of A-Z a-z 0-9 _ -")
        found = self.store.load(game_id)
        if found is None:
            raise ApiError("unknown_game", f"There is no game {game_id!r} (or it has expired).")
        version, raw = found
        game = Loaded(version, jsontext.loads_own(raw), raw)
        self.recent.put(game_id, game)
        return game

    @staticmethod
    def _seat(game: Loaded, token: str | None, *, required: bool) -> int | None:
        """Return the caller's seat: None for a spectator (no token, when allowed); raise bad_token."""
        if token is None:
            if required:
                raise ApiError("bad_token", "This needs a seat token: Authorization: Bearer <token>.")
            return None
        seat = auth.seat_of(token, game.seats)
        if seat is None:
            raise ApiError("bad_token", "This token holds no seat in this game (wrong, or transferred).")
        return seat

    def _game_body(self, game_id: str, version: int, doc: dict, state, seat: int | None, base_url: str):
        """Return the common part of every answer about one game, as `seat` may see it."""
        body = {"game_id": game_id, "version": version, "seat": seat, "view": engine.view(state, seat),
                **night.table_info(doc), "seed_commitment": _commitment(doc)}
        if doc.get("tutorial"):
            body["tutorial"] = True
        if seat is not None and doc.get("join_code"):
            # Seated players may show the open join code again (QR on the first phone).
            body["join_code"] = doc["join_code"]
            body["join_url"] = join_url(base_url, doc["join_code"])
        return body

    def get(self, game_id: str, token: str | None, base_url: str) -> dict:
        """Return {game_id, version, seat, view, seats[, join_code, join_url]}.

        Raises unknown_game, bad_token (a token is given but holds no seat). Commits nothing.
        """
        game = self._load(game_id)
        seat = self._seat(game, token, required=False)
        return self._game_body(game_id, game.version, game.doc, game.state(), seat, base_url)

    def events(self, game_id: str, token: str | None, since: int) -> dict:
        """Return {game_id, version, seat, log: [{version, events}]} for versions > since, redacted."""
        game = self._load(game_id)
        seat = self._seat(game, token, required=False)
        log = [{"version": step.version, "events": engine.redact_events(step.events, seat)}
               for step in self._replay(game_id, game) if step.version > since]
        return {"game_id": game_id, "version": game.version, "seat": seat, "log": log}

    def latest(self, game_id: str) -> tuple[Loaded, Events]:
        """Return the stored game and the events of its version (see `events_of`), read at once, for
        callers that render it for several seats (the websocket hub); every payload made from them
        goes through `engine.view` / `engine.redact_events`. Raises unknown_game."""
        found = self.store.load_latest(game_id) if GAME_ID_RE.match(game_id) else None
        if found is None:
            raise ApiError("unknown_game", f"There is no game {game_id!r} (or it has expired).")
        version, raw, entry = found
        game = Loaded(version, jsontext.loads_own(raw), raw)
        return game, self.events_of(game_id, game, entry)

    def follow(self, game_id: str, version: int, announcement: str | None) -> tuple[Loaded, Events]:
        """Return the game at `version` (or later) and the events of the version returned, for the
        websocket hub when the store announced a commit (`announcement`: see `_commit`). When this
        process holds the version before and the announcement names a move, the move is applied to it
        here and nothing is read: the engine is deterministic, so this is the stored version (but for
        the document's `updated` time, which no answer shows). Else the game is read. This process's
        cache of recent versions keeps what is returned, so a next move made here needs no read. (The
        announcement of a commit made here may come before the commit's own thread has advanced the
        sockets: it finds that version held, with its events.)"""
        held = self.recent.get(game_id, version)
        if held is not None and held.events is not None:
            return held, held.events
        before = self.recent.get(game_id, version - 1)
        game = None
        if before is not None and announcement:
            try:
                move = gamelog.parse(announcement)
                if isinstance(move, gamelog.Move):
                    state, events = engine.apply(before.state(), move.action)
                    doc = dict(before.doc, position=engine.to_position(state))
                    game = Loaded(version, doc, dumps(doc), state, events)
            except (ValueError, engine.EngineError):
                game = None  # not an announcement of ours: read the game
        if game is None:
            game, events = self.latest(game_id)
        self.recent.put(game_id, game)
        return game, events

    def events_of(self, game_id: str, game: Loaded, entry: str | None) -> Events:
        """Return the unredacted events of `game`'s version, whose log entry is `entry`: None for the
        first version (no entry); the list for a change at the table, which says them itself; for a
        move, a function that returns them, by replaying the game (gamelog): called only when needed."""
        if not entry:
            return None
        parsed = gamelog.parse(entry)
        if isinstance(parsed, gamelog.Change):
            return parsed.events()

        def replayed() -> list[dict]:
            step = next((s for s in self._replay(game_id, game) if s.version == game.version), None)
            return step.events if step is not None else []

        return replayed

    def _replay(self, game_id: str, game: Loaded) -> list[gamelog.Step]:
        """Return every version of `game` after the first, replayed from its start (gamelog): the
        log read now may hold later versions, which are left out."""
        doc = game.doc
        start = engine.new_game(doc["mode"], doc["secret"][0], **doc["options"])
        entries = [(v, e) for v, e in self.store.log_since(game_id, 1) if v <= game.version]
        return list(gamelog.replay(start, entries))

    def join_link(self, game_id: str, token: str | None, code: str | None, client: str, base_url: str) -> str:
        """Return the join URL to draw as a QR code: for `code` if it is a live code of this game, else
        the open join code, which only a seated player may see.

        Raises unknown_game, bad_token, unknown_code, rate_limited (checking a code counts as a join
        attempt: otherwise this would be a way to guess codes around the join limit).
        """
        if code is not None:
            self.limiter.guess(client, game_id)
            norm = auth.normalize_code(code)
            target = self.store.get_code(norm) if norm else None
            if target is None or target.split("#", 1)[0] != game_id:
                raise ApiError("unknown_code", "That code is not a live code of this game.")
            self.limiter.guessed_right(client, game_id)
            return join_url(base_url, norm)
        game = self._load(game_id)
        self._seat(game, token, required=True)
        if not game.doc.get("join_code"):
            raise ApiError("unknown_code", "Every seat of this game is taken: there is no join code.")
        return join_url(base_url, game.doc["join_code"])

    # ----------------------------------------------------------------- writing

    def _ttl(self, doc: dict, state_phase: str) -> int:
        if state_phase == "over":
            return self.ttl.finished
        if None in doc["seats"] or night.RESERVED_SEAT in doc["seats"]:
            return self.ttl.lobby  # a seat nobody took yet, or one kept for a rematch player, expires
        return self.ttl.game

    def create(self, mode: str, dealer: int | None, base_url: str, bot: str | None = None,
               name: str | None = None, tutorial: bool = False, client: str | None = None) -> dict:
        """Start a game; return the creator's answer (seat 0, its token, and a join code for duo; with
        `bot` in duo, seat 1 is that bot's and there is no join code). `name`: the creator's name
        (already cleaned: api.night.clean_name). `tutorial` (solo): the guided game, a short game from a
        prepared table (api.game.tutorial). `client` (api.ops.limits.client_key) is counted against the
        creation limit. Raises invalid_request, rate_limited."""
        if mode not in MODES:
            raise ApiError("invalid_request", f"mode must be one of {', '.join(MODES)}")
        if client is not None:
            self.limiter.create(client)
        if bot is not None and bot not in engine.bots.BOTS:
            raise ApiError("invalid_request", f"bot must be one of {', '.join(engine.bots.BOTS)}")
        # Without `dealer` the engine draws the dealer from the seed (R50), which comes from `secrets`.
        # Solo has one seat, so a dealer or a bot opponent means nothing there and is ignored.
        bot = bot if mode == "duo" else None
        options = {"dealer": dealer} if dealer is not None and mode == "duo" else {}
        if tutorial and mode != "solo":
            raise ApiError("invalid_request", "The tutorial is a solo game.")
        # The tutorial is a short game from a prepared table (api.game.tutorial), kept among the
        # options so that the log and the record replay it; its seed is public, its salt random.
        if tutorial:
            seed, options = tutorial_deal.SEED, dict(tutorial_deal.OPTIONS)
        else:
            seed = secrets.randbelow(2**53)
        state = engine.new_game(mode, seed, **options)
        token = auth.new_token()
        now = int(time.time())
        seats = [auth.token_hash(token), None] if mode == "duo" else [auth.token_hash(token)]
        if bot is not None:
            seats[1] = BOT_SEAT
        # seats: token hashes (None: free; BOT_SEAT: the bot's; night.RESERVED_SEAT: kept for a rematch
        # player), join_code: the open one, bot: [seat, bot name] or None, secret: [seed, salt] (published
        # with the record once the game is over), options: engine.new_game's, created/updated: unix
        # seconds. Optional: names (per seat), rematch (the next game's id), tutorial (true).
        doc = {"format": DOC_FORMAT, "mode": mode, "position": engine.to_position(state), "seats": seats,
               "join_code": None, "bot": [1, bot] if bot else None, "secret": [seed, records.new_salt()],
               "options": options, "created": now, "updated": now}
        if name is not None:
            doc["names"] = night.with_name(None, len(seats), 0, name)
        if tutorial:
            doc["tutorial"] = True
        for _ in range(20):
            game_id = secrets.token_urlsafe(12)
            code = None
            if mode == "duo" and bot is None:
                code = self._reserve_code(game_id, self.ttl.lobby)
                doc["join_code"] = code
            if self.store.create(game_id, dumps(doc), self._ttl(doc, doc["position"]["phase"])):
                break
            if code:
                self.store.delete_code(code)
        else:  # pragma: no cover - 96-bit ids do not collide
            raise ApiError("internal_error", "could not allocate a game id")
        game = self._play_bots(game_id, Loaded(1, doc, dumps(doc), state))  # the bot may start (R50)
        body = self._game_body(game_id, game.version, game.doc, game.state(), 0, base_url)
        body["token"] = token
        body.setdefault("join_code", None)
        body.setdefault("join_url", None)
        return body

    def _reserve_code(self, value: str, ttl: int) -> str:
        """Return a fresh code mapped to `value` in the store for `ttl` seconds."""
        for _ in range(50):
            code = auth.new_code()
            if self.store.put_code(code, value, ttl):
                return code
        raise ApiError("store_unavailable", "no free code found; try again")  # pragma: no cover

    def act(self, game_id: str, token: str | None, action, version: int,
            idempotency_key: str | None = None) -> Outcome:
        """Apply `action` for the seat that `token` holds, at `version` (the version the caller saw).

        Returns the Outcome: the version made, and whether this Idempotency-Key had been answered
        already (then nothing is applied again; `answer` renders the first answer again). Raises
        unknown_game, bad_token, stale_version (with the current version and view), not_your_turn,
        invalid_action, illegal_action, idempotency_mismatch, StoreUnavailable.

        Each commit this makes reaches the fan-out (`_commit`). In a game against a bot, the bot's
        answering moves are committed (each its own version) after the caller's move and before this
        returns; the outcome is the caller's own move. The observer hears how the request went.
        """
        started = time.perf_counter()
        outcome = "error"
        try:
            done = self._act(game_id, token, action, version, idempotency_key)
            outcome = "replayed" if done.replayed else "ok"
            return done
        except ApiError as err:
            outcome = err.code
            raise
        except OutcomeUnknown:
            outcome = "outcome_unknown"
            raise
        except StoreUnavailable:
            outcome = "store_unavailable"
            raise
        finally:
            self.observer.action(game_id, outcome, time.perf_counter() - started)

    def answer(self, outcome: Outcome, base_url: str) -> str:
        """Return the JSON text of the answer to an action: {game_id, version, seat, view, seats,
        events, ...} of the version it made, as its seat sees it. A replayed outcome gets the text of
        the first answer, byte for byte (for the same base URL), rendered again from the log."""
        commit = outcome.commit
        if commit is None:
            return self._replayed(outcome.game_id, outcome.seat, outcome.version, base_url)
        game = commit.game
        return self._answer(outcome.game_id, game.version, game.doc, game.state(), outcome.seat,
                            engine.redact_events(commit.events, outcome.seat), base_url)

    def _act(self, game_id: str, token: str | None, action, expected: int, idem_key: str | None) -> Outcome:
        body = {"action": action, "version": expected}
        if idem_key is not None:
            # HTTP's schema and the websocket's check the length first; this holds for any caller.
            if not 0 < len(idem_key) <= gamelog.IDEMPOTENCY_KEY_MAX:
                raise ApiError("invalid_request",
                               f"An Idempotency-Key has 1-{gamelog.IDEMPOTENCY_KEY_MAX} characters.")
            idem_key = gamelog.key_digest(idem_key)  # what the records keep: a few bytes, whatever its length
        # The version the move was made at, if this process holds it: no read (see api.recent).
        game = self.recent.get(game_id, expected) or self._load(game_id)
        game = self._catch_up(game_id, game)
        seat = self._seat(game, token, required=True)
        self.limiter.charge("move", f"{game_id}:{seat}")  # every action request of a seat counts
        if game.doc.get("bot"):
            self.limiter.charge("bot", game_id)  # and the bot's work it may cause (api.ops.limits)
        fingerprint = _fingerprint(seat, body)
        # From here on, a key this game has recorded decides first (docs/protocol.md §9): the same request
        # replays its answer, another one is idempotency_mismatch, whatever else would fail now. It is
        # looked up only when the request fails a check; on success the commit itself checks the key.
        if expected != game.version:
            replay, current = self._recorded(game_id, game, seat, idem_key, fingerprint)
            if replay is not None:
                return replay
            if current != game.version:
                # The store is not at the version just read: read on another node (a Sentinel failover
                # between the two). Decide on a fresh read, or this could refuse a move the store takes.
                game = self._catch_up(game_id, self._load(game_id))
                seat = self._seat(game, token, required=True)
            if expected != game.version:
                raise self._stale(game, seat)
        try:
            new_state, events = self._apply(game, seat, body["action"])
        except ApiError:
            replay, _ = self._recorded(game_id, game, seat, idem_key, fingerprint)
            if replay is not None:
                return replay
            raise

        doc = dict(game.doc, position=engine.to_position(new_state), updated=int(time.time()))
        # The idempotency record keeps the version this request made, not the answer: a retry renders
        # it again from the log (`_replayed`).
        res, commit = self._commit(game_id, game, doc, new_state, events, seat, gamelog.move(seat, action),
                                   idem_key=idem_key, fingerprint=fingerprint)
        self._check_idempotency(res.status)
        if res.status == "ok":
            # The caller's move is stored: a store failing now does not make it unapplied. The bot's
            # turn is then taken up when the game is next touched (`_catch_up`).
            with contextlib.suppress(StoreUnavailable):
                self._play_bots(game_id, commit.game)
            return Outcome(game_id, seat, commit.game.version, False, commit)
        if res.status == "duplicate":
            return Outcome(game_id, seat, res.version, True)
        # Someone else moved between our load and our commit: the caller must look again.
        raise self._stale(self._load(game_id), seat)

    @staticmethod
    def _apply(game: Loaded, seat: int, action) -> tuple[object, list[dict]]:
        """Return the engine state and events of `seat`'s `action` on `game`; raise not_your_turn,
        invalid_action or illegal_action."""
        position = game.doc["position"]
        if position["phase"] != "over" and position["active"] != seat:
            raise ApiError("not_your_turn", f"It is seat {position['active']}'s turn.")
        try:
            return engine.apply(game.state(), action)
        except engine.IllegalAction as err:
            raise ApiError("illegal_action", str(err)) from None
        except engine.EngineError as err:  # InvalidAction, or any other malformed input
            raise ApiError("invalid_action", str(err)) from None

    def _recorded(self, game_id: str, game: Loaded, seat: int, idem_key: str | None,
                  fingerprint: str) -> tuple[Outcome | None, int]:
        """Return (the replayed outcome, its version) when `idem_key` was recorded for this game with
        this request (`fingerprint`); raise idempotency_mismatch when it was recorded with another;
        (None, the store's version of the game) when it was not; (None, `game`'s version) when no key
        was given.

        Asks the store with a commit expecting version 0, which no game ever has: it finds the key or
        answers conflict, and can write nothing. So a failed answer cannot be an outcome_unknown either."""
        if not idem_key:
            return None, game.version
        try:
            ttl = self._ttl(game.doc, game.doc["position"]["phase"])
            res = self.store.commit(game_id, 0, game.raw, ttl=ttl, idem_key=idem_key, fingerprint=fingerprint,
                                    seat=seat)
        except OutcomeUnknown as err:
            raise StoreUnavailable(str(err)) from None
        self._check_idempotency(res.status)
        return (Outcome(game_id, seat, res.version, True) if res.status == "duplicate" else None), res.version

    def _change(self, game_id: str, before: Loaded, doc: dict, seat: int, kind: str,
                **fields) -> tuple[CommitResult, Commit]:
        """Commit `doc`, a change at the table (`kind` of `seat`, gamelog.change) after `before`."""
        entry = gamelog.change(seat, kind, **fields)
        return self._commit(game_id, before, doc, before.state(), gamelog.parse(entry).events(), None, entry)

    def _commit(self, game_id: str, game: Loaded, doc: dict, state, events: list[dict], mover: int | None,
                entry: str, *, idem_key: str | None = None,
                fingerprint: str = "") -> tuple[CommitResult, Commit]:
        """Store `doc` (with the engine `state` it holds) as the version after `game`'s, with its log
        `entry`: the one path of every change. The store announces the commit once, to every process:
        for a move its log entry (the seat and the action's code, which every seat may see: `follow`
        applies it), for a change at the table nothing (`follow` reads the game); never the document,
        whose seed, salt and token hashes stay in the store. Once stored, the fan-out advances this process's
        sockets to it before anything else happens. Returns the store's result and the commit."""
        raw = dumps(doc)
        commit = Commit(game_id, Loaded(game.version + 1, doc, raw, state, events), events, mover)
        res = self.store.commit(game_id, game.version, raw, ttl=self._ttl(doc, doc["position"]["phase"]),
                                idem_key=idem_key, fingerprint=fingerprint, seat=mover or 0,
                                compact=doc["position"]["phase"] == "over", log=entry,
                                announce=entry if mover is not None else "")
        if res.status == "ok":
            self.recent.put(game_id, commit.game)
            if self.fanout is not None:
                self.fanout.advance(commit)
        return res, commit

    def _answer(self, game_id: str, version: int, doc: dict, state, seat: int, events: list[dict],
                base_url: str) -> str:
        """Return the JSON text of the answer to an action that brought the game to `version`
        (`events` already redacted for `seat`)."""
        body = self._game_body(game_id, version, doc, state, seat, base_url)
        body["events"] = events
        return dumps(body)

    def _replayed(self, game_id: str, seat: int, version: int, base_url: str) -> str:
        """Return the answer to `seat`'s action that made `version`, rendered again from the log: the
        same text as the first time (for the same base URL). The table (seats, names, join code) is
        the one of that version: changes since are undone from their log entries."""
        game = self._load(game_id)
        steps = self._replay(game_id, game)
        step = next((s for s in steps if s.version == version), None)
        if step is None:  # pragma: no cover - a recorded version is in the log of a live game
            raise ApiError("unknown_game", "The game has expired.")
        doc = dict(game.doc, position=engine.to_position(step.state))
        for later in reversed(steps):
            if later.version > version and isinstance(later.entry, gamelog.Change):
                doc = _undo_change(doc, later.entry)
        return self._answer(game_id, version, doc, step.state, seat,
                            engine.redact_events(step.events, seat), base_url)

    # ----------------------------------------------------------------- bots, hints, records

    def _play_bots(self, game_id: str, game: Loaded) -> Loaded:
        """Commit the bot's moves while the game is not over and the bot's seat is to move; return the
        last version this call knows of.

        The bot decides from `engine.view(state, bot seat)` only, seeded from the game's secret and the
        version it moves from (records.derived_seed). Each move is its own commit (CAS on the version,
        log entry, publish). A conflict means someone else changed the game (a seat transfer, another
        request driving the same bot): that caller drives the bot on, so this one stops.
        """
        if not game.doc.get("bot"):
            return game
        seat, name = game.doc["bot"]
        seed, salt = game.doc["secret"]
        for _ in range(MAX_BOT_MOVES):
            state = game.state()
            if state.phase == "over" or state.active != seat:
                break
            view = engine.view(state, seat)
            bot_seed = records.derived_seed(seed, salt, "bot", game.version, seat)
            action = engine.bots.choose(name, view, bot_seed, **self.bot_budgets.get(name, {}))
            new_state, events = engine.apply(state, action)
            doc = dict(game.doc, position=engine.to_position(new_state), updated=int(time.time()))
            entry = gamelog.move(seat, action)
            res, commit = self._commit(game_id, game, doc, new_state, events, seat, entry)
            if res.status != "ok":
                break
            game = commit.game
        return game

    def _catch_up(self, game_id: str, game: Loaded) -> Loaded:
        """Return `game`, after the bot's moves if it is due to move (a request that would have moved
        it ended early, e.g. a crash); the usual case reads nothing more. Only requests that may
        change the game call this (an action, a socket's hello): a GET never commits."""
        bot = game.doc.get("bot")
        position = game.doc["position"]
        if not bot or position["phase"] == "over" or position["active"] != bot[0]:
            return game
        return self._play_bots(game_id, game)

    def resume(self, game_id: str) -> None:
        """Let the bot make the moves it is due (see `_catch_up`): a websocket calls this when a
        player comes back. Raises unknown_game, StoreUnavailable."""
        self._catch_up(game_id, self._load(game_id))

    def hint(self, game_id: str, token: str | None) -> dict:
        """Return {game_id, version, seat, action, reason_code, reason}: the suggested move for the
        caller's seat (engine.bots.hint: the mc search, from the caller's own view only) and why.

        Raises unknown_game, bad_token (no or wrong token), not_your_turn (not the caller's turn, or
        the game is over). Commits nothing."""
        game = self._load(game_id)
        seat = self._seat(game, token, required=True)
        view = engine.view(game.state(), seat)
        if not view["legal_actions"]:
            raise ApiError("not_your_turn", "The game is over." if view["phase"] == "over"
                           else f"It is seat {view['active']}'s turn: hints are for your own turn.")
        seed, salt = game.doc["secret"]
        action, code, reason = hint_bot.hint(view, records.derived_seed(seed, salt, "hint", game.version,
                                                                        seat))
        return {"game_id": game_id, "version": game.version, "seat": seat, "action": action,
                "reason_code": code, "reason": reason}

    def record(self, game_id: str) -> dict:
        """Return the finished game's record (api.records.FORMAT): seed, salt, options, seats, every
        action in order with its seat and version, and the result.

        Raises unknown_game, game_not_over (the seed stays secret until the end), record_unavailable
        (a log that does not reach back to the start: the store lost part of it)."""
        game = self._load(game_id)
        if game.doc["position"]["phase"] != "over":
            raise ApiError("game_not_over", "The record (and the seed) are published when the game is over.")
        entries = [(v, e) for v, e in self.store.log_since(game_id, 1) if v <= game.version]
        if [v for v, _ in entries] != list(range(2, game.version + 1)):
            raise ApiError("record_unavailable", "The log of this game no longer reaches back to its start.")
        actions = []
        for version, text in entries:
            entry = gamelog.parse(text)
            if isinstance(entry, gamelog.Move):
                actions.append({"version": version, "seat": entry.seat, "action": entry.action})
        bot = game.doc.get("bot")
        given = night.names(game.doc)
        seats = [{"seat": i, "who": "bot", "bot": bot[1]} if bot and bot[0] == i
                 else {"seat": i, "who": "human", "name": given[i]} for i in range(len(game.seats))]
        seed, salt = game.doc["secret"]
        return records.build(game_id, game.doc["mode"], seed, salt, game.doc["options"], seats, actions,
                             game.doc["position"]["result"])

    @staticmethod
    def _check_idempotency(status: str) -> None:
        if status == "mismatch":
            raise ApiError("idempotency_mismatch",
                           "This Idempotency-Key was used for a different request; use a new key per action.")
        if status == "missing":
            raise ApiError("unknown_game", "The game has expired.")

    def _stale(self, game: Loaded, seat: int | None) -> ApiError:
        return ApiError("stale_version", f"The game is at version {game.version}; look again and retry.",
                        version=game.version, view=engine.view(game.state(), seat))

    def join(self, code: str, client: str, base_url: str, name: str | None = None,
             token: str | None = None) -> dict:
        """Take the seat a join or transfer code opens; return {game_id, version, seat, token, view, seats}.
        `name` (already cleaned) becomes the seat's name; None keeps the name the seat has. A caller
        whose `token` holds a seat of the code's game gets that seat back with the same token, and
        nothing changes (the host's phone opening its own join link must not take the other seat).

        Raises rate_limited (too many failed codes from `client`, or from everyone), unknown_code.
        """
        self.limiter.guess(client)
        norm = auth.normalize_code(code)
        if norm is None:
            raise ApiError("unknown_code",
                           f"A code is {auth.CODE_LENGTH} characters of {auth.CODE_ALPHABET}.")
        for _ in range(10):  # a concurrent move may win the compare-and-set; joining then simply retries
            target = self.store.get_code(norm)
            if target is None:
                raise ApiError("unknown_code", "No such code (or it has been used, or it has expired).")
            game_id, _, binding = target.partition("#")
            found = self.store.load(game_id)
            if found is None:
                self.store.delete_code(norm)
                raise ApiError("unknown_code", "The game of this code has expired.")
            game = Loaded(found[0], jsontext.loads_own(found[1]), found[1])
            doc = game.doc
            own = auth.seat_of(token, doc["seats"])
            if own is not None:  # already seated here: answer that seat, leave the code for the other
                body = self._game_body(game_id, game.version, doc, game.state(), own, base_url)
                body["token"] = token
                self.limiter.guessed_right(client)
                return body
            seat, change = self._seat_for_code(doc, norm, binding)
            was = night.names(doc)[seat]
            token = auth.new_token()
            seats = list(doc["seats"])
            seats[seat] = auth.token_hash(token)
            doc = dict(doc, seats=seats, join_code=doc["join_code"] if change == "transferred" else None,
                       updated=int(time.time()))
            if name is not None:
                doc["names"] = night.with_name(doc.get("names"), len(seats), seat, name)
            # What a replay needs to undo the change: the name before, the join code used.
            undo = {} if night.names(doc)[seat] == was else {"was": was}
            if change == "joined":
                undo["code"] = norm
            res, commit = self._change(game_id, game, doc, seat, change, name=night.names(doc)[seat], **undo)
            if res.status == "ok":
                self.store.delete_code(norm)
                self.limiter.guessed_right(client)
                body = self._game_body(game_id, commit.game.version, doc, commit.game.state(), seat, base_url)
                body["token"] = token
                return body
            if res.status == "missing":
                raise ApiError("unknown_code", "The game of this code has expired.")
        raise ApiError("stale_version", "The game is very busy; try again.")  # pragma: no cover

    @staticmethod
    def _seat_for_code(doc: dict, code: str, binding: str) -> tuple[int, str]:
        """Return (seat, change) that `code` opens in `doc`; raise unknown_code when it opens none."""
        if binding:  # a transfer code: "<seat>#<first 16 hex of the holder's token hash at issue>"
            seat_text, _, prefix = binding.partition("#")
            seat = int(seat_text)
            held = doc["seats"][seat] if seat < len(doc["seats"]) else None
            if held is None or not held.startswith(prefix):
                raise ApiError("unknown_code", "This transfer code was superseded: the seat moved on.")
            return seat, "transferred"
        if doc.get("join_code") == code and None in doc["seats"]:
            return doc["seats"].index(None), "joined"
        raise ApiError("unknown_code", "This join code has been used: every seat is taken.")

    def rematch(self, game_id: str, token: str | None, base_url: str, client: str | None = None) -> dict:
        """Return the caller's seat in the next game of the finished game `game_id` (a SeatGrant:
        game_id, version, seat, token, view, seats, ...), creating that game on the first call.

        Exactly one next game per finished game, however many calls from either seat run at once:
        the store links it atomically (link_rematch) before anyone creates it, and `create` lets one
        caller store it (whoever finds it missing does). Same mode, bot and names on the same seats;
        duo alternates the start player. The caller's token in the new game is derived from their old
        one (api.night.rematch_token): asking again gives the same token, and the other player's seat
        waits for them (RESERVED_SEAT) until their first call. The finished game then carries the link
        (`rematch` in its answers, a version of its own, whose sockets get a rematch frame).
        Raises unknown_game, bad_token, game_not_over, seat_taken (the seat in the new
        game was claimed with another token: the old seat moved to another device meanwhile).
        """
        old = self._load(game_id)
        seat = self._seat(old, token, required=True)
        if old.doc["position"]["phase"] != "over":
            raise ApiError("game_not_over", "A rematch starts once this game is over.")
        if client is not None and not old.doc.get("rematch"):
            # The call that makes the next game counts as creating one (api.ops.limits): else finishing
            # games and asking for their rematches would create games past the limit. Checked first,
            # counted below by the one call whose link won: phones racing for it count once.
            self.limiter.check_create(client)
        proposed = secrets.token_urlsafe(12)
        rematch_id = old.doc.get("rematch") or self.store.link_rematch(game_id, proposed)
        if client is not None and rematch_id == proposed:
            self.limiter.create(client, refuse=False)
        if rematch_id is None:
            raise ApiError("unknown_game", f"There is no game {game_id!r} (or it has expired).")
        new_token = night.rematch_token(token, rematch_id)
        game = self._rematch_seat(rematch_id, old.doc, seat, new_token)
        if old.doc.get("rematch") != rematch_id:
            self._link_in_doc(game_id, rematch_id, seat)
        body = self._game_body(rematch_id, game.version, game.doc, game.state(), seat, base_url)
        body["token"] = new_token
        body.setdefault("join_code", None)
        body.setdefault("join_url", None)
        return body

    def _rematch_seat(self, rematch_id: str, old_doc: dict, seat: int, token: str) -> Loaded:
        """Return the rematch game with `seat` held by `token`: store the game if it is missing (the
        first caller, or a caller who overtook the linking one), else claim the seat kept for them."""
        held = auth.token_hash(token)
        for _ in range(10):  # moves in the new game may win the compare-and-set; claiming then retries
            found = self.store.load(rematch_id)
            if found is None:
                doc, state = self._rematch_game(old_doc, seat, held)
                if self.store.create(rematch_id, dumps(doc), self._ttl(doc, state.phase)):
                    self._play_bots(rematch_id, Loaded(1, doc, dumps(doc), state))  # the bot may start
                continue  # read back what was stored (ours, or a faster caller's)
            game = Loaded(found[0], jsontext.loads_own(found[1]), found[1])
            mine = game.seats[seat]
            if mine == held:
                return self._catch_up(rematch_id, game)
            if mine != night.RESERVED_SEAT:
                raise ApiError("seat_taken", "Your seat in the rematch was claimed from another device.")
            seats = list(game.seats)
            seats[seat] = held
            doc = dict(game.doc, seats=seats, updated=int(time.time()))
            res, commit = self._change(rematch_id, game, doc, seat, "joined", name=night.names(doc)[seat])
            if res.status == "ok":
                return commit.game
        raise ApiError("stale_version", "The game is very busy; try again.")  # pragma: no cover

    def _rematch_game(self, old_doc: dict, seat: int, held: str) -> tuple[dict, object]:
        """Return (document, state) of a new rematch game for a finished game's document."""
        mode, options = old_doc["mode"], {}
        if mode == "duo":
            # The finished game's dealer, as new_game drew it (or was told); the rematch swaps it.
            dealer = 1 - engine.new_game(mode, old_doc["secret"][0], **old_doc["options"]).active
            options = night.rematch_options(old_doc, dealer)
        seed = secrets.randbelow(2**53)
        state = engine.new_game(mode, seed, **options)
        doc = night.rematch_doc(old_doc, seat=seat, token_hash=held, state_position=engine.to_position(state),
                                seed=seed, salt=records.new_salt(), options=options, now=int(time.time()),
                                bot_seat=BOT_SEAT)
        return doc, state

    def _link_in_doc(self, game_id: str, rematch_id: str, seat: int) -> None:
        """Write the rematch link into the finished game's document (its own version and log entry,
        so every socket of the game hears of it); nothing when it is there already."""
        for _ in range(10):
            game = self._load(game_id)
            if game.doc.get("rematch") == rematch_id:
                return
            doc = dict(game.doc, rematch=rematch_id, updated=int(time.time()))
            res, _commit = self._change(game_id, game, doc, seat, "rematch", game=rematch_id)
            if res.status == "ok":
                return
            if res.status == "missing":
                return

    def transfer(self, game_id: str, token: str | None, base_url: str, client: str | None = None) -> dict:
        """Issue a code that moves the caller's seat to another device; the old token stops working
        when the code is claimed (POST /games/join). Returns {game_id, version, seat, transfer_code,
        transfer_url, expires_in}; changes nothing else. `client` (api.ops.limits.client_key) is counted
        against the transfer limit. Raises unknown_game, bad_token, rate_limited.
        """
        game = self._load(game_id)
        seat = self._seat(game, token, required=True)
        if client is not None:
            self.limiter.charge("transfer", client)
        # The code is bound to the current token: once the seat moves, older transfer codes are dead.
        code = self._reserve_code(f"{game_id}#{seat}#{game.seats[seat][:16]}", self.ttl.transfer)
        return {"game_id": game_id, "version": game.version, "seat": seat, "transfer_code": code,
                "transfer_url": join_url(base_url, code), "expires_in": self.ttl.transfer}


def _fingerprint(seat: int, body: dict) -> str:
    """Return the fingerprint of an action request: the same for the same request whatever the order
    of its keys (a client may serialise it again on retry). 64 bits: it tells a retry from another
    request sent under the same key by the same seat, which nobody gains by forging."""
    return hashlib.sha256(json.dumps([seat, body], sort_keys=True).encode()).hexdigest()[:16]


def _undo_change(doc: dict, change: gamelog.Change) -> dict:
    """Return `doc` as it was before `change`, a change at the table (to render an answer of an
    earlier version again, byte for byte)."""
    if change.kind == "rematch":
        return dict(doc, rematch=None)
    names = list(night.names(doc))
    names[change.seat] = change.fields.get("was", change.fields.get("name"))
    doc = dict(doc, names=names)
    if change.kind == "joined":  # the seat was free (or kept for a rematch player: not taken either)
        seats = list(doc["seats"])
        seats[change.seat] = None
        doc["seats"] = seats
        doc["join_code"] = change.fields.get("code", doc.get("join_code"))
    return doc


def _commitment(doc: dict) -> str:
    """Return the game's published seed commitment."""
    return records.commitment(*doc["secret"])


def join_url(base_url: str, code: str) -> str:
    """Return the link a phone opens to join with `code` (the code rides in the fragment, out of logs)."""
    return f"{base_url.rstrip('/')}/#join={code}"
