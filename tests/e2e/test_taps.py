"""Taps and scrolls per turn for one scripted duo game on two phones (390x844), printed and written to
artifacts/taps.json. The same script (tests/e2e/tapgame.py) measures any version of the client: run with
TAPS_LABEL=before in a worktree of an older commit and it writes artifacts/taps-before.json instead;
copied next to today's, that figure is kept beside today's in taps.json under "before".

Two tables play it: one that makes the greedy bot's moves (the figure kept since the first client, to
compare versions), and one that follows the flow: every move is the app's own hint (engine.bots.hint,
what GET /hint answers; it depends on the position only). The goal for the table that follows the
flow: at most 6 taps per turn at the median (a move is one tap on a lit target, confirmations only
where a choice is real); the moves the hint makes are themselves some 7 a turn at the median. While one
phone waits, its offer of a notification names the other player and lies over none of the hand."""

from __future__ import annotations

import json
import os

import pytest

import engine.bots
from engine.bots import hint
from tests.e2e.conftest import ROOT
from tests.e2e.tapgame import new_duo, open_seat, pin_seed, play

KEYS = ("seat", "taps", "scrolls", "moves", "pick", "confirm", "away", "away_lines")
TARGET = 6  # taps per turn, median: the goal for a table that follows the flow (not reached yet)
# What this game measured once the flow spared its taps (before: greedy 11, hint 10 at the median): a
# client that needs more taps fails here.
MEDIAN_MAX = {"greedy": 9, "hint": 8}
# The offer of a notification on the waiting phone: its text, and whether it overlaps the hand.
OFFER = """() => { const o = document.querySelector('[data-follow="notify-offer"]'); if (!o) return null;
  const a = o.getBoundingClientRect(), h = document.querySelector('.handbox').getBoundingClientRect();
  const overlap = Math.max(0, Math.min(a.bottom, h.bottom) - Math.max(a.top, h.top));
  return { text: o.textContent, overlap,
           grown: document.scrollingElement.scrollHeight - innerHeight }; }"""


def _follow_the_hint(monkeypatch):
    """The tap script's moves become the hint's (it asks the greedy bot; nothing else in the test does)."""
    real = engine.bots.choose

    def choose(name, view, seed, **budget):
        return hint.hint(view, seed)[0] if name == "greedy" else real(name, view, seed, **budget)

    monkeypatch.setattr(engine.bots, "choose", choose)


@pytest.mark.parametrize("table", ["greedy", "hint"])
def test_taps_and_scrolls_per_turn(phone, server, monkeypatch, table):
    pin_seed(monkeypatch)
    if table == "hint":
        _follow_the_hint(monkeypatch)
    game_id, tokens = new_duo(server)
    a, b = phone("seat0"), phone("seat1")
    open_seat(a, game_id, 0, tokens[0])
    open_seat(b, game_id, 1, tokens[1])
    offers = []

    def waiting_phone(page, view):
        other = b if page is a else a
        if len(offers) < 3 and (seen := other.evaluate(OFFER)) is not None:
            offers.append(seen)

    meter = play(server, game_id, tokens, [a, b], decision=waiting_phone)
    summary = meter.summary()
    out = {"client": os.environ.get("TAPS_LABEL", "current"), "table": table, "viewport": "390x844",
           **summary, "per_turn": [{k: t.get(k, 0) for k in KEYS} for t in meter.turns]}
    suffix = "" if table == "greedy" else f"-{table}"
    name = f"taps-before{suffix}.json" if os.environ.get("TAPS_LABEL") == "before" else f"taps{suffix}.json"
    path = ROOT / "artifacts" / name
    path.parent.mkdir(parents=True, exist_ok=True)
    before = ROOT / "artifacts" / f"taps-before{suffix}.json"
    if not path.name.startswith("taps-before") and before.exists():
        b_sum = json.loads(before.read_text())
        out["before"] = {k: b_sum[k] for k in b_sum if k != "per_turn"}
    path.write_text(json.dumps(out, indent=1))
    print("\ntaps/scrolls per turn:", json.dumps({k: v for k, v in out.items() if k != "per_turn"}))
    assert summary["turns"] >= 10
    if out["client"] == "current":
        assert summary["taps_median"] <= MEDIAN_MAX[table], summary
        if table == "hint":
            # The app never asks "Harvest anyway?" about a move its own hint makes.
            assert summary["taps_by_kind"]["confirm"] == 0, summary
        assert offers, "the waiting phone never offered a notification"
        for seen in offers:
            assert "Player" in seen["text"] and "other player" not in seen["text"], seen
            assert seen["overlap"] == 0 and seen["grown"] <= 1, seen
        # Every turn but the first starts with what the other player did; it lies over no target (no
        # tap is spent on it) and at least three of its lines can be read where it is (in the greedy
        # game; the hint's game has turns with three leftover bundles and eight cards in hand, where
        # the picked bundle's buttons leave the summary less room: it scrolls in its place).
        assert summary["away_shown"] >= summary["turns"] - 2, summary
        assert summary["taps_by_kind"]["away"] == 0, summary
        if table == "greedy":
            assert summary["away_lines_min"] >= 3, summary
