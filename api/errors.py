"""Errors as application/problem+json (RFC 9457) with a stable `code` (PROTOCOL §6).

`ApiError` is raised by api.service (which knows nothing of Flask); `register(app)` turns it, every
werkzeug HTTPException and anything unexpected into a problem document.
"""

from __future__ import annotations

import logging
from http import HTTPStatus

PROBLEM_TYPE = "application/problem+json"
# `type` URIs are relative references to the documentation of each code.
TYPE_BASE = "/api/docs#problem-"

log = logging.getLogger(__name__)

# code -> (status, title). The first seven are fixed by PROTOCOL §6; the others are this API's own.
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
    "record_unavailable": (410, "This game's record is not kept (created before records, or log trimmed)"),
    "seat_taken": (409, "That seat of the rematch was claimed with another device's token"),
    "forbidden_origin": (403, "Websockets may not be opened from this origin"),
    "not_found": (404, "No such resource"),
    "method_not_allowed": (405, "Method not allowed on this resource"),
    "payload_too_large": (413, "The request body is too large"),
    "store_unavailable": (503, "The game store cannot be reached; nothing was changed"),
    "server_busy": (503, "This server holds all the live connections it can; retry shortly"),
    "internal_error": (500, "Internal server error"),
}


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
            "type": TYPE_BASE + self.code,
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


def _from_http_exception(error) -> ApiError:
    """Map a werkzeug HTTPException (routing, body size, parsing) to an ApiError, keeping its headers."""
    status = error.code or 500
    data = getattr(error, "data", None) or {}
    extra = {}
    if status == 404:
        code = "not_found"
    elif status == 405:
        code = "method_not_allowed"
    elif status == 413:
        code = "payload_too_large"
    elif status in (400, 415, 422):
        # webargs: a body that is not JSON, or that does not match the schema.
        code = "invalid_request"
        messages = data.get("messages")
        if isinstance(messages, dict):
            errors = messages.get("json", messages)
            extra["errors"] = errors
            if isinstance(errors, list) and errors:  # webargs: ["Invalid JSON body."]
                error.description = " ".join(map(str, errors))
            elif isinstance(errors, dict):
                error.description = schema_detail(errors)
    else:
        code = "internal_error"
    headers = {}
    # Keep what werkzeug says matters (the Allow header of a 405, RFC 9110 §15.5.6).
    for name, value in error.get_headers():
        if name.lower() != "content-type":
            headers[name] = value
    detail = error.description if status != 500 else ""
    if code == "internal_error" and status != 500:
        # Any other HTTP error keeps its own status (e.g. 501), described by its standard phrase.
        err = ApiError("internal_error", detail or HTTPStatus(status).phrase, headers=headers, **extra)
        err.status, err.title = status, HTTPStatus(status).phrase
        return err
    status = 415 if status == 415 else None  # webargs' 422 for a schema error is our 400
    return ApiError(code, detail if isinstance(detail, str) else "", status=status, headers=headers, **extra)


def problem_response(err: ApiError):
    """Return a Flask response carrying `err` as application/problem+json."""
    from flask import current_app

    resp = current_app.response_class(
        current_app.json.dumps(err.problem()), status=err.status, mimetype=PROBLEM_TYPE
    )
    for name, value in err.headers.items():
        resp.headers[name] = value
    return resp


def register(app, api) -> None:
    """Install the problem+json handlers on `app` and on flask-smorest's `api` (which has its own)."""
    from werkzeug.exceptions import HTTPException

    from api.store.base import StoreUnavailable

    def on_api_error(err: ApiError):
        return problem_response(err)

    def on_http_exception(error: HTTPException):
        return problem_response(_from_http_exception(error))

    def on_store_unavailable(error: StoreUnavailable):
        log.warning("store unavailable: %s", error)
        return problem_response(ApiError("store_unavailable", headers={"Retry-After": "5"}))

    def on_unexpected(error: Exception):
        if isinstance(error, HTTPException):
            return on_http_exception(error)
        log.exception("unhandled error", exc_info=error)
        return problem_response(ApiError("internal_error"))

    # Registered after flask-smorest's own JSON handler for HTTPException, so ours replaces it.
    app.register_error_handler(HTTPException, on_http_exception)
    app.register_error_handler(ApiError, on_api_error)
    app.register_error_handler(StoreUnavailable, on_store_unavailable)
    app.register_error_handler(Exception, on_unexpected)
