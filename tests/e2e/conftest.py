"""Real-browser fixtures: the app served by werkzeug in a thread, Debian's Chromium driven by Playwright.

Never `playwright install`: the browser is /usr/bin/chromium (.ci/run installs it). Without it the e2e
tests skip, except under ALCABOHNE_CI=1, where a missing browser is a failure.
"""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from werkzeug.serving import WSGIRequestHandler, make_server

from api import close as close_app
from api import create_app
from api.store import open_store

CHROMIUM = "/usr/bin/chromium"
ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic"]
ROOT = Path(__file__).resolve().parents[2]
SHOTS = ROOT / "artifacts" / "screenshots"
PHONE = {"width": 390, "height": 844}


class QuietHandler(WSGIRequestHandler):
    def log_request(self, *args, **kwargs):  # one line per request would drown the test output
        pass


def whole_files(app):
    """The app, handing out static files read at once and closed.

    When the browser drops a connection (a page that navigates on), werkzeug's server may fail while it
    drains the request in a `finally` and skip the response's close(); a file being sent is then left to
    the garbage collector, and its ResourceWarning fails whichever test it lands in. gunicorn always
    closes, so this concerns the test server only. The PWA's files are small."""

    def read_whole(file, _buffer_size=8192):
        with file:
            return [file.read()]

    def serve(environ, start_response):
        environ["wsgi.file_wrapper"] = read_whole
        return app(environ, start_response)

    return serve


def pytest_collection_modifyitems(items):
    for item in items:
        if Path(str(item.fspath)).is_relative_to(Path(__file__).parent):
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """The whole app (API, websocket, PWA) on a free loopback port, with a SQLite store."""
    db = tmp_path_factory.mktemp("e2e") / "games.db"
    store = open_store(f"sqlite:///{db}")
    # A generous join limit: every test joins from the same address.
    app = create_app({"STORE": store, "JOIN_LIMIT": 1000, "WS_PING_INTERVAL": 5.0})
    srv = make_server("127.0.0.1", 0, whole_files(app), threaded=True, request_handler=QuietHandler)
    thread = threading.Thread(target=srv.serve_forever, name="e2e-werkzeug", daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_port}"
    srv.shutdown()
    srv.server_close()
    thread.join(timeout=5)
    close_app(app)
    store.close()


@pytest.fixture(scope="session")
def browser():
    if not os.path.exists(CHROMIUM):
        if os.environ.get("ALCABOHNE_CI") == "1":
            pytest.fail(f"{CHROMIUM} is missing (CI installs Debian's chromium; see .ci/run)")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield b
        b.close()


@pytest.fixture
def phone(browser, server):
    """A factory of phone-sized pages (each its own context: its own localStorage, like a device).

    Console errors (CSP violations included) and uncaught exceptions fail the test.
    """
    contexts = []
    problems: list[str] = []

    def make(name: str = "phone", **options):
        ctx = browser.new_context(viewport=options.pop("viewport", PHONE), device_scale_factor=1,
                                  has_touch=True, reduced_motion=options.pop("reduced_motion", "reduce"),
                                  locale=options.pop("locale", "en-US"), base_url=server, **options)
        ctx.set_default_timeout(10000)
        contexts.append(ctx)
        page = ctx.new_page()
        page.on("pageerror", lambda err: problems.append(f"{name}: {err}"))
        page.on("console", lambda msg: problems.append(f"{name}: console {msg.text}")
                if msg.type == "error" and not _expected(msg.text) else None)
        return page

    yield make
    for ctx in contexts:
        ctx.close()
    assert not problems, problems


def _expected(text: str) -> bool:
    # A fetch or socket refused while a test deliberately cuts the network is not an error of the app.
    return any(s in text for s in ("ERR_INTERNET_DISCONNECTED", "ERR_CONNECTION_RESET",
                                   "WebSocket connection"))
