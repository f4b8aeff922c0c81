"""api/game/gamelog.py: a move's log entry is two characters (the log is a budget: docs/architecture.md "What
is stored"), every action of the engine of either seat comes back from it, and the entries written up to
release 0.2.1 ("seat:code") are still read."""

from __future__ import annotations

import pytest

from api.game import gamelog
from engine import actions


@pytest.mark.parametrize("seat", [0, 1])
def test_every_move_is_two_characters_and_reads_back(seat: int) -> None:
    entries = set()
    for code in range(len(actions.KEYS)):
        action = actions.to_dict(code)
        entry = gamelog.move(seat, action)
        assert len(entry) == 2 and entry.isascii() and "\n" not in entry and not entry.startswith("{")
        assert gamelog.parse(entry) == gamelog.Move(seat, action)
        entries.add(entry)
    assert len(entries) == len(actions.KEYS)


def test_the_entries_of_earlier_releases_are_still_read() -> None:
    assert gamelog.parse("0:62") == gamelog.Move(0, actions.to_dict(62))
    assert gamelog.parse("1:0") == gamelog.Move(1, actions.to_dict(0))


def test_a_change_at_the_table_is_json_and_no_move() -> None:
    entry = gamelog.change(1, "joined", name="Ann")
    assert gamelog.parse(entry) == gamelog.Change(1, "joined", {"name": "Ann"})


@pytest.mark.parametrize("text", ["", "A", "ABC", "A!", "x:y"])
def test_text_that_is_no_entry_is_refused(text: str) -> None:
    with pytest.raises(ValueError):
        gamelog.parse(text)
