"""Errors with a stable `code` (docs/protocol.md): `ApiError`, raised by the game room (api.game, which
knows nothing of Flask), and the table of codes. api.http.problems turns them into
application/problem+json (RFC 9457) answers, api.live.ws into error frames.
"""

from __future__ import annotations

import logging

PROBLEM_TYPE = "application/problem+json"
# A problem's `type` is the page describing its code (api.http.problem_pages serves it), a reference
# relative to the API's origin: the same body whatever address the server is reached at.
TYPE_BASE = "/api/v1/problems/"

log = logging.getLogger(__name__)

# code -> (status, title), as docs/protocol.md lists them.
CODES: dict[str, tuple[int, str]] = {
    "invalid_action": (400, "The action is malformed"),
    "bad_token": (401, "Missing, wrong or revoked seat token"),
    "not_your_turn": (403, "It is not this seat's turn"),
    "unknown_game": (404, "No such game (or it has expired)"),
    "stale_version": (409, "The game has moved on since this version"),
    "illegal_action": (422, "The rules forbid this action now"),
    "rate_limited": (429, "Too many attempts; wait and retry"),
    "invalid_request": (400, "The request is malformed"),
    "unknown_code": (404, "No such join or transfer code (or it has been used or expired)"),
    "idempotency_mismatch": (422, "This Idempotency-Key was already used with a different request"),
    "game_not_over": (409, "The game is not over: its record (and seed) are published at the end"),
    "record_unavailable": (410, "This game's record is not kept (its log does not reach back to its start)"),
    "seat_taken": (409, "That seat of the rematch was claimed with another device's token"),
    "forbidden_origin": (403, "Websockets may not be opened from this origin"),
    "not_found": (404, "No such resource"),
    "method_not_allowed": (405, "Method not allowed on this resource"),
    "payload_too_large": (413, "The request body is too large"),
    "store_unavailable": (503, "The game store cannot be reached; nothing was changed"),
    "outcome_unknown": (503, "The game store did not answer in time: the action may or may not have been "
                             "applied"),
    "server_busy": (503, "This server holds all the live connections it can; retry shortly"),
    "internal_error": (500, "Internal server error"),
}

# code -> what a client should do about it: the page of each problem type (api.http.problem_pages).
ADVICE: dict[str, str] = {
    "invalid_action": "The action is not one the game knows, or its fields are missing or of the wrong "
                      "type. Send one of the view's `legal_actions` as it is. Nothing was changed.",
    "bad_token": "The Authorization header is missing, is not `Bearer <seat token>`, or the token holds no "
                 "seat of this game (never did, or the seat was moved to another device). Use the token "
                 "that create, join or a transfer gave you; without a seat, look at the table view with no "
                 "token. Nothing was changed.",
    "not_your_turn": "Another seat is to move (a hint: or the game is over). Wait for the next state (the "
                     "websocket, or GET the game) and move when `view.active` is your seat.",
    "unknown_game": "There is no game with this id: it never existed, or it expired (30 days after its "
                    "last change, 7 days after its end, 24 hours for a duo game whose second seat stayed "
                    "free). Start a new game.",
    "stale_version": "The game moved on since the version you sent (the other seat, the bot, or your own "
                     "earlier move). The answer carries the current `version` and your `view`: decide "
                     "again from them and send the new version. Nothing was changed.",
    "illegal_action": "The action is well formed but the rules forbid it now; `detail` names the rule. "
                      "Choose one of the view's `legal_actions`. Nothing was changed.",
    "rate_limited": "A rate limit was reached (per client address, per seat, or for the whole server). "
                    "Wait the `Retry-After` seconds (also `retry_after` in the body) before trying again.",
    "invalid_request": "The request does not have the documented form: a body not sent as "
                       "`Content-Type: application/json` (415), a JSON body that does not parse, or a "
                       "body, query parameter or header that does not match the operation's schema "
                       "(400; `errors` lists each problem as {location, pointer, detail}). Fix the "
                       "request; nothing was changed.",
    "unknown_code": "No live join or transfer code is this one: it was mistyped, already used, or expired. "
                    "Ask for a new code. Failed codes count against a per-client limit.",
    "idempotency_mismatch": "This Idempotency-Key was already answered for this game with a different "
                            "request. Use a fresh key for every new action; reuse a key only to resend the "
                            "very same request. Nothing was changed.",
    "game_not_over": "The record (and with it the seed) or a rematch is available only once the game is "
                     "over. Ask again after the end.",
    "record_unavailable": "The game is over but its log no longer reaches back to its start, so no "
                          "verifiable record can be built. Nothing can be done for this game.",
    "seat_taken": "This seat of the rematch was already claimed by another device's token. Each device "
                  "asks for the rematch with its own seat token.",
    "forbidden_origin": "A websocket was opened from a web page whose origin this server does not allow. "
                        "Open it from the server's own pages, or have the operator allow the origin.",
    "not_found": "No resource lives at this path. Check the path against the API reference.",
    "method_not_allowed": "The path exists but not with this method; the `Allow` header lists the methods "
                          "it has.",
    "payload_too_large": "The request body is larger than the server accepts (16 KiB). Nothing was read "
                         "or changed.",
    "store_unavailable": "The server cannot reach its game store. Nothing was changed: retry after "
                         "`Retry-After` seconds.",
    "outcome_unknown": "The store did not answer a change in time: the action (or join) may or may not have "
                       "been applied. Resend it with the same Idempotency-Key (or websocket message id): "
                       "it is applied at most once, and the answer says what it made. Without a key, look "
                       "at the game before sending it again.",
    "server_busy": "The server holds all the live connections it can. Retry after `Retry-After` seconds, "
                   "or use HTTP meanwhile.",
    "internal_error": "A bug on the server: the request could not be answered. Whether a change was made is "
                      "not known; look at the game before retrying. Please report it with the response's "
                      "`X-Request-Id`.",
}


