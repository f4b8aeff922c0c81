"""A stored game's past, derived from its log (api.game.gamelog) by replay: every version's state and
events, the events of one version, the table as it was before a change, and the finished game's record
(api.game.records.FORMAT).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import engine
from api.errors import ApiError
from api.game import gamelog, names, records
from api.game.model import Events, Loaded

if TYPE_CHECKING:
    from api.game.service import GameService


def replay(svc: GameService, game_id: str, game: Loaded) -> list[gamelog.Step]:
    """Return every version of `game` after the first, replayed from its start (gamelog): the
    log read now may hold later versions, which are left out."""
    doc = game.doc
    start = engine.new_game(doc["mode"], doc["secret"][0], **doc["options"])
    entries = [(v, e) for v, e in svc.store.log_since(game_id, 1) if v <= game.version]
    return list(gamelog.replay(start, entries))


def events_of(svc: GameService, game_id: str, game: Loaded, entry: str | None) -> Events:
    """Return the unredacted events of `game`'s version, whose log entry is `entry`: None for the
    first version (no entry); the list for a change at the table, which says them itself; for a
    move, a function that returns them, by replaying the game (gamelog): called only when needed."""
    if not entry:
        return None
    parsed = gamelog.parse(entry)
    if isinstance(parsed, gamelog.Change):
        return parsed.events()

    def replayed() -> list[dict]:
        step = next((s for s in replay(svc, game_id, game) if s.version == game.version), None)
        return step.events if step is not None else []

    return replayed


def undo_change(doc: dict, change: gamelog.Change) -> dict:
    """Return `doc` as it was before `change`, a change at the table (to render an answer of an
    earlier version again, byte for byte)."""
    if change.kind == "rematch":
        return dict(doc, rematch=None)
    given = list(names.names(doc))
    given[change.seat] = change.fields.get("was", change.fields.get("name"))
    doc = dict(doc, names=given)
    if change.kind == "joined":  # the seat was free (or kept for a rematch player: not taken either)
        held = list(doc["seats"])
        held[change.seat] = None
        doc["seats"] = held
        doc["join_code"] = change.fields.get("code", doc.get("join_code"))
    return doc


def record(svc: GameService, game_id: str) -> dict:
    """Return the finished game's record (api.game.records.FORMAT): seed, salt, options, seats, every
    action in order with its seat and version, and the result.

    Raises unknown_game, game_not_over (the seed stays secret until the end), record_unavailable
    (a log that does not reach back to the start: the store lost part of it)."""
    game = svc._load(game_id)
    if game.doc["position"]["phase"] != "over":
        raise ApiError("game_not_over", "The record (and the seed) are published when the game is over.")
    entries = [(v, e) for v, e in svc.store.log_since(game_id, 1) if v <= game.version]
    if [v for v, _ in entries] != list(range(2, game.version + 1)):
        raise ApiError("record_unavailable", "The log of this game no longer reaches back to its start.")
    actions = []
    for version, text in entries:
        entry = gamelog.parse(text)
        if isinstance(entry, gamelog.Move):
            actions.append({"version": version, "seat": entry.seat, "action": entry.action})
    bot = game.doc.get("bot")
    given = names.names(game.doc)
    seats = [{"seat": i, "who": "bot", "bot": bot[1]} if bot and bot[0] == i
             else {"seat": i, "who": "human", "name": given[i]} for i in range(len(game.seats))]
    seed, salt = game.doc["secret"]
    return records.build(game_id, game.doc["mode"], seed, salt, game.doc["options"], seats, actions,
                         game.doc["position"]["result"])
