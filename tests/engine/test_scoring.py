"""R100-R103 (A17, A22): final harvest, scores and the winner."""

import pytest
from helpers import card_count, duo, mixed, of_type, player, run, solo

END = {"type": "end_phase"}


def core(result):
    """The result without its breakdown (scores, mafia, winners)."""
    return {k: result[k] for k in ("scores", "mafia", "winners")}


def finish(pos):
    """End the last turn (R93: phase 5 of the last turn); return (events, final position)."""
    _, events, final = run(pos, END)
    assert final["phase"] == "over"
    return events, final


def last_turn(mode="duo", **kw):
    kw.setdefault("deck", [])
    return (duo if mode == "duo" else solo)(phase="use", last_turn=True, exhaustions=3, **kw)


def test_r100_a22_final_harvest_of_every_field_and_boss():
    """R100: all fields and bosses are harvested with R21/R3, ignoring R22 and boss thresholds; the discard
    order follows docs/protocol.md §4 (seat 0's fields, seat 1's, then al, don)."""
    pos = last_turn(
        p0=player(fields=(["BL", 1], ["FI", 3]), coins=["KI"], hand=["PU"]),
        p1=player(fields=(["RU", 6], None)),
        al=["BR", 2],
        don=["KI", 5],
        discard=["PU"],
        display=["FR"],
    )
    events, final = finish(pos)
    p0, p1 = final["players"]
    assert p0["fields"] == [None, None] and p1["fields"] == [None, None]
    assert final["bosses"]["al"] is None and final["bosses"]["don"] is None
    assert sorted(p0["coins"]) == ["FI", "KI"]
    assert p1["coins"] == ["RU"] * 4
    assert final["treasury"] == ["KI"]
    assert final["discard"][:11] == ["KI"] * 4 + ["BR"] * 2 + ["RU"] * 2 + ["FI"] * 2 + ["BL"]
    assert final["players"][0]["hand"] == ["PU"]  # hands score nothing
    harvests = [(e["seat"], e["field"]) for e in of_type(events, "harvest")]
    assert harvests == [(0, 0), (0, 1), (1, 0)]
    assert all(e.get("final") is True for e in of_type(events, "harvest"))
    assert [(e["boss"], e["coins"], e.get("final")) for e in of_type(events, "boss_harvest")] == [
        ("al", 0, True),
        ("don", 1, True),
    ]
    assert core(final["result"]) == {"scores": [2, 4], "mafia": 1, "winners": [1]}
    # The breakdown: seat 0 had 1 coin and its final harvest paid 1, seat 1 had none and got 4; the
    # treasury was empty and the bosses' final harvest added 1 (counted once in duo).
    assert final["result"]["breakdown"] == {
        "players": [{"coins_before": 1, "final_harvest": 1}, {"coins_before": 0, "final_harvest": 4}],
        "mafia": {"treasury_before": 0, "final_harvest": 1, "factor": 1}}
    assert final["result"]["tie_to_mafia"] is False
    assert card_count(final) == card_count(pos)


def test_r100_solo_final_harvest_includes_joe():
    pos = last_turn(
        "solo", p0=player(fields=(["RU", 3], None, ["FI", 1])), al=["BL", 4], don=None, joe=["FR", 3]
    )
    events, final = finish(pos)
    assert [e["boss"] for e in of_type(events, "boss_harvest")] == ["al", "joe"]
    assert final["players"][0]["coins"] == ["RU"]
    assert sorted(final["treasury"]) == ["BL", "FR"]
    assert core(final["result"]) == {"scores": [1], "mafia": 4, "winners": ["mafia"]}
    assert final["result"]["breakdown"] == {"players": [{"coins_before": 0, "final_harvest": 1}],
                                            "mafia": {"treasury_before": 0, "final_harvest": 2, "factor": 2}}


def test_r101_spent_coins_are_gone():
    """R101: the score is the coin stack; coins spent on the third field count for nothing."""
    pos = last_turn(
        p0=player(fields=(None, None, None), coins=mixed(2)), set_aside=mixed(4), treasury=mixed(1)
    )
    _, final = finish(pos)
    assert final["result"]["scores"] == [2, 0]
    assert final["result"]["mafia"] == 1


# scores of seat 0 and seat 1, treasury -> winners
R102_CASES = [
    (5, 3, 4, [0]),
    (3, 5, 4, [1]),
    (5, 5, 4, [0, 1]),
    (5, 3, 5, ["mafia"]),
    (5, 5, 5, ["mafia"]),
    (2, 3, 7, ["mafia"]),
    (0, 0, 0, ["mafia"]),
    (1, 0, 0, [0]),
]


@pytest.mark.parametrize(("a", "b", "m", "winners"), R102_CASES)
def test_r102_a17_duo_winner_and_ties(a, b, m, winners):
    """R102/A17: the best player wins if richer than the Mafia; tied players share; the Mafia wins ties."""
    pos = last_turn(p0=player(coins=mixed(a)), p1=player(coins=mixed(b, 3)), treasury=mixed(m, 5))
    _, final = finish(pos)
    assert core(final["result"]) == {"scores": [a, b], "mafia": m, "winners": winners}
    # A17: a Mafia win is "by a tie" when the best player has exactly the Mafia's score.
    assert final["result"]["tie_to_mafia"] is (winners == ["mafia"] and max(a, b) == m)
    assert final["result"]["breakdown"]["mafia"] == {"treasury_before": m, "final_harvest": 0, "factor": 1}


R103_CASES = [(5, 2, [0]), (4, 2, ["mafia"]), (3, 2, ["mafia"]), (0, 0, ["mafia"]), (1, 0, [0]), (9, 4, [0])]


@pytest.mark.parametrize(("p", "m", "winners"), R103_CASES)
def test_r101_r103_solo_mafia_score_doubled_and_strict_win(p, m, winners):
    """R101: the solo Mafia score is doubled; R103: the player wins only if P > 2M."""
    pos = last_turn("solo", p0=player(fields=(None, None, None), coins=mixed(p)), treasury=mixed(m, 4))
    events, final = finish(pos)
    assert core(final["result"]) == {"scores": [p], "mafia": 2 * m, "winners": winners}
    assert final["result"]["tie_to_mafia"] is (winners == ["mafia"] and p == 2 * m)
    assert final["result"]["breakdown"] == {"players": [{"coins_before": p, "final_harvest": 0}],
                                            "mafia": {"treasury_before": m, "final_harvest": 0, "factor": 2}}
    assert of_type(events, "game_over") == [{"type": "game_over", "result": final["result"]}]
