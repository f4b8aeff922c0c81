"""engine.events is the whole event vocabulary, and engine.schemas describes exactly what the engine gives.

Seeded solo and duo games are played with the bots of engine.bots (each seat chooses from its own view, as
the server's bots do). Every event engine.apply emits, and every event each seat and the table see through
engine.redact_events, must match the vocabulary exactly (no unknown type, no missing or extra field) and
validate against its closed JSON Schema; every view of every seat must validate against the View schema
(additionalProperties false at every depth: a new view field fails here until it is typed).
"""

from __future__ import annotations

import jsonschema_rs
import pytest

import engine
import engine.bots
from engine import events, schemas

DEFS = schemas.components(lambda name: f"#/$defs/{name}")


def _validator(name: str):
    return jsonschema_rs.Draft202012Validator({"$defs": DEFS, "$ref": f"#/$defs/{name}"})


VIEW, EVENT, ACTION = _validator("View"), _validator("Event"), _validator("Action")


def _errors(validator, instance) -> list[str]:
    return [f"{list(e.instance_path)}: {e.message}" for e in validator.iter_errors(instance)]


def _check_event(e: dict, where: str) -> None:
    assert events.mismatches(e) == [], (where, e)
    assert _errors(EVENT, e) == [], (where, e, _errors(EVENT, e))
    # The optional fields follow their rules.
    if e["type"] == "give":
        assert ("index" in e) == (e["source"] == "hand"), e


def _play(mode: str, seed: int, bots: tuple[str, ...]) -> dict[str, int]:
    """Play one game, checking everything on the way; return how often each event type occurred."""
    seen: dict[str, int] = {}
    s = engine.new_game(mode, seed)
    seats = len(s.hands)
    final = False
    while True:
        for seat in (*range(seats), None):
            v = engine.view(s, seat)
            assert _errors(VIEW, v) == [], (mode, seed, seat, _errors(VIEW, v))
        if s.phase == "over":
            break
        me = engine.view(s, s.active)
        bot = bots[s.active]
        action = engine.bots.choose(bot, me, seed, **({"playouts": 8} if bot == "mc" else {}))
        assert _errors(ACTION, action) == []
        actor = s.active
        s, emitted = engine.apply(s, action)
        for e in emitted:
            _check_event(e, "emitted")
            seen[e["type"]] = seen.get(e["type"], 0) + 1
            if e["type"] == "draw":
                assert "bean" in e  # unredacted: the engine always names the card
            if e["type"] == "game_over":
                final = True
            if e.get("final"):
                assert any(x["type"] == "phase" and x["phase"] == "over" for x in emitted), e
        for seat in (*range(seats), None):
            for e in engine.redact_events(emitted, seat):
                _check_event(e, f"seen by {seat}")
                if e["type"] == "draw":
                    assert ("bean" in e) == (e["seat"] == seat), (seat, e)
        assert actor in range(seats)
    assert final
    return seen


GAMES = [("solo", seed, ("greedy",)) for seed in range(6)]
GAMES += [("solo", seed, ("random",)) for seed in range(6, 12)]
GAMES += [("duo", seed, ("greedy", "random")) for seed in range(8)] + [("duo", seed, ("random", "random"))
                                                                      for seed in range(8, 14)]


@pytest.fixture(scope="module")
def played() -> dict[str, int]:
    seen: dict[str, int] = {}
    for mode, seed, bots in GAMES:
        for kind, n in _play(mode, seed, bots).items():
            seen[kind] = seen.get(kind, 0) + n
    return seen


def test_every_event_and_view_of_bot_games_matches_the_vocabulary(played):
    # Every engine event type of the vocabulary occurred (none is dead), and nothing else did.
    engine_types = {k for k, t in events.EVENTS.items() if t.source == "engine"}
    assert set(played) == engine_types


def test_an_mc_bot_game_matches_too():
    seen = _play("duo", 3, ("mc", "greedy"))
    assert "game_over" in seen


def test_the_vocabulary_refuses_what_it_does_not_list():
    assert events.mismatches({"type": "draw", "seat": 0, "bean": "BL"}) == []
    assert events.mismatches({"type": "draw", "seat": 0}) == []
    assert events.mismatches({"type": "draw"}) == ["draw: missing seat"]
    assert events.mismatches({"type": "draw", "seat": 0, "card": "BL"}) == ["draw: unknown field card"]
    assert events.mismatches({"type": "shuffle"}) == ["unknown event type 'shuffle'"]
    assert events.mismatches(["draw"])
    assert _errors(EVENT, {"type": "plant", "seat": 0, "source": "hand", "bean": "BL", "count": 1, "field": 0,
                           "extra": 1})
    assert _errors(EVENT, {"type": "reveal", "bean": "XX"})


def test_a_new_view_field_fails_until_it_is_typed():
    v = engine.view(engine.new_game("duo", 1), 0)
    assert _errors(VIEW, v) == []
    assert _errors(VIEW, {**v, "secret": 1})
    v["players"][0]["extra"] = 1
    assert _errors(VIEW, v)


def test_every_schema_object_is_closed():
    """No catch-all object: every object schema lists its properties and allows no others."""
    def walk(node, path):
        if isinstance(node, dict):
            if node.get("type") == "object":
                assert node.get("additionalProperties") is False and node.get("properties"), path
            for k, v in node.items():
                walk(v, f"{path}/{k}")
        elif isinstance(node, list):
            for i, v in enumerate(node):
                walk(v, f"{path}/{i}")
    walk(DEFS, "")
    # One schema per event type and per action type, each a branch of its union.
    assert len(DEFS["Event"]["oneOf"]) == len(events.EVENTS)
    assert set(DEFS["Event"]["discriminator"]["mapping"]) == set(events.EVENTS)
    assert set(DEFS["Action"]["discriminator"]["mapping"]) == set(engine.actions.PARAMS)
