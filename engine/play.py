"""Transitions: `apply` and the automatic phases (reveal R73-R78, draw R86, reshuffles R90-R94, end R100).

The Mafia and the deck are actors inside `apply`: after the player's action the engine
runs every automatic step until the active seat has a decision again, or the game is over.
"""

from __future__ import annotations

import random

from . import rules
from .actions import BOSS_INDEX, KEYS, TEMPLATES, decode, parse
from .cards import BOSSES, THIRD_FIELD_COST
from .errors import IllegalAction
from .harvest import harvest
from .mafia import add_to_boss, final_harvest
from .state import copy_result


def legal_actions(s) -> list[dict]:
    """Return every legal action of the active seat as fresh action dicts, in a stable order."""
    m = s._legal
    if m is None:
        m = s._legal = rules.legal_codes(s)
    return list(map(dict.copy, map(TEMPLATES.__getitem__, m)))


def apply(s, action) -> tuple:
    """Return (new_state, events) after `action` and every automatic step that follows.

    Never mutates `s`. Raises InvalidAction for a malformed action and IllegalAction (message naming
    the rule) for one the rules forbid now; neither changes anything.
    """
    code = parse(action)
    m = s._legal
    if m is None:
        m = s._legal = rules.legal_codes(s)
    if code not in m:  # a short list of small ints: a scan is cheaper than building a set
        raise IllegalAction(rules.explain(s, decode(code)))
    n = s.copy()
    events: list[dict] = []
    _DO_CODE[code](n, KEYS[code], events)
    return n, events


# ---------------------------------------------------------------- player actions

def _do_harvest(s, key, events):
    i = key[1]
    if s.phase == "protection":
        settles = i in rules.open_pairs(s)  # R66b: harvesting a matched field settles its pair
        harvest(s, s.active, i, events)
        if settles:
            s.settled = s.settled + [i]
        _after_protection_step(s, events)
    else:
        harvest(s, s.active, i, events)


def _do_buy(s, key, events):
    a = s.active
    coins_ = s.own_coins(a)
    moved = coins_[-THIRD_FIELD_COST:]
    del coins_[-THIRD_FIELD_COST:]
    s.set_aside = s.set_aside + moved  # R42: kept aside until the next reshuffle
    s.third = s.third[:]
    s.third[a] = True
    s.own_fields(a).append(None)
    events.append({"type": "buy_field", "seat": a, "field": len(s.fields[a]) - 1})


def _plant(s, bean: str, n: int, i: int, source: str, events: list) -> None:
    a = s.active
    fields = s.own_fields(a)
    f = fields[i]
    fields[i] = (bean, (f[1] if f else 0) + n)
    events.append({"type": "plant", "seat": a, "source": source, "bean": bean, "count": n, "field": i})


def _take_bundle(s, bean: str) -> int:
    """Remove the whole bundle of `bean` from the display (R16); return its size."""
    n = s.display.count(bean)
    s.display = [c for c in s.display if c != bean]
    return n


def _do_plant_hand(s, key, events):
    bean = s.own_hand(s.active).pop(0)
    s.planted += 1
    _plant(s, bean, 1, key[1], "hand", events)


def _do_plant_display(s, key, events):
    bean = key[1]
    _plant(s, bean, _take_bundle(s, bean), key[2], "display", events)
    if s.phase == "leftovers" and not s.display:
        _begin_protection(s, events)


def _do_discard_display(s, key, events):
    bean = key[1]
    n = _take_bundle(s, bean)
    s.discard = s.discard + [bean] * n
    events.append({"type": "discard", "seat": s.active, "bean": bean, "count": n})
    if not s.display:
        _begin_protection(s, events)


def _do_give_display(s, key, events):
    bean, boss = key[1], key[2]
    n = _take_bundle(s, bean)
    events.append({"type": "give", "seat": s.active, "source": "display", "bean": bean, "count": n,
                   "boss": boss})
    add_to_boss(s, BOSS_INDEX[boss], bean, n, events)


def _do_give_hand(s, key, events):
    index, boss = key[1], key[2]
    bean = s.own_hand(s.active).pop(index)  # R81: the other cards keep their order
    events.append({"type": "give", "seat": s.active, "source": "hand", "bean": bean, "count": 1,
                   "boss": boss, "index": index})
    add_to_boss(s, BOSS_INDEX[boss], bean, 1, events)


def _do_pay(s, key, events):
    a, i = s.active, key[1]
    fields = s.own_fields(a)
    bean, n = fields[i]
    fields[i] = (bean, n - 1) if n > 1 else None
    boss = rules.boss_holding(s.bosses, bean)
    s.settled = s.settled + [i]
    events.append({"type": "pay", "seat": a, "field": i, "boss": BOSSES[boss], "bean": bean})
    add_to_boss(s, boss, bean, 1, events)  # R67: then R32
    _after_protection_step(s, events)


def _do_end_phase(s, key, events):
    if s.phase == "plant":
        _reveal(s, events)
    else:
        _end_turn(s, events)


# ---------------------------------------------------------------- automatic steps

def _set_phase(s, phase: str, events: list) -> None:
    s.phase = phase
    events.append({"type": "phase", "phase": phase, "seat": s.active})


def begin_turn(s, events: list) -> None:
    """Start the active seat's turn at its first phase with a decision (docs/protocol.md §2)."""
    s.planted = 0
    s.settled = []
    events.append({"type": "turn", "seat": s.active})
    if s.mode == "duo" and s.display:
        _set_phase(s, "leftovers", events)  # R62
    else:
        _begin_protection(s, events)


