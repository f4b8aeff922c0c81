"""Playing without scrolling: scripted games (solo, and duo on two phones) where, at the sampled decisions
(tapgame.sampled: every phase and kind of move, then every ninth; the rest is played over HTTP), the
front hand card and everything the player may tap (the targets of the selected card or bundle included)
lie inside the 390x844 viewport while the page is not scrolled. Screenshots of every phase at phone and
tablet size; axe on the game screen and the table screen at both sizes."""

from __future__ import annotations

from tests.e2e.conftest import PHONE
from tests.e2e.pages import axe_check, shot
from tests.e2e.tapgame import http, new_duo, open_seat, pin_seed, play, sampled

TABLET = {"width": 1024, "height": 768}

# Every box the player may need now: the front card, the picks, the actions, and their overlap with
# the viewport (a box hidden behind the dock counts as outside).
BOXES = """() => {
  const out = [];
  const vis = (el) => { const r = el.getBoundingClientRect();
    const inside = r.top >= 0 && r.left >= 0 && r.bottom <= innerHeight + 0.5 && r.right <= innerWidth + 0.5;
    const hit = inside && document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    return { inside, hit: Boolean(hit) && (el === hit || el.contains(hit)),
             top: Math.round(r.top), bottom: Math.round(r.bottom) }; };
  const front = document.querySelector('[data-hand="0"]');
  if (front) out.push({ what: 'front card', ...vis(front) });
  // While a harvest for nothing waits for its answer, that question is the decision on screen.
  const asking = document.querySelector('[data-confirm]');
  const now = asking ? '[data-confirm]' : '.table [data-act], .table .pick.on';
  for (const el of document.querySelectorAll(now)) {
    out.push({ what: el.dataset.act || el.dataset.pick || el.dataset.confirm, ...vis(el) });
  }
  // The other cards and bundles to pick: in view from top to bottom (a long hand scrolls sideways).
  for (const el of document.querySelectorAll(asking ? 'none' : '.table [data-pick]:not(.on)')) {
    const v = vis(el);
    const inTray = el.closest('.hand') && v.top >= 0 && v.bottom <= innerHeight;
    out.push({ what: el.dataset.pick, ...v, inside: v.inside || Boolean(inTray),
               hit: v.hit || Boolean(inTray) });
  }
  return { scrollY: window.scrollY, height: document.documentElement.scrollHeight, boxes: out };
}"""


# The table screen from two metres: the smallest text in the table part and in the history column, and
# whatever ends outside the 1024x768 screen (nothing may: the page does not scroll and cuts nothing off).
TV_TEXT = """() => {
  const small = { board: 99, history: 99 };
  const cut = [];
  for (const el of document.querySelectorAll('.table.tv *')) {
    if (el.closest('.sr-only') || !el.getClientRects().length) continue;
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    const r = el.getBoundingClientRect();
    if (own) {
      const part = el.closest('.history-slot') ? 'history' : 'board';
      small[part] = Math.min(small[part], parseFloat(getComputedStyle(el).fontSize));
    }
    if (!el.closest('.history-slot') && r.bottom > innerHeight + 0.5) cut.push(el.className || el.tagName);
  }
  return { small, cut: cut.slice(0, 5), scroll: document.documentElement.scrollHeight - innerHeight };
}"""


def assert_tv_readable(page) -> None:
    got = page.evaluate(TV_TEXT)
    assert got["scroll"] <= 1 and not got["cut"], got  # (1 px: rounding of the em-sized rows)
    # About 6 mm capitals on a 10" tablet (the table's counts and names are larger still).
    assert got["small"]["board"] >= 20 and got["small"]["history"] >= 18, got


def assert_on_screen(page, where: str) -> None:
    got = page.evaluate(BOXES)
    assert got["scrollY"] == 0, f"{where}: the page was scrolled to {got['scrollY']}"
    # The front card may sit in the hand tray's sideways scroll; the tray itself is on screen.
    bad = [b for b in got["boxes"] if not (b["inside"] and b["hit"])]
    assert not bad, f"{where}: not on screen without scrolling: {bad}"


class Shots:
    """One screenshot per phase (and one with a selection) per prefix."""

    def __init__(self, prefix: str):
        self.prefix = prefix
        self.seen: set[str] = set()

    def __call__(self, page, view) -> None:
        key = view["phase"]
        if page.locator(".pick.on").count():
            key += "-selected"
        if key not in self.seen:
            self.seen.add(key)
            shot(page, f"{self.prefix}-{key}")


def decide_and_check(shots):
    def decision(page, view):
        assert_on_screen(page, f"{view['phase']} v?")
        shots(page, view)

    def check(page, selector):
        assert_on_screen(page, f"before tapping {selector}")
        if page.locator(".pick.on").count():
            shots(page, {"phase": page.get_attribute(".table", "data-phase")})

    return decision, check


