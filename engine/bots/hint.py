"""Hints: the greedy bot's choice for a seat, with a one-line reason a player can follow.

`hint(view, seed)` reads only `view` (engine.view for the seat to move), like every bot, and suggests
exactly what the `greedy` bot would play there. The reason names the main term of the heuristic
(policy.py) that made the action look best, in plain English; `reason_code` is a stable key that a
client may translate instead.
"""

from __future__ import annotations

import random

from ..actions import to_dict
from ..cards import BOSS_NAMES, NAMES_EN
from .knowledge import determinize, legal_codes_of
from .policy import score_actions


def _field(view: dict, i: int):
    return view["players"][view["seat"]]["fields"][i]


def _reason(action: dict, view: dict) -> tuple[str, str]:
    """Return (reason_code, reason text) for `action` in `view`."""
    me = view["players"][view["seat"]]
    t = action["type"]
    if t == "plant_hand":
        bean = me["hand"][0]
        f = _field(view, action["field"])
        if view["planted"] == 0:
            code, text = "must_plant", f"The front card ({NAMES_EN[bean]}) must be planted first (R69)"
        else:
            code, text = "grow_field", f"Planting the next {NAMES_EN[bean]} grows a field before it is stuck"
        text += "; it joins its own field." if f is not None else "; it starts an empty field."
        return code, text
    if t == "harvest":
        f = _field(view, action["field"])
        value = me["harvest_values"][action["field"]]
        if view["phase"] == "plant" and view["planted"] == 0 and me["hand"] and all(
                x is not None and x[0] != me["hand"][0] for x in me["fields"]):
            return "make_room", (f"The front card has no field: harvesting {NAMES_EN[f[0]]} "
                                 f"({value} coin(s)) makes room (R69).")
        if value == 0:
            return "free_field", f"Clearing the {NAMES_EN[f[0]]} field frees it for the cards coming next."
        return "cash_in", f"The {NAMES_EN[f[0]]} field pays {value} coin(s) now and frees the field."
    if t == "pay":
        f = _field(view, action["field"])
        return "pay_protection", (f"Paying one {NAMES_EN[f[0]]} keeps the field growing; "
                                  "harvesting it would cost more (R66).")
    if t == "plant_display":
        n = view["display"].count(action["bean"])
        return "take_bundle", f"The {NAMES_EN[action['bean']]} bundle (x{n}) grows your field for free."
    if t == "discard_display":
        return "discard", (f"Planting the {NAMES_EN[action['bean']]} bundle would crowd your fields; "
                           "discarding it costs nothing (R63).")
    if t == "give_display":
        return "feed_boss", (f"The {NAMES_EN[action['bean']]} bundle helps you least; "
                             f"{BOSS_NAMES[action['boss']]} gains least from it.")
    if t == "give_hand":
        bean = me["hand"][action["index"]]
        return "unload_hand", (f"Your {NAMES_EN[bean]} (hand card {action['index'] + 1}) would find no field "
                               f"when it reaches the front; {BOSS_NAMES[action['boss']]} takes it cheaply.")
    if t == "buy_field":
        return "buy_field", "A third field keeps the next hand cards from forcing harvests (R40)."
    if len(view["legal_actions"]) == 1:
        return "only_choice", "Ending the phase is the only thing left to do."
    return "end_phase", "Nothing else here is worth more than moving on."


def hint(view: dict, seed: int) -> tuple[dict, str, str]:
    """Return (action, reason_code, reason) for the viewer of `view`: the greedy bot's choice (one of
    `view["legal_actions"]`, a fresh dict) and a one-line explanation.

    Pure: reads only `view`; `seed` only fills the hidden piles of the determinization, which the
    heuristic never reads. Raises ValueError when the view offers no legal action (not the viewer's
    turn, or the game is over)."""
    codes = legal_codes_of(view)
    if not codes:
        raise ValueError("no legal actions in this view (not the viewer's turn, or the game is over)")
    best = 0
    if len(codes) > 1:
        scores = score_actions(determinize(view, random.Random(seed)), codes)
        best = max(range(len(codes)), key=lambda j: (scores[j], -j))  # the first on ties, like greedy
    action = to_dict(codes[best])
    code, text = _reason(action, view)
    return action, code, text


__all__ = ["hint"]
