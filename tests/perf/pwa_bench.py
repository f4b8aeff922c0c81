"""PWA benchmark (issue 5): bytes of a cold first load, and time from page load to an interactive table.

Run: .venv/bin/python tests/perf/pwa_bench.py [--runs N]
Serves the app on loopback (werkzeug, threaded, memory store) and drives Debian's /usr/bin/chromium.
- Bytes: every response the page receives on a cold load of `/` (fresh browser context, empty cache, no
  service worker yet), each body gzip-compressed at level 6, as a server or reverse proxy with gzip on
  would send it (werkzeug itself does not compress; the raw total is printed as well). Target: 150 KB.
- Time to interactive table: a game exists and this device holds its token (as after "resume"); from
  `page.goto('/#/g/<id>')` to the first highlighted legal target, by the driver's clock and by the page's
  own (navigation start to the DOM change). Median and max over N runs, cold (empty cache, no service
  worker) and as a return visit (app shell in the service worker's cache).
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from werkzeug.serving import WSGIRequestHandler, make_server  # noqa: E402

from api import create_app  # noqa: E402

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync", "--disable-quic"]
TARGET = 150 * 1024


class Quiet(WSGIRequestHandler):
    def log_request(self, *args, **kwargs):
        pass


def serve():
    app = create_app({"JOIN_LIMIT": 10000, "CREATE_LIMIT": 0, "MOVE_LIMIT": 0, "HELLO_LIMIT": 0})
    srv = make_server("127.0.0.1", 0, app, threaded=True, request_handler=Quiet)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    return srv, f"http://127.0.0.1:{srv.server_port}"


def new_game(base: str) -> dict:
    req = urllib.request.Request(f"{base}/api/v1/games", data=b'{"mode": "solo"}',
                                 headers={"Content-Type": "application/json"}, method="POST")
    with urllib.request.urlopen(req) as resp:
        return json.load(resp)


def cold_bytes(browser, base: str) -> list[tuple[str, int, int]]:
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, service_workers="block")
    page = ctx.new_page()
    seen: list = []
    page.on("response", lambda r: seen.append(r))
    page.goto(base + "/", wait_until="networkidle")
    page.wait_for_selector("[data-new=solo]")
    rows = []
    for r in seen:
        try:
            body = r.body()
        except Exception:  # noqa: BLE001 - a redirect or aborted request has no body
            body = b""
        rows.append((r.url.replace(base, ""), len(body), len(gzip.compress(body, 6))))
    ctx.close()
    return rows


def time_to_table(browser, base: str, *, warm: bool = False) -> tuple[float, float]:
    """Return (driver seconds, page-clock seconds) from navigation to the first legal target.

    warm: a return visit: the service worker and HTTP cache hold the app shell from a first visit."""
    game = new_game(base)
    record = {game["game_id"]: {"mode": "solo", "tokens": {"0": game["token"]}, "created": 0}}
    ctx = browser.new_context(viewport={"width": 390, "height": 844},
                              service_workers="allow" if warm else "block")
    if warm:
        first = ctx.new_page()
        first.goto(base + "/")
        first.evaluate("async () => { await navigator.serviceWorker.ready; }")
        first.close()
    ctx.add_init_script(f"localStorage.setItem('alc.games', {json.dumps(json.dumps(record))})")
    # The page's own clock, at the first DOM change that shows a legal target (no driver polling in it).
    ctx.add_init_script("new MutationObserver((m, o) => { if (document.querySelector('[data-act]')) {"
                        " window.__tti = performance.now(); o.disconnect(); } })"
                        ".observe(document, {subtree: true, childList: true})")
    page = ctx.new_page()
    t0 = time.perf_counter()
    page.goto(f"{base}/#/g/{game['game_id']}")
    page.wait_for_selector("[data-act]")
    elapsed = time.perf_counter() - t0
    in_page = page.evaluate("() => window.__tti") / 1000
    ctx.close()
    return elapsed, in_page


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    srv, base = serve()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            rows = cold_bytes(browser, base)
            times = [time_to_table(browser, base) for _ in range(args.runs)]
            warm = [time_to_table(browser, base, warm=True) for _ in range(args.runs)]
            browser.close()
    finally:
        srv.shutdown()
    raw = sum(r[1] for r in rows)
    gz = sum(r[2] for r in rows)
    for url, size, packed in sorted(rows, key=lambda r: -r[2]):
        print(f"{packed:8d} {size:8d}  {url}")
    print(f"cold first load: {len(rows)} requests, {gz / 1024:.1f} KB gzip ({raw / 1024:.1f} KB raw); "
          f"target {TARGET // 1024} KB: {'ok' if gz <= TARGET else 'OVER'}")
    for runs, kind in ((times, "cold"), (warm, "return visit")):
        for i, label in ((0, "driver"), (1, "page clock")):
            col = [t[i] * 1000 for t in runs]
            print(f"load -> interactive table, {kind}, {label}: median {statistics.median(col):.0f} ms, "
                  f"max {max(col):.0f} ms over {len(col)} runs")


if __name__ == "__main__":
    main()