def type_uri(code: str) -> str:
    """Return the `type` URI of a problem code: the path of the page describing it."""
    return TYPE_BASE + code


# What to do after outcome_unknown, over HTTP and the websocket alike.
OUTCOME_UNKNOWN_DETAIL = ("Unknown outcome: the store did not answer in time, so this action may or may not "
                          "have been applied. Resend it with the same key or id (Idempotency-Key, or the "
                          "message id): it is applied at most once, and the answer says what it made. "
                          "Without a key, look at the game before sending it again.")


class ApiError(Exception):
    """An answer other than success: `code` is a key of CODES; `extra` members join the problem body."""

    def __init__(self, code: str, detail: str = "", *, status: int | None = None, headers: dict | None = None,
                 **extra):
        super().__init__(detail or code)
        self.code = code
        self.status, self.title = CODES[code]
        # A few codes cover several statuses (invalid_request: 400 bad JSON, 415 not JSON at all).
        self.status = status or self.status
        self.detail = detail or self.title
        self.headers = headers or {}
        self.extra = extra

    def problem(self) -> dict:
        """Return the RFC 9457 body."""
        body = {
            "type": type_uri(self.code),
            "title": self.title,
            "status": self.status,
            "detail": self.detail,
            "code": self.code,
        }
        body.update(self.extra)
        return body


def schema_detail(errors: dict) -> str:
    """Return the detail of an invalid_request whose body did not match its schema (`errors`: the
    schema's messages by field), the same over HTTP and the websocket."""
    return "Invalid request: see errors (" + ", ".join(map(str, errors)) + ")."


# Where a request part that failed its schema was (the `location` of an entry of a problem's `errors`),
# by webargs' names of the parts of an HTTP request. A websocket action message is checked as the body of
# POST /actions, and its errors say "body" too: the same errors for the same mistake.
LOCATIONS = {"json": "body", "query": "query", "headers": "header"}


# The JSON Schema of one entry of `errors` (the OpenAPI document and the websocket schema both use it).
FIELD_ERROR_SCHEMA = {
    "type": "object",
    "description": "One thing wrong with a request that did not match its schema (invalid_request).",
    "properties": {
        "location": {"type": "string", "enum": sorted(set(LOCATIONS.values())),
                     "description": "The part of the request: body (the JSON body; over the websocket, "
                                    "the action message), query (a query parameter), header (a request "
                                    "header)."},
        "pointer": {"type": "string",
                    "description": "A JSON Pointer (RFC 6901) to the member within that part, e.g. /version, "
                                   "/action/field or /Idempotency-Key; \"\" for the part as a whole (a body "
                                   "that is not JSON)."},
        "detail": {"type": "string", "description": "What is wrong, in English."},
    },
    "required": ["location", "pointer", "detail"],
    "additionalProperties": False,
}


def field_errors(messages, location: str) -> list[dict]:
    """Return marshmallow's (or webargs') messages about one request part in the one shape of a
    problem's `errors` (docs/protocol.md §9): a list of {location, pointer, detail}, `pointer` the JSON
    Pointer (RFC 6901) of the member within that part ("" for the part as a whole), one entry per message.
    The same over HTTP and the websocket (an action message is checked as a body)."""
    out: list[dict] = []

    def walk(node, path: list[str]) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                # marshmallow files a rule across fields under "_schema": it is about the whole part.
                walk(value, path if key == "_schema" else [*path, str(key)])
        elif isinstance(node, list | tuple):
            for item in node:
                walk(item, path)
        else:
            pointer = "".join("/" + p.replace("~", "~0").replace("/", "~1") for p in path)
            out.append({"location": location, "pointer": pointer, "detail": str(node)})

    walk(messages, [])
    return out
