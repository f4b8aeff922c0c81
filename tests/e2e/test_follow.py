"""Following the game on two phones: the history rebuilt from the server's log, the "While you were
away" card at each turn start (checked against the event log, and after a reload), the board moving
step by step with the narration (and at once under prefers-reduced-motion), the turn-cue settings."""

from __future__ import annotations

import json
import random
import re
import urllib.request

from tests.e2e.conftest import PHONE
from tests.e2e.pages import axe_check, play_turn, shot, step, version

LIVE_TIMEOUT = 8000
TABLET = {"width": 1024, "height": 768}
BEANS = {"BL": "Blue bean", "KI": "Kidney bean", "FI": "Fire bean", "PU": "Puff bean", "BR": "Broad bean",
         "FR": "French bean", "RU": "Runner bean"}
BOSSES = {"al": "Al Cabohne", "don": "Don Corlebohne", "joe": "Joe Bohnano"}


def start_duo(phone, guest_locale="en-US", init=None, **options):
    a = phone("host", **options)
    b = phone("guest", locale=guest_locale, **options)
    if init:
        for page in (a, b):
            page.context.add_init_script(init)
    a.goto("/")
    a.click("[data-new=duo]")
    code = a.get_attribute("[data-code]", "data-code")
    game_id = re.search(r"#/g/([\w-]+)", a.url).group(1)
    b.goto(f"/#join={code}")
    b.wait_for_selector(".table")
    a.wait_for_selector(".table", timeout=LIVE_TIMEOUT)
    return a, b, game_id


def settled(page):
    page.wait_for_selector('.table[data-busy="0"]', timeout=LIVE_TIMEOUT)
    page.wait_for_selector('[data-follow-log="ok"]', state="attached", timeout=LIVE_TIMEOUT)


def whose(a, b):
    for page in (a, b):
        settled(page)
    for _ in range(50):
        for p, q in ((a, b), (b, a)):
            if p.is_visible(".banner.mine"):
                return p, q
        a.wait_for_timeout(100)
    raise AssertionError("nobody's turn")


def server_log(page, game_id):
    """The event log as the server gives it to this page's seat (with the page's own token)."""
    return page.evaluate("""async (id) => {
      const g = JSON.parse(localStorage.getItem('alc.games'))[id];
      const token = Object.values(g.tokens)[0];
      const r = await fetch(`/api/v1/games/${id}/events?since=0`,
                            {headers: {Authorization: `Bearer ${token}`}});
      return r.json();
    }""", game_id)


def last_turn_of_other(log, seat):
    """The events of the other player's turn that ended with `seat`'s current turn starting."""
    events = [e for entry in log["log"] for e in entry["events"]]
    starts = [i for i, e in enumerate(events) if e["type"] == "turn"]
    assert starts and events[starts[-1]]["seat"] == seat
    begin = starts[-2] + 1 if len(starts) > 1 else 0
    return events[begin:starts[-1]]


def counted(text, bean_name):
    """How many cards of `bean_name` a grouped line lists ("2× Fire bean, Puff bean")."""
    total = 0
    for m in re.finditer(r"(?:(\d+)× )?" + re.escape(bean_name), text):
        total += int(m.group(1) or 1)
    return total


def check_away(card: str, events: list[dict]) -> None:
    """Every move of the other player's turn and every Mafia move in it is on the card: the cards of
    each kind of move, counted, equal the log's."""
    # One line per phase ("Planting: ... · ..."): the sentences after the phase's name.
    lines = [s for line in card.split("\n") if ": " in line for s in line.split(": ", 1)[1].split(" · ")]
    bosses = [line for line in lines if line.startswith(tuple(f"{b} harvests" for b in BOSSES.values()))]
    players = [line for line in lines if line not in bosses]
    for kind, verb in (("pay", "pays"), ("harvest", "harvests"), ("buy_field", "buys a third field")):
        n = sum(1 for e in events if e["type"] == kind and not e.get("final"))
        assert sum(line.count(verb) for line in players) == n, f"{kind}: {n} in the log, card: {card}"
    assert len(bosses) == sum(1 for e in events if e["type"] == "boss_harvest"), card
    for e in events:
        if e["type"] in ("pay", "harvest"):
            assert BEANS[e["bean"]] in card, (e, card)
        if e["type"] in ("capture", "give", "pay", "boss_harvest"):
            assert BOSSES[e["boss"]] in card, (e, card)
    for kind, where in (("reveal", "The display gets"), ("from_discard", "from the discard pile"),
                        ("capture", "snatches"), ("plant", " plants "), ("discard", " discards "),
                        ("give", " gives ")):
        for code, name in BEANS.items():
            want = sum(e.get("count", 1) for e in events if e["type"] == kind and e["bean"] == code)
            got = sum(counted(line.split(" to ")[0], name) for line in lines if where in line)
            assert got == want, f"{kind} {code}: log {want}, card {got}: {card}"
    draws = sum(1 for e in events if e["type"] == "draw")
    if draws:
        assert f"draws {draws} card" in card, card


