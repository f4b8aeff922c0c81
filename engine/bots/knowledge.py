"""What a seat knows: the cards it cannot see, and states built from its view alone.

A bot's only input is `engine.view(state, seat)`. To reason with the engine it needs a full State, so
it *determinizes*: the cards it cannot see are dealt at random into the piles it cannot see, keeping
every public count (other hands, deck, discard below the top, coins, treasury, set-aside) exactly.
"""

from __future__ import annotations

import random
from collections import Counter

from ..actions import parse
from ..cards import COUNTS
from ..state import State, from_position


def visible_cards(view: dict) -> Counter:
    """Return the multiset of cards the viewer can see: its own hand, every field, the bosses, the
    display and the discard top (R17: the rest of the discard pile is known by its size only)."""
    seen: Counter = Counter()
    for p in view["players"]:
        if p["hand"] is not None:
            seen.update(p["hand"])
        for f in p["fields"]:
            if f is not None:
                seen[f[0]] += f[1]
    for b in view["bosses"].values():
        if b is not None:
            seen[b[0]] += b[1]
    seen.update(view["display"])
    if view["discard_top"] is not None:
        seen[view["discard_top"]] += 1
    return seen


def unseen_cards(view: dict) -> list[str]:
    """Return the cards the viewer cannot see, in bean order (R1 counts minus `visible_cards`).

    Raises ValueError if the view shows more cards of a type than the deck holds."""
    seen = visible_cards(view)
    out = []
    for bean, n in COUNTS.items():
        left = n - seen[bean]
        if left < 0:
            raise ValueError(f"the view shows {seen[bean]} {bean} cards; the deck has {n}")
        out.extend([bean] * left)
    return out


def _hidden_sizes(view: dict) -> int:
    n = view["deck_size"] + max(view["discard_size"] - 1, 0) + view["treasury"] + view["set_aside"]
    for p in view["players"]:
        n += p["coins"] + (p["hand_size"] if p["hand"] is None else 0)
    return n


def determinize(view: dict, rng: random.Random) -> State:
    """Return a State consistent with `view`: the unseen cards shuffled by `rng` into the hidden piles.

    The result equals the real state on everything the viewer sees, so its legal actions are the
    view's. Its seed (future reshuffles) is drawn from `rng` too. Raises ValueError for a view whose
    hidden counts do not add up to the unseen cards (a position with fewer than 116 cards).
    """
    cards = unseen_cards(view)
    if len(cards) != _hidden_sizes(view):
        raise ValueError("the view's hidden counts do not match the unseen cards (not a 116-card game)")
    rng.shuffle(cards)
    take = cards.pop
    players = []
    for p in view["players"]:
        hand = p["hand"] if p["hand"] is not None else [take() for _ in range(p["hand_size"])]
        players.append({"hand": list(hand), "fields": [None if f is None else list(f) for f in p["fields"]],
                        "coins": [take() for _ in range(p["coins"])], "third_field": p["third_field"]})
    discard = []
    if view["discard_top"] is not None:
        discard = [view["discard_top"]] + [take() for _ in range(view["discard_size"] - 1)]
    pos = {
        "mode": view["mode"], "phase": view["phase"], "active": view["active"], "players": players,
        "bosses": {k: None if b is None else list(b) for k, b in view["bosses"].items()},
        "treasury": [take() for _ in range(view["treasury"])],
        "display": list(view["display"]),
        "discard": discard,
        "set_aside": [take() for _ in range(view["set_aside"])],
        "deck": [take() for _ in range(view["deck_size"])],
        "exhaustions": view["exhaustions"], "planted": view["planted"], "settled": list(view["settled"]),
        "last_turn": view["last_turn"], "seed": rng.getrandbits(62),
    }
    return from_position(pos)


def legal_codes_of(view: dict) -> list[int]:
    """Return the engine codes of the view's legal actions, in the view's order."""
    return [parse(a) for a in view["legal_actions"]]
