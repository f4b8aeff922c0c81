"""The rematch: exactly one next game per finished game, same mode, bot and names on the same seats.

The store links the next game's id to the finished game atomically (link_rematch) before anyone
creates it; whoever then finds it missing stores it. The caller's token in the new game is derived
from their old one (`rematch_token`), and the other player's seat is kept for them (RESERVED_SEAT)
until their first call. The finished game then carries the link (`rematch` in its answers: a change at
the table, committed through the service's one corridor, whose sockets get a rematch frame).
"""

from __future__ import annotations

import base64
import hashlib
import secrets
import time
from typing import TYPE_CHECKING

import engine
from api.codec import own_json
from api.errors import ApiError
from api.game import auth, bots, names, records, seats
from api.game.model import BOT_SEAT, Loaded
from api.game.start import new_seed

if TYPE_CHECKING:
    from api.game.service import GameService


def rematch(svc: GameService, game_id: str, token: str | None, base_url: str,
            client: str | None = None) -> dict:
    """Return the caller's seat in the next game of the finished game `game_id` (a SeatGrant:
    game_id, version, seat, token, view, seats, ...), creating that game on the first call.

    Exactly one next game per finished game, however many calls from either seat run at once:
    the store links it atomically (link_rematch) before anyone creates it, and `create` lets one
    caller store it (whoever finds it missing does). Same mode, bot and names on the same seats;
    duo alternates the start player. The caller's token in the new game is derived from their old
    one (`rematch_token`): asking again gives the same token, and the other player's seat
    waits for them (RESERVED_SEAT) until their first call. The finished game then carries the link
    (`rematch` in its answers, a version of its own, whose sockets get a rematch frame).
    Raises unknown_game, bad_token, game_not_over, seat_taken (the seat in the new
    game was claimed with another token: the old seat moved to another device meanwhile).
    """
    old = svc._load(game_id)
    seat = svc._seat(old, token, required=True)
    if old.doc["position"]["phase"] != "over":
        raise ApiError("game_not_over", "A rematch starts once this game is over.")
    if client is not None and not old.doc.get("rematch"):
        # The call that makes the next game counts as creating one (api.ops.limits): else finishing
        # games and asking for their rematches would create games past the limit. Checked first,
        # counted below by the one call whose link won: phones racing for it count once.
        svc.limiter.check_create(client)
    proposed = secrets.token_urlsafe(12)
    rematch_id = old.doc.get("rematch") or svc.store.link_rematch(game_id, proposed)
    if client is not None and rematch_id == proposed:
        svc.limiter.create(client, refuse=False)
    if rematch_id is None:
        raise ApiError("unknown_game", f"There is no game {game_id!r} (or it has expired).")
    new_token = rematch_token(token, rematch_id)
    game = _rematch_seat(svc, rematch_id, old.doc, seat, new_token)
    if old.doc.get("rematch") != rematch_id:
        _link_in_doc(svc, game_id, rematch_id, seat)
    body = seats.game_body(rematch_id, game.version, game.doc, game.state(), seat, base_url)
    body["token"] = new_token
    body.setdefault("join_code", None)
    body.setdefault("join_url", None)
    return body


