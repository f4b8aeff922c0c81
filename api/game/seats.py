"""Seats: who holds which seat of a game, and the table as every answer shows it.

A seat is held by the SHA-256 of its token (api.game.auth); a free seat is None, the bot's BOT_SEAT,
one kept for a rematch player RESERVED_SEAT. A join code opens the free seat; a transfer code moves a
held seat to another device (the old token stops working). Every change of a seat is a change at the
table, committed through the service's one corridor (GameService._change).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

import engine
import engine.bots
from api.codec import own_json
from api.errors import ApiError
from api.game import auth, names, records
from api.game.model import Loaded, join_url

if TYPE_CHECKING:
    from api.game.service import GameService

# The placeholder of a rematch seat kept for the other player of the finished game until they ask for
# it (POST /games/{id}/rematch): never equal to a token hash (64 hex digits), never a free seat.
RESERVED_SEAT = "rematch"


# What seats_info gives, as a JSON Schema: the one description of a seat that the OpenAPI document
# (api.http.openapi) and the websocket schema (api.live.ws_schema) both serve.
SEAT_INFO_SCHEMA = {
    "type": "object", "additionalProperties": False, "required": ["seat", "taken", "name"],
    "description": "A seat as GET /games/{id} shows it: taken, the player's name, and the bot's name on its "
                   "seat.",
    "properties": {
        "seat": {"type": "integer", "minimum": 0, "maximum": 1},
        "taken": {"type": "boolean", "description": "A player (or the computer) holds it; a seat kept for "
                                                    "the other player of a rematch is not taken until "
                                                    "they come."},
        "name": {"type": ["string", "null"], "description": (
            "The name its player gave (trimmed, plain text: show it as text, never as markup); null: none "
            "given, and always null on a bot's seat (clients say \"Player 1\" or \"Computer\" in their "
            "language).")},
        "bot": {"type": "string", "enum": list(engine.bots.BOTS),
                "description": "Only on a bot's seat: its name."}}}


def seats_info(doc: dict) -> list[dict]:
    """Return the seats as answers show them: {seat, taken, name[, bot]}. A bot's seat has no name
    (clients call it the computer); a seat kept for a rematch player is not taken until they come."""
    given = names.names(doc)
    seats = [{"seat": i, "taken": h is not None and h != RESERVED_SEAT, "name": given[i]}
             for i, h in enumerate(doc["seats"])]
    if doc.get("bot"):
        seat, bot = doc["bot"]
        seats[seat]["bot"] = bot
        seats[seat]["name"] = None
    return seats


def table_info(doc: dict) -> dict:
    """Return what every answer and state frame adds about the table: the seats with their names, and
    the rematch game's id (None until one exists)."""
    return {"seats": seats_info(doc), "rematch": doc.get("rematch")}


def game_body(game_id: str, version: int, doc: dict, state, seat: int | None, base_url: str) -> dict:
    """Return the common part of every answer about one game, as `seat` may see it."""
    body = {"game_id": game_id, "version": version, "seat": seat, "view": engine.view(state, seat),
            **table_info(doc), "seed_commitment": records.commitment(*doc["secret"])}
    if doc.get("tutorial"):
        body["tutorial"] = True
    if seat is not None and doc.get("join_code"):
        # Seated players may show the open join code again (QR on the first phone).
        body["join_code"] = doc["join_code"]
        body["join_url"] = join_url(base_url, doc["join_code"])
    return body


