"""The OpenAPI 3.1 document at /api/v1/openapi.json and its offline Swagger UI at /api/docs.

flask-smorest builds the operations from api.http.routes and api.http.schemas; `finish` then adds what
its converter cannot say: the headers of every answer, problem+json for every error, the bodies of the
non-JSON answers, `servers`, and an example of every request and answer. The examples are real answers
of this server, recorded by tests/api/test_openapi_examples.py into openapi_examples.json beside this
file (the test fails when they no longer match what the server answers).
"""

from __future__ import annotations

import copy
import importlib.metadata
import json
from pathlib import Path

from flask import current_app, jsonify
from flask_swagger_ui import get_swaggerui_blueprint

import engine.bots
import engine.schemas
from api.errors import CODES, FIELD_ERROR_SCHEMA, PROBLEM_TYPE, TYPE_BASE
from api.game.seats import SEAT_INFO_SCHEMA
from api.http import cors, problem_pages
from api.http.schemas import OPENAPI_EXTRA
from api.ops.logs import HEADER as REQUEST_ID

SPEC_URL = "/api/v1/openapi.json"
DOCS_URL = "/api/docs"
EXAMPLES_FILE = Path(__file__).with_name("openapi_examples.json")

DESCRIPTION = """\
The HTTP API of Al Cabohne Online (the contract is docs/protocol.md).

* Seats: creating a game returns the creator's seat token (seat 0); a duo game also returns a join code
  and link. `POST /games/join` with the code takes the free seat. A seat moves to another device with
  `POST /games/{id}/transfer` then `POST /games/join` with the transfer code; the old token stops working.
* Send the seat token as `Authorization: Bearer <token>`. No token: the public table view. A refused
  token gets 401 with `WWW-Authenticate: Bearer realm="alcabohne"` (and `error="invalid_token"` or
  `"invalid_request"` when a header was sent).
* Every accepted action, bot move, join, claimed transfer and rematch link raises `version` by exactly
  1 (issuing a transfer code changes nothing; docs/protocol.md §12). Send the version you based
  your move on; a stale one gets 409 `stale_version` with the current version and view. Send a fresh
  `Idempotency-Key` per action and reuse it on retry: the retry gets the first answer, with the header
  `Idempotent-Replayed: true`.
* Against the computer: create with `"bot"` (duo); the bot's moves follow yours, each its own version.
  `GET /games/{id}/hint` suggests a move on your turn. Every answer carries `seed_commitment`; once the
  game is over `GET /games/{id}/record` reveals seed and salt (`alcabohne verify RECORD.json`).
* Names: `name` on create and join (1-24 characters, plain text); every `seats` list carries them.
  After the end, `POST /games/{id}/rematch` gives each player their seat in one next game (the finished
  game then shows `rematch`, in a version of its own). `"tutorial": true` (solo) starts the guided
  game, a short game from a prepared table. A finished game's `view.result` explains the score
  (`breakdown`, `tie_to_mafia`).
* Rate limits (docs/protocol.md §11), counted per client (an IPv4 address or an IPv6 /64) and shared by
  every worker. Defaults: games created 30 per 10 min, actions per seat 600 per min, websocket hellos
  60 per min, seat transfers 10 per 15 min, failed join/transfer codes 10 per min per client and 120
  per min in all; each is a setting (`ALCABOHNE_CREATE_LIMIT`, `_MOVE_LIMIT`, `_HELLO_LIMIT`,
  `_TRANSFER_LIMIT`, `_JOIN_LIMIT`, `_JOIN_TOTAL_LIMIT` and their `_WINDOW`s). Past one: 429
  `rate_limited` with `Retry-After` (and `retry_after` in the body). Every 503 has `Retry-After` too.
* Every answer carries `X-Request-Id`: the request's own `X-Request-Id` when it sent a valid one
  (1-64 of `A-Z a-z 0-9 . _ : -`), else a new id. It names the request in the server's logs.
* Any web page may call the API (CORS; tokens travel in headers, never in cookies): every answer
  carries {cors}.
* Games stay resumable 30 days after their last change, finished games 7 days; a duo game whose second
  seat is free expires after 24 hours.
* Live updates: the websocket `GET /api/v1/games/{id}/ws` (answered with 101 Switching Protocols) is not
  an operation of this document; its frames are described by the JSON Schema at
  `/api/v1/ws.schema.json` and by docs/websocket.md.
* Errors are `application/problem+json` (RFC 9457) with a stable `code`; the `type` is the address of
  the code's page (`/api/v1/problems/{code}`, relative to this server), which says what to do:
""".replace("{cors}", ", ".join(f"`{name}: {value}`" for name, value in cors.HEADERS.items())) + "\n".join(
    f"  * [`{code}`]({TYPE_BASE}{code}) ({status}): {title}" for code, (status, title) in CODES.items())

