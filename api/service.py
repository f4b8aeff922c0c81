"""The game service: load -> apply -> commit. No Flask here; callers pass plain values in and get
JSON-ready dicts out, or an ApiError.

The stored document (compact JSON, see `GameDoc`) holds the engine position, the seats' token hashes,
the open join code and timestamps. Every change is one `store.commit` (compare-and-set on the version,
idempotency record, log entry, publish). Every payload leaving here went through `engine.view` or
`engine.redact_events` for the caller's seat: never the seed, the deck order or another seat's hand.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
import time
from dataclasses import dataclass

import engine
from api import auth
from api.errors import ApiError
from api.store.base import GameStore

MODES = ("duo", "solo")
GAME_ID_RE = re.compile(r"[A-Za-z0-9_-]{1,64}\Z")
# Seats changes are logged beside the engine's events; the log entry is an object, not a list.
SEAT_EVENT = {"joined": "seat_joined", "transferred": "seat_transferred"}


def dumps(obj) -> str:
    """Compact JSON, the form of everything written to the store."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


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

    @property
    def seats(self) -> list[str | None]:
        return self.doc["s"]

    def state(self):
        return engine.from_position(self.doc["p"])

    def views(self, seats) -> dict:
        """Return {seat: engine.view for that seat} for each of `seats` (None: the table view), decoding
        the position once (the websocket hub renders one load for every socket of a game)."""
        state = self.state()
        return {seat: engine.view(state, seat) for seat in seats}


