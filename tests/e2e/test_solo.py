"""A solo game tapped for its first turns and played to its end, the end screen and the streak; reload and
resume."""

from __future__ import annotations

import re

from tests.e2e.pages import axe_check, play_turn, shot, step, version
from tests.e2e.tapgame import finish_unwatched

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
    HTTP (as fast as a computer could), and the phone opens its end screen."""
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
    # The rest with no page on the game (a phone that follows a whole solo game to its end screen, its
    # moves without a choice made by itself, is test_layout's solo game), then opened again at its end.
    finish_unwatched(server, game_id, [token], [page])
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
