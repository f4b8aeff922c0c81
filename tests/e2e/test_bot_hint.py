"""Against the computer from the home screen; the Hint button outlines the suggested move. The dock with
a hint's reason stays within the phone's screen (English and German) and covers no field button; no
notification is offered against the computer."""

from __future__ import annotations

import pytest

from tests.e2e.pages import axe_check, play_turn, shot, version

# How far the page grows past the viewport, and the field buttons the dock (or anything) lies over.
DOCK = """() => {
  const covered = [...document.querySelectorAll('.table .field [data-act], .table .boss [data-act]')]
    .filter((el) => { const r = el.getBoundingClientRect();
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      return !(hit && (el === hit || el.contains(hit))); })
    .map((el) => el.dataset.act);
  return { grown: document.scrollingElement.scrollHeight - innerHeight, covered }; }"""


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


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_dock_with_a_hint_fits_the_phone(phone, lang):
    page = phone(f"dock-{lang}")
    page.goto("/")
    page.evaluate("(l) => localStorage.setItem('alc.prefs', JSON.stringify({lang: l}))", lang)
    page.reload()
    page.click("[data-new=bot]")
    page.wait_for_selector(".banner.mine")
    for turn in range(3):
        page.wait_for_selector(".table[data-busy='0'] [data-hint=ask]")
        page.click("[data-hint=ask]")
        page.wait_for_selector(".hint-box")
        page.wait_for_selector(".table .hinted")
        seen = page.evaluate(DOCK)
        if seen["grown"] > 1:
            shot(page, f"31-bot-hint-dock-{lang}-grown-{turn}")
        assert seen["grown"] <= 1 and not seen["covered"], (turn, seen)
        assert page.locator('[data-follow="notify-offer"]').count() == 0  # never against the computer
        if turn == 0:
            shot(page, f"31-bot-hint-dock-{lang}")
        play_turn(page)
        page.wait_for_selector(".banner.mine")
        assert page.locator('[data-follow="notify-offer"]').count() == 0
