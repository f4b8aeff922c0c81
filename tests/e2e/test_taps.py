"""Taps and scrolls per turn for one scripted duo game on two phones (390x844), printed and written to
artifacts/taps.json. The same script (tests/e2e/tapgame.py) measures any version of the client: run with
TAPS_LABEL=before in a worktree of an older commit and it writes artifacts/taps-before.json instead;
copied next to today's, that figure is kept beside today's in taps.json under "before"."""

from __future__ import annotations

import json
import os

from tests.e2e.conftest import ROOT
from tests.e2e.tapgame import new_duo, open_seat, pin_seed, play

KEYS = ("seat", "taps", "scrolls", "moves", "pick", "confirm", "away", "away_lines")


def test_taps_and_scrolls_per_turn(phone, server, monkeypatch):
    pin_seed(monkeypatch)
    game_id, tokens = new_duo(server)
    a, b = phone("seat0"), phone("seat1")
    open_seat(a, game_id, 0, tokens[0])
    open_seat(b, game_id, 1, tokens[1])
    meter = play(server, game_id, tokens, [a, b])
    summary = meter.summary()
    out = {"client": os.environ.get("TAPS_LABEL", "current"), "viewport": "390x844", **summary,
           "per_turn": [{k: t.get(k, 0) for k in KEYS} for t in meter.turns]}
    name = "taps-before.json" if os.environ.get("TAPS_LABEL") == "before" else "taps.json"
    path = ROOT / "artifacts" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    before = ROOT / "artifacts" / "taps-before.json"
    if path.name == "taps.json" and before.exists():
        b_sum = json.loads(before.read_text())
        out["before"] = {k: b_sum[k] for k in b_sum if k != "per_turn"}
    path.write_text(json.dumps(out, indent=1))
    print("\ntaps/scrolls per turn:", json.dumps({k: v for k, v in out.items() if k != "per_turn"}))
    assert summary["turns"] >= 10
    if out["client"] == "current":
        # Every turn but the first starts with what the other player did; it lies over no target (no
        # tap is spent on it) and at least three of its lines can be read where it is.
        assert summary["away_shown"] >= summary["turns"] - 2, summary
        assert summary["taps_by_kind"]["away"] == 0, summary
        assert summary["away_lines_min"] >= 3, summary
