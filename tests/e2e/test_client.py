"""Client behaviour beyond plain play: steps shown one by one, keyboard play, hand privacy, the
service worker's offline shell, and the table-screen QR."""

from __future__ import annotations

import json
import re

from tests.e2e.conftest import ARGS, HEADLESS
from tests.e2e.pages import shot, version
from tests.e2e.tapgame import http
from tests.e2e.test_solo import new_solo


def test_mafia_steps_play_out_before_the_board_changes(phone):
    page = phone("motion", reduced_motion="no-preference")
    new_solo(page)
    page.click('[data-act^="plant_hand"]')
    page.wait_for_selector('.table[data-busy="0"][data-phase="plant"] [data-act="end_phase"]')
    before = version(page)
    page.click('[data-act="end_phase"]')  # phase 4: the reveal is the Mafia's and the deck's
    page.wait_for_selector('.table[data-busy="1"]')
    assert version(page) == before  # the old board stays while the steps are told
    page.wait_for_selector(".steps li")
    shot(page, "14-mafia-steps")
    page.wait_for_selector('.table[data-busy="0"][data-phase="use"]', timeout=8000)
    assert version(page) == before + 1
    assert page.locator(".steps li").count() >= 3  # at least three cards were turned up


def test_keyboard_play_and_hiding_the_hand(phone):
    page = phone("keys")
    new_solo(page)
    before = version(page)
    for _ in range(40):
        page.keyboard.press("Tab")
        if page.evaluate("() => (document.activeElement.dataset.act || '').startsWith('plant_hand')"):
            break
    else:
        raise AssertionError("no legal target reachable with Tab")
    page.keyboard.press("Enter")
    page.wait_for_function("(v) => Number(document.querySelector('.table').dataset.version) > v", arg=before)
    # Focus went on to the next legal target, so play continues with Enter alone.
    page.wait_for_function("() => document.activeElement.matches('[data-act], [data-pick]')")
    before = version(page)
    page.keyboard.press("Enter")
    page.wait_for_function("(v) => Number(document.querySelector('.table').dataset.version) > v"
                           " || document.querySelector('.pick.on')", arg=before)
    assert page.locator(".hand li").count() > 0
    page.click("button.hide-hand")
    assert page.locator(".hand").count() == 0 and page.is_visible(".hand-hidden")
    # Nothing but the (public) fields names a bean of this hand now: not the buttons, not the steps.
    names = ["Blaue Bohne", "Kidneybohne", "Feuerbohne", "Puffbohne", "Saubohne", "Brechbohne",
             "Stangenbohne", "Blue bean", "Kidney bean", "Fire bean", "Puff bean", "Broad bean",
             "French bean", "Runner bean"]
    for where in (".actionbar", ".fields .acts", ".steps"):
        text = " ".join(page.locator(where).all_inner_texts())
        assert not any(n in text for n in names if n not in page.inner_text(".fields")), (where, text)
    page.click("button.hide-hand")
    assert page.locator(".hand li").count() > 0
    # Switching away hides it by itself.
    page.evaluate("() => { Object.defineProperty(document, 'visibilityState',"
                  " {value: 'hidden', configurable: true});"
                  " document.dispatchEvent(new Event('visibilitychange')); }")
    page.wait_for_selector(".hand-hidden")


def test_app_shell_opens_offline_after_one_visit(phone):
    page = phone("offline-shell", service_workers="allow")
    page.goto("/")
    page.wait_for_selector("[data-new=solo]")
    page.evaluate("async () => { await navigator.serviceWorker.ready; }")
    page.reload()  # now controlled by the worker
    page.wait_for_function("() => navigator.serviceWorker.controller !== null")
    # Chromium's own verdict on the manifest, icons and worker (what makes it offer "Install app").
    cdp = page.context.new_cdp_session(page)
    errors = cdp.send("Page.getInstallabilityErrors")["installabilityErrors"]
    assert [e["errorId"] for e in errors if e["errorId"] != "in-incognito"] == []  # test contexts are
    manifest = cdp.send("Page.getAppManifest")
    assert not manifest.get("errors"), manifest.get("errors")
    page.context.set_offline(True)
    page.reload()
    page.wait_for_selector("[data-new=solo]")
    page.context.set_offline(False)


def test_table_screen_qr(phone):
    page = phone("watch-qr")
    new_solo(page)
    page.click("text=Table screen")
    page.wait_for_function("() => document.querySelector('.watchbox img.qr').naturalWidth > 100")
    assert "#watch=" in page.get_attribute(".watchbox a", "href")


def test_plain_http_lan_address_degrades_gracefully(browser, server):
    """A phone opening http://<LAN address>: no secure context, so no service worker, no wake lock and no
    crypto.randomUUID. The game must still be fully playable."""
    port = server.rsplit(":", 1)[1]
    lan = browser.browser_type.launch(executable_path=HEADLESS,
                                      args=[*ARGS, "--host-resolver-rules=MAP alcabohne.lan 127.0.0.1"])
    try:
        ctx = lan.new_context(viewport={"width": 390, "height": 844}, reduced_motion="reduce")
        page = ctx.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"http://alcabohne.lan:{port}/")
        page.wait_for_selector("[data-new=solo]")
        assert page.evaluate("() => window.isSecureContext") is False
        page.click("[data-new=solo]")
        page.wait_for_selector(".table")
        before = version(page)
        page.click('[data-act^="plant_hand"]')  # needs an Idempotency-Key made without randomUUID
        page.wait_for_function("(v) => Number(document.querySelector('.table').dataset.version) > v",
                               arg=before)
        assert page.evaluate("() => navigator.serviceWorker === undefined"
                             " || navigator.serviceWorker.controller === null")
        assert not errors, errors
    finally:
        lan.close()


