"""The Mafia's automatic behaviour (R30-R35): taking cards and harvesting by itself."""

from __future__ import annotations

from .cards import BOSSES, THRESHOLD, coins


def add_to_boss(s, i: int, bean: str, n: int, events: list) -> None:
    """Put `n` cards of `bean` on boss `i` (one addition, R32) and let it harvest if it reached its
    threshold: coins to the treasury, the rest to the discard pile, the boss left empty (R32, A3, A4)."""
    b = s.bosses[i]
    size = (b[1] if b is not None else 0) + n
    c = coins(bean, size)
    if c >= THRESHOLD[i]:
        s.treasury = s.treasury + [bean] * c  # piles are shared between states: replace, never extend
        s.discard = s.discard + [bean] * (size - c)
        s.bosses[i] = None
        events.append({"type": "boss_harvest", "boss": BOSSES[i], "bean": bean, "count": size, "coins": c})
    else:
        s.bosses[i] = (bean, size)


def final_harvest(s, i: int, events: list) -> None:
    """R100: harvest boss `i` at the end regardless of its threshold."""
    b = s.bosses[i]
    if b is None:
        return
    bean, size = b
    c = coins(bean, size)
    s.treasury = s.treasury + [bean] * c
    s.discard = s.discard + [bean] * (size - c)
    s.bosses[i] = None
    events.append({"type": "boss_harvest", "boss": BOSSES[i], "bean": bean, "count": size, "coins": c,
                   "final": True})
