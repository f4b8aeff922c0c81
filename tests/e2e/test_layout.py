"""Playing without scrolling: scripted games (solo, and duo on two phones) where, at the sampled decisions
(tapgame.sampled: every phase and kind of move twice, then every twentieth; the rest is played over HTTP), the
front hand card and everything the player may tap (the targets of the selected card or bundle included)
lie inside the 390x844 viewport while the page is not scrolled. Screenshots of every phase at phone and
tablet size; axe on the game screen and the table screen at both sizes."""

from __future__ import annotations

import random

import pytest

from tests.e2e.conftest import PHONE
from tests.e2e.pages import axe_check, shot
from tests.e2e.social import call, moves_over_http, play_to_end
from tests.e2e.tapgame import finish_unwatched, http, new_duo, open_seat, pin_seed, play, sampled

TABLET = {"width": 1024, "height": 768}
# The screens of the pinned games' phases (Shots' keys): solo has no leftovers; a leftover bundle is
# always picked already (flow.js preselect), and so is a bundle in nearly every use of the duo display
# (one that needs a harvest first can be picked too: targets.js harvestThenPlant), so the duo game
# pictures that phase with its pick; solo, which must empty its display, also without.
SOLO_SHOTS = {"protection", "plant", "use", "use-selected"}
DUO_SHOTS = {"protection", "plant", "use-selected", "leftovers-selected"}
PORTRAIT = {"width": 768, "height": 1024}

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
    # The table screen is looked at mid-game and at the end; between, it shows nothing (a third page
    # following every version slows the phones' game; a table screen following a game live is
    # test_the_table_screen_is_a_table's, and to its end test_game_end's).
    tablet.goto("about:blank")
    shots = Shots("layout-duo-390")
    decision, check = decide_and_check(shots)
    seen = {"n": 0}

    def watch_too(page, view):
        decision(page, view)
        seen["n"] += 1
        if seen["n"] == 25:  # mid-game: the table screen at its fullest
            tablet.goto(f"/#watch={game_id}")
            tablet.wait_for_selector('.table.tv[data-busy="0"]')
            assert_tv_readable(tablet)
            axe_check(tablet, "layout-table-screen-1024-mid")
            axe_check(page, "layout-duo-390-mid")
            tablet.goto("about:blank")

    play(server, game_id, tokens, [a, b], check=check, decision=watch_too, on_phone=sampled())
    assert seen["n"] > 25, seen  # the table screen was looked at mid-game
    tablet.goto(f"/#watch={game_id}")
    tablet.wait_for_selector('.table.tv[data-phase="over"]')
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
    # The same games as the phones' above: tapped at sampled decisions until every phase (and a
    # selection) is pictured, then played to the end without a page following; the end is opened again.
    shots = Shots("layout-solo-1024")
    decision, check = decide_and_check(shots)
    play(server, g["game_id"], [g["token"]], [page], decision=decision, check=check, close_away=True,
         on_phone=sampled(), until=lambda: shots.seen >= SOLO_SHOTS)
    assert shots.seen >= SOLO_SHOTS, shots.seen
    finish_unwatched(server, g["game_id"], [g["token"]], [page])
    shot(page, "layout-solo-1024-over")

    # A duo game on two tablets (every phase, the leftovers included), also without scrolling.
    duo_id, duo_tokens = new_duo(server)
    t0, t1 = phone("tablet0", viewport=TABLET), phone("tablet1", viewport=TABLET, locale="de-DE")
    open_seat(t0, duo_id, 0, duo_tokens[0])
    open_seat(t1, duo_id, 1, duo_tokens[1])
    shots = Shots("layout-duo-1024")
    decision, check = decide_and_check(shots)
    play(server, duo_id, duo_tokens, [t0, t1], decision=decision, check=check, on_phone=sampled(),
         until=lambda: shots.seen >= DUO_SHOTS)
    assert shots.seen >= DUO_SHOTS, shots.seen
    finish_unwatched(server, duo_id, duo_tokens, [t0, t1])
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