def test_solo_without_scrolling(phone, server, monkeypatch):
    pin_seed(monkeypatch)
    g = http(server, "POST", "/games", {"mode": "solo"})
    page = phone("solo")
    open_seat(page, g["game_id"], 0, g["token"], mode="solo")
    axe_check(page, "layout-solo-390-start")
    page.click('[data-area="deck"]')  # an area explains itself on a tap
    page.wait_for_selector("[data-infopop]")
    assert "draw pile" in page.inner_text("[data-infopop]").lower()
    page.click('[data-boss="joe"] .boss-name')  # a boss says when he harvests
    page.wait_for_selector('[data-infopop="boss:joe"]')
    assert "worth 1 coin;" in page.inner_text("[data-infopop]")
    shot(page, "layout-solo-390-info")
    page.click("[data-infopop] button")
    decision, check = decide_and_check(Shots("layout-solo-390"))
    meter = play(server, g["game_id"], [g["token"]], [page], check=check, decision=decision, close_away=True,
                 on_phone=sampled())
    assert meter.summary()["turns"] >= 5
    shot(page, "layout-solo-390-over")


def test_duo_without_scrolling(phone, server, monkeypatch):
    pin_seed(monkeypatch)
    game_id, tokens = new_duo(server)
    a, b = phone("seat0"), phone("seat1", locale="de-DE")
    open_seat(a, game_id, 0, tokens[0])
    open_seat(b, game_id, 1, tokens[1])
    tablet = phone("tablet", viewport=TABLET)
    tablet.goto(f"/#watch={game_id}")
    tablet.wait_for_selector(".table.tv")
    axe_check(tablet, "layout-table-screen-1024-start")
    assert_tv_readable(tablet)
    shots = Shots("layout-duo-390")
    decision, check = decide_and_check(shots)
    seen = {"n": 0}

    def watch_too(page, view):
        decision(page, view)
        seen["n"] += 1
        if seen["n"] == 25:  # mid-game: the table screen at its fullest
            tablet.wait_for_selector('.table[data-busy="0"]')
            assert_tv_readable(tablet)
            axe_check(tablet, "layout-table-screen-1024-mid")
            axe_check(page, "layout-duo-390-mid")

    play(server, game_id, tokens, [a, b], check=check, decision=watch_too, on_phone=sampled())
    assert seen["n"] > 25, seen  # the table screen was looked at mid-game
    tablet.wait_for_selector('.table[data-phase="over"]')
    assert_tv_readable(tablet)
    shot(tablet, "layout-table-screen-1024-over")
    shot(b, "layout-duo-390-over")


def test_tablet_game_and_phone_table_screen(phone, server, monkeypatch):
    """The game screen on tablets (solo and duo, every phase pictured, nothing to scroll to), and the
    table screen plus its link dialog on a phone."""
    pin_seed(monkeypatch)
    g = http(server, "POST", "/games", {"mode": "solo"})
    page = phone("tablet-solo", viewport=TABLET)
    open_seat(page, g["game_id"], 0, g["token"], mode="solo")
    axe_check(page, "layout-solo-1024-start")
    decision, check = decide_and_check(Shots("layout-solo-1024"))
    play(server, g["game_id"], [g["token"]], [page], decision=decision, check=check, close_away=True,
         on_phone=sampled())
    shot(page, "layout-solo-1024-over")

    # A duo game on two tablets (every phase, the leftovers included), also without scrolling.
    duo_id, duo_tokens = new_duo(server)
    t0, t1 = phone("tablet0", viewport=TABLET), phone("tablet1", viewport=TABLET, locale="de-DE")
    open_seat(t0, duo_id, 0, duo_tokens[0])
    open_seat(t1, duo_id, 1, duo_tokens[1])
    decision, check = decide_and_check(Shots("layout-duo-1024"))
    play(server, duo_id, duo_tokens, [t0, t1], decision=decision, check=check, on_phone=sampled())
    axe_check(t0, "layout-duo-1024-over")

    game_id, tokens = new_duo(server)
    p = phone("phone", viewport=PHONE)
    open_seat(p, game_id, 0, tokens[0])
    p.click("text=Table screen")
    p.wait_for_function("() => document.querySelector('.watchbox img.qr').naturalWidth > 100")
    box = p.evaluate("() => { const r = document.querySelector('.watchbox').getBoundingClientRect();"
                     " return [r.left, r.top, r.right, r.bottom, innerWidth, innerHeight]; }")
    assert box[0] >= 0 and box[1] >= 0 and box[2] <= box[4] and box[3] <= box[5], box
    axe_check(p, "layout-duo-390-watch-dialog")
    tv = phone("phone-tv", viewport=PHONE)
    tv.goto(f"/#watch={game_id}")
    tv.wait_for_selector(".table.tv")
    axe_check(tv, "layout-table-screen-390")
