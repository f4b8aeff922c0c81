"""The `greedy` bot: the best-scoring legal action under the heuristic of policy.py."""

from __future__ import annotations

import random

from ..actions import to_dict
from .knowledge import determinize, legal_codes_of
from .policy import best_code


def choose(view: dict, seed: int) -> dict:
    """Return the legal action of `view` with the best heuristic score (the first on ties).

    The heuristic reads only what the view shows; the state it runs on is a determinization whose
    hidden piles it never looks at (`seed` only decides how those unread piles are filled)."""
    codes = legal_codes_of(view)
    if len(codes) == 1:
        return to_dict(codes[0])
    s = determinize(view, random.Random(seed))
    return to_dict(best_code(s, codes))
