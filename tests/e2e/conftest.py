"""Real-browser fixtures: the app served by werkzeug in a thread, Debian's Chromium driven by Playwright.

Never `playwright install`: the browsers are Debian's (.ci/run installs them). Most pages run in
/usr/bin/chromium-headless-shell: the same Chromium build without a window (the headless mode Playwright
uses by default), which takes far less CPU time for the same pages. A page that needs what only the
whole browser has (asking for the notification permission: the shell always refuses it) runs in
/usr/bin/chromium (`phone(..., whole=True)`).
Without them the e2e tests skip, except under ALCABOHNE_CI=1, where a missing browser is a failure.
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
from tests.contract import watch_problems

CHROMIUM = "/usr/bin/chromium"
HEADLESS = "/usr/bin/chromium-headless-shell"
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
    # A generous join limit: every test joins from the same address. The computer searches a few
    # playouts a move instead of the server's 32: these tests look at how its moves reach the screen, not
    # at how well it plays (tests/bots), and a whole game against it went at the pace of its search.
    app = watch_problems(create_app({"STORE": store, "JOIN_LIMIT": 1000, "WS_PING_INTERVAL": 5.0,
                                     "BOT_MC_PLAYOUTS": 4}))
    srv = make_server("127.0.0.1", 0, whole_files(app), threaded=True, request_handler=QuietHandler)
    thread = threading.Thread(target=srv.serve_forever, name="e2e-werkzeug", daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{srv.server_port}"
    srv.shutdown()
    srv.server_close()
    thread.join(timeout=5)
    close_app(app)
    store.close()


# What the pages of the running test reported: an uncaught exception or a console error of any page
# of any context, whoever made it (the `phone` factory, a test's own context, a second browser).
PROBLEMS: list[str] = []


def watch_page(page, name: str) -> None:
    page.on("pageerror", lambda err: PROBLEMS.append(f"{name}: {err}"))
    page.on("console", lambda msg: PROBLEMS.append(f"{name}: console {msg.text}")
            if msg.type == "error" and not _expected(msg.text) else None)


def watch_context(ctx, name: str = "page") -> None:
    for page in ctx.pages:
        watch_page(page, name)
    ctx.on("page", lambda page: watch_page(page, name))


class WatchedBrowserType:
    """`browser.browser_type`, whose launch() gives a watched browser too."""

    def __init__(self, real):
        self._real = real

    def launch(self, *args, **kwargs):
        return WatchedBrowser(self._real.launch(*args, **kwargs))

    def __getattr__(self, name):
        return getattr(self._real, name)


class WatchedBrowser:
    """A Playwright Browser whose every new context (and so every page) is watched for errors."""

    def __init__(self, real):
        self._real = real

    def new_context(self, *args, **kwargs):
        ctx = self._real.new_context(*args, **kwargs)
        watch_context(ctx)
        return ctx

    def new_page(self, *args, **kwargs):
        page = self._real.new_page(*args, **kwargs)
        watch_page(page, "page")
        return page

    @property
    def browser_type(self):
        return WatchedBrowserType(self._real.browser_type)

    def __getattr__(self, name):
        return getattr(self._real, name)


@pytest.fixture(autouse=True)
def page_errors(request):
    """Fail every browser test on an uncaught exception or a console error of any of its pages."""
    PROBLEMS.clear()
    yield PROBLEMS
    problems, PROBLEMS[:] = PROBLEMS[:], []
    assert not problems, problems


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_call(item):
    """An error reported while the test ran fails the test itself (not only its teardown)."""
    outcome = yield
    if PROBLEMS and outcome.excinfo is None:
        outcome.force_exception(AssertionError(f"page errors: {PROBLEMS[:5]}"))
        PROBLEMS.clear()  # reported once; the teardown check sees only what comes later


# The pages of the running test's `phone` factory, by name: what they showed is reported if it fails.
OPEN: list[tuple[str, object]] = []
# What a page shows, in a few words: enough to tell a stuck screen from a slow one in CI's output.
SHOWN = """() => { const t = document.querySelector('.table');
  return { hash: location.hash, table: t ? { ...t.dataset } : null,
           screen: (document.querySelector('main') || document.body).innerText.slice(0, 400) }; }"""


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A failed browser test reports what each of its pages showed, with a screenshot of each."""
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed or not OPEN:
        return
    lines = []
    for name, page in OPEN:
        try:
            shown = page.evaluate(SHOWN)
            path = SHOTS / f"failed-{item.name}-{name}.png"
            SHOTS.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(path), timeout=5000)
            lines.append(f"{name}: {shown} ({path.name})")
        except Exception as err:  # noqa: BLE001 - a closed or broken page says so instead
            lines.append(f"{name}: cannot be read ({type(err).__name__})")
    report.sections.append(("pages when the test failed", "\n".join(lines)))


def need(path: str, package: str) -> None:
    if not os.path.exists(path):
        if os.environ.get("ALCABOHNE_CI") == "1":
            pytest.fail(f"{path} is missing (CI installs Debian's {package}; see .ci/run)")
        pytest.skip(f"{path} is missing (apt-get install {package})")


@pytest.fixture(scope="session")
def playwright_driver():
    need(HEADLESS, "chromium-headless-shell")
    need(CHROMIUM, "chromium")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="session")
def browser(playwright_driver):
    b = playwright_driver.chromium.launch(executable_path=HEADLESS, args=ARGS)
    yield WatchedBrowser(b)
    b.close()


@pytest.fixture(scope="session")
def whole_browser(playwright_driver):
    """The whole browser, started for the first test of this worker that asks for it."""
    b = playwright_driver.chromium.launch(executable_path=CHROMIUM, args=ARGS)
    yield WatchedBrowser(b)
    b.close()


@pytest.fixture
def phone(request, browser, server):
    """A factory of phone-sized pages (each its own context: its own localStorage, like a device).

    `whole=True`: a page of the whole browser instead of the headless shell (see above).

    Console errors (CSP violations included) and uncaught exceptions fail the test (`page_errors`).

    The service worker is blocked unless a test asks for it (`service_workers="allow"`): installing it
    fetches every file of the app shell once more in each new context, while a test's pages are loaded
    from the network anyway (the offline start and the notifications are the tests that need it).
    """
    contexts = []

    def make(name: str = "phone", whole: bool = False, **options):
        motion = options.pop("reduced_motion", "reduce")
        host = request.getfixturevalue("whole_browser") if whole else browser
        ctx = host._real.new_context(viewport=options.pop("viewport", PHONE), device_scale_factor=1,
                                     has_touch=True, reduced_motion=motion,
                                     service_workers=options.pop("service_workers", "block"),
                                     locale=options.pop("locale", "en-US"), base_url=server, **options)
        ctx.set_default_timeout(10000)
        contexts.append(ctx)
        watch_context(ctx, name)
        page = ctx.new_page()
        OPEN.append((name, page))
        return page

    yield make
    OPEN.clear()
    for ctx in contexts:
        ctx.close()


def _expected(text: str) -> bool:
    # A fetch or socket refused while a test deliberately cuts the network is not an error of the app.
    return any(s in text for s in ("ERR_INTERNET_DISCONNECTED", "ERR_CONNECTION_RESET",
                                   "ERR_CONNECTION_REFUSED", "WebSocket connection"))
