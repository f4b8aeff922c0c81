"""Al Cabohne rules engine: pure, stdlib only, no I/O, no clock, no global random state.

Public surface (docs/protocol.md §13): new_game, from_position, to_position, legal_actions, apply, view,
redact_events, and the errors EngineError, InvalidAction, IllegalAction, InvalidPosition.
"""

from .cards import BEANOMETER, BEANS, BOSSES, COUNTS, coins
from .deal import new_game
from .errors import EngineError, IllegalAction, InvalidAction, InvalidPosition
from .play import apply, legal_actions
from .state import State, from_position, to_position
from .view import redact_events, view

__all__ = [
    "BEANOMETER", "BEANS", "BOSSES", "COUNTS", "EngineError", "IllegalAction", "InvalidAction",
    "InvalidPosition", "State", "apply", "coins", "from_position", "legal_actions", "new_game",
    "redact_events", "to_position", "view",
]
