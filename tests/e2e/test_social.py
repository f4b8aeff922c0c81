"""The people at the table: names on every phone and the table screen, Share, the host's own join link,
the rematch joined with one tap on the other phone, and the end overlay with its score breakdown.

Games are brought to their end through the HTTP API with the tokens the phones hold (tests/e2e/social.py)
while the phones sit on their start screens (a phone showing the game would make its forced moves
itself, racing the driver); they come back to the finished game as a player does after a break. The
table screen, too, is opened on the finished game (a page following every version only slows the game
down; the end reaching phones and the table screen live is tests/e2e/test_game_end.py's). What comes
after the end reaches the other screens live: the rematch offer on the other phone and the table screen.
"""

from __future__ import annotations

from tests.e2e.conftest import ARGS, HEADLESS
from tests.e2e.pages import axe_check, shot
from tests.e2e.social import call, game_id, play_to_end, stored_games, token_of

LIVE = 8000  # a change must show on the other phone within this (socket, or polling every 3 s)
TABLET = {"width": 1024, "height": 768}
ANNA = "Anna <b>&amp;</b>"  # markup in a name must come out as these very characters


def iso(name: str) -> str:
    """A player's name as every screen shows it: between first-strong and pop-directional isolates."""
    return f"\u2068{name}\u2069"


def name_and_open(page, name: str | None) -> None:
    page.goto("/")
    page.wait_for_selector("#myname")
    if name is not None:
        page.fill("#myname", name)


def duo_pair(phone, host_name, guest_name, guest_locale="en-US"):
    """Two phones in one duo game (the guest joins by typing the code); returns (host, guest, id)."""
    a = phone("host")
    b = phone("guest", locale=guest_locale)
    name_and_open(a, host_name)
    a.click("[data-new=duo]")
    a.wait_for_selector("[data-code]")
    code = a.get_attribute("[data-code]", "data-code")
    gid = game_id(a)
    name_and_open(b, guest_name)
    b.fill("#code", code)
    b.click("form.join button[type=submit]")
    b.wait_for_selector(".table")
    a.wait_for_selector(".table", timeout=LIVE)
    return a, b, gid


def finish(server, gid, pages, seed):
    """Play game `gid` to its end through the API while `pages` wait on their start screens, then open
    it again on each of them; return the final public answer."""
    tokens = seat_tokens(*pages, gid)
    for page in pages:
        page.goto("/")
        page.wait_for_selector(f'[data-resume="{gid}"]')
    final = play_to_end(server, gid, tokens, seed=seed)
    for page in pages:
        page.click(f'[data-resume="{gid}"]')
        page.wait_for_selector(".end-overlay .end .winner")
    return final


def other_name(page) -> str:
    return page.inner_text('[data-area="other"] .pname').strip()


def my_name(page) -> str:
    """The top bar's "who this phone plays" (its hidden lead-in for screen readers, then the name)."""
    return page.evaluate("() => document.querySelector('header [data-me]').textContent")


def seat_tokens(*pages_and_id) -> dict[int, str]:
    *pages, gid = pages_and_id
    return dict(token_of(p, gid) for p in pages)


def test_names_on_both_phones_and_the_table_screen(phone, server):
    a, b, gid = duo_pair(phone, ANNA, "  Ben  ", guest_locale="de-DE")
    # Each phone names the other player; the name is text, never markup.
    a.wait_for_function("(n) => document.querySelector('[data-area=\"other\"] .pname').textContent === n",
                        arg=iso("Ben"), timeout=LIVE)
    assert other_name(b) == iso(ANNA)
    assert b.locator('[data-area="other"] b').count() == 0
    # Each phone shows its own name in the top bar (as text).
    assert my_name(a) == f"You play as {iso(ANNA)}"
    assert my_name(b) == f"Du spielst als {iso('Ben')}"
    assert a.locator(".bar b").count() == 0
    _, answer = call(server, "GET", f"/games/{gid}")
    assert [s["name"] for s in answer["seats"]] == [ANNA, "Ben"]  # trimmed by the server
    shot(a, "40-names-host")
    shot(b, "41-names-guest-de")
    # The table screen on a tablet shows both names.
    tablet = phone("tablet-names", viewport=TABLET)
    tablet.goto(f"/#watch={gid}")
    tablet.wait_for_selector(".table")
    shown = [x.strip() for x in tablet.locator('[data-area="other"] .pname').all_inner_texts()]
    assert shown == [iso(ANNA), iso("Ben")]
    shot(tablet, "42-names-table-screen")
    # The name is remembered on the device, and the start screen's list of games names the players.
    a.goto("/")
    assert a.input_value("#myname") == ANNA
    for page in (a, b):
        page.goto("/")
        assert page.inner_text(f'[data-players="{gid}"]') == f"{iso(ANNA)} · {iso('Ben')}"
    shot(b, "55-home-resume-names-de")