def test_a_lost_answer_is_retried_with_the_same_key_and_applied_once(phone):
    page = phone("lost-answer")
    new_solo(page)
    keys = []

    def lose_first_answer(route):
        keys.append(route.request.headers.get("idempotency-key"))
        answer = route.fetch()  # the server applies the move ...
        if len(keys) == 1:
            route.abort("connectionreset")  # ... but the phone never hears back
        else:
            route.fulfill(response=answer)

    page.route("**/api/v1/games/*/actions", lose_first_answer)
    before = version(page)
    page.click('[data-act^="plant_hand"]')
    page.wait_for_function("() => !document.querySelector('.pending')"
                           " && Number(document.querySelector('.table').dataset.version) > 1")
    assert version(page) == before + 1  # applied once, although sent twice
    assert len(keys) == 2 and keys[0] == keys[1] and len(keys[0]) == 36
    stored = page.evaluate("() => Object.values(JSON.parse(localStorage.getItem('alc.games')))")
    assert stored[0].get("pending") is None  # nothing left to resend after a reload


def test_a_version_gap_on_the_socket_triggers_a_resync(phone):
    page = phone("gap")
    routes = []

    def relay(ws):
        ws.connect_to_server()  # forwards both ways by default
        routes.append(ws)

    page.route_web_socket("**/ws", relay)
    new_solo(page)
    page.wait_for_selector(".conn-live")
    v = version(page)
    game_id = page.url.rsplit("/", 1)[1]
    # A push that skips versions, carrying a made-up view: the client must not show it, but read again.
    fake = {"type": "state", "version": v + 5, "view": {"phase": "over", "players": [], "legal_actions": []}}
    with page.expect_response(lambda r: r.url.endswith(f"/api/v1/games/{game_id}"), timeout=5000) as read:
        routes[-1].send(json.dumps(fake))
    assert read.value.ok, "the resync after the gap failed"
    assert version(page) == v and page.get_attribute(".table", "data-phase") != "over"


def test_an_answer_older_than_the_pushed_state_does_not_bring_the_lobby_back(phone, server):
    """A read of the game answered before the guest joins but arriving after the socket's state of the
    join (both seats taken) changes nothing, nor does a state frame older than the version shown: the
    table stays, as the newer version says. (Their older seats would bring the lobby back with nothing
    newer to come: the host would wait for a guest already seated.) Reads happen besides the socket: at
    a wake-up, while it reconnects; and a socket's frame may come after a read's newer answer."""
    g = http(server, "POST", "/games", {"mode": "duo", "dealer": 0})
    gid = g["game_id"]
    page = phone("host")
    sockets = []

    def relay(ws):
        ws.connect_to_server()  # forwards both ways by default
        sockets.append(ws)

    page.route_web_socket("**/ws", relay)
    page.route("**/favicon.ico", lambda route: route.fulfill(status=204))
    page.goto("/healthz")
    record = {gid: {"mode": "duo", "tokens": {"0": g["token"]}, "created": 0}}
    page.evaluate("(r) => localStorage.setItem('alc.games', JSON.stringify(r))", record)
    page.goto(f"/#/g/{gid}")
    page.wait_for_selector(".lobby")
    page.wait_for_selector("header .conn-live")  # the socket is open: the join will be pushed
    held = []
    page.route(re.compile(rf".*/api/v1/games/{gid}$"),
               lambda route: held.append(route) if route.request.method == "GET" else route.continue_())
    stale = http(server, "GET", f"/games/{gid}", token=g["token"])  # what a read answers now: one seat free
    page.evaluate("() => window.dispatchEvent(new Event('online'))")  # a wake-up: the phone reads the game
    _wait_for_reads(page, held, 1)
    http(server, "POST", "/games/join", {"code": g["join_code"]})
    page.wait_for_selector(".table [data-area='other']")  # the socket's state of the join
    # Two reads answered with the older state (the second one's answer redraws the screen). The next read
    # waits in the phone's queue behind each: once it is asked, the one before is through.
    for n in (1, 2):
        held[-1].fulfill(status=200, content_type="application/json", body=json.dumps(stale))
        page.evaluate("() => window.dispatchEvent(new Event('online'))")
        _wait_for_reads(page, held, n + 1)
    assert page.locator(".lobby").count() == 0 and page.locator(".table [data-area='other']").count() == 1
    held[-1].continue_()
    # The same older state as a socket frame, then a presence frame (it redraws the screen: the guest is
    # away, said beside their name).
    sockets[-1].send(json.dumps({"type": "state", "version": stale["version"], "view": stale["view"],
                                 "seats": stale["seats"]}))
    sockets[-1].send(json.dumps({"type": "presence", "seats": [{"seat": 0, "online": True},
                                                               {"seat": 1, "online": False}]}))
    page.wait_for_selector(".table [data-area='other'] .meta:has-text('away')")
    assert page.locator(".lobby").count() == 0


def _wait_for_reads(page, held: list, n: int) -> None:
    """Wait until the page has asked for `n` reads (the route handler holds them; it runs while the
    page is waited on)."""
    for _ in range(500):
        if len(held) >= n:
            return
        page.wait_for_timeout(20)
    raise AssertionError(f"the phone asked for {len(held)} reads, not {n}")
