"""The JSON Schema (2020-12) of the websocket messages, served at /api/v1/ws.schema.json.

docs/websocket.schema.json is this document written out (a test keeps the two equal); docs/websocket.md,
the client's contract, explains the conversation: frame order, which errors close, reconnecting.
"""

from __future__ import annotations

import copy

import engine.schemas
from api.errors import CODES, FIELD_ERROR_SCHEMA
from api.game.gamelog import MAX_VERSION
from api.game.seats import SEAT_INFO_SCHEMA


def _ref(name: str) -> str:
    return f"#/$defs/{name}"


# The objects the frames carry, in the same words as the OpenAPI document (engine.schemas): views,
# actions, one schema per event type.
DEFS = engine.schemas.components(_ref)
# A whole game with its secrets (a position) never travels on a socket.
NOT_ON_SOCKETS = ("Position", "PositionPlayer")
for _name in NOT_ON_SOCKETS:
    del DEFS[_name]
DEFS["FieldError"] = FIELD_ERROR_SCHEMA
DEFS["SeatInfo"] = copy.deepcopy(SEAT_INFO_SCHEMA)

_ID = {"type": "string", "minLength": 1, "maxLength": 255,
       "description": "A fresh random id (UUID) per action, reused on retry; it is the Idempotency-Key."}
_VERSION = {"type": "integer", "minimum": 1}
_VIEW = {"$ref": _ref("View"), "description": "engine.view for the socket's seat (docs/protocol.md §5); the "
                                              "table view for a watcher."}


def _message(kind: str, description: str, properties: dict, required: tuple[str, ...] = ()) -> dict:
    return {
        "type": "object",
        "description": description,
        "required": ["type", *required],
        "properties": {"type": {"type": "string", "const": kind}, **properties},
        "additionalProperties": False,
    }


CLIENT = {
    "hello": _message("hello", "The first message on every socket. A socket without a token watches the "
                      "public table view and may not act.", {
                          "token": {"type": ["string", "null"], "description": "The seat token."},
                          "since": {"type": "integer", "minimum": 0,
                                    "description": "The newest version the client holds (0 or left out: "
                                                   "none). The "
                                                   "hello's state is left out when it is the current "
                                                   "version; one ahead of the server gets the whole "
                                                   "current state."},
                      }),
    "action": _message("action", "A move, as POST /games/{id}/actions; answered by ack or error.", {
        "id": _ID,
        "version": {**_VERSION, "maximum": MAX_VERSION,
                    "description": "The version the move was chosen at (as in POST /actions: 3.0 is 3)."},
        "action": {"$ref": _ref("Action"), "description": "An action of docs/protocol.md §3."},
    }, ("id", "version", "action")),
}

SERVER = {
    "state": _message("state", "The game at `version`, for this socket's seat: the first frame after hello "
                      "(unless `since` is the current version), then after every change. Never older than "
                      "a state already sent on this socket; clients drop any at or below the version they "
                      "hold, except the first after a hello, which replaces what they hold.", {
                          "version": _VERSION,
                          "view": _VIEW,
                          "events": {"type": "array", "items": {"$ref": _ref("Event")},
                                     "description": "When the socket held version - 1: that version's "
                                                    "events, redacted for the seat."},
                          "seats": {"type": "array", "description": "The seats as GET /games/{id} shows "
                                    "them.", "items": {"$ref": _ref("SeatInfo")}},
                          "rematch": {"type": ["string", "null"], "description": "The id of the next "
                                      "game of the same players once one exists (POST "
                                      "/games/{id}/rematch), else null."},
                      }, ("version", "view")),
    "rematch": _message("rematch", "Either player of this finished game asked for the next game (POST "
                        "/games/{id}/rematch): its id, for a one-tap join through that same call. Sent to "
                        "every socket of the finished game, watchers included; carries no token.", {
                            "game_id": {"type": "string"},
                        }, ("game_id",)),
    "presence": _message("presence", "Which seats have a live socket; sent right after the hello's state "
                         "(first when there is none) and whenever it changes (a drop shows within twice the "
                         "ping interval).", {
                             "seats": {"type": "array", "items": {
                                 "type": "object", "required": ["seat", "online"],
                                 "additionalProperties": False,
                                 "properties": {"seat": {"type": "integer", "minimum": 0, "maximum": 1},
                                                "online": {"type": "boolean"}}}},
                         }, ("seats",)),
    "ack": _message("ack", "The action with this id was applied (or had been: a retry) and made `version`; "
                    "the state of that version follows (for a retry it may have come already).",
                    {"id": _ID, "version": _VERSION}, ("id", "version")),
    "error": _message("error", "A refused message, with the code and status of the HTTP API "
                      "(docs/protocol.md). stale_version carries the current version and view. An error "
                      "with id null ends the socket (a close frame follows: code 1008, or 1011 for "
                      "internal_error and store_unavailable, with the error's code as reason): a refused "
                      "hello, a seat moved to another device, a server failure. The one exception: "
                      "invalid_request answering a message after the hello that had no usable id leaves "
                      "the socket open, like every error with an id.", {
                          "id": {"type": ["string", "null"]},
                          "code": {"enum": sorted(CODES)},
                          "status": {"type": "integer"},
                          "detail": {"type": "string"},
                          "version": _VERSION,
                          "view": _VIEW,
                          "retry_after": {"type": "integer", "minimum": 1,
                                          "description": "rate_limited, server_busy: seconds to wait (as "
                                                         "Retry-After)."},
                          "errors": {"type": "array", "items": {"$ref": _ref("FieldError")}, "minItems": 1,
                                     "description": "invalid_request for an action that does not match the "
                                                    "request schema: every problem found, as the HTTP "
                                                    "problem's errors (location body: the message)."},
                      }, ("id", "code", "status", "detail")),
    "resync": _message("resync", "The server may have missed changes (its store connection came back and "
                       "the game could not be read): close the socket and reconnect with hello and the "
                       "version held.", {}),
    "keepalive": _message("keepalive", "Sent when the socket was idle for a ping interval: browsers cannot "
                          "see websocket pings, and a client that hears nothing for two intervals "
                          "reconnects.", {}),
}

SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "$id": "/api/v1/ws.schema.json",
    "title": "Al Cabohne Online websocket messages (GET /api/v1/games/{id}/ws)",
    "description": "Text frames of JSON objects. clientMessage: client to server; serverMessage: server to "
                   "client. Clients ignore server message types they do not know.",
    "$defs": {
        **{f"client_{k}": v for k, v in CLIENT.items()},
        **{f"server_{k}": v for k, v in SERVER.items()},
        "clientMessage": {"oneOf": [{"$ref": f"#/$defs/client_{k}"} for k in CLIENT],
                          "discriminator": {"propertyName": "type",
                                            "mapping": {k: f"#/$defs/client_{k}" for k in CLIENT}}},
        "serverMessage": {"oneOf": [{"$ref": f"#/$defs/server_{k}"} for k in SERVER],
                          "discriminator": {"propertyName": "type",
                                            "mapping": {k: f"#/$defs/server_{k}" for k in SERVER}}},
        **DEFS,
    },
    "oneOf": [{"$ref": "#/$defs/clientMessage"}, {"$ref": "#/$defs/serverMessage"}],
}


if __name__ == "__main__":  # python -m api.live.ws_schema > docs/websocket.schema.json
    import json

    print(json.dumps(SCHEMA, indent=2))