def _rematch_seat(svc: GameService, rematch_id: str, old_doc: dict, seat: int, token: str) -> Loaded:
    """Return the rematch game with `seat` held by `token`: store the game if it is missing (the
    first caller, or a caller who overtook the linking one), else claim the seat kept for them."""
    held = auth.token_hash(token)
    for _ in range(10):  # moves in the new game may win the compare-and-set; claiming then retries
        found = svc.store.load(rematch_id)
        if found is None:
            doc, state = _rematch_game(old_doc, seat, held)
            if svc.store.create(rematch_id, own_json.dumps(doc), svc._ttl(doc, state.phase)):
                bots.play(svc, rematch_id, Loaded(1, doc, own_json.dumps(doc), state))  # the bot may start
            continue  # read back what was stored (ours, or a faster caller's)
        game = Loaded(found[0], own_json.loads(found[1]), found[1])
        mine = game.seats[seat]
        if mine == held:
            return bots.catch_up(svc, rematch_id, game)
        if mine != seats.RESERVED_SEAT:
            raise ApiError("seat_taken", "Your seat in the rematch was claimed from another device.")
        taken = list(game.seats)
        taken[seat] = held
        doc = dict(game.doc, seats=taken, updated=int(time.time()))
        res, commit = svc._change(rematch_id, game, doc, seat, "joined", name=names.names(doc)[seat])
        if res.status == "ok":
            return commit.game
    raise ApiError("stale_version", "The game is very busy; try again.")  # pragma: no cover


def _rematch_game(old_doc: dict, seat: int, held: str) -> tuple[dict, object]:
    """Return (document, state) of a new rematch game for a finished game's document."""
    mode, options = old_doc["mode"], {}
    if mode == "duo":
        # The finished game's dealer, as new_game drew it (or was told); the rematch swaps it.
        dealer = 1 - engine.new_game(mode, old_doc["secret"][0], **old_doc["options"]).active
        options = rematch_options(old_doc, dealer)
    seed = new_seed()
    state = engine.new_game(mode, seed, **options)
    doc = rematch_doc(old_doc, seat=seat, token_hash=held, state_position=engine.to_position(state),
                      seed=seed, salt=records.new_salt(), options=options, now=int(time.time()))
    return doc, state


def _link_in_doc(svc: GameService, game_id: str, rematch_id: str, seat: int) -> None:
    """Write the rematch link into the finished game's document (its own version and log entry,
    so every socket of the game hears of it); nothing when it is there already."""
    for _ in range(10):
        game = svc._load(game_id)
        if game.doc.get("rematch") == rematch_id:
            return
        doc = dict(game.doc, rematch=rematch_id, updated=int(time.time()))
        res, _commit = svc._change(game_id, game, doc, seat, "rematch", game=rematch_id)
        if res.status == "ok":
            return
        if res.status == "missing":
            return


def rematch_token(old_token: str, new_game_id: str) -> str:
    """Return the token of the caller's seat in the rematch game `new_game_id`, derived from the
    caller's token of the finished game: asking again gives the same token, and nothing secret is
    stored (the store keeps only its hash, as for every token). Only the holder of the old token can
    compute it."""
    digest = hashlib.sha256(f"alcabohne-rematch:{new_game_id}:{old_token}".encode()).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()  # like auth.new_token: 43 chars


def rematch_options(doc: dict, dealer: int | None) -> dict:
    """Return engine.new_game's options for the rematch of a finished game whose dealer was `dealer`:
    duo alternates the start player (the dealer moves to the other seat, R50); solo has none."""
    if doc["mode"] != "duo" or dealer is None:
        return {}
    return {"dealer": 1 - dealer}


def rematch_doc(old: dict, *, seat: int, token_hash: str, state_position: dict, seed: int, salt: str,
                options: dict, now: int) -> dict:
    """Return the stored document of a finished game's rematch (see api.game.start for the keys): same
    mode, bot and names; the caller's seat holds `token_hash`, the bot's seat the bot, and the other
    player's seat is kept for them (RESERVED_SEAT) until they ask for it."""
    held = []
    bot = old.get("bot")
    for i in range(len(old["seats"])):
        if bot and bot[0] == i:
            held.append(BOT_SEAT)
        elif i == seat:
            held.append(token_hash)
        else:
            held.append(seats.RESERVED_SEAT)
    doc = {"format": old["format"], "mode": old["mode"], "position": state_position, "seats": held,
           "join_code": None, "bot": bot, "secret": [seed, salt], "options": options, "created": now,
           "updated": now}
    if old.get("names"):
        doc["names"] = list(old["names"])
    return doc
