"""Taps benchmark (issue 27): taps and scrolls per turn of one scripted duo game, whole, on two phones.

Run: .venv/bin/python tests/perf/taps_bench.py [--table greedy|hint|both]
Serves the app on loopback (werkzeug, threaded, SQLite store in a temporary directory, as the browser
tests do) and drives Debian's /usr/bin/chromium: two phone-sized pages (390x844, touch, reduced motion),
one per seat, tap every decision of the game dealt from tests/e2e/tapgame.SEED (tests/e2e/tapgame.py:
a tap on something outside the viewport counts a scroll first; a move the client makes by itself costs
no tap). Two tables play it: "greedy" makes the greedy bot's moves (the figure kept since the first
client, to compare versions) and "hint" follows the flow: every move is the app's own hint
(engine.bots.hint, what GET /hint answers). The goal for the table that follows the flow: at most 6 taps
per turn at the median (a move is one tap on a lit target, confirmations only where a choice is real,
one tap for "harvest + plant"). A table that follows the flow also moves
what the phone picked for it first when it would move it next anyway and the game stays the same
(tapgame.picked_first). Each turn's taps are listed in the artifact ("log": the selectors tapped).

Prints the figures and writes artifacts/taps.json (greedy) and artifacts/taps-hint.json. The same script
measures any version of the client: run with TAPS_LABEL=before in a worktree of an older commit and it
writes artifacts/taps-before[-hint].json instead; copied next to today's, that figure is kept beside
today's under "before". The suite keeps a guard on the game's first turns (tests/e2e/test_taps.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from werkzeug.serving import make_server  # noqa: E402

from api import close as close_app  # noqa: E402
from api import create_app  # noqa: E402
from api.store import open_store  # noqa: E402
from tests import limits_off  # noqa: E402
from tests.e2e import tapgame  # noqa: E402
from tests.e2e.conftest import ARGS, CHROMIUM, PHONE, QuietHandler, whole_files  # noqa: E402

KEYS = ("seat", "taps", "scrolls", "moves", "pick", "confirm", "away", "away_lines", "combo", "first", "log")
TARGET = 6  # taps per turn, median: the goal for a table that follows the flow
# What the whole game measured with "harvest + plant" (before it: greedy 9, hint 8 at the median;
# before the flow spared its taps: greedy 11, hint 10).
MEDIAN_WAS = {"greedy": 8, "hint": 6}


def serve(db: Path):
    # A whole game's moves from one address (create_app reads these).
    for var, value in limits_off.ENV.items():
        os.environ.setdefault(var, value)
    store = open_store(f"sqlite:///{db}")
    app = create_app({"STORE": store, "JOIN_LIMIT": 1000, "WS_PING_INTERVAL": 5.0})
    srv = make_server("127.0.0.1", 0, whole_files(app), threaded=True, request_handler=QuietHandler)
    threading.Thread(target=srv.serve_forever, name="taps-werkzeug", daemon=True).start()
    return srv, app, store, f"http://127.0.0.1:{srv.server_port}"


def measure(browser, base: str, table: str) -> dict:
    """Play the whole pinned game at `table`; return the figures (as written to the artifact)."""
    errors: list[str] = []
    contexts = []

    def phone(name: str, whole: bool = True):  # always the whole browser here
        ctx = browser.new_context(viewport=PHONE, device_scale_factor=1, has_touch=True,
                                  reduced_motion="reduce", locale="en-US", base_url=base)
        ctx.set_default_timeout(10000)
        ctx.on("page", lambda p: p.on("console", lambda m: errors.append(f"{name}: {m.text}")
                                      if m.type == "error" else None))
        contexts.append(ctx)
        return ctx.new_page()

    with pytest.MonkeyPatch.context() as mp:
        game_id, tokens, (a, b) = tapgame.duo_table(base, phone, mp, table)
        offers: list = []
        t0 = time.perf_counter()
        waiting = tapgame.offers_of_the_waiting_phone(a, b, offers)
        meter = tapgame.play(base, game_id, tokens, [a, b], decision=waiting)
        seconds = time.perf_counter() - t0
    for ctx in contexts:
        ctx.close()
    summary = meter.summary()
    out = {"client": os.environ.get("TAPS_LABEL", "current"), "table": table, "viewport": "390x844",
           **summary, "per_turn": [{k: t.get(k, 0) for k in KEYS} for t in meter.turns]}
    print(f"{table}: played in {seconds:.1f} s; notification offers seen: {len(offers)}; "
          f"console errors: {errors[:3] or 'none'}")
    return out


def write(out: dict) -> Path:
    suffix = "" if out["table"] == "greedy" else f"-{out['table']}"
    label = os.environ.get("TAPS_LABEL")
    path = ROOT / "artifacts" / (f"taps-before{suffix}.json" if label == "before" else f"taps{suffix}.json")
    path.parent.mkdir(parents=True, exist_ok=True)
    before = ROOT / "artifacts" / f"taps-before{suffix}.json"
    if not path.name.startswith("taps-before") and before.exists():
        b_sum = json.loads(before.read_text())
        out["before"] = {k: b_sum[k] for k in b_sum if k != "per_turn"}
    path.write_text(json.dumps(out, indent=1))
    return path


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", choices=("greedy", "hint", "both"), default="both",
                        help="the greedy bot's moves, the hint's, or both (default)")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    tables = ("greedy", "hint") if args.table == "both" else (args.table,)
    with tempfile.TemporaryDirectory() as tmp:
        srv, app, store, base = serve(Path(tmp) / "games.db")
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
                results = [measure(browser, base, table) for table in tables]
                browser.close()
        finally:
            srv.shutdown()
            srv.server_close()
            close_app(app)
            store.close()
    for out in results:
        path = write(out)
        print(f"\ntaps/scrolls per turn ({out['table']}, {path.relative_to(ROOT)}):",
              json.dumps({k: v for k, v in out.items() if k != "per_turn"}))
        print(f"  taps per turn: {[t['taps'] for t in out['per_turn']]}")
        was = MEDIAN_WAS[out["table"]]
        print(f"  median {out['taps_median']} taps per turn (measured once: {was}; "
              f"{'no more' if out['taps_median'] <= was else 'MORE'}; goal {TARGET}: "
              f"{'met' if out['taps_median'] <= TARGET else 'not yet'})")


if __name__ == "__main__":
    main()
