"""The one rulebook: which actions the active seat may take now (docs/rules.md, docs/protocol.md §3).

`legal_codes` is the only source of legality: apply accepts exactly these actions. `explain` only words
the refusal of an action that is not listed, naming the rule that forbids it.
"""

from __future__ import annotations

from .actions import (
    BEAN_INDEX,
    BOSS_INDEX,
    BUY,
    DISCARD,
    END,
    GIVE_DISPLAY,
    GIVE_HAND,
    HARVEST,
    PAY,
    PLANT_DISPLAY,
    PLANT_HAND,
)
from .cards import THIRD_FIELD_COST


def boss_holding(bosses: list, bean: str) -> int | None:
    """Return the index of the boss growing `bean`, or None."""
    for i, b in enumerate(bosses):
        if b is not None and b[0] == bean:
            return i
    return None



def open_pairs(s) -> list[int]:
    """Return the fields of the active seat whose matched pair (R65) is not yet settled."""
    bosses = s.bosses
    out = []
    for i, f in enumerate(s.fields[s.active]):
        if f is not None and i not in s.settled and boss_holding(bosses, f[0]) is not None:
            out.append(i)
    return out


def bundles(display: list) -> list[str]:
    """Return the bean types in the display, in order of first arrival (R75)."""
    out = []
    for b in display:
        if b not in out:
            out.append(b)
    return out




def legal_codes(s) -> list[int]:
    """Return the codes (actions.py) of every legal action of the active seat, in a stable order.

    Written flat on purpose: bots call this thousands of times per decision (issue 2 benchmark).
    """
    phase = s.phase
    if phase == "over":
        return []
    a = s.active
    fields = s.fields[a]
    own = {}  # bean -> the field growing it (R13: at most one)
    empty = []
    big = 0
    for i, f in enumerate(fields):
        if f is None:
            empty.append(i)
        else:
            own[f[0]] = i
            if f[1] >= 2:
                big += 1
    codes: list[int] = []
    add = codes.append
    if phase == "use":
        held = {}  # bean -> the boss growing it (R14: at most one)
        idle = []
        for k, b in enumerate(s.bosses):
            if b is None:
                idle.append(k)
            else:
                held[b[0]] = k
        seen = set()
        for b in s.display:
            if b in seen:
                continue
            seen.add(b)
            base = 3 * BEAN_INDEX[b]
            i = own.get(b)
            if i is None:
                for j in empty:
                    add(PLANT_DISPLAY + base + j)
            else:
                add(PLANT_DISPLAY + base + i)
            k = held.get(b)
            if k is None:
                for k in idle:
                    add(GIVE_DISPLAY + base + k)
            else:
                add(GIVE_DISPLAY + base + k)
        if idle:
            for j, c in enumerate(s.hands[a]):
                k = held.get(c)
                if k is None:
                    for k in idle:
                        add(GIVE_HAND + 3 * j + k)
                else:
                    add(GIVE_HAND + 3 * j + k)
        else:  # the common case: every boss grows a type, so only cards of those types may go
            codes += [GIVE_HAND + 3 * j + held[c] for j, c in enumerate(s.hands[a]) if c in held]
    elif phase == "plant":
        hand = s.hands[a]
        if hand and s.planted < 2:
            i = own.get(hand[0])
            if i is None:
                for j in empty:
                    add(PLANT_HAND + j)
            else:
                add(PLANT_HAND + i)
    elif phase == "protection":
        for i in open_pairs(s):
            add(PAY + i)
    elif phase == "leftovers":
        for b in bundles(s.display):
            base = 3 * BEAN_INDEX[b]
            i = own.get(b)
            if i is None:
                for j in empty:
                    add(PLANT_DISPLAY + base + j)
            else:
                add(PLANT_DISPLAY + base + i)
            add(DISCARD + BEAN_INDEX[b])
    # R20-R23: any non-empty field, except a single card while another field holds two or more.
    for i, f in enumerate(fields):
        if f is not None and (f[1] >= 2 or not big):
            add(HARVEST + i)
    if not s.third[a] and len(s.coins[a]) >= THIRD_FIELD_COST:  # R40, R41, R43
        add(BUY)
    if phase == "plant":
        if s.planted or not s.hands[a]:  # R69
            add(END)
    elif phase == "use":
        # R83: no boss may stay empty while a bundle or hand card could legally go to it; R84 (solo):
        # the display must be empty.
        hungry = idle and (any(c not in held for c in s.display)
                           or any(c not in held for c in s.hands[a]))
        if not hungry and not (s.mode == "solo" and s.display):
            add(END)
    return codes


