"""The game service: the one façade the transports call (HTTP routes, websocket sessions) and the one
corridor every change goes through. No Flask here; callers pass plain values in and
get JSON-ready dicts out (or JSON text), or an ApiError.

The stored document (compact JSON, its fields named in api.game.start, format DOC_FORMAT) holds the
latest engine position, the seats' token hashes, the open join code and timestamps; the log
(api.game.gamelog) holds what was done. Every change is one `store.commit` (compare-and-set on the
version, idempotency record, log entry, announcement), then the fan-out (`_commit`). Every payload
leaving here went through `engine.view` or `engine.redact_events` for the caller's seat: never the
seed, the deck order or another seat's hand.

The jobs live beside this module, each a set of functions of the service: moves (an action: check,
apply, answer), seats (join, transfer, join links, the table as answers show it), start (a new game),
rematch, bots (the computer's moves, hints), history (replay, events of a version, records).
"""

from __future__ import annotations

import time

import engine
from api.codec import own_json
from api.errors import ApiError
from api.game import auth, bots, gamelog, history, moves, rematch, seats, start
from api.game.model import GAME_ID_RE, Commit, Events, FanOut, Lifetimes, Loaded, Observer, Outcome
from api.game.recent import RecentGames
from api.ops.limits import Limiter
from api.store.base import CommitResult, GameStore, OutcomeUnknown, StoreUnavailable


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
        self.recent = RecentGames()  # what a move may start from without a read (api.game.recent)
        self.fanout = fanout
        self.observer = observer or Observer()
        if fanout is not None:
            fanout.bind(self)

    # ----------------------------------------------------------------- the transports' calls

    def create(self, mode: str, dealer: int | None, base_url: str, bot: str | None = None,
               name: str | None = None, tutorial: bool = False, client: str | None = None) -> dict:
        """Start a game; return the creator's answer (api.game.start.create)."""
        return start.create(self, mode, dealer, base_url, bot=bot, name=name, tutorial=tutorial,
                            client=client)

    def join(self, code: str, client: str, base_url: str, name: str | None = None,
             token: str | None = None) -> dict:
        """Take the seat a join or transfer code opens (api.game.seats.join)."""
        return seats.join(self, code, client, base_url, name=name, token=token)

    def transfer(self, game_id: str, token: str | None, base_url: str, client: str | None = None) -> dict:
        """Issue a code that moves the caller's seat to another device (api.game.seats.transfer)."""
        return seats.transfer(self, game_id, token, base_url, client=client)

    def join_link(self, game_id: str, token: str | None, code: str | None, client: str, base_url: str) -> str:
        """Return the join URL to draw as a QR code (api.game.seats.join_link)."""
        return seats.join_link(self, game_id, token, code, client, base_url)

    def rematch(self, game_id: str, token: str | None, base_url: str, client: str | None = None) -> dict:
        """Return the caller's seat in the next game of a finished game (api.game.rematch.rematch)."""
        return rematch.rematch(self, game_id, token, base_url, client=client)

    def act(self, game_id: str, token: str | None, action, version: int,
            idempotency_key: str | None = None, client: str | None = None) -> Outcome:
        """Apply `action` for the seat that `token` holds, at `version` (the version the caller saw).

        Returns the Outcome: the version made, and whether this Idempotency-Key had been answered
        already (then nothing is applied again; `answer` renders the first answer again). Raises
        unknown_game, bad_token, stale_version (with the current version and view), not_your_turn,
        invalid_action, illegal_action, idempotency_mismatch, rate_limited, StoreUnavailable. `client`
        (the caller's rate-limit bucket, when it has one) pays for the bot's work the move may cause.

        Each commit this makes reaches the fan-out (`_commit`). In a game against a bot, the bot's
        answering moves are committed (each its own version) after the caller's move and before this
        returns; the outcome is the caller's own move. The observer hears how the request went.
        """
        started = time.perf_counter()
        outcome = "error"
        try:
            done = moves.act(self, game_id, token, action, version, idempotency_key, client)
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
        """Return the JSON text of the answer to an action (api.game.moves.answer)."""
        return moves.answer(self, outcome, base_url)

    def resume(self, game_id: str) -> None:
        """Let the bot make the moves it is due (api.game.bots.catch_up): a websocket calls this when a
        player comes back. Raises unknown_game, StoreUnavailable."""
        bots.catch_up(self, game_id, self._load(game_id))

    def hint(self, game_id: str, token: str | None, client: str | None = None) -> dict:
        """Return the suggested move for the caller's seat and why (api.game.bots.hint)."""
        return bots.hint(self, game_id, token, client)

    def record(self, game_id: str) -> dict:
        """Return the finished game's record (api.game.history.record)."""
        return history.record(self, game_id)

    # ----------------------------------------------------------------- reading

    def get(self, game_id: str, token: str | None, base_url: str) -> dict:
        """Return {game_id, version, seat, view, seats[, join_code, join_url]}.

        Raises unknown_game, bad_token (a token is given but holds no seat). Commits nothing.
        """
        game = self._load(game_id)
        seat = self._seat(game, token, required=False)
        return seats.game_body(game_id, game.version, game.doc, game.state(), seat, base_url)

    def events(self, game_id: str, token: str | None, since: int) -> dict:
        """Return {game_id, version, seat, log: [{version, events}]} for versions > since, redacted."""
        game = self._load(game_id)
        seat = self._seat(game, token, required=False)
        log = [{"version": step.version, "events": engine.redact_events(step.events, seat)}
               for step in history.replay(self, game_id, game) if step.version > since]
        return {"game_id": game_id, "version": game.version, "seat": seat, "log": log}

    def latest(self, game_id: str) -> tuple[Loaded, Events]:
        """Return the stored game and the events of its version (see `events_of`), read at once, for
        callers that render it for several seats (the websocket hub); every payload made from them
        goes through `engine.view` / `engine.redact_events`. Raises unknown_game."""
        found = self.store.load_latest(game_id) if GAME_ID_RE.match(game_id) else None
        if found is None:
            raise ApiError("unknown_game", f"There is no game {game_id!r} (or it has expired).")
        version, raw, entry = found
        game = Loaded(version, own_json.loads(raw), raw)
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
                    game = Loaded(version, doc, own_json.dumps(doc), state, events)
            except (ValueError, engine.EngineError):
                game = None  # not an announcement of ours: read the game
        if game is None:
            game, events = self.latest(game_id)
        self.recent.put(game_id, game)
        return game, events

    def events_of(self, game_id: str, game: Loaded, entry: str | None) -> Events:
        """Return the unredacted events of `game`'s version, whose log entry is `entry`
        (api.game.history.events_of)."""
        return history.events_of(self, game_id, game, entry)

    # ----------------------------------------------------------------- for the game room's modules

    def _load(self, game_id: str) -> Loaded:
        """Return the stored game; raise unknown_game."""
        if not GAME_ID_RE.match(game_id):
            raise ApiError("unknown_game", "Game ids are 1-64 characters of A-Z a-z 0-9 _ -")
        found = self.store.load(game_id)
        if found is None:
            raise ApiError("unknown_game", f"There is no game {game_id!r} (or it has expired).")
        version, raw = found
        game = Loaded(version, own_json.loads(raw), raw)
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

    def _ttl(self, doc: dict, state_phase: str) -> int:
        if state_phase == "over":
            return self.ttl.finished
        if None in doc["seats"] or seats.RESERVED_SEAT in doc["seats"]:
            return self.ttl.lobby  # a seat nobody took yet, or one kept for a rematch player, expires
        return self.ttl.game

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
        raw = own_json.dumps(doc)
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
