"""An independent, deliberately simple model of the rules, written from the docs only
(docs/rules.md, docs/protocol.md).

It works on position dicts (piles top first) and is used by test_oracle.py to cross-check the engine's
`legal_actions` and `apply` in thousands of random situations. It does not model reshuffles (their order
comes from the engine's seed): `step` returns None when the draw pile would run out.
"""

from __future__ import annotations

import copy

from helpers import THRESHOLD, coins

BOSS_ORDER = ("al", "don", "joe")


def _bosses(pos):
    return BOSS_ORDER[: 2 if pos["mode"] == "duo" else 3]


def _boss_of(pos, bean):
    for b in _bosses(pos):
        v = pos["bosses"].get(b)
        if v and v[0] == bean:
            return b
    return None


def _fields_for(fields, bean):
    """R13: the own fields that may take `bean`."""
    for i, f in enumerate(fields):
        if f and f[0] == bean:
            return [i]
    return [i for i, f in enumerate(fields) if f is None]


def _bosses_for(pos, bean):
    """R14: the bosses that may take `bean`."""
    b = _boss_of(pos, bean)
    if b:
        return [b]
    return [b for b in _bosses(pos) if not pos["bosses"].get(b)]


def _harvestable(fields):
    """R22/R23."""
    big = any(f and f[1] >= 2 for f in fields)
    return [i for i, f in enumerate(fields) if f and (f[1] >= 2 or not big)]


def _open_pairs(pos):
    """R65: the active player's fields matched by a boss and not yet settled."""
    me = pos["players"][pos["active"]]
    return [i for i, f in enumerate(me["fields"]) if f and _boss_of(pos, f[0]) and i not in pos["settled"]]


def _bundles(display):
    out = []
    for b in display:
        if b not in out:
            out.append(b)
    return out


def legal(pos) -> list[dict]:
    """Every legal action of the active player (order not significant)."""
    phase = pos["phase"]
    if phase == "over":
        return []
    me = pos["players"][pos["active"]]
    fields, hand = me["fields"], me["hand"]
    out = [{"type": "harvest", "field": i} for i in _harvestable(fields)]  # R20
    if not me["third_field"] and len(me["coins"]) >= 4:  # R40, R41, R43
        out.append({"type": "buy_field"})
    if phase == "leftovers":  # R63, R64
        for b in _bundles(pos["display"]):
            out += [{"type": "plant_display", "bean": b, "field": i} for i in _fields_for(fields, b)]
            out.append({"type": "discard_display", "bean": b})
    elif phase == "protection":  # R66
        out += [{"type": "pay", "field": i} for i in _open_pairs(pos)]
    elif phase == "plant":  # R69, R70, R72
        if hand and pos["planted"] < 2:
            out += [{"type": "plant_hand", "field": i} for i in _fields_for(fields, hand[0])]
        if pos["planted"] or not hand:
            out.append({"type": "end_phase"})
    elif phase == "use":  # R79, R80
        for b in _bundles(pos["display"]):
            out += [{"type": "plant_display", "bean": b, "field": i} for i in _fields_for(fields, b)]
            out += [{"type": "give_display", "bean": b, "boss": k} for k in _bosses_for(pos, b)]
        for j, c in enumerate(hand):
            out += [{"type": "give_hand", "index": j, "boss": k} for k in _bosses_for(pos, c)]
        empty = [k for k in _bosses(pos) if not pos["bosses"].get(k)]
        feedable = any(_boss_of(pos, c) is None for c in pos["display"] + hand)
        if not (empty and feedable) and not (pos["mode"] == "solo" and pos["display"]):  # R83, R84
            out.append({"type": "end_phase"})
    return out


# ------------------------------------------------------------------------------------------- step


def _add_to_boss(pos, boss, bean, n):
    """R32: one addition, then the automatic harvest if coins >= threshold."""
    v = pos["bosses"].get(boss)
    size = (v[1] if v else 0) + n
    c = coins(bean, size)
    if c >= THRESHOLD[boss]:
        pos["treasury"] = [bean] * c + pos["treasury"]
        pos["discard"] = [bean] * (size - c) + pos["discard"]
        pos["bosses"][boss] = None
    else:
        pos["bosses"][boss] = [bean, size]


def _harvest(pos, seat, i):
    bean, n = pos["players"][seat]["fields"][i]
    c = coins(bean, n)
    p = pos["players"][seat]
    p["coins"] = [bean] * c + p["coins"]
    pos["discard"] = [bean] * (n - c) + pos["discard"]
    p["fields"][i] = None


def _plant(pos, bean, n, i):
    fields = pos["players"][pos["active"]]["fields"]
    fields[i] = [bean, (fields[i][1] if fields[i] else 0) + n]


def _take_bundle(pos, bean):
    n = pos["display"].count(bean)
    pos["display"] = [c for c in pos["display"] if c != bean]
    return n


def _begin_protection(pos):
    pos["settled"] = []
    pos["phase"] = "protection" if _open_pairs(pos) else "plant"


