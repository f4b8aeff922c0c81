"""A real server restart (gunicorn, as deployed): the socket drops, the client notices, reconnects with
backoff and catches up on a move made meanwhile, without a reload."""

from __future__ import annotations

import json
import urllib.request

from tests.e2e.conftest import PHONE
from tests.e2e.pages import version
from tests.live.servers import Gunicorn


def api(base: str, method: str, path: str, token: str, body: dict | None = None) -> dict:
    headers = {"Authorization": f"Bearer {token}", "Content-Type": "application/json",
               "Idempotency-Key": "restart-test-move"}
    req = urllib.request.Request(f"{base}/api/v1{path}", method=method, headers=headers,
                                 data=None if body is None else json.dumps(body).encode())
    with urllib.request.urlopen(req, timeout=5) as resp:
        return json.load(resp)


def test_reconnects_and_catches_up_after_a_server_restart(browser, tmp_path):
    with Gunicorn(f"sqlite:///{tmp_path / 'games.db'}", workers=1, threads=16, ping=2.0) as server:
        ctx = browser.new_context(viewport=PHONE, reduced_motion="reduce", base_url=server.url)
        try:
            page = ctx.new_page()
            page.goto("/")
            page.click("[data-new=solo]")
            page.wait_for_selector(".conn-live")
            game_id, record = next(iter(page.evaluate("() => JSON.parse(localStorage.getItem('alc.games'))")
                                        .items()))
            token = record["tokens"]["0"]
            before = version(page)

            # restart() returns once the new server answers; watch the indicator from inside the page.
            page.evaluate("() => { window.__drops = 0; new MutationObserver(() => {"
                          " if (!document.querySelector('.conn-live')) window.__drops += 1; })"
                          ".observe(document.body, {subtree: true, childList: true, attributes: true}); }")
            server.restart()
            page.wait_for_function("() => window.__drops > 0", timeout=15000)  # it noticed the drop
            # The same seat moves from elsewhere (another tab) while this page is cut off.
            game = api(server.url, "GET", f"/games/{game_id}", token)
            api(server.url, "POST", f"/games/{game_id}/actions", token,
                {"action": game["view"]["legal_actions"][0], "version": game["version"]})

            page.wait_for_function("(v) => Number(document.querySelector('.table').dataset.version) > v",
                                   arg=before, timeout=15000)
            page.wait_for_selector(".conn-live", timeout=15000)  # and the socket is back
        finally:
            ctx.close()