def test_no_name_and_the_computer(phone, server):
    page = phone("no-name", locale="de-DE")
    name_and_open(page, None)
    page.click("[data-new=duo]")
    page.wait_for_selector("[data-code]")
    assert page.locator(".playing-as").inner_text().strip() == "Du spielst als Spieler 1"
    assert page.inner_text("[data-share]") == "Link teilen"
    axe_check(page, "54-lobby-de")
    code = page.get_attribute("[data-code]", "data-code")
    guest = phone("no-name-guest")
    guest.goto(f"/#join={code}")
    guest.wait_for_selector(".table")
    assert other_name(guest) == "Player 1"
    assert my_name(guest) == "You play as Player 2"
    guest.goto("/")
    assert guest.inner_text(f'[data-players="{game_id(page)}"]') == "Player 1 · You"
    # Against the computer: the other seat is "Computer", whatever this player is called.
    bot = phone("bot-name")
    name_and_open(bot, "x" * 40)
    assert len(bot.input_value("#myname")) == 24  # the field holds at most 24 characters
    # Control, separator and bidi characters never reach the server (it would refuse the name).
    bot.fill("#myname", "\u202e Zo\u00eb\u2028 Ko\u0007 ")
    bot.click("[data-new=bot]")
    bot.wait_for_selector(".table")
    assert other_name(bot) == "Computer"
    bot_id = game_id(bot)
    _, answer = call(server, "GET", f"/games/{bot_id}")
    assert [s["name"] for s in answer["seats"]] == ["Zo\u00eb Ko", None]
    bot.goto("/")
    assert bot.inner_text(f'[data-players="{bot_id}"]') == iso("Zo\u00eb Ko") + " · Computer"


def test_pass_and_play_names_both_seats_and_a_finished_game_leaves_the_unfinished(phone, server,
                                                                                  page_errors):
    """Pass-and-play: the lobby takes the second player's name too (a name of the game is refused
    beside it, saying why). Once its end was shown, the game is listed among the finished games of the
    start screen, no longer among the unfinished ones."""
    page = phone("hotseat-names")
    name_and_open(page, "Ida")
    page.click("[data-new=duo]")
    page.wait_for_selector("[data-code]")
    page.fill("#name2", "Computer")
    with page.expect_console_message(lambda m: "status of 400" in m.text):
        page.click("[data-lobby=hotseat]")
    page.wait_for_selector("[data-name-error]")
    assert "belongs to the game" in page.inner_text("[data-name-error]")
    assert page.input_value("#name2") == "Computer"
    page_errors[:] = [p for p in page_errors if "status of 400" not in p]  # the refusal, shown above
    page.fill("#name2", " Ole ")
    shot(page, "56-lobby-hotseat-name")
    page.click("[data-lobby=hotseat]")
    page.wait_for_selector(".table, [data-curtain]")
    gid = game_id(page)
    _, answer = call(server, "GET", f"/games/{gid}")
    assert [s["name"] for s in answer["seats"]] == ["Ida", "Ole"]
    tokens = {int(seat): token for seat, token in stored_games(page)[gid]["tokens"].items()}
    page.goto("/")
    assert page.locator(f'[data-resume="{gid}"]').count() == 1
    play_to_end(server, gid, tokens, seed=19)
    page.click(f'[data-resume="{gid}"]')
    page.wait_for_selector(".end-overlay .end .winner")
    page.click("[data-end=table]")  # a last look at the table, then away through the top bar:
    page.click("header a[href='#/']")  # the end was not put away (its tokens stay for Play again)
    page.wait_for_selector(f'[data-finished="{gid}"]')
    assert page.locator(f'[data-resume="{gid}"]').count() == 0
    assert page.inner_text(f'[data-players="{gid}"]') == f"{iso('Ida')} · {iso('Ole')}"
    shot(page, "57-home-finished")
    page.click(f'[data-finished="{gid}"]')  # the result (and Play again) is one tap away
    page.wait_for_selector("[data-end=rematch]")


