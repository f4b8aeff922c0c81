"""Issue 6: a bot decides from its seat's view alone (R17) — hidden cards never change its choice."""

import random

import pytest
from bot_helpers import BUDGET, hidden_twin, states_along_a_game

import engine
from engine.bots import BOTS, choose
from engine.bots.knowledge import determinize, unseen_cards

STATES = {mode: states_along_a_game(mode, seed) for mode, seed in (("duo", 11), ("solo", 12))}


def test_registry_names_the_three_bots():
    assert set(BOTS) == {"random", "greedy", "mc"}


@pytest.mark.parametrize("name", sorted(BOTS))
@pytest.mark.parametrize("mode", ["duo", "solo"])
def test_same_view_different_hidden_cards_same_action(name, mode):
    rng = random.Random(5)
    states = STATES[mode][:: 2 if name == "mc" else 1]
    assert len(states) >= 5
    phases = set()
    for k, s in enumerate(states):
        seat = s.active
        twin = hidden_twin(s, seat, rng)
        assert twin != s
        view = engine.view(s, seat)
        assert engine.view(twin, seat) == view  # the twin really looks the same to this seat
        phases.add(s.phase)
        for seed in (k, 10**12 + k):
            a = choose(name, view, seed, **BUDGET[name])
            b = choose(name, engine.view(twin, seat), seed, **BUDGET[name])
            assert a == b, (s.phase, a, b)
            assert a in view["legal_actions"]
    assert {"plant", "use"} <= phases


@pytest.mark.parametrize("mode", ["duo", "solo"])
def test_determinization_matches_the_view_and_keeps_every_count(mode):
    rng = random.Random(3)
    for s in STATES[mode]:
        for seat in range(len(s.hands)):
            view = engine.view(s, seat)
            d = determinize(view, rng)
            assert engine.view(d, seat) == view
            assert d.card_count() == 116
            if seat == s.active:  # the other seat does not know the active hand
                assert engine.legal_actions(d) == engine.legal_actions(s)


def test_unseen_cards_are_the_deck_minus_what_the_seat_sees():
    s = STATES["duo"][6]
    view = engine.view(s, 0)
    unseen = unseen_cards(view)
    hidden = len(s.hands[1]) + len(s.deck) + len(s.discard) - 1 + sum(len(c) for c in s.coins)
    hidden += len(s.treasury) + len(s.set_aside)
    assert len(unseen) == hidden
    assert unseen == sorted(unseen, key=engine.BEANS.index)


def test_the_same_view_and_seed_give_the_same_action():
    view = engine.view(STATES["solo"][3], 0)
    for name in BOTS:
        assert choose(name, view, 42, **BUDGET[name]) == choose(name, view, 42, **BUDGET[name])


def test_choose_refuses_unknown_bots_and_views_without_a_decision():
    s = STATES["duo"][2]
    with pytest.raises(KeyError):
        choose("oracle", engine.view(s, s.active), 1)
    with pytest.raises(ValueError):
        choose("greedy", engine.view(s, 1 - s.active), 1)  # not this seat's turn
    with pytest.raises(TypeError):
        choose("greedy", engine.view(s, s.active), 1, playouts=5)  # greedy takes no budget
