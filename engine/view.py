"""What a seat may see (R17, docs/protocol.md §5): its own hand and public information, never the seed."""

from __future__ import annotations

from .cards import BOSSES, coins
from .play import legal_actions
from .state import copy_result


def _entry(f):
    return None if f is None else [f[0], f[1]]


def view(s, seat: int | None) -> dict:
    """Return the view of `seat` (None: the public table view).

    Hidden piles appear as counts; the other hands as sizes only. `legal_actions` lists the viewer's
    legal actions when it is the viewer's turn, else it is empty. Raises ValueError for a seat that
    does not exist in this game.
    """
    seats = len(s.hands)
    if seat is not None and (type(seat) is not int or not 0 <= seat < seats):
        raise ValueError(f"seat must be None or 0..{seats - 1}, got {seat!r}")
    players = []
    for i in range(seats):
        fields = s.fields[i]
        players.append({
            "fields": [_entry(f) for f in fields],
            "harvest_values": [None if f is None else coins(f[0], f[1]) for f in fields],
            "coins": len(s.coins[i]),
            "hand_size": len(s.hands[i]),
            "third_field": s.third[i],
            "hand": s.hands[i][:] if i == seat else None,
        })
    mine = seat is not None and seat == s.active and s.phase != "over"
    return {
        "mode": s.mode,
        "phase": s.phase,
        "active": s.active,
        "seat": seat,
        "players": players,
        "bosses": {BOSSES[i]: _entry(b) for i, b in enumerate(s.bosses)},
        "display": s.display[:],
        "discard_top": s.discard[-1] if s.discard else None,
        "discard_size": len(s.discard),
        "deck_size": len(s.deck),
        "treasury": len(s.treasury),
        "set_aside": len(s.set_aside),
        "exhaustions": s.exhaustions,
        "pass": min(s.exhaustions + 1, 3),
        "planted": s.planted,
        "settled": s.settled[:],
        "last_turn": s.last_turn,
        "result": copy_result(s.result),
        "legal_actions": legal_actions(s) if mine else [],
    }


def redact_events(events: list[dict], seat: int | None) -> list[dict]:
    """Return copies of `events` as `seat` may see them: another seat's draw loses its bean."""
    out = []
    for e in events:
        if e["type"] == "draw" and e["seat"] != seat:
            out.append({"type": "draw", "seat": e["seat"]})
        else:
            out.append(dict(e))
    return out
