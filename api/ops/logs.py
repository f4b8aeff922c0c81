"""Structured logs: one JSON object per line, a request id on every request, never a seat token.

- `init_app(app)` gives every request an id: the client's `X-Request-Id` when it looks like one (so a
  proxy's id follows the request through), else a new one; it is sent back in `X-Request-Id` and
  added to every log line written while the request (or websocket) is served.
- `JsonFormatter` is the formatter of every handler under gunicorn (deploy/gunicorn.conf.py
  `logconfig_dict`, gunicorn's own error and access logs included): `{"ts", "level", "logger",
  "msg", "request_id"?, "exc"?}`.
- Tokens: the app never logs a token, a header or a query string; as a second line of defence the
  formatter masks anything shaped like a bearer token or a `"token": ...` member before writing.
  Join and transfer codes are masked too (`code=`, `#join=`, `"join_code": ...`): gunicorn's own
  warnings quote a refused request line whole, query string included. `alcabohne serve` writes
  gunicorn's lines in their usual plain form through `PlainFormatter`, which masks the same.
"""

from __future__ import annotations

import json
import logging
import re
import time
import uuid
from contextvars import ContextVar

from flask import g, has_request_context, request

HEADER = "X-Request-Id"
# What we accept from a client as a request id: short, and nothing that could forge a log line.
_VALID_ID = re.compile(r"[A-Za-z0-9._:-]{1,64}\Z")
# A seat token is 43 URL-safe base64 characters (api.game.auth: 256 bits); mask any long run of those after
# "Bearer" or a token member, and any run of 40+ such characters at all (ids are 16, codes 6).
_SECRETS = [
    (re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]+"), r"\1***"),
    (re.compile(r'(?i)("?token"?\s*[:=]\s*"?)[^",}\s]+'), r"\1***"),
    (re.compile(r"[A-Za-z0-9_-]{40,}"), "***"),
    # Join and transfer codes (6 characters, typed with any case and separators): in a query string or
    # a join link, and as a JSON member (error codes, with their underscores, are left alone).
    (re.compile(r"(?i)((?:[?&;]|\\x26)(?:code|join)=)[^&;\s'\"\\]*"), r"\1***"),
    (re.compile(r"(?i)(#join=)[^&\s'\"\\]*"), r"\1***"),
    (re.compile(r'(?i)("(?:join_code|transfer_code|code)"\s*:\s*")[A-Za-z0-9 -]{1,16}(?=")'), r"\1***"),
]


def redact(text: str) -> str:
    """Return `text` with anything that looks like a seat token masked."""
    for pattern, repl in _SECRETS:
        text = pattern.sub(repl, text)
    return text


# The request id of a thread that serves a request outside Flask's request context: a websocket's
# reader thread, which answers its client's actions (api.live.ws). Threads start with an empty context,
# so what one thread binds no other thread sees.
_bound_request_id: ContextVar[str | None] = ContextVar("alcabohne_request_id", default=None)


def bind_request_id(request_id: str | None) -> None:
    """Make `request_id` the id of the calling thread's log lines outside a request context."""
    _bound_request_id.set(request_id)


def current_request_id() -> str | None:
    """Return the id of the request being served (or bound to this thread), or None."""
    if not has_request_context():
        return _bound_request_id.get()
    return g.get("request_id")


class JsonFormatter(logging.Formatter):
    """One JSON object per record; secrets masked (see the module docstring)."""

    converter = time.gmtime  # timestamps in UTC, as their "Z" says

    def format(self, record: logging.LogRecord) -> str:
        entry = {
            "ts": self.formatTime(record, "%Y-%m-%dT%H:%M:%S") + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "msg": redact(record.getMessage()),
        }
        rid = getattr(record, "request_id", None) or current_request_id()
        if rid:
            entry["request_id"] = rid
        if record.exc_info:
            entry["exc"] = redact(self.formatException(record.exc_info))
        return json.dumps(entry, ensure_ascii=False)


class PlainFormatter(logging.Formatter):
    """gunicorn's usual line (`[time] [pid] [LEVEL] message`), secrets masked as by JsonFormatter."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s [%(process)d] [%(levelname)s] %(message)s", "[%Y-%m-%d %H:%M:%S %z]")

    def format(self, record: logging.LogRecord) -> str:
        return redact(super().format(record))


def init_app(app) -> None:
    """Give every request an id (X-Request-Id in and out)."""

    @app.before_request
    def _request_id():
        given = request.headers.get(HEADER, "")
        g.request_id = given if _VALID_ID.match(given) else uuid.uuid4().hex

    @app.after_request
    def _echo_request_id(resp):
        rid = g.get("request_id")
        if rid:
            resp.headers[HEADER] = rid
        return resp


def logconfig_dict(level: str = "INFO", *, plain: bool = False) -> dict:
    """Return a logging.config dict that sends the app's and gunicorn's logs to stderr as JSON lines
    (gunicorn's `logconfig_dict` setting), or with `plain` as gunicorn's usual lines; masked either way."""
    handler = {"class": "logging.StreamHandler", "formatter": "json", "stream": "ext://sys.stderr"}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": {"json": {"()": f"{__name__}.{'PlainFormatter' if plain else 'JsonFormatter'}"}},
        "handlers": {"stderr": handler},
        "root": {"level": level, "handlers": ["stderr"]},
        "loggers": {
            "gunicorn.error": {"level": level, "handlers": ["stderr"], "propagate": False},
            "gunicorn.access": {"level": "INFO", "handlers": ["stderr"], "propagate": False},
        },
    }