# The table screen as people around the table see it: the parts' boxes (bosses, piles, display, every
# field, whose turn, what just happened), whether any two overlap, what lies in the lower third of the
# screen, and the type of whose turn it is.
TV_BOXES = """() => {
  const box = (el) => { const r = el.getBoundingClientRect();
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom,
             w: Math.round(r.width), h: Math.round(r.height) }; };
  const all = (sel) => [...document.querySelectorAll(sel)].map(box);
  const parts = { bosses: all('.tv [data-area="boss"]'), piles: all('.tv .middle > .pile'),
    display: all('.tv [data-area="display"]'), fields: all('.tv .player .field'),
    players: all('.tv .player'), turn: all('.tv [data-tv="turn"]'), history: all('.tv .history-slot') };
  // Boxes side by side that must not cover each other (a field lies inside its player's box, fine).
  const flat = [...parts.bosses, ...parts.piles, ...parts.display, ...parts.fields, ...parts.turn,
                ...parts.history];
  const overlaps = [];
  for (let i = 0; i < flat.length; i += 1) for (let j = i + 1; j < flat.length; j += 1) {
    const a = flat[i]; const b = flat[j];
    const x = Math.min(a.right, b.right) - Math.max(a.left, b.left);
    const y = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
    if (x > 1 && y > 1) overlaps.push([i, j]);
  }
  // The lower third of the screen: how much of it the parts cover (the rest is bare page).
  const cover = [...parts.players, ...parts.history, ...parts.turn, ...all('.tv .mafia'),
                 ...parts.piles, ...parts.display];
  let n = 0; let covered = 0;
  for (let y = innerHeight * 2 / 3; y < innerHeight; y += 8) for (let x = 4; x < innerWidth; x += 8) {
    n += 1;
    if (cover.some((r) => x >= r.left && x <= r.right && y >= r.top && y <= r.bottom)) covered += 1;
  }
  const lowerThird = covered / n;
  const banner = document.querySelector('.tv [data-tv="turn"] .banner');
  return { parts, overlaps, lowerThird, turn: banner.textContent,
           turnPx: parseFloat(getComputedStyle(banner).fontSize),
           phase: (document.querySelector('.tv [data-tv="phase"]') || {}).textContent || null };
}"""

# The end overlay on the table screen: the winner line's type against every other text of the overlay,
# and how far down the overlay's content reaches.
TV_END = """() => {
  const end = document.querySelector('.end-overlay .end');
  const winner = end.querySelector('.winner');
  let other = 0; let lowest = 0;
  for (const el of end.querySelectorAll('*')) {
    if (el.closest('.sr-only') || !el.getClientRects().length) continue;
    const own = [...el.childNodes].some((n) => n.nodeType === 3 && n.textContent.trim());
    if (!own) continue;
    lowest = Math.max(lowest, el.getBoundingClientRect().bottom);
    if (!winner.contains(el)) other = Math.max(other, parseFloat(getComputedStyle(el).fontSize));
  }
  const r = end.getBoundingClientRect();
  return { winnerPx: parseFloat(getComputedStyle(winner).fontSize), otherPx: other, lowest, top: r.top,
           bottom: r.bottom, height: innerHeight };
}"""


def advance(server, gid, tokens, moves, seed=5):
    """Play `moves` moves over the API, mostly planting and giving rather than ending phases (full
    fields and a full display: the table screen at its fullest)."""
    rng = random.Random(seed)

    def pick(legal):
        keep = [a for a in legal if a["type"] not in ("end_phase", "harvest", "discard_display")]
        return rng.choice(keep) if keep and rng.random() < 0.85 else rng.choice(legal)

    moves_over_http(server, gid, tokens, pick, moves)


def assert_a_table(page, server, gid, names, where):
    got = page.evaluate(TV_BOXES)
    parts = got["parts"]
    # The Mafia's bosses (three in solo, two in duo), and every player.
    assert len(parts["bosses"]) == 4 - len(names) and len(parts["players"]) == len(names), (where, parts)
    # Large enough to read from a metre away: bosses and fields well above a phone's size.
    small = [b for b in parts["bosses"] + parts["fields"] if b["w"] < 150 or b["h"] < 95]
    assert not small, (where, small)
    assert parts["display"][0]["w"] >= 300, (where, parts["display"])
    assert not got["overlaps"], (where, got["overlaps"])
    assert got["lowerThird"] >= 0.85, (where, got["lowerThird"])  # no empty lower third
    # Whose turn, by name, in type larger than the table's, with the phase.
    _, public = call(server, "GET", f"/games/{gid}")
    view = public["view"]
    assert names[view["active"]] in got["turn"], (where, got["turn"])
    assert got["turnPx"] >= 24 and got["phase"], (where, got)
    assert_tv_readable(page)


