"""Verifiable game records: the seed commitment, seeds derived from the game's secret, and the checks
behind `alcabohne verify` and `alcabohne replay` (api/cli/replay.py steps through a record).

Engine only (no Flask, no store): a record is a plain JSON document, so anyone can check a game with
the engine alone. When a game is created the server publishes `seed_commitment` = SHA-256 hex of
"<seed>:<salt>" (the salt is a per-game random secret, so the seed cannot be guessed from the
commitment); once the game is over the record reveals seed and salt, and replaying every action with
the engine must give the recorded result.

Record format (FORMAT):
    {"format": "alcabohne-record/1", "game_id": str, "mode": "duo"|"solo", "seed": int, "salt": str,
     "seed_commitment": hex, "options": {"dealer": 0|1} or {}, "seats": [{"seat": 0, "who": "human"},
     {"seat": 1, "who": "bot", "bot": "greedy"}], "actions": [{"version": int, "seat": int,
     "action": {...}}, ...], "result": {"scores": [...], "mafia": int, "winners": [...]}}
`options` are the new_game options the server used; `version` is the game version each action
produced (joins and seat transfers also take versions, so the numbers may skip).
"""

from __future__ import annotations

import hashlib
import json
import secrets

import engine

FORMAT = "alcabohne-record/1"


class RecordError(ValueError):
    """A record that does not hold: malformed, altered, or not a finished game."""


def new_salt() -> str:
    """Return a fresh per-game salt (128 random bits, hex)."""
    return secrets.token_hex(16)


def commitment(seed: int, salt: str) -> str:
    """Return the published commitment to `seed`: SHA-256 hex of "<seed as decimal>:<salt>"."""
    return hashlib.sha256(f"{seed}:{salt}".encode()).hexdigest()


def derived_seed(seed: int, salt: str, purpose: str, version: int, seat: int = 0) -> int:
    """Return a 63-bit seed for `purpose` ("bot", "hint") at game `version` for `seat`.

    Derived from the game's secret (seed and salt), not from what a view shows: a player who sees the
    same view twice cannot predict the bot, yet the record lets anyone recompute every bot decision."""
    digest = hashlib.sha256(f"{purpose}:{seed}:{salt}:{version}:{seat}".encode()).digest()
    return int.from_bytes(digest[:8], "big") >> 1


def build(game_id: str, mode: str, seed: int, salt: str, options: dict, seats: list[dict],
          actions: list[dict], result: dict) -> dict:
    """Return a record document (FORMAT) from its parts."""
    return {"format": FORMAT, "game_id": game_id, "mode": mode, "seed": seed, "salt": salt,
            "seed_commitment": commitment(seed, salt), "options": options, "seats": seats,
            "actions": actions, "result": result}


def load(path: str) -> dict:
    """Return the record stored as JSON at `path`. Raises RecordError (unreadable or not a record)."""
    try:
        with open(path, encoding="utf-8") as fh:
            record = json.load(fh)
    except (OSError, ValueError) as err:
        raise RecordError(f"cannot read {path}: {err}") from None
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise RecordError(f"{path} is not a game record (format {FORMAT!r})")
    return record


def start(record: dict):
    """Return the new game the record starts from (checks the keys it needs). Raises RecordError."""
    for key, kind in (("mode", str), ("seed", int), ("salt", str), ("options", dict), ("actions", list)):
        if not isinstance(record.get(key), kind) or isinstance(record.get(key), bool):
            raise RecordError(f"the record's {key!r} is missing or not a {kind.__name__}")
    try:
        return engine.new_game(record["mode"], record["seed"], **record["options"])
    except engine.EngineError as err:
        raise RecordError(f"the record's mode/seed/options do not start a game: {err}") from None


def replay(state, entries, move_of):
    """Yield (entry, state_before, state_after, events) for each of `entries`, replaying its move with
    the engine from `state`: the one replay loop behind records (`steps`) and the game log
    (api.game.gamelog.replay).

    `move_of(entry, state)` says what the entry did in `state` (and checks what its caller needs):
    (where, action) for a move, `where` naming it in an error, or None for an entry that moves nothing
    (the state stays, no events). Raises RecordError when an action does not apply, and whatever
    `move_of` raises."""
    for entry in entries:
        move = move_of(entry, state)
        if move is None:
            yield entry, state, state, []
            continue
        where, action = move
        try:
            after, events = engine.apply(state, action)
        except engine.EngineError as err:
            raise RecordError(f"{where}: {action} is not legal here: {err}") from None
        yield entry, state, after, events
        state = after


def steps(record: dict):
    """Yield (entry, state_before, state_after, events) for each recorded action, replayed with the
    engine. Raises RecordError when an action is malformed, illegal, by the wrong seat, or out of order."""
    last = 0

    def move_of(item, state):
        nonlocal last
        n, entry = item
        if not isinstance(entry, dict) or not {"version", "seat", "action"} <= set(entry):
            raise RecordError(f"action {n}: needs version, seat and action")
        where = f"action {n} (version {entry['version']})"
        if not isinstance(entry["version"], int) or entry["version"] <= last:
            raise RecordError(f"{where}: versions must increase")
        last = entry["version"]
        if state.phase == "over":
            raise RecordError(f"{where}: the game was already over")
        if entry["seat"] != state.active:
            raise RecordError(f"{where}: seat {entry['seat']} acted, but seat {state.active} was to move")
        return where, entry["action"]

    for (_n, entry), before, after, events in replay(start(record), enumerate(record["actions"], 1), move_of):
        yield entry, before, after, events


def verify(record: dict, expected_commitment: str | None = None) -> dict:
    """Check `record`; return its result when everything holds.

    Checks that the seed and salt match the record's commitment (and `expected_commitment`, the value
    published when the game was created, when given), that every action is legal for the seat that
    took it, and that the replayed game ends with the recorded result. Raises RecordError naming the
    first thing that does not hold."""
    state = start(record)
    made = commitment(record["seed"], record["salt"])
    for label, published in (("record's", record.get("seed_commitment")), ("published", expected_commitment)):
        if published is not None and published.lower() != made:
            raise RecordError(f"seed or salt altered: sha256(seed:salt) = {made}, but the {label} "
                              f"commitment is {published}")
    for _entry, _before, after, _events in steps(record):
        state = after
    if state.phase != "over":
        raise RecordError(f"the actions end before the game does (phase {state.phase})")
    result = engine.to_position(state)["result"]
    recorded = record.get("result")
    # A record made before the end breakdown existed (api.http.schemas.ResultSchema) holds only scores,
    # mafia and winners: those must match; any other key it holds must match too.
    if not isinstance(recorded, dict) or not {"scores", "mafia", "winners"} <= set(recorded) or \
            {key: result.get(key) for key in recorded} != recorded:
        raise RecordError(f"result altered: replaying gives {json.dumps(result)}, the record says "
                          f"{json.dumps(record.get('result'))}")
    return result