def refused_join_logged(problems: list[str]) -> None:
    """Take the browser's own console line of a refused join (its 404 answer) off the page errors
    (conftest's `page_errors`): the app shows the refusal; Chromium logs every 4xx fetch besides."""
    seen = [p for p in problems if "status of 404" in p]
    assert len(seen) == 1, problems
    problems.remove(seen[0])


def test_a_wrong_code_says_so_beside_the_join_button(phone, page_errors):
    page = phone("wrong-code")
    page.goto("/")
    page.fill("#code", "QQQQQQ")
    with page.expect_console_message(lambda m: "status of 404" in m.text):
        page.click("form.join button[type=submit]")
    page.wait_for_selector("[data-join-error]")
    refused_join_logged(page_errors)
    assert "not valid" in page.inner_text("[data-join-error]")
    button = page.locator("form.join button[type=submit]").bounding_box()
    error = page.locator("[data-join-error]").bounding_box()
    assert 0 <= error["y"] - (button["y"] + button["height"]) <= 24, (button, error)
    assert page.locator("main > .notice").count() == 0  # nothing at the top of the page
    axe_check(page, "58-home-wrong-code")
    # A join link with a wrong code lands on the same place, its code in the field.
    link = phone("wrong-link", locale="de-DE")
    with link.expect_console_message(lambda m: "status of 404" in m.text):
        link.goto("/#join=QQQQQQ")
    link.wait_for_selector("[data-join-error]")
    refused_join_logged(page_errors)
    assert link.input_value("#code") == "QQQQQQ"
    assert "Dieser Code gilt nicht" in link.inner_text("[data-join-error]")


def test_a_name_of_the_game_is_refused_with_the_reason(phone, page_errors):
    reasons = {"en-US": "That name belongs to the game", "de-DE": "Dieser Name gehört zum Spiel"}
    for locale, reason in reasons.items():
        page = phone(f"reserved-{locale}", locale=locale)
        name_and_open(page, "Mafia")
        with page.expect_console_message(lambda m: "status of 400" in m.text):
            page.click("[data-new=solo]")
        page.wait_for_selector("main > .notice")
        text = page.inner_text("main > .notice")
        assert text.startswith(reason) and " / " not in text, text  # one language, the player's
        page_errors[:] = [p for p in page_errors if "status of 400" not in p]


SARA = "\u05e9\u05e8\u05d4"  # a name in Hebrew letters

# Text nodes and labels of the page that show `name` without isolates around it.
BARE = """(name) => {
  const bad = [];
  const walk = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walk.nextNode(); n; n = walk.nextNode()) {
    const s = n.textContent;
    for (let i = s.indexOf(name); i >= 0; i = s.indexOf(name, i + 1)) {
      if (s[i - 1] !== '\u2068' || s[i + name.length] !== '\u2069') bad.push(s);
    }
  }
  for (const el of document.querySelectorAll('[aria-label], [title]')) {
    for (const a of ['aria-label', 'title']) {
      const v = el.getAttribute(a);
      if (v && v.includes(name) && !v.includes('\u2068' + name + '\u2069')) bad.push(`${a}: ${v}`);
    }
  }
  return bad;
}"""

# Where a sentence of the app puts a name followed by a number ("Final harvest: <name> 3× ..."), laid out
# in a paragraph of the page: the left edges of the name and of the number.
ORDER = """async ([name, isolated]) => {
  const { isolate } = await import('/js/names.js');
  const { t } = await import('/js/i18n.js');
  const who = isolated ? isolate(name) : name;
  const text = t('ev.harvest.final', { who, count: 3, bean: 'Blue', coins: 2 });
  const p = document.createElement('p');
  p.textContent = text;
  document.body.append(p);
  const at = (i, j) => {
    const r = document.createRange();
    r.setStart(p.firstChild, i);
    r.setEnd(p.firstChild, j);
    return r.getBoundingClientRect().left;
  };
  const ni = text.indexOf(name);
  const ci = text.indexOf('3', ni + name.length);
  const out = { name: at(ni, ni + name.length), count: at(ci, ci + 1) };
  p.remove();
  return out;
}"""


