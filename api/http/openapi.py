"""The OpenAPI 3.1 document at /api/v1/openapi.json and its offline Swagger UI at /api/docs."""

from __future__ import annotations

import copy

from flask import jsonify
from flask_swagger_ui import get_swaggerui_blueprint

from api.errors import CODES, PROBLEM_TYPE
from api.http.schemas import OPENAPI_EXTRA

SPEC_URL = "/api/v1/openapi.json"
DOCS_URL = "/api/docs"

DESCRIPTION = """\
The HTTP API of Al Cabohne Online (the contract is docs/protocol.md).

* Seats: creating a game returns the creator's seat token (seat 0); a duo game also returns a join code
  and link. `POST /games/join` with the code takes the free seat. A seat moves to another device with
  `POST /games/{id}/transfer` then `POST /games/join` with the transfer code; the old token stops working.
* Send the seat token as `Authorization: Bearer <token>`. No token: the public table view.
* Every accepted action, join and transfer raises `version` by exactly 1. Send the version you based
  your move on; a stale one gets 409 `stale_version` with the current version and view. Send a fresh
  `Idempotency-Key` per action and reuse it on retry: the retry gets the first answer.
* Against the computer: create with `"bot"` (duo); the bot's moves follow yours, each its own version.
  `GET /games/{id}/hint` suggests a move on your turn. Every answer carries `seed_commitment`; once the
  game is over `GET /games/{id}/record` reveals seed and salt (`alcabohne verify RECORD.json`).
* Names: `name` on create and join (1-24 characters, plain text); every `seats` list carries them.
  After the end, `POST /games/{id}/rematch` gives each player their seat in one next game (the finished
  game then shows `rematch`, in a version of its own). `"tutorial": true` (solo) deals the fixed tutorial
  game. A finished game's `view.result` explains the score (`breakdown`, `tie_to_mafia`).
* Rate limits (docs/protocol.md §11), counted per client (an IPv4 address or an IPv6 /64) and shared by
  every worker. Defaults: games created 30 per 10 min, actions per seat 600 per min, websocket hellos
  60 per min, seat transfers 10 per 15 min, failed join/transfer codes 10 per min per client and 120
  per min in all; each is a setting (`ALCABOHNE_CREATE_LIMIT`, `_MOVE_LIMIT`, `_HELLO_LIMIT`,
  `_TRANSFER_LIMIT`, `_JOIN_LIMIT`, `_JOIN_TOTAL_LIMIT` and their `_WINDOW`s). Past one: 429
  `rate_limited` with `Retry-After` (and `retry_after` in the body).
* Games stay resumable 30 days after their last change, finished games 7 days; a duo game whose second
  seat is free expires after 24 hours.
* Errors are `application/problem+json` (RFC 9457) with a stable `code`:
""" + "\n".join(f"  * `{code}` ({status}): {title}" for code, (status, title) in CODES.items())


def _problem_content(spec: dict) -> dict:
    """Return `spec` with every error answer declared as application/problem+json (what we send)."""
    spec = copy.deepcopy(spec)

    def fix(responses: dict) -> None:
        for status, response in responses.items():
            if status == "default" or str(status)[:1] in "45":
                content = response.get("content", {})
                if "application/json" in content:
                    content[PROBLEM_TYPE] = content.pop("application/json")

    fix(spec.get("components", {}).get("responses", {}))
    # Rules across fields, which marshmallow's converter cannot express (api.http.schemas.OPENAPI_EXTRA).
    for name, extra in OPENAPI_EXTRA.items():
        if name in spec.get("components", {}).get("schemas", {}):
            spec["components"]["schemas"][name].update(extra)
    for path in spec.get("paths", {}).values():
        for operation in path.values():
            if isinstance(operation, dict) and "responses" in operation:
                fix(operation["responses"])
    return spec


def register(app, api) -> None:
    """Serve the document (built once, on first request) and the Swagger UI bundled in flask-swagger-ui."""
    cache: dict = {}

    @app.get(SPEC_URL)
    def openapi_json():
        if "spec" not in cache:
            cache["spec"] = _problem_content(api.spec.to_dict())
        return jsonify(cache["spec"])

    app.register_blueprint(get_swaggerui_blueprint(
        DOCS_URL, SPEC_URL, config={"app_name": "Al Cabohne Online API", "validatorUrl": None}))
