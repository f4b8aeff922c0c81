"""The AsyncAPI 3.1 document of a game's websocket: docs/websocket.asyncapi.json.

It says what docs/websocket.md says, in the form AsyncAPI tools read: the one channel (a game's socket),
every message both ways with its payload, the conversation (a hello is answered by state and presence or
by an error; an action by ack or error) and the close codes. The payloads are ws.schema.json's
(api.live.ws_schema), so the view, action and event schemas are the OpenAPI document's (engine.schemas).
That file is this document written out (tests/clients/test_asyncapi.py keeps the two equal and runs the
AsyncAPI parser on it).
"""

from __future__ import annotations

import copy
import json

from api.live.ws_schema import CLIENT, SCHEMA, SERVER

CHANNEL = "game"
ADDRESS = "/api/v1/games/{game_id}/ws"

CLOSE_CODES = (
    "Close codes (docs/websocket.md, \"Errors that close the socket\"): an error frame with `id` null "
    "comes first, then the server closes with 1008 (policy: a refused hello, a seat moved to another "
    "device, a watcher past the limits) or 1011 (internal_error, store_unavailable, ping_timeout), the "
    "error's code as the close reason. 1001 when the server shuts down.")


def _payloads() -> dict:
    """ws.schema.json's $defs as AsyncAPI component schemas: references rewritten to their new home, and
    each discriminator in AsyncAPI's form (the property's name; OpenAPI's object adds the mapping)."""
    text = json.dumps(SCHEMA["$defs"]).replace('"#/$defs/', '"#/components/schemas/')
    return _asyncapi_discriminators(json.loads(text))


def _asyncapi_discriminators(node):
    if isinstance(node, dict):
        return {k: (v["propertyName"] if k == "discriminator" and isinstance(v, dict) else
                    _asyncapi_discriminators(v)) for k, v in node.items()}
    if isinstance(node, list):
        return [_asyncapi_discriminators(v) for v in node]
    return node


def _message(side: str, kind: str, schema: dict) -> dict:
    way = "client to server" if side == "client" else "server to client"
    return {"name": kind, "title": f"{kind} ({way})",
            "summary": schema["description"].split(". ")[0].rstrip(".") + ".",
            "description": schema["description"], "contentType": "application/json",
            "payload": {"$ref": f"#/components/schemas/{side}_{kind}"}}


def _ref(side: str, kind: str) -> dict:
    return {"$ref": f"#/channels/{CHANNEL}/messages/{side}_{kind}"}


def document() -> dict:
    """Return the AsyncAPI 3.0 document (from the server's point of view: it receives the client's
    messages and sends its own)."""
    messages = {f"client_{k}": _message("client", k, v) for k, v in CLIENT.items()}
    messages.update({f"server_{k}": _message("server", k, v) for k, v in SERVER.items()})
    channel = {
        "address": ADDRESS,
        "title": "A game's websocket",
        "description": "GET upgrades to a websocket of JSON text frames (docs/websocket.md). The first "
                       "message is a hello; the server answers with the game's state and the seats' "
                       "presence, then pushes a state after every change. " + CLOSE_CODES,
        "parameters": {"game_id": {"description": "The game's id (1-64 of A-Z a-z 0-9 _ -)."}},
        "messages": {name: {"$ref": f"#/components/messages/{name}"} for name in messages},
    }
    this = {"$ref": f"#/channels/{CHANNEL}"}
    operations = {
        "hello": {"action": "receive", "channel": this, "title": "Say hello",
                  "summary": "The client's first message: its seat token (none: watch) and the version "
                             "it holds.",
                  "messages": [_ref("client", "hello")],
                  "reply": {"channel": this, "messages": [_ref("server", "state"), _ref("server", "presence"),
                                                          _ref("server", "error")]}},
        "act": {"action": "receive", "channel": this, "title": "Move",
                "summary": "A move, as POST /games/{id}/actions; answered by ack (then the state) or error.",
                "messages": [_ref("client", "action")],
                "reply": {"channel": this, "messages": [_ref("server", "ack"), _ref("server", "error")]}},
    }
    for kind in SERVER:
        if kind in ("ack",):
            continue  # only ever a reply
        operations[f"send_{kind}"] = {"action": "send", "channel": this, "title": f"Send {kind}",
                                      "summary": _message("server", kind, SERVER[kind])["summary"],
                                      "messages": [_ref("server", kind)]}
    return {
        "asyncapi": "3.1.0",
        "info": {"title": "Al Cabohne Online live channel", "version": "1",
                 "description": "The websocket of one game (docs/websocket.md); its messages are those of "
                                "/api/v1/ws.schema.json, and the view, action and event schemas those of "
                                "/api/v1/openapi.json."},
        "defaultContentType": "application/json",
        "channels": {CHANNEL: channel},
        "operations": operations,
        "components": {"messages": messages, "schemas": copy.deepcopy(_payloads())},
    }


if __name__ == "__main__":  # python -m api.live.asyncapi > docs/websocket.asyncapi.json
    print(json.dumps(document(), indent=2))
