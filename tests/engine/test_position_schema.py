"""The Position schema (engine.schemas, served in OpenAPI as a record's options.position) describes what
engine.to_position writes at every point of seeded games, and refuses what engine.from_position refuses
for its shape (an unknown key, a wrong format, a bad field entry)."""

from __future__ import annotations

import random

import jsonschema
import pytest

import engine
from engine import schemas

DEFS = schemas.components(lambda name: f"#/$defs/{name}")
POSITION = jsonschema.Draft202012Validator({"$defs": DEFS, "$ref": "#/$defs/Position"})


def positions(mode: str, seed: int):
    """Every 17th position of a random game, and its last."""
    rng = random.Random(seed)
    s = engine.new_game(mode, seed)
    n = 0
    while s.phase != "over":
        if n % 17 == 0:
            yield engine.to_position(s)
        s, _ = engine.apply(s, rng.choice(engine.legal_actions(s)))
        n += 1
    yield engine.to_position(s)


@pytest.mark.parametrize("mode", ["duo", "solo"])
def test_every_position_of_seeded_games_fits_the_schema(mode):
    seen = 0
    for seed in range(6):
        for pos in positions(mode, seed):
            errors = [e.message for e in POSITION.iter_errors(pos)]
            assert not errors, (seed, pos["phase"], errors[:3])
            seen += 1
    assert seen > 100


@pytest.mark.parametrize("change", [
    {"color": "red"},
    {"format": 2},
    {"mode": "trio"},
    {"players": [{"hand": ["XX"]}, {}]},
    {"bosses": {"al": ["BL", 0], "don": None}},
])
def test_the_schema_refuses_what_the_engine_refuses(change):
    pos = {**engine.to_position(engine.new_game("duo", 1)), **change}
    with pytest.raises(engine.InvalidPosition):
        engine.from_position(pos)
    assert not POSITION.is_valid(pos), change
