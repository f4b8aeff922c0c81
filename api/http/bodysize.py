"""The request body limit (MAX_CONTENT_LENGTH), for every body however it is sent.

werkzeug stops reading a chunked body (no Content-Length) at the limit without saying so: the first
16 KB of an action followed by two million spaces read as a valid action and were applied. So a chunked
body is read here first, at most one byte past the limit, and handed on with the Content-Length it
had; and any request whose length is past the limit is refused (413 payload_too_large) before a view
runs, whether the view reads a body or not.
"""

from __future__ import annotations

import io

from flask import request
from werkzeug.exceptions import RequestEntityTooLarge


class _Measure:
    """WSGI middleware: give a chunked body a Content-Length (and the first limit + 1 bytes at most)."""

    def __init__(self, app, limit: int):
        self.app = app
        self.limit = limit

    def __call__(self, environ, start_response):
        if not environ.get("CONTENT_LENGTH") and environ.get("HTTP_TRANSFER_ENCODING"):
            stream, body = environ["wsgi.input"], bytearray()
            while len(body) <= self.limit:
                chunk = stream.read(self.limit + 1 - len(body))
                if not chunk:
                    break
                body += chunk
            # Past the limit, the length says so and nothing is handed on: the request is refused.
            # The body is no longer chunked (werkzeug ignores Content-Length beside Transfer-Encoding).
            del environ["HTTP_TRANSFER_ENCODING"]
            environ["CONTENT_LENGTH"] = str(len(body))
            environ["wsgi.input"] = io.BytesIO(bytes(body) if len(body) <= self.limit else b"")
        return self.app(environ, start_response)


def init_app(app) -> None:
    """Measure chunked bodies and refuse every body past MAX_CONTENT_LENGTH (413)."""
    limit = app.config["MAX_CONTENT_LENGTH"]
    app.wsgi_app = _Measure(app.wsgi_app, limit)

    @app.before_request
    def _refuse_large_body():
        if request.content_length is not None and request.content_length > limit:
            raise RequestEntityTooLarge()