# Where the summary lies: not a dialog, and over none of the things the player may tap now (the hand
# included); the part of it that can be read without scrolling, in lines.
AWAY_PLACE = """() => {
  const el = document.querySelector('[data-follow="away"]');
  const slot = el.parentElement.getBoundingClientRect();
  const box = el.getBoundingClientRect(); // what scrolls out of its slot is hidden: only the rest counts
  const r = { left: box.left, right: box.right,
              top: Math.max(box.top, slot.top), bottom: Math.min(box.bottom, slot.bottom) };
  const over = [];
  for (const t of document.querySelectorAll('.table [data-act], .table [data-pick], .table [data-hand]')) {
    const b = t.getBoundingClientRect();
    const hit = b.left < r.right && r.left < b.right && b.top < r.bottom && r.top < b.bottom;
    if (hit) over.push(t.outerHTML.slice(0, 60));
  }
  const dock = document.querySelector('.dock').getBoundingClientRect();
  const seen = Math.min(r.bottom, dock.top, innerHeight) - Math.max(r.top, 0);
  const line = parseFloat(getComputedStyle(el.querySelector('li')).lineHeight);
  return { over, role: el.getAttribute('role'), lines: seen / line, scrollY: window.scrollY };
}"""


def check_away_place(page) -> None:
    got = page.evaluate(AWAY_PLACE)
    assert got["role"] is None and got["scrollY"] == 0, got
    assert not got["over"], f"the summary lies over targets: {got['over']}"
    assert got["lines"] >= 3, got


def history_text(page) -> str:
    if page.locator('[data-follow="away"]').count():
        page.click('[data-follow="away-close"]')
    page.click('[data-follow="history"]')
    page.wait_for_selector('[data-follow="drawer"] [data-follow="turns"]')
    text = page.inner_text('[data-follow="turns"]')
    return text


def close_history(page):
    page.keyboard.press("Escape")
    page.wait_for_selector('[data-follow="drawer"]', state="detached")


