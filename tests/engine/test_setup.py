"""R50, R51 (setup), R6, R33, R43, R60 (first turn) and the new_game arguments (docs/protocol.md §13)."""

import pytest
from helpers import full_deck

import engine

HANDS10 = ["BL", "KI", "FI", "PU", "BR", "FR", "BL", "KI", "FI", "PU"]


@pytest.mark.parametrize("dealer", [0, 1])
def test_r50_duo_deal_alternates_starting_with_the_non_dealer(dealer):
    """R50.1/R50.2 and A19: the non-dealer starts; five cards each, dealt alternately, start player first."""
    deck = full_deck(HANDS10 + ["RU", "BL"])
    pos = engine.to_position(engine.new_game("duo", 1, dealer=dealer, deck=deck))
    start = 1 - dealer
    assert pos["active"] == start
    assert pos["players"][start]["hand"] == deck[0:10:2]
    assert pos["players"][dealer]["hand"] == deck[1:10:2]


@pytest.mark.parametrize(
    ("seeding", "al", "don"),
    [
        (["RU", "BL"], ["RU", 1], ["BL", 1]),
        (["RU", "RU", "RU", "KI"], ["RU", 3], ["KI", 1]),
        (["FR", "FR", "FR", "FR", "FR", "FR", "FR", "PU"], ["FR", 7], ["PU", 1]),
    ],
)
def test_r50_duo_seeding_al_then_first_other_type_to_don(seeding, al, don):
    """R50.3: Al takes the first card and every further card of his type; the first other card goes to
    Don and seeding stops. R33/A5: no boss harvests during seeding (7 FR would be 4 coins)."""
    deck = full_deck(HANDS10 + seeding)
    pos = engine.to_position(engine.new_game("duo", 1, dealer=0, deck=deck))
    assert pos["bosses"]["al"] == al
    assert pos["bosses"]["don"] == don
    assert pos["bosses"].get("joe") is None
    assert pos["deck"] == deck[10 + len(seeding) :]
    assert pos["treasury"] == [] and pos["discard"] == []


def test_r50_duo_initial_table():
    """R50.4: two empty fields, no coins, empty piles, pass 1; R60: the first turn starts at phase 3."""
    deck = full_deck(HANDS10 + ["RU", "BL"])
    state = engine.new_game("duo", 1, dealer=1, deck=deck)
    pos = engine.to_position(state)
    for p in pos["players"]:
        assert p["fields"] == [None, None]
        assert p["coins"] == [] and p["third_field"] is False
    for pile in ("discard", "display", "set_aside", "treasury"):
        assert pos[pile] == []
    assert pos["exhaustions"] == 0 and pos["last_turn"] is False and pos["result"] is None
    assert pos["phase"] == "plant"
    assert pos["planted"] == 0 and pos["settled"] == []
    assert len(pos["deck"]) == 116 - 12
    view = engine.view(state, None)
    assert view["pass"] == 1


def test_r50_dealer_is_random_per_seed_but_deterministic():
    """R50.1: without the host option the dealer is picked at random (from the seed, so reproducibly)."""
    starts = {engine.to_position(engine.new_game("duo", s))["active"] for s in range(40)}
    assert starts == {0, 1}
    for s in range(5):
        assert engine.to_position(engine.new_game("duo", s)) == engine.to_position(engine.new_game("duo", s))


@pytest.mark.parametrize(
    ("seeding", "al", "don", "joe"),
    [
        (["BL", "KI", "FI"], ["BL", 1], ["KI", 1], ["FI", 1]),
        (["BL", "BL", "KI", "BL", "KI", "FI"], ["BL", 3], ["KI", 2], ["FI", 1]),
        (["RU", "RU", "RU", "RU", "RU", "RU", "PU", "RU", "PU", "BR"], ["RU", 7], ["PU", 2], ["BR", 1]),
    ],
)
def test_r51_solo_setup_seeds_three_bosses(seeding, al, don, joe):
    """R51 (A23): seven cards to the player; a repeated type joins its boss, a new type goes to the first
    empty boss (Al, Don, Joe); seeding stops when Joe gets his first card. R33: no harvest at seeding."""
    hand = ["BL", "KI", "FI", "PU", "BR", "FR", "KI"]
    deck = full_deck(hand + seeding)
    pos = engine.to_position(engine.new_game("solo", 1, deck=deck))
    assert len(pos["players"]) == 1
    assert pos["players"][0]["hand"] == hand
    assert pos["bosses"] == {"al": al, "don": don, "joe": joe}
    assert pos["deck"] == deck[7 + len(seeding) :]
    assert pos["treasury"] == []
    assert pos["active"] == 0 and pos["phase"] == "plant"


