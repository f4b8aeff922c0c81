"""docs/protocol.md §13: determinism, purity (apply never mutates its input), a stdlib-only engine."""

import ast
import copy
import pathlib
import random
import sys

from helpers import choose

import engine

ENGINE_DIR = pathlib.Path(engine.__file__).resolve().parent


def _play(mode, seed, choice_seed, steps=5000):
    rng = random.Random(choice_seed)
    state = engine.new_game(mode, seed)
    positions, actions = [engine.to_position(state)], []
    for _ in range(steps):
        legal = engine.legal_actions(state)
        if not legal:
            break
        action = choose(legal, rng)
        state, events = engine.apply(state, action)
        positions.append(engine.to_position(state))
        actions.append((action, events))
    return positions, actions


def test_same_seed_and_actions_give_identical_games():
    for mode in ("duo", "solo"):
        assert engine.new_game(mode, 5) == engine.new_game(mode, 5)
        first, second = _play(mode, 5, 1), _play(mode, 5, 1)
        assert first == second
        assert first[0][-1]["phase"] == "over"


def test_replaying_the_actions_reproduces_every_position():
    positions, actions = _play("duo", 8, 3)
    state = engine.new_game("duo", 8)
    for (action, events), expected in zip(actions, positions[1:], strict=True):
        state, again = engine.apply(state, action)
        assert again == events
        assert engine.to_position(state) == expected


def test_apply_never_mutates_its_input():
    rng = random.Random(17)
    for mode in ("duo", "solo"):
        state = engine.new_game(mode, 23)
        for _ in range(300):
            legal = engine.legal_actions(state)
            if not legal:
                break
            before, twin = engine.to_position(state), copy.deepcopy(state)
            for action in legal[:4]:  # try several actions on the same input
                engine.apply(state, action)
            new, _ = engine.apply(state, choose(legal, rng))
            assert engine.to_position(state) == before
            assert state == twin
            legal_again = engine.legal_actions(state)
            assert legal_again == legal
            state = new


def test_view_and_legal_actions_do_not_mutate_the_state():
    state = engine.new_game("duo", 4)
    twin = copy.deepcopy(state)
    for seat in (0, 1, None):
        v = engine.view(state, seat)
        v["players"][0]["fields"].append("junk")
        v["display"].append("junk")
    engine.legal_actions(state).append({"type": "junk"})
    assert state == twin
    assert engine.legal_actions(state) == engine.legal_actions(twin)


def _imports(path):
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level == 0:
                yield node.lineno, node.module or ""
        elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "__import__":
            yield node.lineno, "__import__()"


def test_engine_imports_only_the_standard_library():
    """docs/protocol.md §13: engine/ is pure Python with no dependency outside the standard library."""
    files = sorted(ENGINE_DIR.rglob("*.py"))
    assert len(files) >= 2
    bad = []
    for path in files:
        for lineno, name in _imports(path):
            top = name.split(".")[0]
            if top == "engine" or top in sys.stdlib_module_names:
                continue
            bad.append(f"{path.relative_to(ENGINE_DIR.parent)}:{lineno}: {name}")
    assert not bad, "non-stdlib imports in engine/: " + ", ".join(bad)


def test_engine_uses_no_global_randomness_clock_or_io():
    """docs/protocol.md §13: no I/O, no clock, no global random state (random.Random instances are fine)."""
    forbidden_modules = {"time", "datetime", "os", "socket", "secrets", "subprocess", "io", "pathlib", "uuid"}
    bad = []
    for path in sorted(ENGINE_DIR.rglob("*.py")):
        for lineno, name in _imports(path):
            if name.split(".")[0] in forbidden_modules:
                bad.append(f"{path.name}:{lineno}: import {name}")
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) in {"open", "print", "input"}:
                bad.append(f"{path.name}:{node.lineno}: {node.func.id}()")
            if (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "random"
                and node.attr not in {"Random"}
            ):
                bad.append(f"{path.name}:{node.lineno}: random.{node.attr}")
    assert not bad, bad