def test_away_card_and_history_follow_a_duo_game(phone):
    a, b, game_id = start_duo(phone)
    seat_of = {a: 0, b: 1}
    for page in (a, b):
        seat_of[page] = page.evaluate("(id) => Number(Object.keys(JSON.parse("
                                      "localStorage.getItem('alc.games'))[id].tokens)[0])", game_id)
    # A sound is off until the player turns it on.
    a.click('[data-follow="history"]')
    assert not a.is_checked('[data-follow="sound"]')
    # The drawer is a modal dialog: the keyboard stays in it, Escape closes it and goes back to its button.
    for _ in range(5):
        a.keyboard.press("Tab")
        assert a.evaluate("() => Boolean(document.activeElement.closest('[data-follow=\"drawer\"]'))")
    close_history(a)
    assert a.evaluate("() => document.activeElement.dataset.follow") == "history"

    for turn in range(5):
        player, other = whose(a, b)
        taps = play_turn(player)
        assert taps
        settled(other)
        other.wait_for_selector('[data-follow="away"]', timeout=LIVE_TIMEOUT)
        card = other.inner_text('[data-follow="away"]')
        events = last_turn_of_other(server_log(other, game_id), seat_of[other])
        check_away(card, events)
        if turn == 1:
            axe_check(other, "follow-01-away-phone")
        # A reload at the turn start shows the same card, rebuilt from the server's log.
        # (Also when the phone has made a move without a choice in this turn already: the log no
        # longer gives the card then, the tab's session keeps it: follow.js useAway.)
        if turn in (1, 3):
            other.reload()
            other.wait_for_selector('[data-follow="away"]', timeout=LIVE_TIMEOUT)
            assert other.inner_text('[data-follow="away"]') == card
        check_away_place(other)
        assert other.is_visible(".banner.mine")
        if turn % 2:
            other.click('[data-follow="away-close"]')  # put away by hand
        else:
            # Or by itself at the player's first move (picking a card is not a move yet).
            for _ in range(10):
                done = step(other) or ""
                if "data-act" in done or "data-confirm" in done:
                    break
                if "data-pick" in done:
                    assert other.locator('[data-follow="away"]').count()
        other.wait_for_selector('[data-follow="away"]', state="detached")

    # The history is the same on both phones, whole, newest turn first.
    settled(a)
    settled(b)
    assert version(a) == version(b)
    ha = history_text(a)
    axe_check(a, "follow-02-history-phone")
    hb = history_text(b)
    assert ha == hb
    turns = [int(n) for n in re.findall(r"^Turn (\d+) ·", ha, re.M)]
    assert turns == sorted(turns, reverse=True) and turns[-1] == 1 and len(turns) >= 6
    # Rebuilt from the server after a reload: still the same.
    b.reload()
    settled(b)
    assert history_text(b) == ha
    # The table screen tells the same story: its latest turns beside the table, all of it in the drawer.
    tablet = phone("tablet", viewport=TABLET)
    tablet.goto(f"/#watch={game_id}")
    tablet.wait_for_selector('.history-slot [data-follow="turns"]')
    tablet.wait_for_function("() => document.querySelectorAll('.history-slot .hist-turn').length >= 3")
    assert ha.startswith(tablet.inner_text('.history-slot [data-follow="turns"]'))
    assert history_text(tablet) == ha


def test_board_moves_step_by_step_with_the_narration(phone):
    """Motion allowed: while the Mafia's steps play, the draw pile shown always matches the steps told
    so far, cards fly between the areas and the places that changed light up."""
    a, b, _ = start_duo(phone, reduced_motion="no-preference")
    for page in (a, b):
        page.evaluate(WATCH_STEPS)
    for _ in range(2):
        player, _other = whose(a, b)
        player.evaluate("() => { window.__follow.frames = []; }")
        play_turn(player)
        check_frames(player.evaluate("() => window.__follow.frames"))
    flown = player.evaluate("() => window.__follow")
    assert flown["fly"] > 0 and flown["lit"] > 0
    # Flying cards keep their label as it is in place: inside the card, whole, on one or two lines.
    assert flown["labels"], "no card with its name flew"
    squashed = [x for x in flown["labels"] if not x["inside"] or x["cut"] or x["lines"] > 2]
    assert not squashed, squashed
    shot(player, "follow-03-steps-motion")


def check_frames(frames):
    """While steps play, the draw pile shown equals the one before, less the cards the narration has
    taken from it so far; and the steps came one by one."""
    assert frames, "the steps were not shown one by one"
    for f in frames:
        taken = sum(1 for s in f["steps"] if s.startswith("Revealed") or "snatches" in s or " draws " in s
                    or s.startswith("You draw"))
        assert f["deck"] == f["base"] - taken, f"the draw pile shows {f['deck']} after: {f['steps']}"
    # All at once, nothing would be recorded: the last step ends the playing and shows the new view.
    assert len(frames) >= 2, f"the steps did not come one by one: {frames}"


