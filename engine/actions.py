"""The action vocabulary (docs/protocol.md §3): parsing action dicts into compact codes and back.

Inside the engine an action is a small int code (cheap to hash, compare and look up: bots run
thousands of playouts per decision). `KEYS[code]` is the readable key tuple, the type followed by the
values in the order of PARAMS, e.g. ("give_hand", 2, "al"); `TEMPLATES[code]` the canonical dict.
Parsing only checks form (InvalidAction); whether the rules allow it now is rules.py's business.
"""

from __future__ import annotations

from .cards import BEANS, BOSSES, DECK_SIZE
from .errors import InvalidAction

PARAMS = {
    "harvest": ("field",),
    "buy_field": (),
    "plant_hand": ("field",),
    "plant_display": ("bean", "field"),
    "discard_display": ("bean",),
    "give_display": ("bean", "boss"),
    "give_hand": ("index", "boss"),
    "pay": ("field",),
    "end_phase": (),
}
_KEYSETS = {t: frozenset(("type",) + p) for t, p in PARAMS.items()}
BEAN_INDEX = {b: i for i, b in enumerate(BEANS)}
BOSS_INDEX = {b: i for i, b in enumerate(BOSSES)}

# Code layout. Field f in 0..2, bean index b in 0..6, boss index k in 0..2, hand index j >= 0.
HARVEST = 0          # + f
BUY = 3
PLANT_HAND = 4       # + f
PAY = 7              # + f
END = 10
DISCARD = 11         # + b
PLANT_DISPLAY = 18   # + 3b + f
GIVE_DISPLAY = 39    # + 3b + k
GIVE_HAND = 60       # + 3j + k


def decode(code: int) -> tuple:
    """Return the key tuple of a code."""
    if code >= GIVE_HAND:
        j, k = divmod(code - GIVE_HAND, 3)
        return ("give_hand", j, BOSSES[k])
    if code >= GIVE_DISPLAY:
        b, k = divmod(code - GIVE_DISPLAY, 3)
        return ("give_display", BEANS[b], BOSSES[k])
    if code >= PLANT_DISPLAY:
        b, f = divmod(code - PLANT_DISPLAY, 3)
        return ("plant_display", BEANS[b], f)
    if code >= DISCARD:
        return ("discard_display", BEANS[code - DISCARD])
    if code == END:
        return ("end_phase",)
    if code >= PAY:
        return ("pay", code - PAY)
    if code >= PLANT_HAND:
        return ("plant_hand", code - PLANT_HAND)
    if code == BUY:
        return ("buy_field",)
    return ("harvest", code - HARVEST)


def _template(key: tuple) -> dict:
    d = {"type": key[0]}
    for name, v in zip(PARAMS[key[0]], key[1:], strict=True):
        d[name] = v
    return d


# Every code a legal action can have (a hand never holds more than the whole deck).
KEYS = [decode(c) for c in range(GIVE_HAND + 3 * DECK_SIZE)]
TEMPLATES = [_template(k) for k in KEYS]


def _check(name: str, v):
    # `type(v) is int` on purpose: JSON true/false must not pass as 1/0.
    if name == "field":
        if type(v) is int and 0 <= v <= 2:
            return v
        raise InvalidAction(f"'field' must be an integer 0, 1 or 2, got {v!r}")
    if name == "bean":
        if type(v) is str and v in BEAN_INDEX:
            return BEAN_INDEX[v]
        raise InvalidAction(f"'bean' must be one of {', '.join(BEANS)}, got {v!r}")
    if name == "boss":
        if type(v) is str and v in BOSS_INDEX:
            return BOSS_INDEX[v]
        raise InvalidAction(f"'boss' must be one of {', '.join(BOSSES)}, got {v!r}")
    if type(v) is int and v >= 0:  # index
        return v
    raise InvalidAction(f"'index' must be an integer >= 0, got {v!r}")


_BASE = {"harvest": HARVEST, "plant_hand": PLANT_HAND, "pay": PAY, "discard_display": DISCARD}


def _fast_field(base: int):
    def fast(action: dict):
        v = action.get("field")
        if len(action) == 2 and type(v) is int and 0 <= v <= 2:
            return base + v
        return None
    return fast


def _fast_bean(base: int, second: str | None):
    def fast(action: dict):
        b = action.get("bean")
        if type(b) is not str or b not in BEAN_INDEX:
            return None
        if second is None:
            return base + BEAN_INDEX[b] if len(action) == 2 else None
        v = action.get(second)
        if len(action) != 3:
            return None
        if second == "field":
            if type(v) is int and 0 <= v <= 2:
                return base + 3 * BEAN_INDEX[b] + v
        elif type(v) is str and v in BOSS_INDEX:
            return base + 3 * BEAN_INDEX[b] + BOSS_INDEX[v]
        return None
    return fast


def _fast_give_hand(action: dict):
    i = action.get("index")
    k = action.get("boss")
    if len(action) == 3 and type(i) is int and i >= 0 and type(k) is str and k in BOSS_INDEX:
        return GIVE_HAND + 3 * i + BOSS_INDEX[k]
    return None


# Per type, a fast parser for well-formed input; anything it does not accept goes through `_parse`,
# which finds what is wrong. Both must agree on every well-formed action (tested via the public parse).
_FAST = {
    "harvest": _fast_field(HARVEST),
    "plant_hand": _fast_field(PLANT_HAND),
    "pay": _fast_field(PAY),
    "discard_display": _fast_bean(DISCARD, None),
    "plant_display": _fast_bean(PLANT_DISPLAY, "field"),
    "give_display": _fast_bean(GIVE_DISPLAY, "boss"),
    "give_hand": _fast_give_hand,
    "end_phase": lambda a: END if len(a) == 1 else None,
    "buy_field": lambda a: BUY if len(a) == 1 else None,
}


def parse(action) -> int:
    """Return the code of a well-formed action dict. Raises InvalidAction naming what is wrong."""
    if type(action) is dict:
        t = action.get("type")
        if type(t) is str:
            fast = _FAST.get(t)
            if fast is not None:
                code = fast(action)
                if code is not None:
                    return code
    return _parse(action)


def _parse(action) -> int:
    if type(action) is not dict:
        raise InvalidAction(f"an action must be a JSON object, got {type(action).__name__}")
    t = action.get("type")
    params = PARAMS.get(t) if type(t) is str else None
    if params is None:
        raise InvalidAction(f"unknown action type {t!r}; known: {', '.join(PARAMS)}")
    if action.keys() != _KEYSETS[t]:
        missing = sorted(_KEYSETS[t] - action.keys())
        extra = sorted(map(str, action.keys() - _KEYSETS[t]))
        raise InvalidAction(f"'{t}' takes exactly {sorted(_KEYSETS[t])}; missing {missing}, extra {extra}")
    if not params:
        return BUY if t == "buy_field" else END
    first = _check(params[0], action[params[0]])
    if len(params) == 1:
        return _BASE[t] + first
    second = _check(params[1], action[params[1]])
    if t == "give_hand":
        return GIVE_HAND + 3 * first + second
    return (PLANT_DISPLAY if t == "plant_display" else GIVE_DISPLAY) + 3 * first + second


def to_dict(code: int) -> dict:
    """Return a fresh action dict for a code (canonical key order: type, then PARAMS)."""
    return (TEMPLATES[code] if code < len(TEMPLATES) else _template(decode(code))).copy()
