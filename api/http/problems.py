"""Problem responses: `register(app, api)` turns every ApiError, werkzeug HTTPException and anything
unexpected into an application/problem+json answer (RFC 9457) with a stable `code` (api.errors).
"""

from __future__ import annotations

import logging
from http import HTTPStatus

from api.errors import (
    LOCATIONS,
    OUTCOME_UNKNOWN_DETAIL,
    PROBLEM_TYPE,
    ApiError,
    field_errors,
    schema_detail,
)
from api.game import auth

log = logging.getLogger(__name__)


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
        if isinstance(messages, dict):  # webargs: {location: messages}, e.g. {"json": {"version": [...]}}
            extra["errors"] = [entry for where, part in messages.items()
                               for entry in field_errors(part, LOCATIONS.get(where, where))]
            parts = list(messages.values())
            if len(parts) == 1 and isinstance(parts[0], list) and parts[0]:  # ["Invalid JSON body."]
                error.description = " ".join(map(str, parts[0]))
            elif len(parts) == 1 and isinstance(parts[0], dict):
                error.description = schema_detail(parts[0])
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


# A 503 says when to come back (RFC 9110 §10.2.3) even where the raiser named no delay.
DEFAULT_RETRY_AFTER = "5"


def problem_response(err: ApiError):
    """Return a Flask response carrying `err` as application/problem+json.

    Every 401 carries a `WWW-Authenticate: Bearer` challenge (RFC 9110 §11.6.1, RFC 6750 §3) and every
    429 and 503 a `Retry-After`, as the OpenAPI document declares.
    """
    from flask import current_app, request

    resp = current_app.response_class(
        current_app.json.dumps(err.problem()), status=err.status, mimetype=PROBLEM_TYPE
    )
    for name, value in err.headers.items():
        resp.headers[name] = value
    if err.status == 401 and "WWW-Authenticate" not in resp.headers:
        resp.headers["WWW-Authenticate"] = auth.challenge(request.headers.get("Authorization"))
    if err.status == 503 and "Retry-After" not in resp.headers:
        resp.headers["Retry-After"] = DEFAULT_RETRY_AFTER
    return resp


def register(app, api) -> None:
    """Install the problem+json handlers on `app` and on flask-smorest's `api` (which has its own)."""
    from werkzeug.exceptions import HTTPException

    from api.store.base import OutcomeUnknown, StoreUnavailable

    def on_api_error(err: ApiError):
        return problem_response(err)

    def on_http_exception(error: HTTPException):
        return problem_response(_from_http_exception(error))

    def on_store_unavailable(error: StoreUnavailable):
        log.warning("store unavailable: %s", error)
        if isinstance(error, OutcomeUnknown):
            return problem_response(ApiError("outcome_unknown", OUTCOME_UNKNOWN_DETAIL,
                                             headers={"Retry-After": "5"}))
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
