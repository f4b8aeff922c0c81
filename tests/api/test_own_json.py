"""api.codec.own_json writes exactly what the standard library's compact JSON wrote, so stored documents, log
entries and socket frames do not change with the encoder (and old and new workers agree)."""

from __future__ import annotations

import json
import math
import random

import pytest

import engine
from api.codec import own_json
from api.game import gamelog


def _stdlib(obj) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def _positions(games: int):
    """Yield (document-like, seat view frame, public view, log entry) along random games."""
    rng = random.Random(20261130)
    for _ in range(games):
        state = engine.new_game(rng.choice(["solo", "duo"]), rng.randrange(2**31))
        for _step in range(400):
            actions = engine.legal_actions(state)
            if not actions:
                break
            action = rng.choice(actions)
            state, events = engine.apply(state, action)
            seat = rng.choice([0, 1]) if len(engine.view(state, None)["players"]) > 1 else 0
            yield (
                {"p": engine.to_position(state), "s": ["ab" * 32, None], "u": 1764460800},
                {"type": "state", "version": _step + 2, "view": engine.view(state, seat),
                 "events": engine.redact_events(events, seat)},
                {"type": "state", "view": engine.view(state, None)},
                gamelog.move(seat, action),
            )


def test_the_text_of_documents_frames_and_log_entries_is_the_standard_librarys():
    checked = 0
    for doc, frame, public, _entry in _positions(30):
        for obj in (doc, frame, public):
            text = own_json.dumps(obj)
            assert text == _stdlib(obj)
            assert own_json.loads(text) == json.loads(text)
            checked += 1
    assert checked > 1000


@pytest.mark.parametrize("obj", [
    {"version": 10**30},  # a client's integer beyond 64 bits (orjson refuses it)
    {"name": "Bohne \u00e9\u2028\n\t\"\\ \U0001f331"},
    {1: "int keys become strings", "b": [True, False, None, 1.5, -0.0]},
])
def test_values_off_the_fast_path_give_the_same_text(obj):
    assert own_json.dumps(obj) == _stdlib(obj)


def test_reading_accepts_what_the_standard_library_accepted_and_rejects_the_rest():
    assert math.isnan(own_json.loads('{"x": NaN}')["x"])
    assert own_json.loads(b'{"a":[1,2]}') == {"a": [1, 2]}
    with pytest.raises(ValueError):
        own_json.loads('{"a": ')
    with pytest.raises(ValueError):
        own_json.loads("")