def join(svc: GameService, code: str, client: str, base_url: str, name: str | None = None,
         token: str | None = None) -> dict:
    """Take the seat a join or transfer code opens; return {game_id, version, seat, token, view, seats}.
    `name` (already cleaned) becomes the seat's name; None keeps the name the seat has. A caller
    whose `token` holds a seat of the code's game gets that seat back with the same token, and
    nothing changes (the host's phone opening its own join link must not take the other seat).

    Raises rate_limited (too many failed codes from `client`, or from everyone), unknown_code.
    """
    svc.limiter.guess(client)
    norm = auth.normalize_code(code)
    if norm is None:
        raise ApiError("unknown_code",
                       f"A code is {auth.CODE_LENGTH} characters of {auth.CODE_ALPHABET}.")
    for _ in range(10):  # a concurrent move may win the compare-and-set; joining then simply retries
        target = svc.store.get_code(norm)
        if target is None:
            raise ApiError("unknown_code", "No such code (or it has been used, or it has expired).")
        game_id, _, binding = target.partition("#")
        found = svc.store.load(game_id)
        if found is None:
            svc.store.delete_code(norm)
            raise ApiError("unknown_code", "The game of this code has expired.")
        game = Loaded(found[0], own_json.loads(found[1]), found[1])
        doc = game.doc
        own = auth.seat_of(token, doc["seats"])
        if own is not None:  # already seated here: answer that seat, leave the code for the other
            body = game_body(game_id, game.version, doc, game.state(), own, base_url)
            body["token"] = token
            svc.limiter.guessed_right(client)
            return body
        seat, change = _seat_for_code(doc, norm, binding)
        was = names.names(doc)[seat]
        token = auth.new_token()
        held = list(doc["seats"])
        held[seat] = auth.token_hash(token)
        doc = dict(doc, seats=held, join_code=doc["join_code"] if change == "transferred" else None,
                   updated=int(time.time()))
        if name is not None:
            doc["names"] = names.with_name(doc.get("names"), len(held), seat, name)
        # What a replay needs to undo the change: the name before, the join code used.
        undo = {} if names.names(doc)[seat] == was else {"was": was}
        if change == "joined":
            undo["code"] = norm
        res, commit = svc._change(game_id, game, doc, seat, change, name=names.names(doc)[seat], **undo)
        if res.status == "ok":
            svc.store.delete_code(norm)
            svc.limiter.guessed_right(client)
            body = game_body(game_id, commit.game.version, doc, commit.game.state(), seat, base_url)
            body["token"] = token
            return body
        if res.status == "missing":
            raise ApiError("unknown_code", "The game of this code has expired.")
    raise ApiError("stale_version", "The game is very busy; try again.")  # pragma: no cover


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


def transfer(svc: GameService, game_id: str, token: str | None, base_url: str,
             client: str | None = None) -> dict:
    """Issue a code that moves the caller's seat to another device; the old token stops working
    when the code is claimed (POST /games/join). Returns {game_id, version, seat, transfer_code,
    transfer_url, expires_in}; changes nothing else. `client` (api.ops.limits.client_key) is counted
    against the transfer limit. Raises unknown_game, bad_token, rate_limited.
    """
    game = svc._load(game_id)
    seat = svc._seat(game, token, required=True)
    if client is not None:
        svc.limiter.charge("transfer", client)
    # The code is bound to the current token: once the seat moves, older transfer codes are dead.
    code = reserve_code(svc, f"{game_id}#{seat}#{game.seats[seat][:16]}", svc.ttl.transfer)
    return {"game_id": game_id, "version": game.version, "seat": seat, "transfer_code": code,
            "transfer_url": join_url(base_url, code), "expires_in": svc.ttl.transfer}


def join_link(svc: GameService, game_id: str, token: str | None, code: str | None, client: str,
              base_url: str) -> str:
    """Return the join URL to draw as a QR code: for `code` if it is a live code of this game, else
    the open join code, which only a seated player may see.

    Raises unknown_game, bad_token, unknown_code, rate_limited (checking a code counts as a join
    attempt: otherwise this would be a way to guess codes around the join limit).
    """
    if code is not None:
        # A seat of this game is no guesser: it is counted per client only, so that others' failed
        # checks against the game cannot refuse its own codes (its transfer code's QR code).
        seated = token is not None and auth.seat_of(token, svc._load(game_id).seats) is not None
        against = None if seated else game_id
        svc.limiter.guess(client, against)
        norm = auth.normalize_code(code)
        target = svc.store.get_code(norm) if norm else None
        if target is None or target.split("#", 1)[0] != game_id:
            raise ApiError("unknown_code", "That code is not a live code of this game.")
        svc.limiter.guessed_right(client, against)
        return join_url(base_url, norm)
    game = svc._load(game_id)
    svc._seat(game, token, required=True)
    if not game.doc.get("join_code"):
        raise ApiError("unknown_code", "Every seat of this game is taken: there is no join code.")
    return join_url(base_url, game.doc["join_code"])


def reserve_code(svc: GameService, value: str, ttl: int) -> str:
    """Return a fresh code mapped to `value` in the store for `ttl` seconds."""
    for _ in range(50):
        code = auth.new_code()
        if svc.store.put_code(code, value, ttl):
            return code
    raise ApiError("store_unavailable", "no free code found; try again")  # pragma: no cover
