"""Two phones: lobby with QR and code, joining by code, live moves, offline and back, table view."""

from __future__ import annotations

import re

import engine
from tests.e2e.pages import SETTLED, axe_check, close_away, play_turn, shot, version
from tests.e2e.tapgame import PAST, pin_seed

LIVE_TIMEOUT = 8000  # a move must show on the other phone within this (socket, or polling every 3 s)


def my_turn(page) -> bool:
    return page.is_visible(".banner.mine")


def whose(a, b):
    """Return (player, other) with the player to move first, once both phones show the same version."""
    for _ in range(20):
        v = max(version(a), version(b))
        same_version(a, v)
        same_version(b, v)
        if version(a) != version(b):
            continue  # one of them moved on meanwhile (a move without a choice): look again
        for player, other in ((a, b), (b, a)):
            if my_turn(player):
                close_away(player)  # the turn starts with a summary card that may cover a target
                return player, other
        a.wait_for_function(PAST, arg=v, timeout=LIVE_TIMEOUT)  # nobody's yet: a move is on its way
    raise AssertionError("nobody's turn")


# The game's log after version `since`, read by the page with its own seat token.
LOG_SINCE = """async (since) => { const id = location.hash.split('/').pop();
  const token = Object.values(JSON.parse(localStorage.getItem('alc.games'))[id].tokens)[0];
  const r = await fetch(`/api/v1/games/${id}/events?since=${since}`,
                        { headers: { Authorization: `Bearer ${token}` } });
  return (await r.json()).log; }"""


def same_version(page, v):
    page.wait_for_function("(v) => { const t = document.querySelector('.table');"
                           " return t && Number(t.dataset.version) >= v && t.dataset.busy === '0'; }",
                           arg=v, timeout=LIVE_TIMEOUT)


def test_duo_between_two_phones(phone):
    a = phone("host")
    b = phone("guest", locale="de-DE")
    a.goto("/")
    a.click("[data-new=duo]")
    a.wait_for_selector("img.qr")
    code = a.get_attribute("[data-code]", "data-code")
    game_id = re.search(r"#/g/([\w-]+)", a.url).group(1)
    a.wait_for_function("() => document.querySelector('img.qr').naturalWidth > 100")  # the QR loaded
    axe_check(a, "07-duo-lobby")

    b.goto("/")
    b.fill("#code", code.lower())
    b.click("form.join button[type=submit]")
    b.wait_for_selector(".table")
    a.wait_for_selector(".table", timeout=LIVE_TIMEOUT)  # the lobby turns into the table by itself
    assert b.is_visible("text=Die Mafia")  # the guest's phone speaks German
    a.wait_for_selector(".conn-live", timeout=LIVE_TIMEOUT)  # both follow the game over the websocket
    b.wait_for_selector(".conn-live", timeout=LIVE_TIMEOUT)

    # Several turns; after each, the other phone shows the move without a reload.
    for turn in range(4):
        player, other = whose(a, b)
        taps = play_turn(player)
        assert taps, "a turn needs at least one tap"
        same_version(other, version(player))
        assert my_turn(other), f"turn {turn}: the other phone did not see its turn"
        assert other.title().startswith("●")  # the your-turn cue: a badge in the title ...
        other.wait_for_function("() => ['Your turn!', 'Du bist dran!']"  # ... and the aria-live region
                                ".includes(document.getElementById('announce').textContent)")
        if turn == 0:
            axe_check(other, "08-duo-table-guest" if other is b else "08-duo-table-host")
    shot(a, "09-duo-host")
    shot(b, "10-duo-guest")

    # The phone to move goes offline, taps a move (pending), comes back: applied exactly once.
    player, other = whose(a, b)
    ctx = player.context
    before = version(player)
    ctx.set_offline(True)
    player.evaluate("() => window.dispatchEvent(new Event('offline'))")
    choice = player.evaluate("() => document.querySelector('[data-act]').dataset.act")
    player.click(f'[data-act="{choice}"]')
    player.wait_for_selector(".pending, [data-confirm=yes]")
    if player.locator("[data-confirm=yes]").count():  # a harvest that pays nothing asks first
        player.click("[data-confirm=yes]")
    player.wait_for_selector(".pending")
    shot(player, "11-duo-pending-offline")
    ctx.set_offline(False)
    same_version(player, before + 1)
    player.wait_for_selector(".pending", state="detached")
    # Applied exactly once: the server's log has it once, at before + 1 (the client may then make a move
    # without a choice by itself, such as ending the planting once two cards are planted).
    log = player.evaluate(LOG_SINCE, before)
    assert log[0]["version"] == before + 1, log
    assert all(e["events"][:1] != log[0]["events"][:1] for e in log[1:]), log
    assert version(player) <= before + 2
    same_version(other, before + 1)

    # The other phone goes offline while this one finishes the turn, then catches up without a reload.
    other.context.set_offline(True)
    play_turn(player)
    target = version(player)
    other.context.set_offline(False)
    other.evaluate("() => window.dispatchEvent(new Event('online'))")
    same_version(other, target)
    assert my_turn(other)

    # A tablet shows the public table: no hand, no token, updated live.
    tablet = phone("tablet", viewport={"width": 1024, "height": 768})
    # This one has no websocket at all: it must follow the game by polling.
    tablet.context.add_init_script("delete window.WebSocket")
    tablet.goto(f"/#watch={game_id}")
    tablet.wait_for_selector(".table")
    assert tablet.locator(".hand").count() == 0
    # The game as it is: the turn just played, or later if the other phone has since made a move
    # without a choice by itself (its turn may begin with one).
    same_version(tablet, target)
    shot(tablet, "12-table-display")
    tablet.wait_for_selector(".conn-polling")
    player2, _ = whose(a, b)
    play_turn(player2)
    same_version(tablet, version(player2))


