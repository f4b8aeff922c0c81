"""A player's action: checked against the seat, the turn and the idempotency records, applied by the
engine, committed through the service's one corridor (GameService._commit), and answered.

An idempotency record keeps the version a request made, not its answer: a retry renders the answer
again from the log (`answer`), byte for byte.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from typing import TYPE_CHECKING

import engine
from api.codec import own_json
from api.errors import ApiError
from api.game import bots, gamelog, history, seats
from api.game.model import Loaded, Outcome
from api.store.base import OutcomeUnknown, StoreUnavailable

if TYPE_CHECKING:
    from api.game.service import GameService


def act(svc: GameService, game_id: str, token: str | None, action, expected: int,
        idem_key: str | None, client: str | None = None) -> Outcome:
    """GameService.act without the observer: apply `action` at version `expected`, or find the answer
    of `idem_key` given before. `client` (a rate-limit bucket) pays for the bot's work it may cause."""
    body = {"action": action, "version": expected}
    if idem_key is not None:
        # HTTP's schema and the websocket's check the length first; this holds for any caller.
        if not 0 < len(idem_key) <= gamelog.IDEMPOTENCY_KEY_MAX:
            raise ApiError("invalid_request",
                           f"An Idempotency-Key has 1-{gamelog.IDEMPOTENCY_KEY_MAX} characters.")
        idem_key = gamelog.key_digest(idem_key)  # what the records keep: a few bytes, whatever its length
    # The version the move was made at, if this process holds it: no read (see api.game.recent).
    game = svc.recent.get(game_id, expected) or svc._load(game_id)
    game = bots.catch_up(svc, game_id, game)
    seat = svc._seat(game, token, required=True)
    svc.limiter.charge("move", f"{game_id}:{seat}")  # every action request of a seat counts
    if game.doc.get("bot"):
        # And the bot's work it may cause (api.ops.limits): the client's, in all its games, then the game's.
        if client is not None:
            svc.limiter.charge("bot_client", client)
        svc.limiter.charge("bot", game_id)
    fingerprint = _fingerprint(seat, body)
    # From here on, a key this game has recorded decides first (docs/protocol.md §9): the same request
    # replays its answer, another one is idempotency_mismatch, whatever else would fail now. It is
    # looked up only when the request fails a check; on success the commit itself checks the key.
    if expected != game.version:
        replay, current = _recorded(svc, game_id, game, seat, idem_key, fingerprint)
        if replay is not None:
            return replay
        if current != game.version:
            # The store is not at the version just read: read on another node (a Sentinel failover
            # between the two). Decide on a fresh read, or this could refuse a move the store takes.
            game = bots.catch_up(svc, game_id, svc._load(game_id))
            seat = svc._seat(game, token, required=True)
        if expected != game.version:
            raise _stale(game, seat)
    try:
        new_state, events = _apply(game, seat, body["action"])
    except ApiError:
        replay, _ = _recorded(svc, game_id, game, seat, idem_key, fingerprint)
        if replay is not None:
            return replay
        raise

    doc = dict(game.doc, position=engine.to_position(new_state), updated=int(time.time()))
    # The idempotency record keeps the version this request made, not the answer: a retry renders
    # it again from the log (`_replayed`).
    res, commit = svc._commit(game_id, game, doc, new_state, events, seat, gamelog.move(seat, action),
                              idem_key=idem_key, fingerprint=fingerprint)
    _check_idempotency(res.status)
    if res.status == "ok":
        # The caller's move is stored: a store failing now does not make it unapplied. The bot's
        # turn is then taken up when the game is next touched (bots.catch_up).
        with contextlib.suppress(StoreUnavailable):
            bots.play(svc, game_id, commit.game)
        return Outcome(game_id, seat, commit.game.version, False, commit)
    if res.status == "duplicate":
        return Outcome(game_id, seat, res.version, True)
    # Someone else moved between our load and our commit: the caller must look again.
    raise _stale(svc._load(game_id), seat)


def answer(svc: GameService, outcome: Outcome, base_url: str) -> str:
    """Return the JSON text of the answer to an action: {game_id, version, seat, view, seats,
    events, ...} of the version it made, as its seat sees it. A replayed outcome gets the text of
    the first answer, byte for byte (for the same base URL), rendered again from the log."""
    commit = outcome.commit
    if commit is None:
        return _replayed(svc, outcome.game_id, outcome.seat, outcome.version, base_url)
    game = commit.game
    return render(outcome.game_id, game.version, game.doc, game.state(), outcome.seat,
                  engine.redact_events(commit.events, outcome.seat), base_url)


def render(game_id: str, version: int, doc: dict, state, seat: int, events: list[dict], base_url: str) -> str:
    """Return the JSON text of the answer to an action that brought the game to `version`
    (`events` already redacted for `seat`)."""
    body = seats.game_body(game_id, version, doc, state, seat, base_url)
    body["events"] = events
    return own_json.dumps(body)


def _replayed(svc: GameService, game_id: str, seat: int, version: int, base_url: str) -> str:
    """Return the answer to `seat`'s action that made `version`, rendered again from the log: the
    same text as the first time (for the same base URL). The table (seats, names, join code) is
    the one of that version: changes since are undone from their log entries."""
    game = svc._load(game_id)
    steps = history.replay(svc, game_id, game)
    step = next((s for s in steps if s.version == version), None)
    if step is None:  # pragma: no cover - a recorded version is in the log of a live game
        raise ApiError("unknown_game", "The game has expired.")
    doc = dict(game.doc, position=engine.to_position(step.state))
    for later in reversed(steps):
        if later.version > version and isinstance(later.entry, gamelog.Change):
            doc = history.undo_change(doc, later.entry)
    return render(game_id, version, doc, step.state, seat, engine.redact_events(step.events, seat), base_url)


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


def _recorded(svc: GameService, game_id: str, game: Loaded, seat: int, idem_key: str | None,
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
        ttl = svc._ttl(game.doc, game.doc["position"]["phase"])
        res = svc.store.commit(game_id, 0, game.raw, ttl=ttl, idem_key=idem_key, fingerprint=fingerprint,
                               seat=seat)
    except OutcomeUnknown as err:
        raise StoreUnavailable(str(err)) from None
    _check_idempotency(res.status)
    return (Outcome(game_id, seat, res.version, True) if res.status == "duplicate" else None), res.version


def _check_idempotency(status: str) -> None:
    if status == "mismatch":
        raise ApiError("idempotency_mismatch",
                       "This Idempotency-Key was used for a different request; use a new key per action.")
    if status == "missing":
        raise ApiError("unknown_game", "The game has expired.")


def _stale(game: Loaded, seat: int | None) -> ApiError:
    return ApiError("stale_version", f"The game is at version {game.version}; look again and retry.",
                    version=game.version, view=engine.view(game.state(), seat))


def _fingerprint(seat: int, body: dict) -> str:
    """Return the fingerprint of an action request: the same for the same request whatever the order
    of its keys (a client may serialise it again on retry). 64 bits: it tells a retry from another
    request sent under the same key by the same seat, which nobody gains by forging."""
    return hashlib.sha256(json.dumps([seat, body], sort_keys=True).encode()).hexdigest()[:16]
