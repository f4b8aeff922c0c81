"""The site root, where the PWA (a later issue) will be served; for now a small page pointing at the API."""

from __future__ import annotations

from flask import Blueprint

bp = Blueprint("web", __name__)

PLACEHOLDER = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width">
<title>Al Cabohne Online</title></head>
<body><h1>Al Cabohne Online</h1>
<p>The phone client is on its way. Meanwhile the API is documented at <a href="/api/docs">/api/docs</a>.</p>
</body></html>
"""


@bp.get("/")
def index():
    """Serve the client's entry page."""
    return PLACEHOLDER, 200, {"Content-Type": "text/html; charset=utf-8"}
