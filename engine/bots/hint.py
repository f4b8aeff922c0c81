"""Hints: the move a good player would make for a seat, with a reason a player can follow.

`hint(view, seed)` reads only `view` (engine.view for the seat to move), like every bot. It searches
like the `mc` bot at the server's budget (PLAYOUTS, WIDTH; tests/perf/hint_bench.py measures its time
and its strength). A harvest that pays no coin is proposed only when it makes room for something on
the table (the front card, the next hand card, a bundle of the display) or settles protection without
feeding a boss, and the search finds it best (`purposeful`): clearing a field to plant what comes is
how the Mafia is kept from the display's bundles (docs/bots.md "Hints"). Its reason says what it makes
room for, and the phone does not ask "Harvest anyway?" about the hinted move. Every reason names
what makes the move good in this position, each statement true of the view, in plain English;
`reason_code` is the stable key a client translates instead (the phone's catalog has every code in
English and German).
"""

from __future__ import annotations

import hashlib
import json

from ..actions import BUY, HARVEST, PLANT_HAND, to_dict
from ..cards import BEANOMETER, BOSS_NAMES, NAMES_EN, coins
from .knowledge import legal_codes_of
from .mc import search

PLAYOUTS = 32  # the server's mc budget (api.config BOT_MC_PLAYOUTS): fast enough to answer a tap
WIDTH = 3      # root moves searched, best first by the greedy heuristic (docs/bots.md)

# Codes after the three harvests and buy_field: every move that is not a harvest or a purchase.
_OTHER = PLANT_HAND


def proposable(view: dict, codes: list[int]) -> list[int]:
    """Return the codes of `codes` a hint may propose: all but the harvests that pay no coin, unless
    every legal move is a harvest or buying a field (then throwing a field away is forced)."""
    if all(c < _OTHER for c in codes):
        return codes
    values = view["players"][view["seat"]]["harvest_values"]
    return [c for c in codes if not (HARVEST <= c < BUY and values[c - HARVEST] == 0)]


def purposeful(view: dict, codes: list[int]) -> list[int]:
    """Return the codes of `codes` a hint proposes: all but the harvests that pay no coin and make room
    for nothing in sight (`stale_field`). A harvest that pays nothing is kept when it makes room for
    the front card, the next hand card or a bundle of the display, or settles protection without
    handing a boss a card: each of those has a reason the player can see on the table."""
    me = view["players"][view["seat"]]
    values, fields = me["harvest_values"], me["fields"]
    out = [c for c in codes if not (HARVEST <= c < BUY and values[c - HARVEST] == 0)
           or _zero_reason(view, me, fields[c - HARVEST][0], c - HARVEST)[0] != "stale_field"]
    return out or codes


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _holder(view: dict, bean: str) -> str | None:
    return next((k for k, b in view["bosses"].items() if b is not None and b[0] == bean), None)


def _front_stuck(view: dict, me: dict) -> bool:
    """Whether the front card must be planted now and fits on no field (R69: a harvest must make room)."""
    return (view["phase"] == "plant" and view["planted"] == 0 and bool(me["hand"])
            and all(f is not None and f[0] != me["hand"][0] for f in me["fields"]))


def _zero_reason(view: dict, me: dict, bean: str, i: int) -> tuple[str, str]:
    """The reason for a harvest that pays no coin: what it makes room for, or whom it keeps the cards
    from. Says "room" only when no field is empty, and names only what the view shows."""
    name = NAMES_EN[bean]
    fields = me["fields"]
    holder = _holder(view, bean)
    if view["phase"] == "protection" and holder is not None:
        return "zero_keep_from_boss", (f"The {name} field pays nothing, but harvesting it settles "
                                       f"{BOSS_NAMES[holder]}'s claim without handing the boss a card.")
    if _front_stuck(view, me):
        return "make_room_zero", (f"Your front card fits on no field: the {name} field pays nothing, "
                                  "but harvesting it makes the room you need.")
    empty = any(f is None for f in fields)
    kinds = {f[0] for j, f in enumerate(fields) if f is not None and j != i}
    if not empty:
        if view["phase"] == "use":
            bundles = [b for b in dict.fromkeys(view["display"]) if b not in kinds and b != bean]
            if bundles:
                big = max(bundles, key=view["display"].count)
                size = view["display"].count(big)
                return "room_for_bundle", (f"The {name} field pays nothing, but clearing it makes room to "
                                           f"plant the {NAMES_EN[big]} bundle (x{size}).")
        nxt = me["hand"][0] if me["hand"] else None
        if nxt is not None and nxt not in kinds and nxt != bean:
            return "room_for_hand", (f"The {name} field pays nothing, but clearing it makes room for your "
                                     f"next card, the {NAMES_EN[nxt]}.")
    return "stale_field", (f"The {name} field pays nothing and would need many more cards to pay; "
                           "starting it over with beans that fit your hand pays sooner.")


