"""Position builders and small helpers shared by the engine tests (plain functions, no pytest magic).

Positions follow docs/protocol.md §4: piles top first, hands front first, fields `[bean, count]` or None.
The rule data below is written out again on purpose (from docs/rules.md), so that a typo in engine/cards.py
cannot hide itself.
"""

from __future__ import annotations

import copy
import json
import random
import re
from collections import Counter

import engine

BEANS = ("BL", "KI", "FI", "PU", "BR", "FR", "RU")
COUNTS = {"BL": 20, "KI": 19, "FI": 18, "PU": 16, "BR": 16, "FR": 14, "RU": 13}  # R1
METER = {  # R2
    "BL": (4, 6, 8, 10),
    "KI": (5, 6, 7, 8),
    "FI": (3, 6, 8, 9),
    "PU": (4, 5, 6, 7),
    "BR": (3, 5, 7, 8),
    "FR": (3, 5, 6, 7),
    "RU": (3, 4, 5, 6),
}
THRESHOLD = {"al": 3, "don": 2, "joe": 1}  # R5
PHASES = ("leftovers", "protection", "plant", "use", "over")
SEED = 987654321  # large, so that a leaked seed is easy to spot in a JSON dump
RULE_RE = re.compile(r"R\d+")

# A harmless draw pile: no boss in the hand-made positions below holds these types unless a test says so.
DECK = ["PU", "FR", "KI", "PU", "FR", "KI", "PU", "FR", "KI", "PU", "FR", "KI"]


def coins(bean: str, n: int) -> int:
    """R3: the number of thresholds of `bean` that are <= n."""
    return sum(1 for t in METER[bean] if t <= n)


def mixed(n: int, start: int = 0) -> list[str]:
    """n face-down cards of mixed types (for coin stacks, treasury, set-aside)."""
    return [BEANS[(start + i) % len(BEANS)] for i in range(n)]


def player(hand=(), fields=(None, None), coins=(), third_field=None) -> dict:
    fields = [list(f) if f else None for f in fields]
    return {
        "hand": list(hand),
        "fields": fields,
        "coins": list(coins),
        "third_field": len(fields) == 3 if third_field is None else third_field,
    }


def _position(mode, players, bosses, **kw) -> dict:
    pos = {
        "format": 1,
        "mode": mode,
        "phase": kw.pop("phase", "plant"),
        "active": kw.pop("active", 0),
        "players": players,
        "bosses": {b: (list(v) if v else None) for b, v in bosses.items()},
        "treasury": list(kw.pop("treasury", ())),
        "display": list(kw.pop("display", ())),
        "discard": list(kw.pop("discard", ())),
        "deck": list(kw.pop("deck", DECK)),
        "set_aside": list(kw.pop("set_aside", ())),
        "exhaustions": kw.pop("exhaustions", 0),
        "planted": kw.pop("planted", 0),
        "settled": list(kw.pop("settled", ())),
        "last_turn": kw.pop("last_turn", False),
        "seed": kw.pop("seed", SEED),
        "result": kw.pop("result", None),
    }
    assert not kw, f"unknown position keys {sorted(kw)}"
    return pos


def duo(p0=None, p1=None, al=None, don=None, **kw) -> dict:
    """A 2-player position (phase "plant", seat 0 active, empty table unless given)."""
    players = [p0 or player(), p1 or player()]
    return _position("duo", players, {"al": al, "don": don}, **kw)


def solo(p0=None, al=None, don=None, joe=None, **kw) -> dict:
    """A solo position; the player owns three fields (R43)."""
    p0 = p0 or player(fields=(None, None, None))
    return _position("solo", [p0], {"al": al, "don": don, "joe": joe}, **kw)


def load(pos: dict):
    return engine.from_position(copy.deepcopy(pos))


def pos_of(state) -> dict:
    return engine.to_position(state)


def run(state_or_pos, *actions):
    """Apply the actions one after the other; return (final state, all events, final position)."""
    state = load(state_or_pos) if isinstance(state_or_pos, dict) else state_or_pos
    events = []
    for action in actions:
        state, evs = engine.apply(state, action)
        events.extend(evs)
    return state, events, engine.to_position(state)


def of_type(events, kind: str) -> list[dict]:
    return [e for e in events if e["type"] == kind]


def has_event(events, kind: str, **fields) -> bool:
    """Whether some event of that type carries (at least) these fields."""
    return any(e["type"] == kind and all(e.get(k) == v for k, v in fields.items()) for e in events)


def card_count(pos: dict) -> int:
    """Every card in a position: hands, fields, coins, bosses, treasury, display, discard, deck, set-aside."""
    return sum(card_counter(pos).values())


def card_counter(pos: dict) -> Counter:
    c = Counter()
    for p in pos["players"]:
        c.update(p["hand"])
        c.update(p["coins"])
        for f in p["fields"]:
            if f:
                c[f[0]] += f[1]
    for b in pos["bosses"].values():
        if b:
            c[b[0]] += b[1]
    for pile in ("treasury", "display", "discard", "deck", "set_aside"):
        c.update(pos[pile])
    return c


def full_deck(prefix) -> list[str]:
    """The 116 cards: `prefix` on top, then the rest of the R1 composition in a fixed order."""
    rest = Counter(COUNTS)
    rest.subtract(prefix)
    assert min(rest.values()) >= 0, "prefix uses more cards of a type than exist"
    tail = [b for b in BEANS for _ in range(rest[b])]
    return list(prefix) + tail


def assert_unchanged(state, before_pos, before_copy):
    assert engine.to_position(state) == before_pos
    assert state == before_copy


def well_formed_actions(pos: dict) -> list[dict]:
    """Every well-formed action worth trying in a position (index up to one past the hand)."""
    acts = [{"type": "buy_field"}, {"type": "end_phase"}]
    for f in range(3):
        acts += [{"type": t, "field": f} for t in ("harvest", "plant_hand", "pay")]
    for b in BEANS:
        acts.append({"type": "discard_display", "bean": b})
        acts += [{"type": "plant_display", "bean": b, "field": f} for f in range(3)]
        acts += [{"type": "give_display", "bean": b, "boss": boss} for boss in THRESHOLD]
    hand = pos["players"][pos["active"]]["hand"]
    for i in range(len(hand) + 1):
        acts += [{"type": "give_hand", "index": i, "boss": boss} for boss in THRESHOLD]
    return acts


def choose(legal: list, rng: random.Random) -> dict:
    """A random legal action; `end_phase` is taken less often so that players do things."""
    if len(legal) > 1 and rng.random() < 0.6:
        non_end = [a for a in legal if a["type"] != "end_phase"]
        if non_end:
            return rng.choice(non_end)
    return rng.choice(legal)


def play_random(mode: str, seed: int, rng: random.Random, max_steps: int = 5000, on_step=None):
    """Play one game with random legal actions; return (final state, number of actions)."""
    state = engine.new_game(mode, seed)
    for n in range(max_steps):
        legal = engine.legal_actions(state)
        if not legal:
            return state, n
        action = choose(legal, rng)
        new, events = engine.apply(state, action)
        if on_step:
            on_step(state, action, new, events)
        state = new
    raise AssertionError(f"game {mode}/{seed} did not end in {max_steps} actions")


def json_round_trip(obj):
    return json.loads(json.dumps(obj))