def test_join_link_opens_the_table(phone):
    a = phone("host-link")
    a.goto("/")
    a.click("[data-new=duo]")
    a.wait_for_selector("[data-code]")
    link = a.get_attribute(".lobby a", "href")
    assert "#join=" in link
    b = phone("guest-link")
    b.goto(link)  # what scanning the QR code does
    b.wait_for_selector(".table")
    a.wait_for_selector(".table", timeout=LIVE_TIMEOUT)
    assert "#/g/" in b.url  # the code left the address bar (no re-join on reload)


# In the page: remember every screen the game area shows ("table", "curtain" or "other"), in order.
SCREENS = """() => {
  window.screensSeen = [];
  const look = () => {
    const now = document.querySelector('.table') ? 'table'
      : document.querySelector('[data-curtain]') ? 'curtain' : 'other';
    if (window.screensSeen[window.screensSeen.length - 1] !== now) window.screensSeen.push(now);
  };
  new MutationObserver(look).observe(document.body, {childList: true, subtree: true});
}"""


# The version the table shows; null behind the curtain.
SHOWN_VERSION = "() => { const t = document.querySelector('.table'); return t ? t.dataset.version : null; }"


def test_pass_and_play_on_one_phone(phone, monkeypatch):
    # A deal where the second seat starts: the phone must be handed over before anyone sees a table.
    seed = next(s for s in range(1, 100) if engine.new_game("duo", s).active == 1)
    pin_seed(monkeypatch, seed)
    page = phone("hotseat")
    page.goto("/")
    page.click("[data-new=duo]")
    page.wait_for_selector("img.qr")
    page.evaluate(SCREENS)
    page.click("text=Play both seats on this phone")
    page.wait_for_selector("[data-curtain]")
    # No table on the way: the first seat's session hears the guest join before it hands over.
    assert page.evaluate("() => window.screensSeen") == ["other", "curtain"]
    # Three turns, each behind the curtain, and the curtain again after the third. play_turn may come
    # back before its turn is over (nothing to tap while the client makes a move without a choice):
    # then wait for that move, or for the curtain, and go on.
    passed = 0
    for _ in range(60):
        page.wait_for_selector(".table, [data-curtain]")
        if page.locator("[data-curtain]").count():
            if passed == 3:
                break
            shot(page, "13-hotseat-curtain")
            assert page.locator(".hand").count() == 0  # nothing of a hand behind the curtain
            page.click("[data-curtain]")
            page.wait_for_selector(".table")
            passed += 1
            continue
        before = page.evaluate(SHOWN_VERSION)
        if not play_turn(page):
            page.wait_for_function(SETTLED, arg=before)
    assert passed == 3, f"the phone was passed {passed} times"


def test_lobby_and_moves_without_a_websocket(phone):
    """No socket at all (a proxy that drops upgrades): the lobby still turns into the table, and moves
    still show on the other phone, by polling GET /games/{id} every few seconds."""
    a = phone("host-poll")
    b = phone("guest-poll")
    for page in (a, b):
        page.context.add_init_script("delete window.WebSocket")
    a.goto("/")
    a.click("[data-new=duo]")
    code = a.get_attribute("[data-code]", "data-code")
    b.goto(f"/#join={code}")
    b.wait_for_selector(".table")
    a.wait_for_selector(".table", timeout=LIVE_TIMEOUT)
    assert a.is_visible(".conn-polling") and b.is_visible(".conn-polling")
    player, other = whose(a, b)
    play_turn(player)
    same_version(other, version(player))
    assert my_turn(other)
