"""A fast transition for playouts: `engine.apply` without parsing or legality checks.

Bots call this hundreds of thousands of times per decision budget, always with a code taken from
`rules.legal_codes` of the same state, so the checks that protect `apply` from outside input would
only cost time. It runs exactly the transition `apply` runs (the same `_DO` table).
"""

from __future__ import annotations

from ..actions import KEYS
from ..play import _DO


def step(s, code: int):
    """Return the state after the legal action `code` in `s` (`s` itself is not changed)."""
    key = KEYS[code]
    n = s.copy()
    _DO[key[0]](n, key, [])
    return n