# Records, while steps play, each different (steps told, draw pile shown) pair of the page.
WATCH_STEPS = """() => {
          const count = (s) => { const m = (s || '').match(/\\d+/); return m ? Number(m[0]) : null; };
          const deckNow = () => count(document.querySelector('[data-area="deck"]').textContent);
          window.__follow = {frames: [], fly: 0, lit: 0, idle: deckNow(), labels: []};
          new MutationObserver(() => {
            const t = document.querySelector('.table');
            if (!t) return;
            const F = window.__follow;
            if (document.querySelector('.flycard')) F.fly += 1;
            // A flying card's name as it flies: inside the card, on the lines it takes in place.
            for (const g of document.querySelectorAll('.flycard:not([data-seen])')) {
              const n = g.querySelector('.bean-name');
              if (!n) continue;
              g.dataset.seen = '1';
              const gr = g.getBoundingClientRect();
              const nr = n.getBoundingClientRect();
              F.labels.push({text: n.textContent, width: Math.round(nr.width),
                inside: nr.left >= gr.left - 1 && nr.right <= gr.right + 1
                  && nr.top >= gr.top - 1 && nr.bottom <= gr.bottom + 1,
                lines: Math.round(n.offsetHeight / parseFloat(getComputedStyle(n).lineHeight)),
                cut: n.scrollWidth > n.clientWidth + 1});
            }
            if (document.querySelector('.lit')) F.lit += 1;
            const deck = deckNow();
            if (!document.querySelector('[data-follow-playing="1"]')) { F.idle = deck; return; }
            const steps = [...document.querySelectorAll('.steps li')].map((li) => li.textContent);
            if (!steps.length) { F.idle = deck; return; } // the next batch begins: nothing told yet
            const f = F.frames;
            const key = steps.length + ':' + deck;
            if (!f.length || f[f.length - 1].key !== key) f.push({key, steps, deck, base: F.idle});
          }).observe(document.body, {subtree: true, childList: true, characterData: true, attributes: true});
        }"""


def test_the_computer_turn_plays_out_and_is_summed_up(phone):
    """Against the computer: its moves come one version after another; they play out in order on the
    board (never contradicting the narration) and the next turn starts with the card that tells them."""
    page = phone("bot", reduced_motion="no-preference")
    page.goto("/")
    page.click("[data-new=bot]")
    page.wait_for_selector(".table")
    game_id = re.search(r"#/g/([\w-]+)", page.url).group(1)
    seat = page.evaluate("(id) => Number(Object.keys(JSON.parse("
                         "localStorage.getItem('alc.games'))[id].tokens)[0])", game_id)
    page.evaluate(WATCH_STEPS)
    for _ in range(2):
        page.wait_for_selector(".banner.mine", timeout=60000)
        settled(page)
        if page.locator('[data-follow="away"]').count():
            card = page.inner_text('[data-follow="away"]')
            assert "Computer" in card
            check_away(card, last_turn_of_other(server_log(page, game_id), seat))
        page.evaluate("() => { window.__follow.frames = []; }")
        play_turn(page)
        page.wait_for_selector(".banner.mine", timeout=60000)
        settled(page)
        check_frames(page.evaluate("() => window.__follow.frames"))
        page.wait_for_selector('[data-follow="away"]')
    shot(page, "follow-09-away-computer")


def test_reduced_motion_shows_the_end_state_at_once(phone):
    a, b, _ = start_duo(phone)  # the fixture's contexts prefer reduced motion
    player, other = whose(a, b)
    for page in (a, b):
        page.evaluate("""() => { window.__busy = 0; window.__fly = 0;
          new MutationObserver(() => {
            if (document.querySelector('[data-follow-playing="1"]')) window.__busy += 1;
            if (document.querySelector('.flycard')) window.__fly += 1;
          }).observe(document.body, {subtree: true, childList: true, attributes: true}); }""")
    play_turn(player)
    settled(other)
    for page in (a, b):
        assert page.evaluate("() => [window.__busy, window.__fly]") == [0, 0]
    # The list of what happened is there at once, with the end state.
    assert player.locator(".steps li").count() >= 2
    other.wait_for_selector('[data-follow="away"]')