def _begin_protection(s, events: list) -> None:
    s.settled = []
    if rules.open_pairs(s):  # R65: the pairs that exist now are the ones to settle
        _set_phase(s, "protection", events)
    else:
        _set_phase(s, "plant", events)  # R68: nothing matches


def _after_protection_step(s, events: list) -> None:
    if not rules.open_pairs(s):
        s.settled = []
        _set_phase(s, "plant", events)


def _exhaust(s, events: list) -> bool:
    """Count an exhaustion of the draw pile (R90) and reshuffle (R91, R92).

    Returns True when this was the game-ending third exhaustion."""
    s.exhaustions += 1
    events.append({"type": "exhausted", "exhaustions": s.exhaustions})
    while s.exhaustions < 3:
        pile = s.discard + s.set_aside
        s.discard = []
        s.set_aside = []
        # Deterministic from the state's seed and the pass (docs/protocol.md §4); str seeds hash with SHA-512.
        random.Random(f"{s.seed}/{s.exhaustions}").shuffle(pile)
        s.deck = pile
        events.append({"type": "reshuffle", "deck_size": len(pile), "pass": s.exhaustions + 1})
        if pile:
            return False
        s.exhaustions += 1  # R92/A25: an empty reshuffle is a further exhaustion at once
        events.append({"type": "exhausted", "exhaustions": s.exhaustions})
    return True


def _reveal(s, events: list) -> None:
    """Phase 4 (R73-R77, R90a, R93), then rest in phase 5."""
    stayed = 0
    bosses = s.bosses
    s.deck = s.deck[:]  # own copies: the loop pops and appends in place
    s.display = s.display[:]
    while stayed < 3:
        if not s.deck and _exhaust(s, events):  # only for hand-made positions with an empty deck
            s.last_turn = True
            break
        bean = s.deck.pop()
        i = rules.boss_holding(bosses, bean)
        if i is None:
            s.display.append(bean)
            stayed += 1
            events.append({"type": "reveal", "bean": bean})
        else:
            events.append({"type": "capture", "boss": BOSSES[i], "bean": bean})  # R74
            add_to_boss(s, i, bean, 1, events)
        if not s.deck and _exhaust(s, events):  # R90a: after the capture resolved
            s.last_turn = True  # R93: play phase 5, then the game ends
            break
    # R76: the discard pile feeds matching bundles, never a boss.
    types = set(s.display)
    if s.discard and s.discard[-1] in types:
        s.discard = s.discard[:]
    while s.discard and s.discard[-1] in types:
        bean = s.discard.pop()
        s.display.append(bean)
        events.append({"type": "from_discard", "bean": bean})
    s.planted = 0
    _set_phase(s, "use", events)


def _end_turn(s, events: list) -> None:
    """After phase 5: the end (R93), or phase 6 (R86, R94) and the next turn (R87)."""
    if s.last_turn:
        _game_over(s, events)
        return
    a = s.active
    s.deck = s.deck[:]
    hand = s.own_hand(a)
    for _ in range(2):
        if not s.deck and _exhaust(s, events):
            _game_over(s, events)
            return
        bean = s.deck.pop()
        hand.append(bean)
        events.append({"type": "draw", "seat": a, "bean": bean})
        if not s.deck and _exhaust(s, events):
            _game_over(s, events)  # R94: the game ends at once, the rest of the draw is skipped
            return
    if s.mode == "duo":
        s.active = 1 - a
    begin_turn(s, events)


def _game_over(s, events: list) -> None:
    """R100-R103: final harvest of every field and boss, then scores and winners, with how they came
    about (`breakdown`: coins before the final harvest and what it paid, per player and for the Mafia,
    whose treasury counts `factor` times) and whether the Mafia won by a tie (A17, R103)."""
    coins_before = [len(c) for c in s.coins]
    treasury_before = len(s.treasury)
    for seat in range(len(s.fields)):
        for i, f in enumerate(s.fields[seat]):
            if f is not None:
                harvest(s, seat, i, events, final=True)
    for i in range(len(s.bosses)):
        final_harvest(s, i, events)
    scores = [len(c) for c in s.coins]
    factor = 2 if s.mode == "solo" else 1  # R101: the solo Mafia's score is doubled
    mafia = factor * len(s.treasury)
    if s.mode == "solo":
        winners = [0] if scores[0] > mafia else ["mafia"]  # R103: a tie goes to the Mafia
    else:
        best = max(scores)
        winners = [i for i, p in enumerate(scores) if p == best] if best > mafia else ["mafia"]  # R102
    s.result = {"scores": scores, "mafia": mafia, "winners": winners,
                "tie_to_mafia": winners == ["mafia"] and max(scores) == mafia,
                "breakdown": {
                    "players": [{"coins_before": b, "final_harvest": p - b}
                                for b, p in zip(coins_before, scores, strict=True)],
                    "mafia": {"treasury_before": treasury_before,
                              "final_harvest": len(s.treasury) - treasury_before, "factor": factor}}}
    s.planted = 0
    s.settled = []
    _set_phase(s, "over", events)
    events.append({"type": "game_over", "result": copy_result(s.result)})


_DO = {
    "harvest": _do_harvest,
    "buy_field": _do_buy,
    "plant_hand": _do_plant_hand,
    "plant_display": _do_plant_display,
    "discard_display": _do_discard_display,
    "give_display": _do_give_display,
    "give_hand": _do_give_hand,
    "pay": _do_pay,
    "end_phase": _do_end_phase,
}
# The transition of every legal code, so apply needs one lookup.
_DO_CODE = [_DO[key[0]] for key in KEYS]
