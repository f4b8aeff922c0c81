"""Issue 6: bots return only legal actions and finish whole games of both modes."""

import pytest
from bot_helpers import play_full_game

from engine.bots import BOTS


@pytest.mark.parametrize("name", sorted(BOTS))
def test_solo_games_end_with_a_result(name):
    for seed in (1, 2):
        s, _ = play_full_game("solo", [name], seed)
        assert s.phase == "over"
        assert s.result["winners"] in ([0], ["mafia"])


@pytest.mark.parametrize("seats", [("mc", "greedy"), ("greedy", "random"), ("random", "mc")])
def test_duo_games_end_with_a_result(seats):
    s, n = play_full_game("duo", list(seats), 3)
    assert s.phase == "over"
    assert n > 50
    assert s.card_count() == 116
