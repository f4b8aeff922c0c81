"""`alcabohne replay`: step through a game record in the terminal (engine only; the record's checks are
api.game.records)."""

from __future__ import annotations

from collections.abc import Callable

import engine
from api.cli.terminal import describe, narrate, render, result_text
from api.game import records


def _who(record: dict, seat: int) -> str:
    for s in record.get("seats") or []:
        if isinstance(s, dict) and s.get("seat") == seat and s.get("who") == "bot":
            return f"Player {seat + 1} (bot {s.get('bot')})"
    return f"Player {seat + 1}"


def replay(record: dict, *, wait: bool = True, inp: Callable[[str], str] = input,
           out: Callable[[str], None] = print) -> int:
    """Step through `record` in the terminal: before each action, the table as the acting seat saw it.

    With `wait`, Enter shows the next action (q quits); otherwise everything is printed at once.
    Returns 0. Raises RecordError when the record does not replay."""
    out(f"Al Cabohne record {record.get('game_id', '?')} - {record.get('mode')} - seed {record.get('seed')}")
    state = records.start(record)
    for entry, before, after, events in records.steps(record):
        state = after
        view = engine.view(before, before.active)
        out("")
        out(render(view))
        out(f">> v{entry['version']} {_who(record, entry['seat'])}: {describe(entry['action'], view)}")
        for line in narrate(events, None):
            out(line)
        if wait:
            try:
                if inp("(Enter: next action, q: quit) ").strip().lower() in ("q", "quit"):
                    return 0
            except EOFError:
                return 0
    view = engine.view(state, None)
    out("")
    out(render(view))
    if view["result"] is not None:
        out(result_text(view))
    return 0
