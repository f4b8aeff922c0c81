"""R17 and docs/protocol.md §5: views and event redaction never reveal hidden information."""

import json

import pytest
from helpers import SEED, duo, load, of_type, player, run, solo

import engine

POS = duo(
    phase="use",
    active=0,
    display=["BL", "FI"],
    al=["RU", 2],
    don=["BR", 1],
    discard=["KI", "PU", "FR"],
    deck=["FI", "KI", "PU", "FR", "BL"],
    set_aside=["BL", "BL", "KI", "KI"],
    treasury=["RU", "FR"],
    p0=player(hand=["KI", "FR", "PU"], fields=(["BL", 4], None), coins=["BR", "BR"]),
    p1=player(hand=["FI", "FI", "RU"], fields=(None, ["PU", 1], None), coins=["FR"], third_field=True),
)


def test_r17_view_shows_own_hand_and_counts_of_hidden_piles():
    state = load(POS)
    v = engine.view(state, 0)
    assert (v["mode"], v["phase"], v["active"], v["seat"]) == ("duo", "use", 0, 0)
    me, other = v["players"]
    assert me["hand"] == ["KI", "FR", "PU"] and other["hand"] is None
    assert (me["hand_size"], other["hand_size"]) == (3, 3)
    assert (me["coins"], other["coins"]) == (2, 1)
    assert me["fields"] == [["BL", 4], None] and other["fields"] == [None, ["PU", 1], None]
    assert (me["third_field"], other["third_field"]) == (False, True)
    assert v["bosses"]["al"] == ["RU", 2] and v["bosses"]["don"] == ["BR", 1]
    assert v["display"] == ["BL", "FI"]
    assert (v["discard_top"], v["discard_size"], v["deck_size"]) == ("KI", 3, 5)
    assert (v["treasury"], v["set_aside"], v["exhaustions"], v["pass"]) == (2, 4, 0, 1)
    assert (v["planted"], v["settled"], v["last_turn"], v["result"]) == (0, [], False, None)
    assert v["legal_actions"] == engine.legal_actions(state)


def test_r17_other_seat_and_table_view():
    state = load(POS)
    v1 = engine.view(state, 1)
    assert v1["seat"] == 1 and v1["legal_actions"] == []
    assert v1["players"][0]["hand"] is None and v1["players"][1]["hand"] == ["FI", "FI", "RU"]
    table = engine.view(state, None)
    assert table["seat"] is None and table["legal_actions"] == []
    assert all(p["hand"] is None for p in table["players"])


def _hidden_swapped(pos):
    """The same position with every hidden card (hands, deck order, coins, piles below the discard top,
    seed) changed: what a view must not depend on."""
    other = [dict(p) for p in pos["players"]]
    other[1]["hand"] = ["BL", "RU", "KI"]
    other[0]["coins"] = ["KI", "FI"]
    return {
        **pos,
        "players": other,
        "deck": pos["deck"][::-1],
        "seed": 4242,
        "treasury": ["BL", "KI"],
        "set_aside": ["FI", "FI", "PU", "RU"],
        "discard": ["KI", "BL", "BL"],
    }


@pytest.mark.parametrize("seat", [0, None])
def test_r17_view_does_not_depend_on_hidden_cards(seat):
    assert engine.view(load(POS), seat) == engine.view(load(_hidden_swapped(POS)), seat)


@pytest.mark.parametrize("seat", [0, 1, None])
def test_r17_view_never_contains_the_seed_or_the_deck(seat):
    text = json.dumps(engine.view(load(POS), seat))
    assert str(SEED) not in text
    assert '"seed"' not in text and '"deck"' not in text
    assert json.dumps(POS["deck"]) not in text


def test_r17_view_of_a_new_game_scan():
    for mode in ("duo", "solo"):
        seed = 7_000_001
        state = engine.new_game(mode, seed)
        pos = engine.to_position(state)
        for seat in [*range(len(pos["players"])), None]:
            v = engine.view(state, seat)
            text = json.dumps(v)
            assert str(seed) not in text
            assert json.dumps(pos["deck"][:8])[1:-1] not in text
            for i, p in enumerate(v["players"]):
                assert p["hand"] == (pos["players"][i]["hand"] if i == seat else None)


def test_r17_draws_are_private_in_redacted_events():
    state = load(duo(phase="use", al=["RU", 1], don=["BR", 1], deck=["KI", "PU", "FR"]))
    _, events, _ = run(state, {"type": "end_phase"})
    assert [e["bean"] for e in of_type(events, "draw")] == ["KI", "PU"]
    mine = engine.redact_events(events, 0)
    assert of_type(mine, "draw") == of_type(events, "draw")
    for seat in (1, None):
        theirs = engine.redact_events(events, seat)
        assert of_type(theirs, "draw") == [{"type": "draw", "seat": 0}] * 2
        assert [e for e in theirs if e["type"] != "draw"] == [e for e in events if e["type"] != "draw"]
    assert [e["bean"] for e in of_type(events, "draw")] == ["KI", "PU"]  # the input is not changed


def test_r17_solo_table_view_hides_the_hand():
    state = load(solo(p0=player(hand=["KI"], fields=(None, None, None))))
    assert engine.view(state, None)["players"][0]["hand"] is None
    assert engine.view(state, 0)["players"][0]["hand"] == ["KI"]
    assert engine.redact_events([{"type": "draw", "seat": 0, "bean": "KI"}], None) == [
        {"type": "draw", "seat": 0}
    ]
