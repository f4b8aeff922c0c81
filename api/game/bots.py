"""The computer's seat and the hints: the bot's moves, each committed through the service's one
corridor (GameService._commit), and the suggested move for a player's own turn. Both decide from the
seat's view only (engine.view), seeded from the game's secret and the version (records.derived_seed).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import engine
import engine.bots
from api.errors import ApiError
from api.game import gamelog, records
from api.game.model import Loaded
from engine.bots import hint as hint_bot

if TYPE_CHECKING:
    from api.game.service import GameService

# A safety net for one run of bot moves (a bot's whole turn is a dozen actions at most).
MAX_BOT_MOVES = 200


def play(svc: GameService, game_id: str, game: Loaded) -> Loaded:
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
        action = engine.bots.choose(name, view, bot_seed, **svc.bot_budgets.get(name, {}))
        new_state, events = engine.apply(state, action)
        doc = dict(game.doc, position=engine.to_position(new_state), updated=int(time.time()))
        entry = gamelog.move(seat, action)
        res, commit = svc._commit(game_id, game, doc, new_state, events, seat, entry)
        if res.status != "ok":
            break
        game = commit.game
    return game


def catch_up(svc: GameService, game_id: str, game: Loaded) -> Loaded:
    """Return `game`, after the bot's moves if it is due to move (a request that would have moved
    it ended early, e.g. a crash); the usual case reads nothing more. Only requests that may
    change the game call this (an action, a socket's hello): a GET never commits."""
    bot = game.doc.get("bot")
    position = game.doc["position"]
    if not bot or position["phase"] == "over" or position["active"] != bot[0]:
        return game
    return play(svc, game_id, game)


def hint(svc: GameService, game_id: str, token: str | None, client: str | None = None) -> dict:
    """Return {game_id, version, seat, action, reason_code, reason}: the suggested move for the
    caller's seat (engine.bots.hint: the mc search, from the caller's own view only) and why.

    Raises unknown_game, bad_token (no or wrong token), not_your_turn (not the caller's turn, or
    the game is over), rate_limited (the search is the computer's work: `client`'s budget, as its
    moves in games against the computer). Commits nothing."""
    game = svc._load(game_id)
    seat = svc._seat(game, token, required=True)
    view = engine.view(game.state(), seat)
    if not view["legal_actions"]:
        raise ApiError("not_your_turn", "The game is over." if view["phase"] == "over"
                       else f"It is seat {view['active']}'s turn: hints are for your own turn.")
    if client is not None:
        svc.limiter.charge("bot_client", client)
    seed, salt = game.doc["secret"]
    action, code, reason = hint_bot.hint(view, records.derived_seed(seed, salt, "hint", game.version, seat))
    return {"game_id": game_id, "version": game.version, "seat": seat, "action": action,
            "reason_code": code, "reason": reason}