def test_a_right_to_left_name_reorders_no_sentence(phone, server):
    """Every name is shown between isolates, on both phones, the table screen, the history and the start
    screen; so a Hebrew name followed by a number stays before it, as the sentence says."""
    a, b, gid = duo_pair(phone, SARA, "Ben")
    tablet = phone("rtl-table", viewport=TABLET)
    tablet.goto(f"/#watch={gid}")
    tablet.wait_for_selector(".table.tv")
    tablet.wait_for_function("(n) => document.body.textContent.includes(n)", arg=SARA)
    b.wait_for_function("(n) => document.body.textContent.includes(n)", arg=SARA)
    def isolated_everywhere(page):
        for name in (SARA, "Ben"):  # whatever its script
            assert not page.evaluate(BARE, name), page.evaluate(BARE, name)

    for page in (a, b, tablet):
        isolated_everywhere(page)
    b.click('[data-follow="history"]')
    b.wait_for_selector('[data-follow="drawer"]')
    isolated_everywhere(b)
    b.goto("/")
    b.wait_for_selector(f'[data-players="{gid}"]')
    isolated_everywhere(b)
    # What the isolates prevent: without them the number jumps before the right-to-left name.
    bare, isolated = b.evaluate(ORDER, [SARA, False]), b.evaluate(ORDER, [SARA, True])
    assert bare["count"] < bare["name"], bare
    assert isolated["count"] > isolated["name"], isolated


def test_share_copies_the_link_where_there_is_no_share_sheet(phone, server):
    page = phone("share-copy")
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    name_and_open(page, "Ida")
    axe_check(page, "43-home-name")
    page.click("[data-new=duo]")
    page.wait_for_selector("[data-share]")
    link = page.get_attribute("[data-join-link]", "href")
    assert page.evaluate("() => typeof navigator.share") == "undefined"  # Debian's Chromium has none
    page.click("[data-share]")
    page.wait_for_selector('[data-shared="copied"]')
    assert page.inner_text(".share-state") == "Link copied. Paste it into a message."
    assert page.evaluate("() => navigator.clipboard.readText()") == link
    assert page.inner_text(".playing-as").strip() == f"You play as {iso('Ida')}"
    page.wait_for_function("() => document.querySelector('img.qr').naturalWidth > 100")
    axe_check(page, "44-lobby-share")
    tablet = phone("share-tablet", viewport=TABLET)
    name_and_open(tablet, "Ida")
    shot(tablet, "43-home-name-tablet")
    tablet.click("[data-new=duo]")
    tablet.wait_for_function("() => (document.querySelector('img.qr') || {}).naturalWidth > 100")
    shot(tablet, "45-lobby-tablet")


def test_share_opens_the_share_sheet_where_there_is_one(phone):
    page = phone("share-sheet")
    # Debian's Chromium has no share sheet; this stands in for the phone's and records what it is given.
    page.context.add_init_script("navigator.share = async (data) => { window.sharedData = data; };")
    page.goto("/")
    page.click("[data-new=duo]")
    page.wait_for_selector("[data-share]")
    link = page.get_attribute("[data-join-link]", "href")
    code = page.get_attribute("[data-code]", "data-code")
    page.click("[data-share]")
    page.wait_for_selector('[data-shared="shared"]')
    data = page.evaluate("() => window.sharedData")
    assert data["url"] == link and code in data["text"]


def test_share_copies_on_a_plain_http_lan_address(browser, server):
    """No secure context (http://<LAN address>): no Clipboard API, so the copy goes through a selected
    text area; a page on a secure origin of the same browser reads the clipboard back."""
    port = server.rsplit(":", 1)[1]
    lan = browser.browser_type.launch(executable_path=HEADLESS,
                                      args=[*ARGS, "--host-resolver-rules=MAP alcabohne.lan 127.0.0.1"])
    try:
        ctx = lan.new_context(viewport={"width": 390, "height": 844}, reduced_motion="reduce")
        page = ctx.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.goto(f"http://alcabohne.lan:{port}/")
        page.click("[data-new=duo]")
        page.wait_for_selector("[data-share]")
        assert page.evaluate("() => window.isSecureContext || navigator.clipboard !== undefined") is False
        link = page.get_attribute("[data-join-link]", "href")
        page.click("[data-share]")
        page.wait_for_selector('[data-shared="copied"]')
        reader = lan.new_context()
        reader.grant_permissions(["clipboard-read"], origin=server)
        check = reader.new_page()
        check.goto(server + "/")
        assert check.evaluate("() => navigator.clipboard.readText()") == link
        assert not errors, errors
    finally:
        lan.close()


