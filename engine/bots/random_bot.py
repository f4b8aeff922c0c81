"""The `random` bot: a uniformly random legal action."""

from __future__ import annotations

import random


def choose(view: dict, seed: int) -> dict:
    """Return one of `view["legal_actions"]`, drawn uniformly with a generator seeded by `seed`."""
    legal = view["legal_actions"]
    return dict(legal[random.Random(seed).randrange(len(legal))])