def test_r43_r51_solo_player_has_three_fields_from_the_start():
    pos = engine.to_position(engine.new_game("solo", 3))
    p = pos["players"][0]
    assert p["fields"] == [None, None, None] and p["third_field"] is True and p["coins"] == []
    assert pos["exhaustions"] == 0


def test_r6_duo_has_no_joe():
    """R6: in duo Joe's card is not a boss (it serves as the second third-field card, see test_fields)."""
    pos = engine.to_position(engine.new_game("duo", 3))
    assert pos["bosses"].get("joe") is None
    assert pos["bosses"]["al"] is not None and pos["bosses"]["don"] is not None


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        (("trio", 1), {}),
        (("duo", 1), {"dealer": 2}),
        (("duo", 1), {"dealer": "0"}),
        (("duo", 1), {"colour": "red"}),
        (("duo", 1), {"deck": ["BL"] * 116}),
        (("duo", 1), {"deck": full_deck([])[:-1]}),
        (("duo", 1), {"deck": full_deck([]) + ["BL"]}),
        (("solo", 1), {"deck": full_deck([])[:-1] + ["XX"]}),
    ],
)
def test_new_game_rejects_bad_arguments(args, kwargs):
    """docs/protocol.md §13: an unknown mode or option, a bad dealer or a deck that is not the R1 cards."""
    with pytest.raises(engine.InvalidPosition) as info:
        engine.new_game(*args, **kwargs)
    assert info.value.code == "invalid_position"
    assert isinstance(info.value, engine.EngineError) and isinstance(info.value, ValueError)


def _prepared(**over):
    """A solo table after the deal, on the last pass: a short game (the tutorial's kind)."""
    pos = {"mode": "solo", "phase": "plant",
           "players": [{"hand": ["BL", "FI"], "fields": [["RU", 2], None, None]}],
           "bosses": {"al": ["RU", 1], "don": ["KI", 1], "joe": ["PU", 1]}, "deck": ["FI", "BR", "FR"],
           "exhaustions": 2}
    pos.update(over)
    return pos


def test_new_game_from_a_prepared_position_begins_the_turn():
    """docs/protocol.md §13 `position`: the cards as they lie, the game's own seed, the active seat's turn
    begun (R60): here protection first, as Al grows runner beans like the player's field (R65)."""
    state = engine.new_game("solo", 7, position=_prepared(planted=2, settled=[1]))
    pos = engine.to_position(state)
    assert pos["phase"] == "protection" and pos["planted"] == 0 and pos["settled"] == []
    assert pos["seed"] == 7 and pos["result"] is None
    assert pos["players"][0]["hand"] == ["BL", "FI"] and pos["deck"] == ["FI", "BR", "FR"]
    assert pos["exhaustions"] == 2
    # The same options give the same game (the log and the record replay it from there).
    assert engine.to_position(engine.new_game("solo", 7, position=_prepared(planted=2, settled=[1]))) == pos
    apart = engine.new_game("solo", 7, position=_prepared(bosses={"al": ["KI", 1]}))
    assert engine.to_position(apart)["phase"] == "plant"


@pytest.mark.parametrize(
    ("mode", "kwargs"),
    [
        ("duo", {"position": _prepared()}),
        ("solo", {"position": _prepared(), "deck": full_deck([])}),
        ("solo", {"position": {"mode": "solo"}}),
        ("solo", {"position": _prepared(phase="over", result={"scores": [1], "mafia": 0, "winners": [0]})}),
    ],
)
def test_new_game_refuses_a_position_that_starts_no_game(mode, kwargs):
    """docs/protocol.md §13: a position of the other mode, with another option, not a position, or over."""
    with pytest.raises(engine.InvalidPosition):
        engine.new_game(mode, 1, **kwargs)