def test_the_host_opening_its_own_join_link_keeps_its_seat(phone, server):
    a = phone("host-own")
    name_and_open(a, "Host")
    a.click("[data-new=duo]")
    a.wait_for_selector("[data-code]")
    gid = game_id(a)
    code = a.get_attribute("[data-code]", "data-code")
    link = a.get_attribute("[data-join-link]", "href")
    a.goto(link)  # the host scans its own QR code
    a.wait_for_selector(".own-link")
    assert game_id(a) == gid and a.locator("[data-code]").count() == 1  # still its lobby, still its seat
    shot(a, "46-own-join-link")
    tab = a.context.new_page()  # another tab of the same phone
    tab.goto(link)
    tab.wait_for_selector(".own-link")
    assert game_id(tab) == gid
    tab.close()
    _, answer = call(server, "GET", f"/games/{gid}")
    assert [s["taken"] for s in answer["seats"]] == [True, False]
    assert list(stored_games(a)[gid]["tokens"]) == ["0"]
    # The server agrees: a join with the code and the host's own token answers with the host's seat.
    seat, token = token_of(a, gid)
    status, again = call(server, "POST", "/games/join", token, {"code": code})
    assert status == 200 and again["game_id"] == gid and again["seat"] == seat == 0
    _, answer = call(server, "GET", f"/games/{gid}")
    assert [s["taken"] for s in answer["seats"]] == [True, False]
    # The other phone still takes the free seat, and opening the link again brings it back to it.
    b = phone("guest-own")
    b.goto(link)
    b.wait_for_selector(".table")
    a.wait_for_selector(".table", timeout=LIVE)
    b.goto("/")
    b.wait_for_selector("#myname")
    b.goto(link)
    b.wait_for_selector(".table")
    assert game_id(b) == gid and list(stored_games(b)[gid]["tokens"]) == ["1"]


def check_breakdown(page, result: dict, mode: str) -> None:
    """The end overlay's score table says what view.result says, and every line adds up."""
    rows = page.locator(".end-scores tbody tr")
    assert rows.count() == len(result["scores"]) + 1
    for i, total in enumerate(result["scores"]):
        cells = page.locator(f'.end-scores tr[data-score="{i}"] td').all_inner_texts()
        before, final, shown = cells
        assert int(shown) == total
        assert int(before) + int(final.lstrip("+")) == total
    before, final, shown = page.locator('.end-scores tr[data-score="mafia"] td').all_inner_texts()
    added = int(before) + int(final.lstrip("+"))
    if mode == "solo":
        assert shown == f"{added} × 2 = {result['mafia']}" and 2 * added == result["mafia"]
    else:
        assert int(shown) == added == result["mafia"]
    tie = page.get_attribute(".end .why", "data-tie") == "1"
    best = max(result["scores"])
    assert tie == ("mafia" in result["winners"] and best == result["mafia"])
    if tie:
        words = {"en": "a tie goes to the mafia", "de": "bei gleichstand gewinnt die mafia"}
        lang = page.evaluate("() => document.documentElement.lang")
        assert words[lang] in page.inner_text(".end .why").lower()