def _after_protection_step(pos):
    if not _open_pairs(pos):
        pos["settled"] = []
        pos["phase"] = "plant"


def _reveal(pos):
    stayed = 0
    while stayed < 3:
        if len(pos["deck"]) <= 1:
            return False  # the pile runs out: a reshuffle, not modelled here
        bean = pos["deck"].pop(0)
        boss = _boss_of(pos, bean)
        if boss is None:
            pos["display"].append(bean)
            stayed += 1
        else:
            _add_to_boss(pos, boss, bean, 1)  # R74
    types = set(pos["display"])  # R76
    while pos["discard"] and pos["discard"][0] in types:
        pos["display"].append(pos["discard"].pop(0))
    pos["planted"] = 0
    pos["phase"] = "use"
    return True


def _game_over(pos):
    before = [len(p["coins"]) for p in pos["players"]]
    treasury_before = len(pos["treasury"])
    for seat, p in enumerate(pos["players"]):  # R100, in the order of docs/protocol.md §4
        for i, f in enumerate(p["fields"]):
            if f:
                _harvest(pos, seat, i)
    for b in _bosses(pos):
        v = pos["bosses"].get(b)
        if v:
            c = coins(v[0], v[1])
            pos["treasury"] = [v[0]] * c + pos["treasury"]
            pos["discard"] = [v[0]] * (v[1] - c) + pos["discard"]
            pos["bosses"][b] = None
    scores = [len(p["coins"]) for p in pos["players"]]
    mafia = len(pos["treasury"]) * (2 if pos["mode"] == "solo" else 1)  # R101
    best = max(scores)
    winners = [i for i, s in enumerate(scores) if s == best] if best > mafia else ["mafia"]  # R102, R103
    pos["result"] = {"scores": scores, "mafia": mafia, "winners": winners,
                     "tie_to_mafia": best == mafia,  # the Mafia wins every tie (A17, R103)
                     "breakdown": {
                         "players": [{"coins_before": b, "final_harvest": s - b}
                                     for b, s in zip(before, scores, strict=True)],
                         "mafia": {"treasury_before": treasury_before,
                                   "final_harvest": len(pos["treasury"]) - treasury_before,
                                   "factor": 2 if pos["mode"] == "solo" else 1}}}
    pos["phase"] = "over"
    pos["planted"], pos["settled"] = 0, []


def _end_turn(pos):
    if pos["last_turn"]:
        _game_over(pos)
        return True
    if len(pos["deck"]) <= 2:
        return False  # the draw would exhaust the pile
    a = pos["active"]
    pos["players"][a]["hand"] += pos["deck"][:2]  # R86
    pos["deck"] = pos["deck"][2:]
    if pos["mode"] == "duo":
        pos["active"] = 1 - a  # R87
    pos["planted"], pos["settled"] = 0, []
    if pos["mode"] == "duo" and pos["display"]:
        pos["phase"] = "leftovers"  # R62
    else:
        _begin_protection(pos)
    return True


def step(pos, action) -> dict | None:
    """The position after a legal `action`, or None where a reshuffle would make it unpredictable."""
    pos = copy.deepcopy(pos)
    a = pos["active"]
    me = pos["players"][a]
    t = action["type"]
    if t == "harvest":
        settles = pos["phase"] == "protection" and action["field"] in _open_pairs(pos)
        _harvest(pos, a, action["field"])
        if pos["phase"] == "protection":
            if settles:
                pos["settled"].append(action["field"])
            _after_protection_step(pos)
    elif t == "buy_field":
        pos["set_aside"] = me["coins"][:4] + pos["set_aside"]
        me["coins"] = me["coins"][4:]
        me["third_field"] = True
        me["fields"].append(None)
    elif t == "plant_hand":
        _plant(pos, me["hand"].pop(0), 1, action["field"])
        pos["planted"] += 1
    elif t == "plant_display":
        _plant(pos, action["bean"], _take_bundle(pos, action["bean"]), action["field"])
        if pos["phase"] == "leftovers" and not pos["display"]:
            _begin_protection(pos)
    elif t == "discard_display":
        pos["discard"] = [action["bean"]] * _take_bundle(pos, action["bean"]) + pos["discard"]
        if not pos["display"]:
            _begin_protection(pos)
    elif t == "give_display":
        _add_to_boss(pos, action["boss"], action["bean"], _take_bundle(pos, action["bean"]))
    elif t == "give_hand":
        _add_to_boss(pos, action["boss"], me["hand"].pop(action["index"]), 1)
    elif t == "pay":
        i = action["field"]
        bean, n = me["fields"][i]
        me["fields"][i] = [bean, n - 1] if n > 1 else None
        pos["settled"].append(i)
        _add_to_boss(pos, _boss_of(pos, bean), bean, 1)
        _after_protection_step(pos)
    elif t == "end_phase":
        ok = _reveal(pos) if pos["phase"] == "plant" else _end_turn(pos)
        if not ok:
            return None
    else:
        raise AssertionError(t)
    return pos
