"""The guided game's prepared table (POST /games {"mode": "solo", "tutorial": true}).

A short solo game: the table is laid out as after a normal deal, but the draw pile is on its last pass
(two reshuffles behind it) and holds only DECK cards, so the game ends after a few turns with a result.
Played along its hints (engine.bots.hint), it shows every part of a turn: planting from the hand and
from the display, the reveal with a boss capturing a card and the discard pile feeding the display,
gifts to a boss, a boss harvesting by himself, protection money, a turn whose front card fits no field
(a harvest makes room), and the end of the game (tests/api/test_api_night.py plays it).

The game starts from the position through engine.new_game's `position` option, which the stored game
keeps among its options: the log, the record and `alcabohne verify` replay it from there like any game.
"""

from __future__ import annotations

from collections import Counter

from engine.cards import COUNTS

# The public seed of the guided game (reshuffles need none: the pile is on its last pass).
SEED = 20261400

# Piles top first (docs/protocol.md §4). The table as a new player sees it after the deal: seven cards
# in hand, three empty fields, a card or two with each boss, no coins; the draw pile holds DECK, and
# the discard pile the cards played in the passes before (DISCARD_TOP on top, then the rest of R1's 116
# cards: every card is somewhere, as the bots and the hint expect of a game).
HAND = ["FI", "BL", "RU", "BL", "BR", "FI", "KI"]
BOSSES = {"al": ["KI", 2], "don": ["BL", 1], "joe": ["FI", 1]}
DECK = ["FR", "BL", "FR", "RU", "PU", "PU", "RU", "BL", "KI", "BR", "FI", "PU", "BR", "BL", "FI", "BL",
        "FI", "FR", "BL", "BR", "RU", "FR", "KI", "FI", "FR", "BR", "BL", "FR"]
DISCARD_TOP = ["FI", "FI", "PU"]


def _discard() -> list[str]:
    """DISCARD_TOP, then every other card of R1 not on the table, one of each type in turn (below the
    top, only the pile's size shows: the pass ends the game before it is shuffled again)."""
    left = Counter(COUNTS)
    left.subtract(HAND + DECK + DISCARD_TOP)
    for bean, n in BOSSES.values():
        left[bean] -= n
    rest = []
    while any(n > 0 for n in left.values()):
        for bean in COUNTS:
            if left[bean] > 0:
                rest.append(bean)
                left[bean] -= 1
    return DISCARD_TOP + rest


POSITION = {
    "mode": "solo",
    "phase": "plant",
    "active": 0,
    "players": [{"hand": HAND, "fields": [None, None, None], "coins": [], "third_field": True}],
    "bosses": BOSSES,
    "display": [],
    "treasury": [],
    "discard": _discard(),
    "deck": DECK,
    "set_aside": [],
    "exhaustions": 2,
}

OPTIONS = {"position": POSITION}
