"""R1-R3, R5: the cards, the beanometer and the boss thresholds."""

from collections import Counter

import pytest
from helpers import BEANS, COUNTS, METER, card_counter, coins, duo, of_type, player, run, solo

import engine


@pytest.mark.parametrize("mode", ["duo", "solo"])
def test_r1_new_game_holds_the_116_cards_of_seven_types(mode):
    pos = engine.to_position(engine.new_game(mode, 7))
    assert card_counter(pos) == Counter(COUNTS)
    assert sum(COUNTS.values()) == 116


def test_r3_coins_helper_matches_the_rulebook_example():
    """R3 example: BR with 1-2 cards -> 0, 3-4 -> 1, 5-6 -> 2, 7 -> 3, 8 or more -> 4."""
    assert [coins("BR", n) for n in range(1, 12)] == [0, 0, 1, 1, 2, 2, 3, 4, 4, 4, 4]


CASES = [(bean, n) for bean in BEANS for n in range(1, 13)]


@pytest.mark.parametrize(("bean", "n"), CASES)
def test_r2_r3_beanometer_harvest_pays_thresholds_reached(bean, n):
    """R2/R3 (and R21): harvesting n cards of a type pays the number of thresholds <= n."""
    expected = sum(1 for t in METER[bean] if t <= n)
    # an empty deck here: a position never holds more cards of a type than R1's deck has
    pos = duo(p0=player(fields=([bean, n], None)), discard=["RU"] if bean != "RU" else ["BL"], deck=[])
    _, events, after = run(pos, {"type": "harvest", "field": 0})
    assert len(after["players"][0]["coins"]) == expected
    assert after["players"][0]["coins"] == [bean] * expected
    assert len(after["discard"]) == 1 + n - expected
    assert after["discard"][: n - expected] == [bean] * (n - expected)
    (ev,) = of_type(events, "harvest")
    assert (ev["seat"], ev["field"], ev["bean"], ev["count"], ev["coins"]) == (0, 0, bean, n, expected)


@pytest.mark.parametrize(
    ("bean", "n", "expected"),
    [
        ("BR", 1, 0),
        ("BR", 2, 0),
        ("BR", 3, 1),
        ("BR", 4, 1),
        ("BR", 5, 2),
        ("BR", 6, 2),
        ("BR", 7, 3),
        ("BR", 8, 4),
        ("BR", 9, 4),
        ("KI", 4, 0),
        ("KI", 5, 1),
        ("KI", 8, 4),
        ("BL", 10, 4),
        ("BL", 9, 3),
        ("FI", 9, 4),
        ("PU", 7, 4),
        ("FR", 7, 4),
        ("RU", 6, 4),
        ("RU", 13, 4),
    ],
)
def test_r3_beanometer_table_and_cap_at_four(bean, n, expected):
    """R3: 0 below the first threshold, capped at 4 (incl. the rulebook's BR example)."""
    _, _, after = run(duo(p0=player(fields=([bean, n], None))), {"type": "harvest", "field": 0})
    assert len(after["players"][0]["coins"]) == expected


# (mode, boss, bean, cards on the boss before one more card is given, harvests?)
BOSS_CASES = [
    ("duo", "al", "BR", 5, False),  # 6 BR = 2 coins < 3
    ("duo", "al", "BR", 6, True),  # 7 BR = 3 coins >= 3
    ("duo", "don", "BR", 3, False),  # 4 BR = 1 coin < 2
    ("duo", "don", "BR", 4, True),  # 5 BR = 2 coins >= 2
    ("solo", "joe", "BR", 1, False),  # 2 BR = 0 coins < 1
    ("solo", "joe", "BR", 2, True),  # 3 BR = 1 coin >= 1
    ("solo", "al", "RU", 3, False),  # 4 RU = 2 coins
    ("solo", "al", "RU", 4, True),  # 5 RU = 3 coins
    ("solo", "don", "FR", 4, True),  # 5 FR = 2 coins
]


@pytest.mark.parametrize(("mode", "boss", "bean", "before", "harvests"), BOSS_CASES)
def test_r5_boss_thresholds_al3_don2_joe1(mode, boss, bean, before, harvests):
    """R5 (with R32): Al harvests at 3 coins, Don at 2, Joe at 1."""
    bosses = {boss: [bean, before]}
    if mode == "duo":
        pos = duo(p0=player(hand=[bean]), phase="use", **bosses)
    else:
        pos = solo(p0=player(hand=[bean], fields=(None, None, None)), phase="use", **bosses)
    _, events, after = run(pos, {"type": "give_hand", "index": 0, "boss": boss})
    n = before + 1
    if harvests:
        assert after["bosses"][boss] is None
        assert len(after["treasury"]) == coins(bean, n)
        (ev,) = of_type(events, "boss_harvest")
        assert (ev["boss"], ev["bean"], ev["count"], ev["coins"]) == (boss, bean, n, coins(bean, n))
    else:
        assert after["bosses"][boss] == [bean, n]
        assert after["treasury"] == []
        assert of_type(events, "boss_harvest") == []


def test_r5_thresholds_are_strictly_ordered():
    """R5: the same 4-card RU boss (2 coins) harvests as Don/Joe but not as Al."""
    for boss, harvests in (("al", False), ("don", True), ("joe", True)):
        pos = solo(p0=player(hand=["RU"], fields=(None, None, None)), phase="use", **{boss: ["RU", 3]})
        _, _, after = run(pos, {"type": "give_hand", "index": 0, "boss": boss})
        assert (after["bosses"][boss] is None) == harvests, boss