# Schemas flask-smorest registers for features we do not use (pagination).
UNUSED_SCHEMAS = ("PaginationMetadata",)

HEADERS = {
    "XRequestId": {
        "description": "The id of this request in the server's logs: the request's own X-Request-Id "
                       "when it sent a valid one, else a new one.",
        "required": True,
        "schema": {"type": "string", "pattern": r"^[A-Za-z0-9._:-]{1,64}$"},
    },
    "RetryAfter": {
        "description": "Seconds to wait before trying again.",
        "required": True,
        "schema": {"type": "string", "pattern": "^[0-9]+$"},
    },
    "WWWAuthenticate": {
        "description": "The bearer challenge (RFC 6750 §3): `Bearer realm=\"alcabohne\"`, with "
                       "`error=\"invalid_token\"` when the token holds no seat of the game and "
                       "`error=\"invalid_request\"` when the Authorization header is not `Bearer <token>`.",
        "required": True,
        "schema": {"type": "string", "pattern": '^Bearer realm="alcabohne"'},
    },
    "Allow": {
        "description": "On a 405 (method_not_allowed) only: the methods the path has.",
        "schema": {"type": "string"},
    },
    "IdempotentReplayed": {
        "description": "Present (true) when this is the recorded answer to an earlier request with the "
                       "same Idempotency-Key: nothing new was applied.",
        "schema": {"type": "string", "enum": ["true"]},
    },
    "Location": {
        "description": "The new game's address.",
        "required": True,
        "schema": {"type": "string", "pattern": r"^/api/v1/games/[A-Za-z0-9_-]{1,64}$"},
    },
}

REQUEST_ID_PARAMETER = {
    "name": REQUEST_ID,
    "in": "header",
    "required": False,
    "description": "An id for this request (1-64 of `A-Z a-z 0-9 . _ : -`), echoed in the answer and "
                   "written on the server's log lines; an invalid one is replaced by a new id.",
    "schema": {"type": "string"},
}

# Bodies that are not JSON (flask-smorest declares a content type only together with a schema).
TEXT_BODIES = {
    "image/svg+xml": {"type": "string", "contentMediaType": "image/svg+xml"},
    "text/html": {"type": "string", "contentMediaType": "text/html"},
}

