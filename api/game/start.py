"""A new game: its stored document and the creator's seat (POST /games). A rematch's new game is made
in api.game.rematch.

The document (format DOC_FORMAT): position (the latest engine position), seats (token hashes; None:
free; BOT_SEAT: the bot's; api.game.seats.RESERVED_SEAT: kept for a rematch player), join_code (the
open one), bot ([seat, bot name] or None), secret ([seed, salt], published with the record once the
game is over), options (engine.new_game's), created/updated (unix seconds). Optional: names (per seat),
rematch (the next game's id), tutorial (true).
"""

from __future__ import annotations

import secrets
import time
from typing import TYPE_CHECKING

import engine
import engine.bots
from api.codec import own_json
from api.errors import ApiError
from api.game import auth, bots, names, records, seats
from api.game import tutorial as tutorial_deal
from api.game.model import BOT_SEAT, DOC_FORMAT, MODES, Loaded

if TYPE_CHECKING:
    from api.game.service import GameService


def new_seed() -> int:
    """A new game's secret seed: random, and below 2**53 so that a record's seed is exact as a JSON number
    in every client (JavaScript's numbers are doubles)."""
    return secrets.randbelow(2**53)


def create(svc: GameService, mode: str, dealer: int | None, base_url: str, bot: str | None = None,
           name: str | None = None, tutorial: bool = False, client: str | None = None) -> dict:
    """Start a game; return the creator's answer (seat 0, its token, and a join code for duo; with
    `bot` in duo, seat 1 is that bot's and there is no join code). `name`: the creator's name
    (already cleaned: api.game.names.clean_name). `tutorial` (solo): the guided game, a short game from
    a prepared table (api.game.tutorial). `client` (api.ops.limits.client_key) is counted against the
    creation limit. Raises invalid_request, rate_limited."""
    if mode not in MODES:
        raise ApiError("invalid_request", f"mode must be one of {', '.join(MODES)}")
    if client is not None:
        svc.limiter.create(client)
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
        seed = new_seed()
    state = engine.new_game(mode, seed, **options)
    token = auth.new_token()
    now = int(time.time())
    held = [auth.token_hash(token), None] if mode == "duo" else [auth.token_hash(token)]
    if bot is not None:
        held[1] = BOT_SEAT
    doc = {"format": DOC_FORMAT, "mode": mode, "position": engine.to_position(state), "seats": held,
           "join_code": None, "bot": [1, bot] if bot else None, "secret": [seed, records.new_salt()],
           "options": options, "created": now, "updated": now}
    if name is not None:
        doc["names"] = names.with_name(None, len(held), 0, name)
    if tutorial:
        doc["tutorial"] = True
    for _ in range(20):
        game_id = secrets.token_urlsafe(12)
        code = None
        if mode == "duo" and bot is None:
            code = seats.reserve_code(svc, game_id, svc.ttl.lobby)
            doc["join_code"] = code
        if svc.store.create(game_id, own_json.dumps(doc), svc._ttl(doc, doc["position"]["phase"])):
            break
        if code:
            svc.store.delete_code(code)
    else:  # pragma: no cover - 96-bit ids do not collide
        raise ApiError("internal_error", "could not allocate a game id")
    game = bots.play(svc, game_id, Loaded(1, doc, own_json.dumps(doc), state))  # the bot may start (R50)
    body = seats.game_body(game_id, game.version, game.doc, game.state(), 0, base_url)
    body["token"] = token
    body.setdefault("join_code", None)
    body.setdefault("join_url", None)
    return body
