"""The harvest (R21, R32, R100): the one place where beans become coins.

A field's harvest (R21, the final one R100) and a boss's (at its threshold R32, the final one R100)
pay alike: coins(bean, n) of the n cards go to the owner's coins (a seat's pile, or the Mafia's
treasury), the rest to the discard pile, and the field or boss is left empty.
"""

from __future__ import annotations

from .cards import BOSSES, coins

MAFIA = None  # the `seat` of a boss's harvest


def harvest(s, seat: int | None, i: int, events: list, final: bool = False) -> None:
    """Harvest field `i` of `seat`, or boss `i` when `seat` is MAFIA, in `s` (changed in place), and
    append its event (`harvest` or `boss_harvest`, with `final` at the end of the game)."""
    if seat is MAFIA:
        bean, n = s.bosses[i]
        c = coins(bean, n)
        s.treasury = s.treasury + [bean] * c  # piles are shared between states: replace, never extend
        s.bosses[i] = None
        e = {"type": "boss_harvest", "boss": BOSSES[i], "bean": bean, "count": n, "coins": c}
    else:
        bean, n = s.fields[seat][i]
        c = coins(bean, n)
        s.own_coins(seat).extend([bean] * c)
        s.own_fields(seat)[i] = None
        e = {"type": "harvest", "seat": seat, "field": i, "bean": bean, "count": n, "coins": c}
    s.discard = s.discard + [bean] * (n - c)
    if final:
        e["final"] = True
    events.append(e)
