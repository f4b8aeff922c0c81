"""The Mafia's automatic behaviour (R30-R35): taking cards and harvesting by itself."""

from __future__ import annotations

from .cards import THRESHOLD, coins
from .harvest import MAFIA, harvest


def add_to_boss(s, i: int, bean: str, n: int, events: list) -> None:
    """Put `n` cards of `bean` on boss `i` (one addition, R32) and let it harvest if it reached its
    threshold: coins to the treasury, the rest to the discard pile, the boss left empty (R32, A3, A4)."""
    b = s.bosses[i]
    size = (b[1] if b is not None else 0) + n
    s.bosses[i] = (bean, size)
    if coins(bean, size) >= THRESHOLD[i]:
        harvest(s, MAFIA, i, events)


def final_harvest(s, i: int, events: list) -> None:
    """R100: harvest boss `i` at the end regardless of its threshold."""
    if s.bosses[i] is not None:
        harvest(s, MAFIA, i, events, final=True)
