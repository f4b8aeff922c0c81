"""`alcabohne verify` and `alcabohne replay` on game records (api/game/records.py,
api/cli/replay.py), engine only.

The record is made here as the server makes it (records.build), from a duo game that the greedy bot
plays for both seats: no HTTP needed to check the checker.
"""

from __future__ import annotations

import copy
import json

import pytest

import engine
import engine.bots
from api.cli import main
from api.cli.replay import replay
from api.game import records


def _greedy_game(seed: int, dealer: int) -> dict:
    state = engine.new_game("duo", seed, dealer=dealer)
    actions = []
    version = 2  # 1: created; the versions after it belong to the moves (a join would take one too)
    while state.phase != "over":
        seat = state.active
        action = engine.bots.choose("greedy", engine.view(state, seat), version)
        actions.append({"version": version, "seat": seat, "action": action})
        state, _events = engine.apply(state, action)
        version += 1
    result = engine.to_position(state)["result"]
    seats = [{"seat": 0, "who": "human"}, {"seat": 1, "who": "bot", "bot": "greedy"}]
    return records.build("g1", "duo", seed, "00ff" * 8, {"dealer": dealer}, seats, actions, result)


@pytest.fixture(scope="module")
def good() -> dict:
    return _greedy_game(seed=4242, dealer=1)


def _run(tmp_path, capsys, record: dict, *args: str) -> tuple[int, str, str]:
    path = tmp_path / "record.json"
    path.write_text(json.dumps(record))
    code = main([*args[:1], str(path), *args[1:]])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_the_commitment_is_sha256_of_seed_colon_salt():
    import hashlib

    assert records.commitment(12, "ab") == hashlib.sha256(b"12:ab").hexdigest()
    assert records.commitment(12, "ab") != records.commitment(13, "ab")


def test_verify_accepts_an_untouched_record(tmp_path, capsys, good):
    code, out, err = _run(tmp_path, capsys, good, "verify", "--commitment", good["seed_commitment"])
    assert code == 0, err
    assert out.startswith("OK") and good["seed_commitment"] in out


def test_verify_rejects_an_altered_seed(tmp_path, capsys, good):
    bad = copy.deepcopy(good)
    bad["seed"] += 1
    code, _out, err = _run(tmp_path, capsys, bad, "verify")
    assert code == 1 and "seed or salt altered" in err


def test_verify_rejects_a_seed_recommitted_against_the_published_commitment(tmp_path, capsys, good):
    bad = copy.deepcopy(good)
    bad["seed"] += 1
    bad["seed_commitment"] = records.commitment(bad["seed"], bad["salt"])  # a consistent forgery ...
    code, _out, err = _run(tmp_path, capsys, bad, "verify", "--commitment", good["seed_commitment"])
    assert code == 1 and "published commitment" in err  # ... fails against what the server published


def test_verify_rejects_an_altered_action(tmp_path, capsys, good):
    bad = copy.deepcopy(good)
    first = bad["actions"][0]["action"]
    assert first["type"] == "plant_hand"  # the start player's first decision (R69)
    first["field"] = 2  # no third field in duo at the start: illegal
    code, _out, err = _run(tmp_path, capsys, bad, "verify")
    assert code == 1 and "action 1 (version 2)" in err and "not legal" in err


def test_verify_rejects_an_altered_result(tmp_path, capsys, good):
    bad = copy.deepcopy(good)
    bad["result"]["scores"][0] += 1
    code, _out, err = _run(tmp_path, capsys, bad, "verify")
    assert code == 1 and "result altered" in err


def test_verify_rejects_a_record_cut_short_and_a_file_that_is_no_record(tmp_path, capsys, good):
    bad = copy.deepcopy(good)
    del bad["actions"][-1]
    code, _out, err = _run(tmp_path, capsys, bad, "verify")
    assert code == 1 and "end before the game does" in err
    code, _out, err = _run(tmp_path, capsys, {"hello": 1}, "verify")
    assert code == 1 and "not a game record" in err


def test_replay_all_prints_every_action_and_the_result(tmp_path, capsys, good):
    code, out, _err = _run(tmp_path, capsys, good, "replay", "--all")
    assert code == 0
    assert out.count("\n>> v") == len(good["actions"])
    assert "(bot greedy)" in out and "Game over." in out


def test_replay_waits_for_enter_and_q_quits(good):
    lines, asked = [], []

    def inp(prompt: str) -> str:
        asked.append(prompt)
        return "" if len(asked) < 3 else "q"

    assert replay(good, inp=inp, out=lines.append) == 0
    assert len(asked) == 3
    assert sum(line.startswith(">> v") for line in lines) == 3