def _reason(action: dict, view: dict) -> tuple[str, str]:
    """Return (reason_code, reason text) for `action` in `view`: every statement true of the view."""
    me = view["players"][view["seat"]]
    fields = me["fields"]
    empty = any(f is None for f in fields)
    t = action["type"]
    if t == "plant_hand":
        bean = me["hand"][0]
        target = "it joins its own field" if fields[action["field"]] is not None else "it starts a new field"
        if view["planted"] == 0:
            return "must_plant", f"Your front card, the {NAMES_EN[bean]}, must be planted first; {target}."
        return "grow_field", (f"Planting the next card, the {NAMES_EN[bean]}, now grows a field before it "
                              f"gets stuck in your hand; {target}.")
    if t == "harvest":
        bean, n = fields[action["field"]]
        value = me["harvest_values"][action["field"]]
        if value == 0:
            return _zero_reason(view, me, bean, action["field"])
        pays = _plural(value, "coin", "coins")
        holder = _holder(view, bean)
        if view["phase"] == "protection" and holder is not None:
            return "harvest_protected", (f"{BOSS_NAMES[holder]} grows {NAMES_EN[bean]} too: harvesting pays "
                                         f"{pays} now instead of a card to the boss every turn.")
        if _front_stuck(view, me):
            return "make_room", (f"Your front card fits on no field: harvesting the {NAMES_EN[bean]} "
                                 f"field ({pays}) makes room.")
        if n >= BEANOMETER[bean][-1]:
            return "full_field", (f"The {NAMES_EN[bean]} field pays its most ({pays}): "
                                  "more cards would earn nothing more.")
        if empty:
            return "cash_in", f"The {NAMES_EN[bean]} field pays {pays} now."
        return "cash_in_room", (f"The {NAMES_EN[bean]} field pays {pays} now and makes room for your "
                                "next cards.")
    if t == "pay":
        bean, n = fields[action["field"]]
        boss = BOSS_NAMES[_holder(view, bean)]
        if n == 1:
            return "pay_single", (f"{boss} grows {NAMES_EN[bean]} too. Your single {NAMES_EN[bean]} "
                                  "would pay nothing if harvested: pay it to the boss.")
        now = _plural(coins(bean, n), "coin", "coins")
        return "pay_protection", (f"{boss} grows {NAMES_EN[bean]} too. Paying one card keeps your field "
                                  f"growing; harvesting it now would pay only {now}.")
    if t == "plant_display":
        bean = action["bean"]
        n = view["display"].count(bean)
        if fields[action["field"]] is None:
            return "start_bundle", f"The {NAMES_EN[bean]} bundle (x{n}) starts a new field for free."
        return "take_bundle", f"The {NAMES_EN[bean]} bundle (x{n}) grows your field of them for free."
    if t == "discard_display":
        return "discard", (f"Planting the {NAMES_EN[action['bean']]} bundle would crowd your fields; "
                           "discarding it costs nothing.")
    if t == "give_display":
        return "feed_boss", (f"The {NAMES_EN[action['bean']]} bundle helps you least; "
                             f"{BOSS_NAMES[action['boss']]} gains least from it.")
    if t == "give_hand":
        bean = me["hand"][action["index"]]
        boss = BOSS_NAMES[action["boss"]]
        if not empty and all(f[0] != bean for f in fields):
            return "unload_hand", (f"Your {NAMES_EN[bean]} would find no field when it reaches the front; "
                                   f"{boss} takes it now at little cost.")
        return "give_card", (f"Your {NAMES_EN[bean]} is worth less to you than its place in your hand; "
                             f"{boss} gains little from it.")
    if t == "buy_field":
        return "buy_field", "A third field keeps your next hand cards from forcing harvests."
    if len(view["legal_actions"]) == 1:
        return "only_choice", "Ending the phase is the only thing left to do."
    if view["phase"] == "plant" and me["hand"]:
        return "keep_hand", (f"Keep your next card, the {NAMES_EN[me['hand'][0]]}, for your next turn: "
                             "planting it now would not pay.")
    return "end_phase", "Nothing else here is worth more than moving on."


def view_seed(view: dict) -> int:
    """Return a 63-bit seed determined by `view` alone (SHA-256 of its canonical JSON)."""
    text = json.dumps(view, sort_keys=True, separators=(",", ":"))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big") >> 1


def hint(view: dict, seed: int, playouts: int = PLAYOUTS, width: int = WIDTH,
         strict: bool = False) -> tuple[dict, str, str]:
    """Return (action, reason_code, reason) for the viewer of `view`: the best legal action by a Monte
    Carlo search (engine.bots.mc, `playouts` and `width` its budget) as a fresh dict, and a one-line
    explanation. Searched are the `purposeful` moves; `strict` leaves out every harvest that pays no
    coin unless harvesting is forced (`proposable`): measured much weaker (docs/bots.md "Hints").

    Pure: reads only `view`. The search's deals of the unseen cards are seeded from the view itself,
    so one position always gets one hint (asked again, after a reload or on the table's other phone,
    and along the tutorial's deal); `seed` is taken like every bot's but changes nothing, since what
    a seat's own hint says is no secret from that seat. Raises ValueError when the view offers no
    legal action (not the viewer's turn, or the game is over)."""
    codes = legal_codes_of(view)
    if not codes:
        raise ValueError("no legal actions in this view (not the viewer's turn, or the game is over)")
    codes = proposable(view, codes) if strict else purposeful(view, codes)
    action = to_dict(search(view, codes, view_seed(view), playouts, width))
    code, text = _reason(action, view)
    return action, code, text


__all__ = ["PLAYOUTS", "WIDTH", "hint", "proposable", "purposeful"]
