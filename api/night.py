"""Game-night additions kept in one place: player names, the seats as every answer shows them, the
rematch link and the tutorial deal. No Flask and no store here: api.service calls these helpers.

The stored document (api.service) has three optional fields for them: `names`, per seat (None: no
name); `rematch`, the id of the next game once one exists (set on the finished game); `tutorial`.
"""

from __future__ import annotations

import base64
import hashlib
import re

NAME_MAX = 24
# Longest name text accepted before trimming (the trimmed name is at most NAME_MAX).
NAME_RAW_MAX = 64
# Characters a name may never hold: C0 and C1 controls, line and paragraph separators, and the bidi
# overrides and isolates (they would reorder the text around the name on the other phone).
_FORBIDDEN = r"\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
# A name: optional whitespace, then 1..NAME_MAX characters that start and end with a non-space, then
# optional whitespace. It is the `pattern` of the OpenAPI document too, so a client (and schemathesis)
# knows exactly what is accepted; it is applied as JSON Schema does (re.search).
NAME_PATTERN = (rf"^[^\S{_FORBIDDEN}]*[^\s{_FORBIDDEN}](?:[^{_FORBIDDEN}]{{0,{NAME_MAX - 2}}}"
                rf"[^\s{_FORBIDDEN}])?[^\S{_FORBIDDEN}]*$")
_NAME_RE = re.compile(NAME_PATTERN)
NAME_RULE = (f"A name is 1-{NAME_MAX} characters after trimming, without control characters "
             f"(at most {NAME_RAW_MAX} before trimming).")

# The placeholder of a rematch seat kept for the other player of the finished game until they ask for
# it (POST /games/{id}/rematch): never equal to a token hash (64 hex digits), never a free seat.
RESERVED_SEAT = "rematch"

# The tutorial's deal (POST /games {"mode": "solo", "tutorial": true}). Played along its hints (the
# greedy choice, engine.bots.hint), the first turn plants from the hand and from the display, harvests,
# sees a boss capture a revealed card and a discard joining the display, gives to a boss and draws; the
# third turn pays protection and a boss harvests (tests/api/test_api_night.py checks all of it).
TUTORIAL_SEED = 20261393


def clean_name(value: str) -> str:
    """Return `value` trimmed; raise ValueError (NAME_RULE) when it is not a valid name."""
    if not isinstance(value, str) or len(value) > NAME_RAW_MAX or _NAME_RE.search(value) is None:
        raise ValueError(NAME_RULE)
    return value.strip()


def names(doc: dict) -> list[str | None]:
    """Return the names per seat of a stored document (None: no name)."""
    return doc.get("names") or [None] * len(doc["seats"])


def with_name(doc_names: list[str | None] | None, seats: int, seat: int, name: str | None) -> list | None:
    """Return the document's `names` after giving `seat` the name `name` (None: keep them as they are)."""
    if name is None:
        return doc_names
    out = list(doc_names or [None] * seats)
    out[seat] = name
    return out


def seats_info(doc: dict) -> list[dict]:
    """Return the seats as answers show them: {seat, taken, name[, bot]}. A bot's seat has no name
    (clients call it the computer); a seat kept for a rematch player is not taken until they come."""
    given = names(doc)
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
                options: dict, now: int, bot_seat: str) -> dict:
    """Return the stored document of a finished game's rematch (see api.service for the keys): same
    mode, bot and names; the caller's seat holds `token_hash`, the bot's seat the bot, and the other
    player's seat is kept for them (RESERVED_SEAT) until they ask for it."""
    seats = []
    bot = old.get("bot")
    for i in range(len(old["seats"])):
        if bot and bot[0] == i:
            seats.append(bot_seat)
        elif i == seat:
            seats.append(token_hash)
        else:
            seats.append(RESERVED_SEAT)
    doc = {"format": old["format"], "mode": old["mode"], "position": state_position, "seats": seats,
           "join_code": None, "bot": bot, "secret": [seed, salt], "options": options, "created": now,
           "updated": now}
    if old.get("names"):
        doc["names"] = list(old["names"])
    return doc
