"""Driving the client like a player: pick a highlighted target, tap it, wait for the answer.

The choice is made from what the page offers (buttons carry `data-act` / `data-pick`), never from the
API, so every move of these tests went through a tap on the screen.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.conftest import ROOT, SHOTS

AXE = ROOT / "pwa" / "vendor" / "axe-core" / "axe.min.js"

# In the page: the selector of the next thing to tap, "OVER", "BUSY", "WAIT" (not our turn) or None.
# The "While you were away" summary at the start of a turn covers nothing: no tap is spent on it.
PICK = """() => {
  if (document.querySelector('[data-follow-log="sync"]')) return 'BUSY'; // the summary may be on its way
  // A harvest that pays nothing waits for its yes (the only tap that harvests for nothing).
  if (document.querySelector('[data-confirm=yes]')) return '[data-confirm=yes]';
  const t = document.querySelector('.table');
  // Pass-and-play: the curtain means the turn went to the other seat (maybe by a move the client made
  // itself because it was the only one); passing the phone is the caller's business.
  if (!t) return document.querySelector('[data-curtain]') ? 'WAIT' : null;
  if (t.dataset.phase === 'over') return 'OVER';
  if (t.dataset.busy === '1') return 'BUSY';
  const first = (s) => { const el = document.querySelector(s); return el ? el : null; };
  const sel = (el) => el.dataset.act ? `[data-act="${el.dataset.act}"]` : `[data-pick="${el.dataset.pick}"]`;
  const picked = first('.pick.on');
  if (picked) {
    // A field may offer "harvest + plant" for the picked bundle when it can go nowhere else.
    const dest = first('[data-act^="plant_display"], [data-act^="give_display"], '
      + '[data-act^="discard_display"], [data-act^="give_hand"], '
      + '[data-act^="harvest"][data-act*="+plant_display"]');
    if (dest) return sel(dest);
  }
  for (const s of ['[data-act="end_phase"]', '[data-act^="plant_hand"]', '[data-act^="pay"]',
                   '[data-pick^="bundle"]', '[data-pick^="hand"]', '[data-act^="harvest"]',
                   '[data-act="buy_field"]']) {
    const el = first(s);
    if (el) return sel(el);
  }
  return 'WAIT';
}"""

SETTLED = """(old) => {
  const t = document.querySelector('.table');
  if (!t) return Boolean(document.querySelector('[data-curtain]'));
  return t.dataset.busy === '0' && t.dataset.version !== old;
}"""


# Steps playing, a move in flight or the client's own sole move: wait until the table takes taps again,
# or the curtain came up because that move ended the turn.
IDLE = """() => {
  if (document.querySelector('[data-follow-log="sync"]')) return false;
  const t = document.querySelector('.table');
  return t ? t.dataset.busy === '0' : Boolean(document.querySelector('[data-curtain]'));
}"""


SETTLED_OR_ASKED = """(old) => Boolean(document.querySelector('[data-confirm=yes]'))
  || (""" + SETTLED + """)(old)"""


PHASE = "() => { const t = document.querySelector('.table'); return t && t.dataset.phase; }"

# One round trip before a tap: the phase, the version shown and what PICK would tap, at the same moment.
LOOK = ("() => { const t = document.querySelector('.table');"
        " return { phase: t && t.dataset.phase, version: t && t.dataset.version,"
        " choice: (" + PICK + ")() }; }")


def version(page) -> int:
    return int(page.get_attribute(".table", "data-version"))


def step(page, look: dict | None = None) -> str:
    """Tap the next target; return what was done: a selector, "OVER" or "WAIT". `look`: the page's LOOK,
    if the caller has just taken it."""
    look = look or page.evaluate(LOOK)
    choice = look["choice"]
    if choice in ("OVER", "WAIT", None):
        return choice
    if choice == "BUSY":
        page.wait_for_function(IDLE)
        return choice
    old = look["version"] if look["version"] is not None else page.get_attribute(".table", "data-version")
    page.click(choice)
    if "data-act" in choice or "data-confirm" in choice:
        page.wait_for_function(SETTLED_OR_ASKED, arg=old)
    return choice


def close_away(page) -> None:
    """Close the "While you were away" summary with its button if the turn starts with one."""
    page.wait_for_selector('[data-follow-log="sync"]', state="detached")
    if page.locator('[data-follow="away"]').count():
        page.click('[data-follow="away-close"]')
        page.wait_for_selector('[data-follow="away"]', state="detached")


# The phases of a turn with decisions, in order: an earlier one than before means a new turn began
# (the client ends a turn by itself when nothing is left to choose; in solo the seat stays).
PHASE_ORDER = {"leftovers": 0, "protection": 1, "plant": 2, "use": 3}


def play_turn(page, limit: int = 60) -> list[str]:
    """Play until it is no longer this page's turn (or the game is over); return the taps."""
    taps = []
    last = None
    for _ in range(limit):
        # One look: the table may give way to the pass-and-play curtain at any moment.
        # Only the phases with decisions are compared: a page between two (no table, the curtain, an
        # automatic phase) says nothing about whose turn it is.
        look = page.evaluate(LOOK)
        rank = PHASE_ORDER.get(look["phase"])
        if taps and rank is not None and last is not None and rank < last:
            return taps  # the turn ended without a tap on "End turn"
        last = rank if rank is not None else last
        done = step(page, look)
        if done in ("OVER", "WAIT", None):
            return taps
        taps.append(done)
        if done == '[data-act="end_phase"]' and rank == PHASE_ORDER["use"]:
            return taps  # the turn is over (in solo the next one is ours again)
    raise AssertionError(f"turn did not end after {limit} taps: {taps[-10:]}")


def shot(page, name: str) -> Path:
    SHOTS.mkdir(parents=True, exist_ok=True)
    path = SHOTS / f"{name}.png"
    page.evaluate("() => window.scrollTo(0, 0)")  # else the sticky header lands mid-page in the picture
    page.screenshot(path=str(path), full_page=True)
    return path


def axe_check(page, name: str) -> None:
    """Screenshot the screen, then fail on serious or critical axe-core violations."""
    shot(page, name)
    if not page.evaluate("() => typeof window.axe !== 'undefined'"):
        # evaluate() runs through the devtools protocol, so the page's CSP does not block the scanner.
        page.evaluate(AXE.read_text(encoding="utf-8"))
    result = page.evaluate("async () => (await axe.run(document, {resultTypes: ['violations']})).violations")
    bad = [{"id": v["id"], "impact": v["impact"], "nodes": [n["target"] for n in v["nodes"]][:5]}
           for v in result if v["impact"] in ("serious", "critical")]
    assert not bad, f"{name}: " + json.dumps(bad, indent=1)