DEFAULT_ERROR = {
    "description": "Any other error, with its code: 405 method_not_allowed for a method the path does not "
                   "have (with `Allow`), 500 internal_error for a bug. Every error is problem+json.",
    "content": {PROBLEM_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
    "headers": {REQUEST_ID: {"$ref": "#/components/headers/XRequestId"},
                "Allow": {"$ref": "#/components/headers/Allow"}},
}


# What a client does next with the game an answer names (its game_id; the seat token of the answer goes
# in Authorization): OpenAPI links from the answers that hand out a seat.
GAME = "/api/v1/games/{game_id}"
NEXT = {"look": ("get", GAME), "move": ("post", GAME + "/actions"), "events": ("get", GAME + "/events"),
        "hint": ("get", GAME + "/hint"), "transfer": ("post", GAME + "/transfer"),
        "rematch": ("post", GAME + "/rematch"), "record": ("get", GAME + "/record"),
        "qr": ("get", GAME + "/qr.svg")}
SEAT_ANSWERS = (("post", "/api/v1/games", "201"), ("post", "/api/v1/games/join", "200"),
                ("post", GAME + "/rematch", "200"))


def _links() -> dict:
    return {name: {"operationRef": "#/paths/" + path.replace("~", "~0").replace("/", "~1") + "/" + method,
                   "parameters": {"game_id": "$response.body#/game_id"},
                   "description": "The game of this answer (send the answer's token as the bearer token)."}
            for name, (method, path) in NEXT.items()}


def _ref(name: str) -> dict:
    return {"$ref": f"#/components/headers/{name}"}


def _response_headers(method: str, path: str, status: str) -> dict:
    """The headers of one answer, as api.http.problems, api.ops.logs and the routes send them."""
    headers = {REQUEST_ID: _ref("XRequestId")}
    if status == "401":
        headers["WWW-Authenticate"] = _ref("WWWAuthenticate")
    if status in ("429", "503"):
        headers["Retry-After"] = _ref("RetryAfter")
    if (method, path, status) == ("post", "/api/v1/games", "201"):
        headers["Location"] = _ref("Location")
    if (method, status) == ("post", "200") and path.endswith("/actions"):
        headers["Idempotent-Replayed"] = _ref("IdempotentReplayed")
    if path.startswith(TYPE_BASE.rstrip("/")) and status == "200":
        for name, value in problem_pages.HEADERS.items():
            headers[name] = {"description": "A page of text only, cached for an hour.", "required": True,
                             "schema": {"type": "string", "const": value}}
    if path.endswith("/qr.svg") and status == "200":
        headers["Cache-Control"] = {"description": "The link holds a live code: never cached.",
                                    "required": True, "schema": {"type": "string", "const": "no-store"}}
    return headers


def _examples_of(exchanges: list[dict]) -> dict:
    """Group the recorded exchanges by operation: {(method, path): {"request": {...}, "responses":
    {status: {name: example}}, "parameters": {name: {example name: example}}}}."""
    grouped: dict = {}
    for ex in exchanges:
        method, path = ex["operation"].split(" ", 1)
        op = grouped.setdefault((method.lower(), path), {"request": {}, "responses": {}, "parameters": {}})
        request, response = ex["request"], ex["response"]
        summary = ex["summary"]
        # A request is an example of the request only when it was accepted (the others show what
        # not to send: they are described with their answers).
        if response["status"] < 400:
            if "body" in request:
                op["request"].setdefault(ex["name"], {"summary": summary, "value": request["body"]})
            for where in ("path", "query", "headers"):
                for name, value in request.get(where, {}).items():
                    op["parameters"].setdefault(name, {}).setdefault(ex["name"], {"summary": summary,
                                                                                   "value": value})
        shown = "\n\nHeaders of the answer: " + ", ".join(f"`{name}: {value}`"
                                                        for name, value in response["headers"].items())
        op["responses"].setdefault(str(response["status"]), {}).setdefault(response["content_type"], {})[
            ex["name"]] = {"summary": summary, "value": response["body"],
                           "description": f"The answer of this server to {_described(method, path, request)}"
                                          f"{shown}"}
    return grouped


def _described(method: str, path: str, request: dict) -> str:
    """One line of Markdown saying what request an example answers."""
    url = path.format(**request.get("path", {}))
    if request.get("query"):
        url += "?" + "&".join(f"{name}={value}" for name, value in request["query"].items())
    text = f"`{method} {url}`"
    if request.get("headers"):
        text += " with " + ", ".join(f"`{name}: {value}`" for name, value in request["headers"].items())
    if "body" in request:
        text += f" and the body `{json.dumps(request['body'])}`"
    elif "body_bytes" in request:
        text += f" and a JSON body of {request['body_bytes']} bytes"
    elif "text" in request:
        text += f" and a text/plain body `{request['text']}`"
    return text + ":"


def _attach_examples(spec: dict, exchanges: list[dict]) -> None:
    for (method, path), found in _examples_of(exchanges).items():
        operation = spec["paths"][path][method]
        if found["request"] and "requestBody" in operation:
            operation["requestBody"]["content"]["application/json"]["examples"] = found["request"]
        for parameter in operation.get("parameters", []) + spec["paths"][path].get("parameters", []):
            if parameter["name"] in found["parameters"] and parameter["name"] != REQUEST_ID:
                parameter.setdefault("examples", {}).update(found["parameters"][parameter["name"]])
        for status, by_type in found["responses"].items():
            content = operation["responses"][status]["content"]
            for content_type, examples in by_type.items():
                content[content_type]["examples"] = examples


def finish(spec: dict, exchanges: list[dict], public_url: str | None = None) -> dict:
    """Return `spec` (apispec's dict) completed as the module docstring says."""
    spec = copy.deepcopy(spec)
    # The release this server runs (docs/versioning.md); the path's /v1 is the API's major version.
    spec["info"]["version"] = release()
    components = spec.setdefault("components", {})
    # Relative: the server the document was fetched from. The configured public address, too, for a
    # copy of the document read elsewhere (a generated client).
    spec["servers"] = [{"url": "/", "description": "This server (where the document was fetched)."}]
    if public_url:
        spec["servers"].append({"url": public_url.rstrip("/") + "/", "description": "Its public address."})
    for name in UNUSED_SCHEMAS:
        components.get("schemas", {}).pop(name, None)
    # Rules across fields, which marshmallow's converter cannot express (api.http.schemas.OPENAPI_EXTRA).
    for name, extra in OPENAPI_EXTRA.items():
        if name in components.get("schemas", {}):
            components["schemas"][name].update(extra)
    _contract_schemas(components["schemas"])
    _generator_friendly(spec)
    # The pages exist for the codes of api.errors only (any other is 404 not_found).
    for parameter in spec["paths"][f"{TYPE_BASE}{{code}}"].get("parameters", []):
        if parameter["name"] == "code":
            parameter["schema"] = {"type": "string", "enum": list(CODES)}
            parameter["description"] = "An error code (the `code` of a problem body)."
    components["headers"] = copy.deepcopy(HEADERS)
    components.setdefault("responses", {})["DEFAULT_ERROR"] = copy.deepcopy(DEFAULT_ERROR)
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            operation.setdefault("parameters", []).append(dict(REQUEST_ID_PARAMETER))
            for status, response in operation["responses"].items():
                if "$ref" in response:
                    continue
                content = response.setdefault("content", {})
                if status[:1] in "45" and "application/json" in content:
                    content[PROBLEM_TYPE] = content.pop("application/json")
                for content_type, schema in TEXT_BODIES.items():
                    if content_type in content or (not content and _text_type(path) == content_type):
                        content[content_type] = {"schema": dict(schema)}
                response["headers"] = _response_headers(method, path, status)
                if (method, path, status) in SEAT_ANSWERS:
                    response["links"] = _links()
    _attach_examples(spec, exchanges)
    return spec


def _schema_ref(name: str) -> str:
    return f"#/components/schemas/{name}"


def _contract_schemas(schemas: dict) -> None:
    """Put the engine's own schemas (engine.schemas: views, results, actions, one per event type) in
    place of the marshmallow sketches, and type every member that refers to them."""
    schemas.update(engine.schemas.components(_schema_ref))
    # To the request schema `action` is any JSON value (the engine judges it: 400 invalid_action, null
    # included), but only a well-formed action object is ever accepted: that is what a client must send.
    action = {"$ref": _schema_ref("Action")}
    given = schemas["ActionRequest"]["properties"]
    given["action"] = {**action, "description": given["action"]["description"],
                       "examples": given["action"]["examples"]}
    for name in ("Hint", "RecordAction"):
        schemas[name]["properties"]["action"] = {**action, "description": schemas[name]["properties"][
            "action"].get("description", "The action.")}
    event = {"$ref": _schema_ref("Event")}
    schemas["ActionResult"]["properties"]["events"]["items"] = event
    schemas["LogEntry"]["properties"]["events"]["items"] = event
    schemas["Record"]["properties"]["options"] = {
        "type": "object", "additionalProperties": False,
        "description": "engine.new_game's options: {} or the duo dealer; the tutorial's prepared table.",
        "properties": {"dealer": {"type": "integer", "enum": [0, 1],
                                  "description": "The dealing seat (R50)."},
                       "deck": {"type": "array", "items": {"$ref": _schema_ref("Bean")},
                                "description": "The 116 cards, top first, instead of the shuffle."},
                       "position": {"$ref": _schema_ref("Position"), "description": (
                           "The table the game starts from instead of a deal: the tutorial's short "
                           "game.")}}}
    bots = {"type": "string", "enum": list(engine.bots.BOTS)}
    schemas["RecordSeat"]["properties"]["bot"] = {**bots, "description": schemas["RecordSeat"]["properties"][
        "bot"]["description"]}
    schemas["SeatInfo"] = copy.deepcopy(SEAT_INFO_SCHEMA)  # the websocket schema serves the same
    problem = schemas["Problem"]  # open: RFC 9457 lets a problem carry extension members
    problem["properties"]["errors"] = {
        "type": "array", "items": {"$ref": _schema_ref("FieldError")}, "minItems": 1,
        "description": "invalid_request for a request that does not match its schema (or a body that is "
                       "not JSON): every problem found, one entry each (docs/protocol.md §9)."}
    problem["properties"]["retry_after"]["minimum"] = 1
    schemas["FieldError"] = copy.deepcopy(FIELD_ERROR_SCHEMA)
    # Creating a game always has join_code and join_url (null when nothing is open to join).
    created = schemas["CreatedGame"] = copy.deepcopy(schemas["SeatGrant"])
    created["required"] = sorted({*created["required"], "join_code", "join_url"})
    for name in ("Game", "SeatGrant", "ActionResult", "CreatedGame"):
        props = schemas[name]["properties"]
        props["seat"] = {"type": ["integer", "null"], "minimum": 0, "maximum": 1,
                         "description": props["seat"].get("description", "")}


# Operation ids: the names generated clients give their functions.
OPERATION_IDS = {
    ("post", "/api/v1/games"): "createGame",
    ("post", "/api/v1/games/join"): "joinGame",
    ("get", GAME): "getGame",
    ("post", GAME + "/actions"): "postAction",
    ("get", GAME + "/events"): "getEvents",
    ("get", GAME + "/hint"): "getHint",
    ("get", GAME + "/record"): "getRecord",
    ("post", GAME + "/rematch"): "rematch",
    ("post", GAME + "/transfer"): "transferSeat",
    ("get", GAME + "/qr.svg"): "getJoinQr",
    ("get", "/api/v1/health"): "getHealth",
    ("get", "/api/v1/problems"): "listProblems",
    ("get", "/api/v1/problems/{code}"): "getProblem",
}
OPTIONAL_TOKEN = [{}, {"seatToken": []}]


def _generator_friendly(spec: dict) -> None:
    """Say what the document says in the forms client generators read without casts: an operationId
    per operation; the seat token optional by default (the document's `security`), required where an
    operation says so and absent where none is read; nullable enums as oneOf with null; request members
    that have a default optional in every generator (the default is said in words)."""
    spec["security"] = copy.deepcopy(OPTIONAL_TOKEN)
    for path, item in spec["paths"].items():
        for method, operation in item.items():
            if not isinstance(operation, dict) or "responses" not in operation:
                continue
            operation["operationId"] = OPERATION_IDS[(method, path)]
            if operation.get("security") == OPTIONAL_TOKEN:
                del operation["security"]  # the document's own: optional
            elif "security" not in operation:
                operation["security"] = []  # no token is read
            if (method, path) == ("post", "/api/v1/games"):
                operation["responses"]["201"]["content"]["application/json"]["schema"] = {
                    "$ref": _schema_ref("CreatedGame")}
    for schema in spec["components"]["schemas"].values():
        for member in schema.get("properties", {}).values():
            _nullable_enum(member)
            if "default" in member and schema.get("additionalProperties") is False and member is not None:
                default = member.pop("default")
                said = member.get("description", "")
                if "absent" not in said.lower() and "default" not in said.lower():
                    member["description"] = f"{said} Absent: {json.dumps(default)}.".strip()


def _nullable_enum(member: dict) -> None:
    """{"type": [t, "null"], "enum": [..., null]} -> oneOf [{type t, enum [...]}, {type null}]."""
    kinds, values = member.get("type"), member.get("enum")
    if isinstance(kinds, list) and "null" in kinds and values is not None and None in values:
        kind = next(k for k in kinds if k != "null")
        member.pop("type")
        member.pop("enum")
        member["oneOf"] = [{"type": kind, "enum": [v for v in values if v is not None]}, {"type": "null"}]


def _text_type(path: str) -> str | None:
    """The content type of an operation's 200 that is not JSON."""
    if path.endswith(".svg"):
        return "image/svg+xml"
    if path.startswith(TYPE_BASE.rstrip("/")):
        return "text/html"
    return None


def release() -> str:
    """The version of the installed package (pyproject.toml's)."""
    try:
        return importlib.metadata.version("alcabohne")
    except importlib.metadata.PackageNotFoundError:  # run from a bare checkout, never installed
        return "0+unknown"


def load_examples() -> list[dict]:
    """The recorded exchanges (tests/api/test_openapi_examples.py writes them)."""
    return json.loads(EXAMPLES_FILE.read_text(encoding="utf-8"))["exchanges"]


def register(app, api) -> None:
    """Serve the problem type pages, the document (built once, on first request) and the Swagger UI
    bundled in flask-swagger-ui."""
    api.register_blueprint(problem_pages.blp)
    cache: dict = {}

    @app.get(SPEC_URL)
    def openapi_json():
        if "spec" not in cache:
            cache["spec"] = finish(api.spec.to_dict(), load_examples(), current_app.config.get("PUBLIC_URL"))
        return jsonify(cache["spec"])

    app.register_blueprint(get_swaggerui_blueprint(
        DOCS_URL, SPEC_URL, config={"app_name": "Al Cabohne Online API", "validatorUrl": None}))
