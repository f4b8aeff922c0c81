"""Clients generated from the served OpenAPI document play whole games (issue 28).

openapi-typescript writes the types of the document a live server serves, tsc --strict compiles
tests/clients/typescript/play.ts against them (openapi-fetch calls, no casts: views, actions, events and
problems are typed by the document) and the result plays a solo and a duo game to the end over HTTP. The
packages are pinned in tests/clients/typescript/package-lock.json and installed here with `npm ci`. A
second file that reads a field an event type does not have must fail to compile: the types are precise.

Likewise openapi-python-client generates a Python package from the served document, mypy --strict
checks tests/clients/python/play.py against it (no casts, no `type: ignore`; the generated package's
own code is the generator's and is not checked) and the script plays a solo and a duo game. Its
toolchain is pinned in tests/clients/python/requirements.txt and installed into a venv there.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from api.store.memory import MemoryStore
from tests.live.servers import ThreadServer
from tests.node import node_command, npm_installed

HERE = Path(__file__).with_name("typescript")
PY = Path(__file__).with_name("python")


def _run(args: list[str], **kw) -> subprocess.CompletedProcess:
    return subprocess.run(args, cwd=HERE, capture_output=True, text=True, check=False, **kw)


def _digest(*parts: bytes) -> str:
    return hashlib.sha256(b"\0".join(parts)).hexdigest()


# The generated code and its check are kept with a stamp of everything they come from (the document, the
# client's source, the pinned toolchain): a parallel test worker, or the next run, that finds the same
# stamp skips generating and checking again; any change of an input does both again.
STAMP = ".checked"


@pytest.fixture(scope="module")
def server():
    with ThreadServer(MemoryStore(), PUBLIC_URL="http://table.test") as live:
        yield live


@pytest.fixture(scope="module")
def compiled(server, tmp_path_factory) -> list[str]:
    """npm ci, the types of the served document, tsc --strict; return the command that runs the client."""
    node = node_command()
    with npm_installed(HERE, "openapi-fetch") as bin_dir:  # parallel test workers install and build once
        document = tmp_path_factory.mktemp("openapi") / "openapi.json"
        document.write_text(json.dumps(server.app.test_client().get("/api/v1/openapi.json").get_json()))
        stamp = HERE / "build" / STAMP
        inputs = _digest(document.read_bytes(), *(
            (HERE / name).read_bytes() for name in ("play.ts", "tsconfig.json", "package-lock.json")))
        if not (stamp.exists() and stamp.read_text() == inputs and (HERE / "schema.d.ts").exists()):
            stamp.unlink(missing_ok=True)
            run = _run([*node, str(bin_dir / "openapi-typescript"), str(document), "-o", "schema.d.ts"],
                       timeout=300)
            assert run.returncode == 0, run.stdout + run.stderr
            run = _run([*node, str(bin_dir / "tsc"), "-p", "tsconfig.json"], timeout=300)
            assert run.returncode == 0, run.stdout + run.stderr
            stamp.write_text(inputs)
    return [*node, str(HERE / "build" / "play.js")]


@pytest.mark.parametrize("mode", ["solo", "duo"])
def test_the_generated_typescript_client_plays_a_game(server, compiled, mode):
    run = subprocess.run([*compiled, server.url, mode], capture_output=True, text=True, timeout=600,
                         check=False)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    summary = json.loads(run.stdout.strip().splitlines()[-1])
    game = server.app.test_client().get(f"/api/v1/games/{summary['game_id']}").get_json()
    assert game["view"]["phase"] == "over" and summary["version"] == game["version"]
    assert summary["result"] == game["view"]["result"]
    assert summary["log_entries"] == game["version"] - 1  # every version after the creation
    assert summary["counts"]["game_over"] == 1 and summary["counts"]["turn"] > 10
    assert summary["refused"] == 400 and summary["pointers"] == ["/version"]


def test_a_field_the_document_does_not_give_does_not_compile(compiled):
    node = compiled[:-1]
    run = _run([*node, str(HERE / "node_modules" / ".bin" / "tsc"), "-p", "tsconfig.wrong.json"], timeout=300)
    assert run.returncode != 0
    assert "Property 'coins' does not exist" in run.stdout, run.stdout
    assert "possibly 'null'" in run.stdout, run.stdout


@pytest.fixture(scope="module")
def python_client(server, tmp_path_factory) -> list[str]:
    """The pinned toolchain in tests/clients/python/.venv, the package generated from the served
    document, mypy --strict on play.py; return the command that runs it."""
    venv = PY / ".venv"
    python = venv / "bin" / "python"
    env = dict(os.environ, PATH=f"{venv / 'bin'}{os.pathsep}{os.environ['PATH']}")
    with open(PY / "requirements.txt", "rb") as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)
        if not (venv / "bin" / "openapi-python-client").exists():
            # No pip of its own (ensurepip costs seconds) and no byte-compiling of every installed module
            # ahead of time: this interpreter's pip installs into it (pip --python).
            run = subprocess.run([sys.executable, "-m", "venv", "--clear", "--without-pip", str(venv)],
                                 capture_output=True, text=True, timeout=300, check=False)
            assert run.returncode == 0, run.stderr
            install = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-compile",
                       "-r", "requirements.txt"]
            run = subprocess.run(install, cwd=PY, capture_output=True, text=True, timeout=900, check=False)
            assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-3000:]
        document = tmp_path_factory.mktemp("openapi-py") / "openapi.json"
        document.write_text(json.dumps(server.app.test_client().get("/api/v1/openapi.json").get_json()))
        stamp = PY / "alcabohne_client" / STAMP
        inputs = _digest(document.read_bytes(), *(
            (PY / name).read_bytes() for name in ("play.py", "mypy.ini", "requirements.txt")))
        if not stamp.exists() or stamp.read_text() != inputs:
            generate = [str(venv / "bin" / "openapi-python-client"), "generate", "--path", str(document),
                        "--meta", "none", "--overwrite", "--output-path", "alcabohne_client"]
            run = subprocess.run(generate, cwd=PY, env=env, capture_output=True, text=True, timeout=300,
                                 check=False)
            generated = (PY / "alcabohne_client" / "client.py").exists()
            assert run.returncode == 0 and generated, run.stdout[-3000:]
            mypy = [str(venv / "bin" / "mypy"), "--config-file", "mypy.ini", "play.py"]
            run = subprocess.run(mypy, cwd=PY, env=env, capture_output=True, text=True, timeout=600,
                                 check=False)
            assert run.returncode == 0, run.stdout[-3000:]
            stamp.write_text(inputs)
    return [str(python), str(PY / "play.py")]


@pytest.mark.parametrize("mode", ["solo", "duo"])
def test_the_generated_python_client_plays_a_game(server, python_client, mode):
    run = subprocess.run([*python_client, server.url, mode], cwd=PY, capture_output=True, text=True,
                         timeout=600, check=False)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    summary = json.loads(run.stdout.strip().splitlines()[-1])
    game = server.app.test_client().get(f"/api/v1/games/{summary['game_id']}").get_json()
    assert game["view"]["phase"] == "over" and summary["version"] == game["version"]
    assert summary["scores"] == game["view"]["result"]["scores"]
    assert summary["log_entries"] == game["version"] - 1
    assert summary["counts"]["game_over"] == 1 and summary["stale"] is True


def test_play_py_has_no_cast_and_no_type_ignore():
    text = (PY / "play.py").read_text(encoding="utf-8")
    assert "cast(" not in text and "# type: ignore" not in text
    code = [line.split("//")[0] for line in (HERE / "play.ts").read_text(encoding="utf-8").splitlines()]
    assert not [line for line in code if " as " in line or "!." in line or "<any>" in line or ": any" in line]
