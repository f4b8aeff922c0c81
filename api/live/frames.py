"""Every frame the server sends on a game's websocket, as text (docs/websocket.md, api/live/ws_schema.py).

One module renders them all, so the wire format has one home: the hub (api.live.hub) pushes state,
presence, rematch and resync frames, rendered in the process that holds the socket; the socket's
session (api.live.ws) answers with ack and error frames and sends keepalives. Every state frame goes
through `engine.view` and `engine.redact_events` for its seat. Frames are compact JSON (api.codec.own_json).
"""

from __future__ import annotations

import engine
from api.codec import own_json
from api.errors import CODES
from api.game.model import Events

KEEPALIVE = '{"type":"keepalive"}'
RESYNC = '{"type":"resync"}'


def encode(message: dict) -> str:
    """Return the compact JSON text of one frame."""
    return own_json.dumps(message)


def state_frame(state, version: int, seat: int | None, events: list[dict] | None,
                table: dict | None = None) -> str:
    """Return the state frame of `version` as `seat` sees it (None: the table), with the version's
    `events` (unredacted: redacted here) unless that is None, and `table` (api.game.seats.table_info: the
    seats with their names, the rematch game) when given."""
    message = {"type": "state", "version": version, "view": engine.view(state, seat)}
    if events is not None:
        message["events"] = engine.redact_events(events, seat)
    if table is not None:
        message.update(table)
    return encode(message)


def answer_state_frame(answer: dict) -> str:
    """Return the state frame of an action's answer (GameService.answer, decoded): what a socket gets
    when its action had been answered before (a retried message id)."""
    return encode({"type": "state", "version": answer["version"], "view": answer["view"],
                   "events": answer.get("events", []), "seats": answer["seats"],
                   "rematch": answer.get("rematch")})


def rematch_frame(events: Events) -> str | None:
    """Return the rematch frame when `events` are those of the version that linked the rematch (a
    change at the table: its events are always a list, never derived by replay), else None."""
    if isinstance(events, list):
        for event in events:
            if event["type"] == "rematch":
                return encode({"type": "rematch", "game_id": event["game_id"]})
    return None


def presence_frame(online: list[int], seats: int) -> str:
    """Return the presence frame: every seat of the game, online or not."""
    return encode({"type": "presence", "seats": [{"seat": s, "online": s in online} for s in range(seats)]})


def error(code: str, detail: str = "", msg_id: str | None = None, **extra) -> dict:
    """Return an error message with the HTTP status and code of docs/protocol.md (`encode` sends it)."""
    return {"type": "error", "id": msg_id, "code": code, "status": CODES[code][0],
            "detail": detail or CODES[code][1], **extra}


def ack(msg_id: str, version: int) -> dict:
    """Return the ack of the action `msg_id`, which made (now or before) `version`."""
    return {"type": "ack", "id": msg_id, "version": version}


SEAT_MOVED = encode(error("bad_token", "This seat was moved to another device."))
