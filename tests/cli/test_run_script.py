"""`./run`: no arguments or options alone start the server (`./run --port 9000` is `alcabohne serve
--port 9000`); a command goes to the CLI (`./run play --duo`). The script itself runs, in a copy of the
checkout's layout whose virtualenv is a stand-in that prints what it was given."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from api.cli import _parser

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def run(tmp_path):
    shutil.copy2(ROOT / "run", tmp_path / "run")
    (tmp_path / "scripts").mkdir()
    (tmp_path / "scripts" / "venv.sh").write_text("# the real one creates .venv; here it is made below\n")
    cli = tmp_path / ".venv" / "bin" / "alcabohne"
    cli.parent.mkdir(parents=True)
    cli.write_text('#!/usr/bin/env bash\nprintf "%s\\n" "$@"\n')
    cli.chmod(0o755)

    def call(*args: str) -> list[str]:
        done = subprocess.run([str(tmp_path / "run"), *args], capture_output=True, text=True, timeout=30,
                              check=True)
        return done.stdout.splitlines()

    return call


@pytest.mark.parametrize(("given", "runs"), [
    ((), ["serve"]),
    (("--port", "9000"), ["serve", "--port", "9000"]),
    (("--port=9000", "--workers", "2"), ["serve", "--port=9000", "--workers", "2"]),
    (("serve", "--port", "9000"), ["serve", "--port", "9000"]),
    (("play", "--duo"), ["play", "--duo"]),
    (("simulate", "--games", "3"), ["simulate", "--games", "3"]),
    (("--help",), ["--help"]),
])
def test_run_passes_options_to_serve_and_commands_to_the_cli(run, given, runs):
    assert run(*given) == runs


def test_serve_takes_the_port_run_passes_on():
    args = _parser().parse_args(["serve", "--port", "9000"])
    assert (args.command, args.port) == ("serve", 9000)