_PHASES_OF = {
    "harvest": ("leftovers", "protection", "plant", "use"),
    "buy_field": ("leftovers", "protection", "plant", "use"),
    "plant_hand": ("plant",),
    "plant_display": ("leftovers", "use"),
    "discard_display": ("leftovers",),
    "give_display": ("use",),
    "give_hand": ("use",),
    "pay": ("protection",),
    "end_phase": ("plant", "use"),
}
_PHASE_RULE = {
    "harvest": "R20", "buy_field": "R41", "plant_hand": "R69", "plant_display": "R63/R79",
    "discard_display": "R63", "give_display": "R79", "give_hand": "R80", "pay": "R66",
    "end_phase": "R61",
}


def explain(s, key: tuple) -> str:
    """Return why `key` is not legal in `s`, starting with the rule id that forbids it."""
    t = key[0]
    a = s.active
    if s.phase == "over":
        return "R95: the game is over"
    if s.phase == "leftovers" and t in ("give_display", "give_hand"):
        return "R64: leftovers never go to a boss in phase 1"
    if s.phase not in _PHASES_OF[t]:
        return f"{_PHASE_RULE[t]}: '{t}' is not allowed in the {s.phase} phase"
    fields = s.fields[a]
    if t in ("harvest", "plant_hand", "plant_display", "pay") and key[-1] >= len(fields):
        return f"R40: field {key[-1]} is not owned (only {len(fields)} fields)"
    if t in ("give_display", "give_hand") and BOSS_INDEX[key[2]] >= len(s.bosses):
        return "R6: Joe Bohnano plays only in the solo game"
    if t == "harvest":
        if fields[key[1]] is None:
            return f"R23: field {key[1]} is empty"
        return f"R22: field {key[1]} holds a single card while another field holds two or more"
    if t == "buy_field":
        if s.mode == "solo":
            return "R43: in solo the third field is owned from the start"
        if s.third[a]:
            return "R40: the third field can be bought only once"
        return f"R40: the third field costs {THIRD_FIELD_COST} coins"
    if t == "plant_hand":
        if not s.hands[a]:
            return "R72: the hand is empty"
        if s.planted >= 2:
            return "R70: at most two hand cards are planted per turn"
        bean = s.hands[a][0]
        return f"R13: field {key[1]} cannot take {bean} (another type, or {bean} grows elsewhere)"
    if t in ("plant_display", "discard_display", "give_display") and key[1] not in s.display:
        return f"R16: there is no {key[1]} bundle in the display"
    if t == "plant_display":
        return f"R13: field {key[2]} cannot take {key[1]} (another type, or {key[1]} grows elsewhere)"
    if t == "give_hand" and key[1] >= len(s.hands[a]):
        return f"R80: there is no hand card at index {key[1]} (hand size {len(s.hands[a])})"
    if t in ("give_display", "give_hand"):
        bean = key[1] if t == "give_display" else s.hands[a][key[1]]
        return f"R14: {key[2]} cannot take {bean} (another type, or another boss grows {bean})"
    if t == "pay":
        return f"R65: field {key[1]} has no unsettled pair with a boss"
    if t == "end_phase":
        if s.phase == "plant":
            return "R69: the front hand card must be planted first"
        if s.mode == "solo" and s.display:
            return "R84: in solo the display must be emptied first"
        return "R83: an empty boss must first be given a card"
    return "R61: not legal now"
