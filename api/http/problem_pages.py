"""The problem type pages: the `type` URI of every problem body (api.errors.type_uri) resolves here.

`GET /api/v1/problems/{code}` is a short HTML page for one code (its status, what it means, what to do)
and `GET /api/v1/problems` lists them all. Both are built from api.errors.CODES and ADVICE, the one list
of codes, so a new code has its page as soon as it exists.
"""

from __future__ import annotations

import html
import re

from flask import current_app
from flask_smorest import Blueprint

from api.errors import ADVICE, CODES, PROBLEM_TYPE, TYPE_BASE, ApiError, type_uri
from api.http.schemas import ProblemSchema

blp = Blueprint("problems", __name__, url_prefix=TYPE_BASE.rstrip("/"),
                description="The problem types: one page per error code.")

# Pages of text only: nothing to run, load or frame.
HEADERS = {
    "Content-Security-Policy": "default-src 'none'; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Cache-Control": "public, max-age=3600",
}


def _inline(text: str) -> str:
    """Escape `text` and show its `backticked` words as code."""
    return re.sub(r"`([^`]+)`", r"<code>\1</code>", html.escape(text, quote=False))


def _page(title: str, body: str):
    doc = (f'<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>{html.escape(title)}'
           f'</title></head>\n<body>\n{body}\n</body>\n</html>\n')
    resp = current_app.response_class(doc, mimetype="text/html")
    resp.headers.update(HEADERS)
    return resp


@blp.route("/<code>", methods=["GET"])
@blp.response(200, description="The page of this problem type: its code, status, meaning and what a client "
              "should do.", content_type="text/html")
@blp.alt_response(404, schema=ProblemSchema, description="Not Found: code not_found (no such problem type)",
                  content_type=PROBLEM_TYPE)
@blp.alt_response(413, schema=ProblemSchema, description="Request Entity Too Large: code payload_too_large",
                  content_type=PROBLEM_TYPE)
def problem_page(code: str):
    """Describe one problem type (the `type` of a problem body)."""
    if code not in CODES:
        raise ApiError("not_found", f"No problem type {code!r}; GET {TYPE_BASE.rstrip('/')} lists them.")
    status, title = CODES[code]
    also = " (415 for a body not sent as application/json)" if code == "invalid_request" else ""
    body = (f"<h1><code>{code}</code></h1>\n"
            f"<p>Status: <strong>{status}</strong>{also}. Type: <code>{type_uri(code)}</code>.</p>\n"
            f"<p>{_inline(title)}.</p>\n<p>{_inline(ADVICE[code])}</p>\n"
            f'<p>Every error code: <a href="{TYPE_BASE.rstrip("/")}">the list of problem types</a>.</p>')
    return _page(f"{code} - Al Cabohne Online API", body)


@blp.route("", methods=["GET"])
@blp.response(200, description="Every problem type, with its status and title.", content_type="text/html")
@blp.alt_response(413, schema=ProblemSchema, description="Request Entity Too Large: code payload_too_large",
                  content_type=PROBLEM_TYPE)
def problem_index():
    """List every problem type."""
    rows = "\n".join(f'<li><a href="{type_uri(code)}"><code>{code}</code></a> ({status}): '
                     f"{_inline(title)}</li>" for code, (status, title) in CODES.items())
    body = ("<h1>Problem types</h1>\n<p>Every error of the API is an <code>application/problem+json</code> "
            "body (RFC 9457) whose <code>type</code> is the address of one of these pages and whose "
            f"<code>code</code> names it.</p>\n<ul>\n{rows}\n</ul>")
    return _page("Problem types - Al Cabohne Online API", body)