def test_rematch_joined_with_one_tap_on_the_other_phone(phone, server):
    a, b, gid = duo_pair(phone, "Anna", "Ben")
    tokens = seat_tokens(a, b, gid)
    final = finish(server, gid, [a, b], seed=7)
    result = final["view"]["result"]
    tablet = phone("tablet-end", viewport=TABLET)
    tablet.goto(f"/#watch={gid}")
    for page in (a, b, tablet):
        page.wait_for_selector(".end-overlay .end .winner", timeout=LIVE)
        check_breakdown(page, result, "duo")
    assert a.inner_text('.end-scores tr[data-score="1"] th').strip() == iso("Ben")
    assert b.inner_text('.end-scores tr[data-score="0"] th').strip() == iso("Anna")
    assert b.inner_text('.end-scores tr[data-score="1"] th').strip() == "You"
    axe_check(a, "47-end-duo")
    shot(tablet, "48-end-table-screen")
    assert tablet.locator("[data-end=rematch]").count() == 0  # the table screen plays no one
    # Anna taps "Play again": her phone goes to the next game and waits for Ben there.
    a.click("[data-end=rematch]")
    a.wait_for_function("(old) => /^#\\/g\\//.test(location.hash) && !location.hash.includes(old)", arg=gid)
    new = game_id(a)
    a.wait_for_selector('[data-lobby="rematch"]')
    # The start player alternates: the new game's first mover is not the one of the finished game.
    _, record = call(server, "GET", f"/games/{gid}/record")
    _, fresh = call(server, "GET", f"/games/{new}")
    assert fresh["version"] == 1 and fresh["view"]["active"] == 1 - record["actions"][0]["seat"]
    assert record["seats"][1]["name"] == "Ben"
    assert "Ben" in a.inner_text('[data-lobby="rematch"] h2')
    axe_check(a, "49-rematch-waiting")
    # Ben's phone is offered the new game over its socket, and again after a reload.
    b.wait_for_selector('[data-end="join-rematch"]', timeout=LIVE)
    assert f"{iso('Anna')} wants to play again." in b.inner_text(".rematch-offer")
    b.reload()
    b.wait_for_selector('[data-end="join-rematch"]')
    axe_check(b, "50-rematch-offer")
    tablet.wait_for_selector('[data-end="watch-next"]', timeout=LIVE)
    b.click('[data-end="join-rematch"]')  # one tap
    b.wait_for_function("(id) => location.hash === '#/g/' + id && document.querySelector('.table')", arg=new)
    a.wait_for_selector(".table", timeout=LIVE)
    assert other_name(a) == iso("Ben") and other_name(b) == iso("Anna")
    # Exactly one next game: asking again, from either seat, answers with it and the same seat.
    for seat, token in tokens.items():
        status, grant = call(server, "POST", f"/games/{gid}/rematch", token)
        assert status == 200 and grant["game_id"] == new and grant["seat"] == seat
    # Both phones forgot the finished game.
    assert gid not in stored_games(a) and gid not in stored_games(b)
    tablet.click('[data-end="watch-next"]')
    tablet.wait_for_function("(id) => location.hash === '#watch=' + id && document.querySelector('.table')",
                             arg=new)


def test_both_phones_tapping_play_again_start_one_game(phone, server):
    a, b, gid = duo_pair(phone, "Cleo", "Dan")
    finish(server, gid, [a, b], seed=11)
    for page in (a, b):
        page.wait_for_selector("[data-end=rematch]", timeout=LIVE)
    # Both tap at once (neither waits for the other's answer).
    a.evaluate("() => document.querySelector('[data-end=rematch]').click()")
    b.evaluate("() => document.querySelector('[data-end^=\"rematch\"], [data-end=\"join-rematch\"]').click()")
    for page in (a, b):
        page.wait_for_function("(old) => /^#\\/g\\//.test(location.hash) && !location.hash.includes(old)"
                               " && document.querySelector('.table')", arg=gid, timeout=LIVE)
    assert game_id(a) == game_id(b)
    assert other_name(a) == iso("Dan") and other_name(b) == iso("Cleo")


def test_solo_end_overlay_breakdown_and_streak(phone, server):
    page = phone("solo-end")
    name_and_open(page, "Solo")
    page.click("[data-new=solo]")
    page.wait_for_selector(".table")
    gid = game_id(page)
    final = finish(server, gid, [page], seed=3)
    check_breakdown(page, final["view"]["result"], "solo")
    assert "counts double" in page.inner_text(".end")
    assert page.is_visible(".end .streak")
    axe_check(page, "51-end-solo")
    # The overlay folds away to look at the final table, and comes back.
    page.click("[data-end=table]")
    page.wait_for_selector(".end-bar")
    assert page.locator(".end-overlay").count() == 0 and page.is_visible(".table")
    shot(page, "52-end-folded")
    page.click("[data-end=show]")
    page.wait_for_selector(".end-overlay")
    page.keyboard.press("Escape")  # keyboard players fold it the same way
    page.wait_for_selector(".end-bar")
    page.click("[data-end=show]")
    page.wait_for_selector(".end-overlay")
    # Play again: a new solo game, the streak kept on this device.
    page.click("[data-end=rematch]")
    page.wait_for_function("(old) => /^#\\/g\\//.test(location.hash) && !location.hash.includes(old)"
                           " && document.querySelector('.table')", arg=gid)
    assert gid not in stored_games(page)
    page.goto("/")
    page.wait_for_selector(".streak")


