"""Engine errors. Each carries a stable `code`; messages name the rule that decides (docs/protocol.md §13)."""


class EngineError(ValueError):
    """Base of every error the engine raises on purpose."""

    code = "engine_error"


class InvalidAction(EngineError):
    """The action is malformed: not an object, unknown type, missing/extra key, wrong value type/range."""

    code = "invalid_action"


class IllegalAction(EngineError):
    """The action is well-formed but the rules forbid it now; the message names the rule."""

    code = "illegal_action"


class InvalidPosition(EngineError):
    """A position or a new_game argument that cannot describe a game."""

    code = "invalid_position"