@pytest.mark.parametrize("size", ["landscape", "portrait"])
def test_the_table_screen_is_a_table(phone, server, size):
    """The table screen on a tablet in either orientation, mid-game (duo and solo) and at the end."""
    viewport = TABLET if size == "landscape" else PORTRAIT
    names = ["Anna", "Maximilian"]
    _, a = call(server, "POST", "/games", body={"mode": "duo", "dealer": 0, "name": names[0]})
    _, b = call(server, "POST", "/games/join", body={"code": a["join_code"], "name": names[1]})
    gid, tokens = a["game_id"], {0: a["token"], 1: b["token"]}
    tv = phone(f"tv-{size}", viewport=viewport)
    tv.goto(f"/#watch={gid}")
    tv.wait_for_selector('.table.tv[data-busy="0"]')
    assert_a_table(tv, server, gid, names, "start")
    advance(server, gid, tokens, 70)
    tv.wait_for_function("(v) => { const t = document.querySelector('.table.tv');"
                         " return t && t.dataset.busy === '0' && Number(t.dataset.version) >= v; }", arg=72)
    assert_a_table(tv, server, gid, names, "mid-game")
    axe_check(tv, f"layout-table-screen-{size}-mid")
    de = phone(f"tv-{size}-de", viewport=viewport, locale="de-DE")
    de.goto(f"/#watch={gid}")
    de.wait_for_selector('.table.tv[data-busy="0"]')
    assert_a_table(de, server, gid, names, "mid-game, German")
    shot(de, f"layout-table-screen-{size}-mid-de")

    # Solo: one player's fields take the players' room.
    _, solo = call(server, "POST", "/games", body={"mode": "solo", "name": "Zo\u00eb"})
    one = phone(f"tv-{size}-solo", viewport=viewport)
    advance(server, solo["game_id"], {0: solo["token"]}, 40)
    one.goto(f"/#watch={solo['game_id']}")
    one.wait_for_selector('.table.tv[data-busy="0"]')
    assert_a_table(one, server, solo["game_id"], ["Zo\u00eb"], "solo")
    shot(one, f"layout-table-screen-{size}-solo")

    # The end: the winner line in the largest type, the result spread over the whole screen. The game is
    # played on while no table screen shows it, then opened again (two pages following every version
    # only slow the game down; the table screen showing the end live is test_game_end's).
    for page in (tv, de):
        page.goto("about:blank")
    play_to_end(server, gid, tokens, seed=3)
    for page, lang in ((tv, "en"), (de, "de")):
        page.goto(f"/#watch={gid}")
        page.wait_for_selector(".end-overlay .end .winner")
        end = page.evaluate(TV_END)
        assert end["winnerPx"] > end["otherPx"] and end["winnerPx"] >= 40, end
        assert end["top"] <= end["height"] * 0.1 and end["bottom"] >= end["height"] * 0.9, end
        assert end["lowest"] >= end["height"] * 2 / 3, end  # no empty lower third
        shot(page, f"layout-table-screen-{size}-end-{lang}")
    axe_check(tv, f"layout-table-screen-{size}-end")


def test_the_rules_page_is_short_to_scroll(phone):
    """How to play at 390x844: every part folded to its title (about two screens in all), one opened by a
    tap or a link, all at once by one button; its drawings show the beans' pictures, never engine codes."""
    for locale in ("en-US", "de-DE"):
        page = phone(f"rules-{locale}", locale=locale)
        page.goto("/#/rules")
        page.wait_for_selector("main[data-rules] [data-section=solo]")
        height = page.evaluate("() => document.documentElement.scrollHeight")
        assert height <= 2.5 * PHONE["height"], height
        assert page.locator(".rsec-body:not([hidden])").count() == 0
        page.click("[data-rules-open=harvest]")
        page.wait_for_selector("#rule-harvest-body:not([hidden]) svg.sketch")
        assert page.get_attribute("[data-rules-open=harvest]", "aria-expanded") == "true"
        page.goto("/#/rules/bosses")  # a hint's or the coach's link opens its part
        page.wait_for_selector("#rule-bosses-body:not([hidden])")
        page.click("[data-rules=all]")
        page.wait_for_function("() => !document.querySelector('.rsec-body[hidden]')")
        codes = page.evaluate("""() => [...document.querySelectorAll('svg.sketch text')]
          .map((t) => t.textContent.trim()).filter((s) => /^(BL|KI|FI|PU|BR|FR|RU)$/.test(s))""")
        assert not codes, codes
        assert page.locator("svg.sketch svg[viewBox='0 0 40 40']").count() > 50  # the beans' pictures
        page.click("[data-rules=all]")
        page.wait_for_function("() => document.querySelectorAll('.rsec-body:not([hidden])').length === 0")