class GameService:
    """All game operations against one store. Thread-safe: it holds no mutable state of its own."""

    def __init__(self, store: GameStore, lifetimes: Lifetimes, *, join_limit: int, join_window: int):
        self.store = store
        self.ttl = lifetimes
        self.join_limit = join_limit
        self.join_window = join_window

    # ----------------------------------------------------------------- reading

    def _load(self, game_id: str) -> Loaded:
        """Return the stored game; raise unknown_game."""
        if not GAME_ID_RE.match(game_id):
            raise ApiError("unknown_game", "Game ids are 1-64 characters of A-Z a-z 0-9 _ -")
        found = self.store.load(game_id)
        if found is None:
            raise ApiError("unknown_game", f"There is no game {game_id!r} (or it has expired).")
        version, raw = found
        return Loaded(version, json.loads(raw), raw)

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

    @staticmethod
    def _seats(game_doc: dict) -> list[dict]:
        return [{"seat": i, "taken": h is not None} for i, h in enumerate(game_doc["s"])]

    def _game_body(self, game_id: str, version: int, doc: dict, state, seat: int | None, base_url: str):
        """Return the common part of every answer about one game, as `seat` may see it."""
        body = {"game_id": game_id, "version": version, "seat": seat, "view": engine.view(state, seat),
                "seats": self._seats(doc)}
        if seat is not None and doc.get("j"):
            # Seated players may show the open join code again (QR on the first phone).
            body["join_code"] = doc["j"]
            body["join_url"] = join_url(base_url, doc["j"])
        return body

    def get(self, game_id: str, token: str | None, base_url: str) -> dict:
        """Return {game_id, version, seat, view, seats[, join_code, join_url]}.

        Raises unknown_game, bad_token (a token is given but holds no seat).
        """
        game = self._load(game_id)
        seat = self._seat(game, token, required=False)
        return self._game_body(game_id, game.version, game.doc, game.state(), seat, base_url)

    def events(self, game_id: str, token: str | None, since: int) -> dict:
        """Return {game_id, version, seat, log: [{version, events}]} for versions > since, redacted."""
        entries = self.store.log_since(game_id, since) if GAME_ID_RE.match(game_id) else []
        game = self._load(game_id)
        seat = self._seat(game, token, required=False)
        log = []
        for version, raw in entries:
            if version > game.version:  # committed after our load: the caller will see it next time
                break
            log.append({"version": version, "events": entry_events(raw, seat)})
        return {"game_id": game_id, "version": game.version, "seat": seat, "log": log}

    def latest(self, game_id: str) -> tuple[Loaded, str | None]:
        """Return the stored game and the raw log entry of its version (None when not kept), read at
        once, for callers that render it for several seats (the websocket hub); every payload made
        from it must go through `Loaded.views` / `entry_events`. Raises unknown_game."""
        found = self.store.load_latest(game_id) if GAME_ID_RE.match(game_id) else None
        if found is None:
            raise ApiError("unknown_game", f"There is no game {game_id!r} (or it has expired).")
        version, raw, entry = found
        return Loaded(version, json.loads(raw), raw), entry

    def join_link(self, game_id: str, token: str | None, code: str | None, client: str, base_url: str) -> str:
        """Return the join URL to draw as a QR code: for `code` if it is a live code of this game, else
        the open join code, which only a seated player may see.

        Raises unknown_game, bad_token, unknown_code, rate_limited (checking a code counts as a join
        attempt: otherwise this would be a way to guess codes around the join limit).
        """
        if code is not None:
            self._throttle_joins(client)
            norm = auth.normalize_code(code)
            target = self.store.get_code(norm) if norm else None
            if target is None or target.split("#", 1)[0] != game_id:
                raise ApiError("unknown_code", "That code is not a live code of this game.")
            return join_url(base_url, norm)
        game = self._load(game_id)
        self._seat(game, token, required=True)
        if not game.doc.get("j"):
            raise ApiError("unknown_code", "Every seat of this game is taken: there is no join code.")
        return join_url(base_url, game.doc["j"])

    # ----------------------------------------------------------------- writing

    def _ttl(self, doc: dict, state_phase: str) -> int:
        if state_phase == "over":
            return self.ttl.finished
        if None in doc["s"]:
            return self.ttl.lobby
        return self.ttl.game

    def create(self, mode: str, dealer: int | None, base_url: str) -> dict:
        """Start a game; return the creator's answer (seat 0, its token, and a join code for duo)."""
        if mode not in MODES:
            raise ApiError("invalid_request", f"mode must be one of {', '.join(MODES)}")
        # Without `dealer` the engine draws the dealer from the seed (R50), which comes from `secrets`.
        # Solo has one seat, so a dealer means nothing there and is ignored.
        options = {"dealer": dealer} if dealer is not None and mode == "duo" else {}
        state = engine.new_game(mode, secrets.randbelow(2**53), **options)
        token = auth.new_token()
        now = int(time.time())
        seats = [auth.token_hash(token), None] if mode == "duo" else [auth.token_hash(token)]
        # m: mode, p: position, s: seat token hashes (None: free), j: open join code, b: bot seat
        # (placeholder for the bots issue), c/u: created/updated (unix seconds). Short keys: stored per game.
        doc = {"m": mode, "p": engine.to_position(state), "s": seats, "j": None, "b": None, "c": now,
               "u": now}
        for _ in range(20):
            game_id = secrets.token_urlsafe(12)
            code = None
            if mode == "duo":
                code = self._reserve_code(game_id, self.ttl.lobby)
                doc["j"] = code
            if self.store.create(game_id, dumps(doc), self._ttl(doc, doc["p"]["phase"])):
                break
            if code:
                self.store.delete_code(code)
        else:  # pragma: no cover - 96-bit ids do not collide
            raise ApiError("internal_error", "could not allocate a game id")
        body = self._game_body(game_id, 1, doc, state, 0, base_url)
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

    def act(self, game_id: str, token: str | None, body: dict, idem_key: str | None, base_url: str):
        """Apply `body["action"]` for the caller's seat at `body["version"]`.

        Returns (answer, replayed): answer is the JSON text of {game_id, version, seat, view, seats,
        events} (kept as text: a retry gets exactly these bytes back); replayed is True when this
        Idempotency-Key was already answered (nothing is applied again). Raises
        unknown_game, bad_token, stale_version (with the current version and view), not_your_turn,
        invalid_action, illegal_action, idempotency_mismatch.
        """
        game = self._load(game_id)
        seat = self._seat(game, token, required=True)
        expected = body["version"]
        # The same request, whatever the order of its keys: a client may re-serialise it on retry.
        fingerprint = hashlib.sha256(json.dumps([seat, body], sort_keys=True).encode()).hexdigest()
        if expected != game.version:
            if idem_key and expected < game.version:
                # Maybe a retry of an answered request: ask the store. The stored version is already past
                # `expected` and never goes back, so this commit cannot write anything.
                ttl = self._ttl(game.doc, game.doc["p"]["phase"])
                res = self.store.commit(game_id, expected, game.raw, ttl=ttl, idem_key=idem_key,
                                        fingerprint=fingerprint)
                self._check_idempotency(res.status)
                if res.status == "duplicate":
                    return res.response, True
            raise self._stale(game, seat, base_url)

        state = game.state()
        position = game.doc["p"]
        if position["phase"] != "over" and position["active"] != seat:
            raise ApiError("not_your_turn", f"It is seat {position['active']}'s turn.")
        try:
            new_state, events = engine.apply(state, body["action"])
        except engine.IllegalAction as err:
            raise ApiError("illegal_action", str(err)) from None
        except engine.EngineError as err:  # InvalidAction, or any other malformed input
            raise ApiError("invalid_action", str(err)) from None

        new_pos = engine.to_position(new_state)
        doc = dict(game.doc, p=new_pos, u=int(time.time()))
        answer = self._game_body(game_id, game.version + 1, doc, new_state, seat, base_url)
        answer["events"] = engine.redact_events(events, seat)
        text = dumps(answer)
        res = self.store.commit(game_id, game.version, dumps(doc), ttl=self._ttl(doc, new_pos["phase"]),
                                idem_key=idem_key, fingerprint=fingerprint, response=text, log=dumps(events))
        self._check_idempotency(res.status)
        if res.status == "ok":
            return text, False
        if res.status == "duplicate":
            return res.response, True
        # Someone else moved between our load and our commit: the caller must look again.
        raise self._stale(self._load(game_id), seat, base_url)

    @staticmethod
    def _check_idempotency(status: str) -> None:
        if status == "mismatch":
            raise ApiError("idempotency_mismatch",
                           "This Idempotency-Key was used for a different request; use a new key per action.")
        if status == "missing":
            raise ApiError("unknown_game", "The game has expired.")

    def _stale(self, game: Loaded, seat: int | None, base_url: str) -> ApiError:
        return ApiError("stale_version", f"The game is at version {game.version}; look again and retry.",
                        version=game.version, view=engine.view(game.state(), seat))

    def _throttle_joins(self, client: str) -> None:
        """Count one code attempt from `client`; raise rate_limited past the limit.

        Every attempt counts, not only failed ones: `hit` can only count, and a budget that a correct
        guess could still spend would not stop guessing. Honest players need one or two attempts.
        """
        if self.store.hit(f"join:{client}", self.join_window) > self.join_limit:
            raise ApiError("rate_limited",
                           f"At most {self.join_limit} join attempts in {self.join_window} s; wait.",
                           headers={"Retry-After": str(self.join_window)})

    def join(self, code: str, client: str, base_url: str) -> dict:
        """Take the seat a join or transfer code opens; return {game_id, version, seat, token, view, seats}.

        Raises rate_limited (too many attempts from `client`), unknown_code.
        """
        self._throttle_joins(client)
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
            version, raw = found
            doc = json.loads(raw)
            seat, change = self._seat_for_code(doc, norm, binding)
            token = auth.new_token()
            seats = list(doc["s"])
            seats[seat] = auth.token_hash(token)
            doc = dict(doc, s=seats, j=doc["j"] if change == "transferred" else None, u=int(time.time()))
            phase = doc["p"]["phase"]
            res = self.store.commit(game_id, version, dumps(doc), ttl=self._ttl(doc, phase),
                                    log=dumps({"seat": seat, "change": change}))
            if res.status == "ok":
                self.store.delete_code(norm)
                state = engine.from_position(doc["p"])
                body = self._game_body(game_id, version + 1, doc, state, seat, base_url)
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
            held = doc["s"][seat] if seat < len(doc["s"]) else None
            if held is None or not held.startswith(prefix):
                raise ApiError("unknown_code", "This transfer code was superseded: the seat moved on.")
            return seat, "transferred"
        if doc.get("j") == code and None in doc["s"]:
            return doc["s"].index(None), "joined"
        raise ApiError("unknown_code", "This join code has been used: every seat is taken.")

    def transfer(self, game_id: str, token: str | None, base_url: str) -> dict:
        """Issue a code that moves the caller's seat to another device; the old token stops working
        when the code is claimed (POST /games/join). Returns {game_id, version, seat, transfer_code,
        transfer_url, expires_in}; changes nothing else. Raises unknown_game, bad_token.
        """
        game = self._load(game_id)
        seat = self._seat(game, token, required=True)
        # The code is bound to the current token: once the seat moves, older transfer codes are dead.
        code = self._reserve_code(f"{game_id}#{seat}#{game.seats[seat][:16]}", self.ttl.transfer)
        return {"game_id": game_id, "version": game.version, "seat": seat, "transfer_code": code,
                "transfer_url": join_url(base_url, code), "expires_in": self.ttl.transfer}


def entry_events(raw: str, seat: int | None) -> list[dict]:
    """Return the events of one stored log entry as `seat` may see them (a change of seats included)."""
    entry = json.loads(raw) if raw else []
    if isinstance(entry, dict):  # a change of seats
        return [{"type": SEAT_EVENT[entry["change"]], "seat": entry["seat"]}]
    return engine.redact_events(entry, seat)


def join_url(base_url: str, code: str) -> str:
    """Return the link a phone opens to join with `code` (the code rides in the fragment, out of logs)."""
    return f"{base_url.rstrip('/')}/#join={code}"
