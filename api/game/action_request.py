"""What a valid action request is, over HTTP (the body of POST /games/{id}/actions) and over the
websocket (an `action` message): an `action`, any JSON value (whether it is a well-formed action is
the engine's call: invalid_action), and the `version` the decision is based on, an integer from 1 to
MAX_VERSION (3.0 counts as 3, as in JSON Schema). Both transports load requests with this one schema,
so the types, limits and field errors are the same on both.
"""

from __future__ import annotations

from marshmallow import Schema, fields, validate

from api.game.gamelog import MAX_VERSION


class JsonInteger(fields.Integer):
    """An integer as JSON Schema means it: 3 and 3.0 are integers; "3", true and 3.5 are not."""

    def _validated(self, value):
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise self.make_error("invalid", input=value)
        if isinstance(value, float) and not value.is_integer():
            raise self.make_error("invalid", input=value)
        return super()._validated(int(value))


class ActionRequestSchema(Schema):
    """An action request; unknown keys are an error (marshmallow's default), not silently ignored."""

    # Any JSON value: whether it is a well-formed action is the engine's call (400 invalid_action, §3).
    action = fields.Raw(required=True, allow_none=True, metadata={
        "type": "object",
        "description": "An action of docs/protocol.md, e.g. {\"type\": \"plant_hand\", \"field\": 0}.",
        "examples": [{"type": "end_phase"}]})
    version = JsonInteger(required=True, validate=validate.Range(min=1, max=MAX_VERSION),
                          metadata={"description": "The version the caller's decision is based on."})


def is_plain(message: dict) -> bool:
    """Whether the action request in `message` (its `action` and `version`; other keys are the
    transport's) is valid as it stands: an `action` and a plain int `version` in range. Such a request
    loads to itself, so a caller may skip the schema's cost on every move; anything else goes through
    ActionRequestSchema, for its field errors."""
    version = message.get("version")
    return type(version) is int and 1 <= version <= MAX_VERSION and "action" in message
