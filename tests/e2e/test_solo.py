"""A solo game tapped for its first turns and played to its end, the end screen and the streak; reload and
resume."""

from __future__ import annotations

import re

import engine
from tests.e2e.pages import axe_check, play_turn, shot, step, version
from tests.e2e.tapgame import http

TAPPED_TURNS = 6


def new_solo(page):
    page.goto("/")
    page.click("[data-new=solo]")
    page.wait_for_selector(".table")
    return re.search(r"#/g/([\w-]+)", page.url).group(1)


def test_home_screen_is_accessible_in_both_languages(phone):
    page = phone("home")
    page.goto("/")
    page.wait_for_selector("[data-new=solo]")
    axe_check(page, "01-home-en")
    page.click("button.lang")
    page.wait_for_selector("html[lang=de]")
    assert page.is_visible("text=Neues Solospiel")
    axe_check(page, "02-home-de")
    page.reload()
    page.wait_for_selector("text=Neues Solospiel")  # the choice is remembered on the device


def test_complete_solo_game_by_tapping(phone, server):
    """Turns tapped on the phone, then the rest of the game played with the phone's own seat token over
    HTTP (as fast as a computer could), which the phone follows to its end screen."""
    page = phone("solo")
    game_id = new_solo(page)
    assert page.is_visible(".banner.mine")
    axe_check(page, "03-solo-table")
    taps = 0
    for turn in range(TAPPED_TURNS):
        done = play_turn(page)
        taps += len(done)
        if turn == 3:
            shot(page, "04-solo-table-later")
    assert taps > 2 * TAPPED_TURNS
    token = page.evaluate("(id) => JSON.parse(localStorage.getItem('alc.games'))[id].tokens['0']", game_id)
    game = http(server, "GET", f"/games/{game_id}", token=token)
    while game["view"]["phase"] != "over":
        # A move without a choice (pwa/js/views/flow.js): the phone makes it by itself once it shows
        # this version.
        auto = page.evaluate("async (v) => (await import('/js/views/flow.js')).flowMove(v, v.legal_actions)",
                             game["view"])
        if auto:
            page.wait_for_function("(v) => Number(document.querySelector('.table').dataset.version) > v",
                                   arg=game["version"])
            game = http(server, "GET", f"/games/{game_id}", token=token)
            continue
        action = engine.bots.choose("greedy", game["view"], game["version"])
        game = http(server, "POST", f"/games/{game_id}/actions",
                    {"action": action, "version": game["version"]}, token=token)
    page.wait_for_selector(".end .winner")
    assert page.is_visible('.end-scores tr[data-score="mafia"]')  # the Mafia's line of the breakdown
    assert re.search(r"Win streak: \d+ · best: \d+", page.inner_text(".end"))
    axe_check(page, "05-solo-end")
    # A rematch starts a new game; the finished one (and its token) is forgotten on this device.
    page.click("[data-end=rematch]")
    page.wait_for_function("(old) => !location.hash.includes(old) && document.querySelector('.table')",
                           arg=game_id)
    new_id = re.search(r"#/g/([\w-]+)", page.url).group(1)
    page.click("text=Start")
    page.wait_for_selector("[data-new=solo]")
    assert page.locator(f'[data-resume="{game_id}"]').count() == 0
    assert page.locator(f'[data-resume="{new_id}"]').count() == 1
    assert "Solo streak" in page.inner_text("main")


def test_reload_mid_game_resumes_from_the_home_list(phone):
    page = phone("reload")
    game_id = new_solo(page)
    for _ in range(6):
        step(page)
    before = version(page)
    assert before > 1
    page.goto("/#/")
    page.reload()
    page.wait_for_selector(f'[data-resume="{game_id}"]')
    shot(page, "06-home-resume-list")
    page.click(f'[data-resume="{game_id}"]')
    page.wait_for_selector(".table")
    assert version(page) == before
    step(page)  # and play on
    assert version(page) >= before
