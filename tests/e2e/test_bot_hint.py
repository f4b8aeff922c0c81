"""Against the computer from the home screen; the Hint button outlines the suggested move."""

from __future__ import annotations

from tests.e2e.pages import axe_check, play_turn, version


def test_play_against_the_computer_with_a_hint(phone):
    page = phone("bot")
    page.goto("/")
    page.click("[data-new=bot]")
    page.wait_for_selector(".table")
    page.wait_for_selector(".banner.mine")  # the bot has moved already when it was to start
    page.click("[data-hint=ask]")
    page.wait_for_selector(".hint-box strong")
    # The outline comes from an effect that runs after the box is painted: wait for it, then count.
    page.wait_for_selector(".table .hinted")
    assert page.locator(".table .hinted").count() >= 1
    axe_check(page, "30-bot-hint")
    # The hinted move is tapped like any other; the hint goes away with the version it was for.
    before = version(page)
    hinted = page.get_attribute(".hint-box", "data-hint")
    pick = page.locator(".table [data-pick].hinted")
    if pick.count():
        pick.first.click()
    page.click(f'.table [data-act="{hinted}"]')
    page.wait_for_function("(v) => Number(document.querySelector('.table').dataset.version) > v", arg=before)
    assert page.locator(".hint-box").count() == 0
    # A whole turn: the bot answers, and it is our turn again (more than one version later).
    mark = version(page)
    play_turn(page)
    page.wait_for_selector(".banner.mine")
    assert version(page) > mark + 1
