"""Every example in the docs runs, against a live server where it talks to one.

Each fenced block in README.md, CHANGELOG.md, docs/*.md and pwa/README.md names its kind in the fence:

- `sh`: a shell example of the API; run with bash against a live server (gunicorn + a private Redis);
- `python`, `js`: a program; run (with `node` for js) from the repository's top, against the same server;
- `json`: parsed; positions, views and events are checked against the engine, websocket messages against
  docs/websocket.schema.json;
- `console`: commands for an operator or a developer (installing, benchmarks); the repository paths and
  `alcabohne` subcommands they name must exist, but they are not run here (they install packages, run
  for minutes, or need root);
- `text`: a diagram or a sample of output.

Examples address the server as http://127.0.0.1:8000 (what `./run` prints); the test puts its own
server's address in its place.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import jsonschema
import pytest

import engine
from tests.live.servers import Gunicorn
from tests.node import node_command

ROOT = Path(__file__).resolve().parents[2]
DOCS = sorted([ROOT / "README.md", ROOT / "CHANGELOG.md", ROOT / "pwa" / "README.md",
               *ROOT.glob("docs/*.md")])
KINDS = {"sh", "python", "js", "json", "console", "text"}
EXAMPLE_HOST = "http://127.0.0.1:8000"


@dataclass(frozen=True)
class Block:
    path: Path
    line: int
    kind: str
    text: str

    def __str__(self) -> str:
        return f"{self.path.relative_to(ROOT)}:{self.line}"


def blocks_of(path: Path) -> list[Block]:
    found, open_at, kind, lines = [], None, "", []
    for number, line in enumerate(path.read_text().splitlines(), 1):
        fence = re.match(r"^\s*```(.*)$", line)
        if fence is None:
            if open_at is not None:
                lines.append(line)
            continue
        if open_at is None:
            open_at, kind, lines = number, fence.group(1).strip(), []
        else:
            found.append(Block(path, open_at, kind, "\n".join(lines) + "\n"))
            open_at = None
    assert open_at is None, f"{path.relative_to(ROOT)}:{open_at}: a fence that is never closed"
    return found


BLOCKS = [block for path in DOCS for block in blocks_of(path)]


def of_kind(kind: str) -> list[Block]:
    return [block for block in BLOCKS if block.kind == kind]


def test_every_block_says_what_it_is():
    unlabelled = [f"{block} ```{block.kind}" for block in BLOCKS if block.kind not in KINDS]
    assert not unlabelled, f"fenced blocks need one of {sorted(KINDS)}: {unlabelled}"
    assert {"sh", "json", "console", "text"} <= {block.kind for block in BLOCKS}


# --- json: checked against the engine and the websocket schema ---------------------------------------------


@pytest.mark.parametrize("block", of_kind("json"), ids=str)
def test_json_blocks_parse(block: Block):
    json.loads(block.text)


def _protocol_json(marker: str) -> dict | list:
    matches = [json.loads(b.text) for b in of_kind("json")
               if b.path.name == "protocol.md" and marker in b.text]
    assert len(matches) == 1, f"one json block of docs/protocol.md holds {marker!r}"
    return matches[0]


def test_protocol_position_example_is_a_position():
    position = _protocol_json('"format": 1')
    state = engine.from_position(position)
    assert engine.to_position(state) == {**position, "seed": position["seed"]}


def test_protocol_view_example_is_the_engine_view():
    # docs/protocol.md §5: the view of seat 0 at the start of engine.new_game("duo", 2, dealer=1).
    shown = _protocol_json('"legal_actions"')
    assert engine.view(engine.new_game("duo", 2, dealer=1), 0) == shown


def test_protocol_events_example_is_what_the_engine_does():
    # docs/protocol.md §8: seat 0 plants its front card on field 0, then ends the plant phase.
    state = engine.new_game("duo", 2, dealer=1)
    state, _ = engine.apply(state, {"type": "plant_hand", "field": 0})
    _, events = engine.apply(state, {"type": "end_phase"})
    assert events == _protocol_json('"capture"')


def _frames(block: Block) -> list[dict]:
    value = json.loads(block.text)
    return value if isinstance(value, list) else [value]


WEBSOCKET_JSON = [b for b in of_kind("json") if b.path.name.startswith("websocket")]


@pytest.mark.parametrize("block", WEBSOCKET_JSON, ids=str)
def test_websocket_examples_follow_the_schema(block: Block):
    schema = json.loads((ROOT / "docs" / "websocket.schema.json").read_text())
    for frame in _frames(block):
        jsonschema.validate(frame, schema)


# --- console: the paths and commands they name exist --------------------------------------------------------

TOP = ("api/", "engine/", "pwa/", "deploy/", "tests/", "docs/", "examples/", "scripts/", ".venv/bin/python")


def _alcabohne_commands() -> set[str]:
    from api.cli import _parser

    return set(_parser()._subparsers._group_actions[0].choices)  # noqa: SLF001


@pytest.mark.parametrize("block", of_kind("console"), ids=str)
def test_console_blocks_name_what_exists(block: Block):
    commands = _alcabohne_commands()
    for raw in block.text.splitlines():
        line = raw.strip().removeprefix("$ ").split(" #")[0]
        for word in re.findall(r"(?<![\w/.-])((?:\./)?[\w.-]+(?:/[\w.-]+)+)", line):
            if word.startswith(TOP):
                assert (ROOT / word.removeprefix("./")).exists(), f"{block}: {word} does not exist"
        command = re.match(r"(\./run|\./test|alcabohne)(?:\s+([a-z]\S*))?", line)
        if command is None:
            continue
        assert command.group(1) == "alcabohne" or (ROOT / command.group(1)).exists()
        if command.group(1) != "./test" and command.group(2):
            assert command.group(2) in commands, f"{block}: no `alcabohne {command.group(2)}`"


# --- sh, python, js: run against a live server --------------------------------------------------------------


@pytest.fixture(scope="module")
def live(redis_server):
    with Gunicorn(redis_server.url, workers=2, threads=8) as server:
        yield server


def _run(args: list[str], source: str, live: Gunicorn, timeout: float = 600) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(args, input=source.replace(EXAMPLE_HOST, live.url), cwd=ROOT, env=env, text=True,
                          capture_output=True, timeout=timeout)
    assert done.returncode == 0, (f"exit {done.returncode}\n--- stdout\n{done.stdout[-3000:]}\n"
                                  f"--- stderr\n{done.stderr[-3000:]}")
    return done


def _sample_output(block: Block) -> dict | None:
    """The last JSON object a block shows as its output (`# ... {...}` in a comment), if any."""
    samples = re.findall(r"^#.*\}\s*$", block.text, re.M)
    return json.loads(samples[-1].rsplit(" ... ", 1)[-1]) if samples else None


@pytest.mark.redis
@pytest.mark.parametrize("block", of_kind("sh"), ids=str)
@pytest.mark.gunicorn
def test_sh_examples_run(block: Block, live: Gunicorn):
    assert EXAMPLE_HOST in block.text, f"{block}: an API example addresses {EXAMPLE_HOST}"
    done = _run(["bash", "-euo", "pipefail", "-s"], block.text, live)
    out = [line for line in done.stdout.splitlines() if line.strip()]
    assert out, f"{block} printed nothing"
    sample = _sample_output(block)
    if sample is not None:
        last = json.loads(out[-1])
        assert last.keys() == sample.keys(), f"{block}: printed {out[-1]}, the docs show {sample}"
        if isinstance(sample.get("result"), dict):
            assert last["result"].keys() == sample["result"].keys()


@pytest.mark.redis
@pytest.mark.parametrize("block", of_kind("python"), ids=str)
@pytest.mark.gunicorn
def test_python_examples_run(block: Block, live: Gunicorn):
    _run([sys.executable, "-"], block.text, live)


@pytest.mark.redis
@pytest.mark.parametrize("block", of_kind("js"), ids=str)
@pytest.mark.gunicorn
def test_js_examples_run(block: Block, live: Gunicorn):
    _run([*node_command(), "--input-type=module", "-"], block.text, live, timeout=300)


def test_every_runnable_kind_is_run():
    # The parametrised tests above collect nothing for a kind with no block; this says which kinds exist.
    runnable = {block.kind for block in BLOCKS} & {"sh", "python", "js"}
    assert "sh" in runnable
