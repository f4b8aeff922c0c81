"""The action vocabulary (PROTOCOL.md §3): parsing action dicts into compact keys and back.

A key is a tuple: the type followed by the values in the order of PARAMS, e.g. ("give_hand", 2, "al").
Parsing only checks form (InvalidAction); whether the rules allow it now is rules.py's business.
"""

from __future__ import annotations

from .cards import BEANS, BOSSES
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
_BEANS = frozenset(BEANS)
_BOSSES = frozenset(BOSSES)


def _check(name: str, v):
    # `type(v) is int` on purpose: JSON true/false must not pass as 1/0.
    if name == "field":
        if type(v) is int and 0 <= v <= 2:
            return v
        raise InvalidAction(f"'field' must be an integer 0, 1 or 2, got {v!r}")
    if name == "bean":
        if type(v) is str and v in _BEANS:
            return v
        raise InvalidAction(f"'bean' must be one of {', '.join(BEANS)}, got {v!r}")
    if name == "boss":
        if type(v) is str and v in _BOSSES:
            return v
        raise InvalidAction(f"'boss' must be one of {', '.join(BOSSES)}, got {v!r}")
    if type(v) is int and v >= 0:  # index
        return v
    raise InvalidAction(f"'index' must be an integer >= 0, got {v!r}")


def parse(action) -> tuple:
    """Return the key of a well-formed action dict. Raises InvalidAction naming what is wrong."""
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
        return (t,)
    if len(params) == 1:
        return (t, _check(params[0], action[params[0]]))
    return (t, _check(params[0], action[params[0]]), _check(params[1], action[params[1]]))


class _Templates(dict):
    """key -> action dict, built on first use. Never handed out: callers get copies (to_dict)."""

    def __missing__(self, key: tuple) -> dict:
        d = {"type": key[0]}
        for name, v in zip(PARAMS[key[0]], key[1:], strict=True):
            d[name] = v
        self[key] = d
        return d


TEMPLATES = _Templates()


def to_dict(key: tuple) -> dict:
    """Return a fresh action dict for a key (canonical key order: type, then PARAMS)."""
    return TEMPLATES[key].copy()