def test_end_overlay_on_the_tablet(phone, server):
    page = phone("solo-end-tablet", viewport=TABLET, locale="de-DE")
    page.goto("/")
    page.click("[data-new=solo]")
    page.wait_for_selector(".table")
    gid = game_id(page)
    final = finish(server, gid, [page], seed=5)
    check_breakdown(page, final["view"]["result"], "solo")
    axe_check(page, "53-end-solo-tablet-de")


def test_play_again_against_the_computer(phone, server):
    page = phone("bot-again")
    name_and_open(page, "Eve")
    page.click("[data-new=bot]")
    page.wait_for_selector(".table")
    gid = game_id(page)
    finish(server, gid, [page], seed=13)
    assert page.inner_text('.end-scores tr[data-score="1"] th').strip() == "Computer"
    page.click("[data-end=rematch]")
    page.wait_for_function("(old) => /^#\\/g\\//.test(location.hash) && !location.hash.includes(old)"
                           " && document.querySelector('.table')", arg=gid)
    new = game_id(page)
    assert other_name(page) == "Computer"
    assert list(stored_games(page)) == [new]
    _, answer = call(server, "GET", f"/games/{new}")
    assert answer["seats"][0]["name"] == "Eve" and answer["seats"][1]["bot"] == "mc"


def test_play_again_with_both_seats_on_one_phone(phone, server):
    page = phone("hotseat-again")
    page.goto("/")
    page.click("[data-new=duo]")
    page.wait_for_selector("[data-code]")
    page.click("text=Play both seats on this phone")
    page.wait_for_selector(".table, [data-curtain]")
    gid = game_id(page)
    tokens = {int(seat): token for seat, token in stored_games(page)[gid]["tokens"].items()}
    assert sorted(tokens) == [0, 1]
    page.goto("/")
    page.wait_for_selector(f'[data-resume="{gid}"]')
    play_to_end(server, gid, tokens, seed=17)
    page.click(f'[data-resume="{gid}"]')
    page.wait_for_selector("[data-end=rematch]")
    page.click("[data-end=rematch]")
    page.wait_for_function("(old) => /^#\\/g\\//.test(location.hash) && !location.hash.includes(old)"
                           " && document.querySelector('.table, [data-curtain]')", arg=gid)
    new = game_id(page)
    assert sorted(stored_games(page)[new]["tokens"]) == ["0", "1"]  # both seats of the next game
    assert page.locator('[data-lobby="rematch"]').count() == 0


WHY = """async ([result, mode]) => {
  const end = await import('/js/views/end.js');
  const seats = [{seat: 0, taken: true, name: 'Anna'}, {seat: 1, taken: true, name: null, bot: 'mc'}];
  return [end.winnerText(result, 0, mode, false, seats), end.whyText(result, mode, seats, 0, false)];
}"""


def test_why_the_game_ended_as_it_did(phone):
    """The end overlay's two sentences for outcomes a random game rarely reaches (a tie above all)."""
    page = phone("why")
    page.goto("/")
    page.wait_for_selector("#myname")
    tie = {"scores": [7, 5], "mafia": 7, "winners": ["mafia"], "tie_to_mafia": True}
    assert page.evaluate(WHY, [tie, "duo"]) == [
        "The Mafia wins.", "A tie at 7 coins: a tie goes to the Mafia."]
    won = {"scores": [3, 9], "mafia": 8, "winners": [1], "tie_to_mafia": False}
    assert page.evaluate(WHY, [won, "duo"]) == [
        "Computer wins!", "Computer has 9 coins, more than the Mafia (8)."]
    both = {"scores": [9, 9], "mafia": 1, "winners": [0, 1], "tie_to_mafia": False}
    assert page.evaluate(WHY, [both, "duo"])[1] == "Both have 9 coins, more than the Mafia (1)."
    solo = {"scores": [11], "mafia": 12, "winners": ["mafia"], "tie_to_mafia": False}
    assert page.evaluate(WHY, [solo, "solo"])[1] == "The Mafia has 12 coins, more than you (11)."
    page.click("button.lang")
    page.wait_for_selector("html[lang=de]")
    assert page.evaluate(WHY, [tie, "duo"])[1] == (
        "Gleichstand bei 7 Talern: Bei Gleichstand gewinnt die Mafia.")
    one = {"scores": [1], "mafia": 0, "winners": [0], "tie_to_mafia": False}
    assert page.evaluate(WHY, [one, "solo"]) == [
        "Du hast die Mafia besiegt!", "Du hast 1 Taler, mehr als die Mafia (0)."]
