"""Errors with a stable `code` (docs/protocol.md): `ApiError`, raised by api.service (which knows nothing of
Flask), and the table of codes. api.http.problems turns them into application/problem+json (RFC 9457)
answers, api.live.ws into error frames.
"""

from __future__ import annotations

import logging

PROBLEM_TYPE = "application/problem+json"
# `type` URIs are relative references to the documentation of each code.
TYPE_BASE = "/api/docs#problem-"

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
