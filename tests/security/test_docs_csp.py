"""The Swagger UI at /api/docs/ carries a Content-Security-Policy (api.http.web) and still works under it
in Chromium: the document is drawn, no directive is violated, and an injected inline script would not
run. Issue 29, finding 9: Swagger UI was served without a Content-Security-Policy."""

from __future__ import annotations

import shutil

import pytest
import requests

from api.store.memory import MemoryStore
from tests.live.servers import ThreadServer

CHROMIUM = "/usr/bin/chromium"


@pytest.fixture(scope="module")
def server():
    with ThreadServer(MemoryStore()) as running:
        yield running


def test_the_docs_page_has_a_strict_policy(server) -> None:
    resp = requests.get(server.url + "/api/docs/", timeout=10)
    assert resp.status_code == 200
    policy = dict(part.strip().split(" ", 1) for part in resp.headers["Content-Security-Policy"].split(";"))
    assert policy["default-src"] == "'none'" and policy["frame-ancestors"] == "'none'"
    assert "'unsafe-inline'" not in policy["script-src"] and "'unsafe-eval'" not in policy["script-src"]
    assert policy["script-src"].startswith("'self' 'sha256-")  # the page's own configuration script only
    assert policy["connect-src"] == "'self'" and policy["object-src"] == "'none'"


@pytest.mark.skipif(shutil.which(CHROMIUM) is None, reason="needs Debian's chromium")
def test_swagger_ui_works_under_its_policy(server) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            page = browser.new_page()
            violations: list[str] = []
            page.on("console", lambda msg: violations.append(msg.text)
                    if "Content Security Policy" in msg.text else None)
            page.goto(server.url + "/api/docs/")
            page.wait_for_selector(".swagger-ui .info .title", timeout=15000)
            assert "Al Cabohne Online" in page.inner_text(".swagger-ui .info .title")
            page.wait_for_selector(".opblock", timeout=15000)  # the operations, from openapi.json
            # An inline script added to the page is refused.
            ran = page.evaluate("""() => {
                window.__ran = false;
                const s = document.createElement('script');
                s.textContent = 'window.__ran = true';
                document.body.appendChild(s);
                return window.__ran;
            }""")
            assert ran is False
            assert [v for v in violations if "__ran" not in v and "inline script" not in v] == [], violations
        finally:
            browser.close()
