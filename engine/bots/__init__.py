"""Bots that choose an action from what their seat may see (issue 6).

`choose(name, view, seed, **budget)` returns one action dict of `view["legal_actions"]`, where `view`
is `engine.view(state, seat)` for the seat to move. A bot never sees the hidden state: the view is its
only input, and the same view with the same seed always gives the same action. Bots are pure like the
engine: no clock, no I/O, randomness only from `seed`.

Registry (`BOTS`): `random` (uniform), `greedy` (a hand-written heuristic, policy.py), `mc` (flat Monte
Carlo over determinizations with greedy playouts; budget keywords `playouts`, `width`, `epsilon`).
"""

from __future__ import annotations

from collections.abc import Callable

from . import greedy, mc, random_bot

BOTS: dict[str, Callable[..., dict]] = {
    "random": random_bot.choose,
    "greedy": greedy.choose,
    "mc": mc.choose,
}


def choose(name: str, view: dict, seed: int, **budget) -> dict:
    """Return the action bot `name` takes in `view` (a fresh dict, one of `view["legal_actions"]`).

    `budget` is passed to bots that take one (mc: playouts, width, epsilon). Raises KeyError for an
    unknown bot name, TypeError for a budget keyword the bot does not take, and ValueError when the
    view offers no legal action (not the viewer's turn, or the game is over)."""
    bot = BOTS[name]
    if not view["legal_actions"]:
        raise ValueError("no legal actions in this view (not the viewer's turn, or the game is over)")
    if type(seed) is not int:
        raise TypeError(f"seed must be an integer, got {seed!r}")
    return bot(view, seed, **budget)


__all__ = ["BOTS", "choose"]