def test_turn_cues_settings_and_notification_offer(phone):
    """The sound is off by default and remembered once switched on; the notification permission is
    never asked on the first load, only offered while the player waits for the other one."""
    # Count the permission requests from the very first script of every page load on.
    count = """window.__asked = 0;
      if (window.Notification) {
        const ask = Notification.requestPermission.bind(Notification);
        Notification.requestPermission = (...args) => { window.__asked += 1; return ask(...args); };
      }"""
    a, b, _ = start_duo(phone, init=count, whole=True)  # the shell refuses every notification
    player, waiter = whose(a, b)
    assert [p.evaluate("() => window.__asked") for p in (a, b)] == [0, 0]  # not on load, not at the start
    assert player.locator('[data-follow="notify-offer"]').count() == 0  # it is their turn: no offer
    assert waiter.evaluate("() => Notification.permission") == "default"  # not asked yet
    waiter.wait_for_selector('[data-follow="notify-offer"]')
    axe_check(waiter, "follow-04-notify-offer")
    waiter.click('[data-follow="notify-offer"] button.link')  # "No, thanks": never asked again
    waiter.wait_for_selector('[data-follow="notify-offer"]', state="detached")
    assert waiter.evaluate("() => window.__asked") == 0
    # The other phone, once it waits, says yes: the browser is asked once, and the offer is gone.
    play_turn(player)
    player.wait_for_selector('[data-follow="notify-offer"]', timeout=LIVE_TIMEOUT)
    player.click('[data-follow="notify-offer"] button:not(.link)')
    player.wait_for_selector('[data-follow="notify-offer"]', state="detached")
    assert player.evaluate("() => window.__asked") == 1
    player.reload()
    player.wait_for_selector(".table")
    assert player.locator('[data-follow="notify-offer"]').count() == 0
    settled(waiter)
    if waiter.locator('[data-follow="away"]').count():
        waiter.click('[data-follow="away-close"]')
    prefs = json.loads(waiter.evaluate("() => localStorage.getItem('alc.prefs') || '{}'"))
    assert prefs.get("turnSound") is None

    waiter.click('[data-follow="history"]')
    assert not waiter.is_checked('[data-follow="sound"]')
    waiter.check('[data-follow="sound"]')
    close_history(waiter)
    waiter.reload()
    waiter.wait_for_selector(".table")
    waiter.click('[data-follow="history"]')
    assert waiter.is_checked('[data-follow="sound"]')
    assert json.loads(waiter.evaluate("() => localStorage.getItem('alc.prefs')"))["turnSound"] is True


def test_history_and_away_screens_at_both_sizes(phone):
    """Screenshots for a first-time look: the away card and the history, phone (English and German)
    and tablet."""
    a, b, game_id = start_duo(phone, guest_locale="de-DE")
    for _ in range(3):
        player, other = whose(a, b)
        play_turn(player)
        settled(other)
        other.wait_for_selector('[data-follow="away"]')
        lang = "de" if other is b else "en"
        axe_check(other, f"follow-05-away-phone-{lang}")
    other.set_viewport_size(TABLET)
    axe_check(other, "follow-08-away-tablet")
    other.set_viewport_size(PHONE)
    check_away_place(other)
    assert step(other)  # the turn goes on with the summary in view
    b.click('[data-follow="history"]')
    b.wait_for_selector('[data-follow="turns"]')
    assert b.is_visible("text=Was bisher geschah")
    axe_check(b, "follow-10-history-phone-de")
    b.keyboard.press("Escape")
    tablet = phone("tablet", viewport=TABLET)
    tablet.goto(f"/#watch={game_id}")
    tablet.wait_for_selector(".table")
    axe_check(tablet, "follow-06-table-screen")
    tablet.click('[data-follow="history"]')
    tablet.wait_for_selector('[data-follow="turns"]')
    axe_check(tablet, "follow-07-history-tablet")


def test_a_background_page_gets_a_notification_at_its_turn(phone):
    """The waiting phone's page goes to the background (its visibility is switched to hidden, as when
    the player switches apps); when the other player ends the turn, the service worker shows a
    notification. A visible page gets none: the badge and the banner are enough there."""
    a, b, _ = start_duo(phone, permissions=["notifications"], service_workers="allow", whole=True)
    player, waiter = whose(a, b)
    for page in (a, b):
        page.evaluate("async () => { await navigator.serviceWorker.ready; }")
    hide = """() => {
      Object.defineProperty(document, 'visibilityState', {get: () => 'hidden', configurable: true});
      Object.defineProperty(document, 'hidden', {get: () => true, configurable: true});
      document.dispatchEvent(new Event('visibilitychange'));
    }"""
    shown = """async () => (await (await navigator.serviceWorker.ready).getNotifications())
      .map((n) => [n.title, n.body])"""
    waiter.evaluate(hide)
    play_turn(player)
    for _ in range(40):  # evaluate() awaits the promise (wait_for_function would not)
        if waiter.evaluate(shown):
            break
        waiter.wait_for_timeout(200)
    assert waiter.evaluate(shown) == [["Al Cabohne Online", "Your turn!"]]
    assert player.evaluate(shown) == []


