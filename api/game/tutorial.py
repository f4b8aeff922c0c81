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

# The public seed of the guided game (reshuffles need none: the pile is on its last pass).
SEED = 20261400

# Piles top first (docs/protocol.md §4). Every type within its count of R1.
POSITION = {
    "mode": "solo",
    "phase": "plant",
    "active": 0,
    "players": [{"hand": ["BL", "FI", "KI", "PU", "FI", "FR", "RU"],
                 "fields": [None, None, None], "coins": [], "third_field": True}],
    "bosses": {"al": ["BL", 2], "don": ["RU", 1], "joe": ["BR", 2]},
    "display": [],
    "treasury": [],
    "discard": ["KI", "FR", "PU", "BL"],
    "deck": ["BR", "FI", "KI", "FI", "PU", "RU", "FR", "KI", "BL", "PU", "FI", "FR", "KI", "BR", "PU",
             "KI", "FR", "FI", "PU", "KI", "BL", "FR"],
    "set_aside": [],
    "exhaustions": 2,
}

OPTIONS = {"position": POSITION}
