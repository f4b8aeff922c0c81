"""The hint (issue 26): a legal move, never one the phone would ask about without a reason for it, and
a reason that is true of the position (engine/bots/hint.py, docs/bots.md "Hints").

Positions come from seeded games of both modes played by the greedy bot, which reaches every phase
and plenty of fields worth nothing (its own play harvests them often).
"""

from __future__ import annotations

import pytest

import engine
from engine.actions import to_dict
from engine.bots import choose
from engine.bots.hint import _reason, hint, proposable, purposeful
from engine.bots.knowledge import legal_codes_of
from engine.cards import BOSS_NAMES, NAMES_EN

# The reasons of a harvest that pays no coin: each says what the harvest is for.
ZERO_CODES = {"zero_keep_from_boss", "make_room_zero", "room_for_bundle", "room_for_hand", "stale_field"}
# Those the hint proposes: the harvest makes room for something on the table, or keeps a card from a boss.
PURPOSE_CODES = ZERO_CODES - {"stale_field"}
ROOM_WORDS = ("room", "frees", "free for")


def _positions(games: int, every: int) -> list[dict]:
    """Views of the seat to move with more than one legal action, every `every`-th decision."""
    out = []
    for g in range(games):
        s = engine.new_game(("solo", "duo")[g % 2], 4100 + g)
        k = 0
        while s.phase != "over":
            view = engine.view(s, s.active)
            if len(view["legal_actions"]) > 1 and k % every == 0:
                out.append(view)
            s, _ = engine.apply(s, choose("greedy", view, k))
            k += 1
    return out


POSITIONS = _positions(games=8, every=3)


def _warned(view: dict, action: dict) -> bool:
    """What the phone asks "Harvest anyway?" about (pwa/js/views/table.js): a harvest that pays no
    coin while something else than harvesting or buying a field is legal."""
    me = view["players"][view["seat"]]
    return (action["type"] == "harvest" and me["harvest_values"][action["field"]] == 0
            and not all(a["type"] in ("harvest", "buy_field") for a in view["legal_actions"]))


def _check_reason(view: dict, action: dict, code: str, text: str) -> None:
    me = view["players"][view["seat"]]
    fields = me["fields"]
    empty = any(f is None for f in fields)
    where = f"{code}: {text!r} for {action} in phase {view['phase']}, fields {fields}"
    assert text and code, where
    if empty:
        assert not any(w in text for w in ROOM_WORDS), where  # never "makes room" beside an empty field
    t = action["type"]
    if t in ("harvest", "pay"):
        bean, n = fields[action["field"]]
        value = me["harvest_values"][action["field"]]
        assert NAMES_EN[bean] in text, where
        if t == "harvest":
            assert (value == 0) == (code in ZERO_CODES), where
            if value:
                assert f"{value} coin" in text, where
        if code in ("harvest_protected", "zero_keep_from_boss", "pay_single", "pay_protection"):
            holder = next(k for k, b in view["bosses"].items() if b is not None and b[0] == bean)
            assert BOSS_NAMES[holder] in text, where
        assert (code == "pay_single") == (t == "pay" and n == 1), where
        if code == "room_for_bundle":
            others = {f[0] for j, f in enumerate(fields) if f is not None and j != action["field"]}
            named = [b for b in view["display"] if NAMES_EN[b] + " bundle" in text]
            assert named and named[0] not in others and view["phase"] == "use", where
        if code == "room_for_hand":
            assert f"the {NAMES_EN[me['hand'][0]]}." in text, where
    if t == "plant_hand":
        assert NAMES_EN[me["hand"][0]] in text, where
        assert (code == "must_plant") == (view["planted"] == 0), where
        assert ("starts a new field" in text) == (fields[action["field"]] is None), where
    if t in ("plant_display", "discard_display", "give_display"):
        assert NAMES_EN[action["bean"]] in text, where
        if t == "plant_display":
            assert (code == "start_bundle") == (fields[action["field"]] is None), where
            assert f"(x{view['display'].count(action['bean'])})" in text, where
    if t == "give_hand":
        assert NAMES_EN[me["hand"][action["index"]]] in text, where
        assert BOSS_NAMES[action["boss"]] in text, where
    if code == "only_choice":
        assert len(view["legal_actions"]) == 1, where


def test_positions_cover_the_cases():
    assert len(POSITIONS) > 300
    phases = {v["phase"] for v in POSITIONS}
    assert {"plant", "use", "protection", "leftovers"} <= phases, phases
    zero = sum(1 for v in POSITIONS for a in v["legal_actions"]
               if a["type"] == "harvest" and v["players"][v["seat"]]["harvest_values"][a["field"]] == 0)
    assert zero > 100


def test_every_reason_is_true_of_its_position():
    # Whatever move the search settles on, its sentence must hold: so check the sentence of every
    # legal move of every position, not only of the ones the hint picks.
    checked = 0
    for view in POSITIONS:
        for action in view["legal_actions"]:
            code, text = _reason(action, view)
            _check_reason(view, action, code, text)
            checked += 1
    assert checked > 2000


def test_a_hint_is_a_legal_move_with_a_true_reason_and_a_purpose_for_a_harvest_that_pays_nothing():
    proposed = set()
    for view in POSITIONS[::4]:
        action, code, text = hint(view, 77)
        assert action in view["legal_actions"]
        _check_reason(view, action, code, text)
        if _warned(view, action):
            assert code in PURPOSE_CODES, (code, text)  # the phone does not ask twice about a hinted move
        proposed.add(action["type"])
        assert hint(view, 78) == (action, code, text)  # one position, one hint (seeded by the view)
    assert {"plant_hand", "plant_display", "end_phase"} <= proposed, proposed


def test_a_harvest_that_pays_nothing_is_searched_only_with_a_purpose_in_sight():
    left_out = kept = 0
    for view in POSITIONS:
        codes = legal_codes_of(view)
        allowed = purposeful(view, codes)
        assert allowed and set(allowed) <= set(codes)
        for c in codes:
            action = to_dict(c)
            if not _warned(view, action):
                assert c in allowed, action  # only a harvest paying nothing is ever left out
                continue
            code, _text = _reason(action, view)
            assert (c in allowed) == (code in PURPOSE_CODES), (action, code)
            kept += c in allowed
            left_out += c not in allowed
    assert kept > 20 and left_out > 20, (kept, left_out)


@pytest.mark.parametrize("mode", ["solo", "duo"])
def test_the_strict_hint_never_proposes_a_harvest_the_phone_warns_about(mode):
    views = [v for v in POSITIONS if v["mode"] == mode]
    warned_legal = 0
    for view in views:
        warned_legal += any(_warned(view, a) for a in view["legal_actions"])
        allowed = proposable(view, legal_codes_of(view))
        assert allowed, view["legal_actions"]
        action, code, text = hint(view, 5, playouts=8, strict=True)
        assert not _warned(view, action), (action, code, text)
        _check_reason(view, action, code, text)
    assert warned_legal > 20  # the filter had something to leave out
