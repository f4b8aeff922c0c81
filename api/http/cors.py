"""Cross-origin calls: any origin may call the API. Tokens travel in headers, never in cookies, so
this exposes nothing. The headers are listed once, here: the app sends them (`init_app`) and the
OpenAPI document states them (api.http.openapi)."""

from __future__ import annotations

from flask import Flask, Response, request

HEADERS = {
    "Access-Control-Allow-Origin": "*",
    "Access-Control-Allow-Methods": "GET, POST, OPTIONS",
    "Access-Control-Allow-Headers": "Authorization, Content-Type, Idempotency-Key, X-Request-Id",
    "Access-Control-Expose-Headers": (
        "Retry-After, Location, Idempotent-Replayed, X-Request-Id, WWW-Authenticate"),
    "Access-Control-Max-Age": "600",
}


def init_app(app: Flask) -> None:
    """Send the CORS headers on every answer under /api/."""
    app.after_request(_cors)


def _cors(resp: Response) -> Response:
    if request.path.startswith("/api/"):
        resp.headers.update(HEADERS)
    return resp
