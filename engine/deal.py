"""Setting up a game (R50 duo, R51 solo)."""

from __future__ import annotations

import random
from collections import Counter

from .cards import COUNTS, DECK_SIZE
from .errors import InvalidPosition
from .play import begin_turn
from .state import State, blank, from_position


def new_game(mode: str, seed: int, **options) -> State:
    """Return a new game after setup (R50/R51), resting at the start player's first decision.

    options: `dealer` (0 or 1, duo only; default: drawn from the seed), `deck` (the 116 cards top first,
    used instead of the shuffle), `position` (a prepared table, docs/protocol.md §4, instead of the
    setup: the game starts there with the active seat's turn; alone, without `dealer` or `deck`).
    Raises InvalidPosition for an unknown mode or option or a bad value.
    """
    if mode not in ("duo", "solo"):
        raise InvalidPosition(f"mode must be 'duo' or 'solo', got {mode!r}")
    if type(seed) is not int:
        raise InvalidPosition(f"seed must be an integer, got {seed!r}")
    unknown = set(options) - {"dealer", "deck", "position"}
    if unknown:
        raise InvalidPosition(f"unknown new_game options {sorted(unknown)}; known: dealer, deck, position")
    if "position" in options:
        return _prepared(mode, seed, options)
    rng = random.Random(seed)
    if "deck" in options:
        deck = options["deck"]
        if type(deck) not in (list, tuple) or Counter(deck) != Counter(COUNTS):
            raise InvalidPosition(f"deck must hold the {DECK_SIZE} cards of R1, top first")
        cards = list(deck)
    else:
        cards = [b for b, n in COUNTS.items() for _ in range(n)]
        rng.shuffle(cards)
    cards.reverse()  # internal piles keep the top at the end
    s = blank(mode, seed)
    s.deck = cards
    if mode == "duo":
        dealer = options.get("dealer", rng.randrange(2))
        if dealer not in (0, 1) or type(dealer) is not int:
            raise InvalidPosition(f"dealer must be 0 or 1, got {dealer!r}")
        start = 1 - dealer  # R50.1: the non-dealer starts
        for _ in range(5):  # R50.2 / A19: alternately, starting with the start player
            s.hands[start].append(cards.pop())
            s.hands[dealer].append(cards.pop())
        _seed_duo(s)
        s.active = start
    else:
        if "dealer" in options:
            raise InvalidPosition("dealer is a duo option")
        s.hands[0] = [cards.pop() for _ in range(7)]  # R51.1
        _seed_solo(s)
    begin_turn(s, [])
    return s


def _prepared(mode: str, seed: int, options: dict) -> State:
    """A game that starts from a prepared table (a short game such as the tutorial's): the position's
    cards where they lie, the game's own seed (for reshuffles), and the active seat's turn begun."""
    if set(options) != {"position"}:
        raise InvalidPosition("position is an option of its own: no dealer or deck with it")
    s = from_position(options["position"])
    if s.mode != mode:
        raise InvalidPosition(f"the position is a {s.mode} game, not {mode}")
    if s.phase == "over":
        raise InvalidPosition("the position is a game that is over")
    s.seed = seed
    s.result = None
    begin_turn(s, [])
    return s


def _seed_duo(s: State) -> None:
    """R50.3: Al takes the first card and every further card of his type; the first other type goes
    to Don and seeding stops. No boss harvests during seeding (R33, A5)."""
    first = s.deck.pop()
    n = 1
    while True:
        c = s.deck.pop()
        if c == first:
            n += 1
            continue
        s.bosses = [(first, n), (c, 1)]
        return


def _seed_solo(s: State) -> None:
    """R51.2 / A23: a card joins the boss holding its type, else the first empty boss (Al, Don, Joe);
    seeding stops once Joe has his first card."""
    bosses = s.bosses
    while bosses[2] is None:
        c = s.deck.pop()
        for i, b in enumerate(bosses):
            if b is not None and b[0] == c:
                bosses[i] = (c, b[1] + 1)
                break
        else:
            bosses[bosses.index(None)] = (c, 1)