def _api(server, method, path, token=None, body=None, key=None):
    req = urllib.request.Request(server + "/api/v1" + path, method=method,
                                 data=None if body is None else json.dumps(body).encode())
    req.add_header("Content-Type", "application/json")
    if token:
        req.add_header("Authorization", f"Bearer {token}")
    if key:
        req.add_header("Idempotency-Key", key)
    with urllib.request.urlopen(req) as resp:
        return json.loads(resp.read())


# Everything of a view the board shows; legal_actions and the phase's bookkeeping (planted, settled)
# are not drawn while steps play.
SHOWN = ["mode", "phase", "active", "seat", "players", "bosses", "display", "discard_top", "discard_size",
         "deck_size", "treasury", "set_aside", "exhaustions", "pass", "result"]


def test_replaying_the_events_reaches_every_server_view(phone, server):
    """The board shown between two versions is the old view with each event's public effect applied
    (replay.js, in the browser). Over a whole duo game played through the API, replaying each
    version's events, as each seat receives them, from that seat's previous view gives exactly the view
    the server sends for the new version: the steps never drift from the truth."""
    page = phone("replay")
    page.goto("/")
    page.wait_for_selector("[data-new=duo]")
    g = _api(server, "POST", "/games", body={"mode": "duo"})
    j = _api(server, "POST", "/games/join", body={"code": g["join_code"]})
    gid, tokens = g["game_id"], {0: g["token"], 1: j["token"]}
    rnd = random.Random(16)
    # Every version's view for each seat: the mover's is the answer to its move, the other seat's is read.
    seen = {0: [], 1: []}
    views = {s: _api(server, "GET", f"/games/{gid}", tokens[s]) for s in (0, 1)}
    for s in (0, 1):
        seen[s].append(views[s])
    for n in range(1500):
        cur = views[0]
        active = cur["view"]["active"]
        legal = views[active]["view"]["legal_actions"]
        if not legal:
            break
        ends = [a for a in legal if a["type"] == "end_phase"]
        action = ends[0] if ends and rnd.random() < 0.4 else rnd.choice(legal)  # a game of ~100 turns
        views[active] = _api(server, "POST", f"/games/{gid}/actions", tokens[active],
                             {"action": action, "version": cur["version"]}, key=f"replay-{n}")
        views[1 - active] = _api(server, "GET", f"/games/{gid}", tokens[1 - active])
        assert views[0]["version"] == views[1]["version"] == cur["version"] + 1
        for s in (0, 1):
            seen[s].append(views[s])
    assert views[0]["view"]["phase"] == "over", "the game should be played to its end"
    # Each version's events as the seat receives them (its whole log, read once at the end).
    pairs = {0: [], 1: []}
    for s in (0, 1):
        log = _api(server, "GET", f"/games/{gid}/events?since={seen[s][0]['version']}", tokens[s])["log"]
        for old, new in zip(seen[s], seen[s][1:], strict=False):
            events = [e for entry in log if old["version"] < entry["version"] <= new["version"]
                      for e in entry["events"]]
            pairs[s].append([old["view"], events, {k: new["view"].get(k) for k in SHOWN}])
    for s in (0, 1):
        bad = page.evaluate("""async (pairs) => {
          const { step } = await import('/js/replay.js');
          const keys = Object.keys(pairs[0][2]);
          const out = [];
          pairs.forEach(([before, events, after], i) => {
            let v = before;
            events.forEach((e, k) => { v = step(v, e, events.slice(k + 1), after); });
            const got = JSON.stringify(keys.map((key) => v[key]));
            if (got !== JSON.stringify(keys.map((key) => after[key]))) {
              out.push({i, events: events.map((e) => e.type), got: keys.map((key) => v[key]),
                        want: keys.map((key) => after[key])});
            }
          });
          return out.slice(0, 3);
        }""", pairs[s])
        assert not bad, json.dumps(bad)[:3000]
