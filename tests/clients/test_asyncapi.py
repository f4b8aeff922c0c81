"""The AsyncAPI document of the websocket (docs/websocket.asyncapi.json, api.live.asyncapi) parses without
errors in the AsyncAPI parser (npm @asyncapi/parser, pinned in tests/clients/asyncapi/package-lock.json and
installed here with `npm ci`), is what the module writes, and describes the messages ws.schema.json does.
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from api.live import asyncapi
from api.live.ws_schema import CLIENT, SERVER
from tests.node import node_command, npm_installed

ROOT = Path(__file__).resolve().parents[2]
HERE = Path(__file__).with_name("asyncapi")
DOC = ROOT / "docs" / "websocket.asyncapi.json"


@pytest.fixture(scope="module")
def parser() -> list[str]:
    """The command that checks a document (node and tests/clients/asyncapi/check.mjs), after `npm ci`."""
    with npm_installed(HERE, "@asyncapi/parser"):
        return [*node_command(), str(HERE / "check.mjs")]


def _check(parser: list[str], path: Path) -> tuple[int, list[dict]]:
    run = subprocess.run([*parser, str(path)], capture_output=True, text=True, timeout=120, check=False)
    lines = [json.loads(line) for line in run.stdout.splitlines() if line.startswith("{")]
    return run.returncode, lines


def test_the_document_is_the_modules():
    assert json.loads(DOC.read_text(encoding="utf-8")) == asyncapi.document(), (
        "regenerate: .venv/bin/python -m api.live.asyncapi > docs/websocket.asyncapi.json")


def test_every_message_both_ways_is_in_the_channel():
    doc = asyncapi.document()
    names = set(doc["channels"]["game"]["messages"])
    assert names == {f"client_{k}" for k in CLIENT} | {f"server_{k}" for k in SERVER}
    sent = {m["$ref"].rsplit("_", 1)[1] for op in doc["operations"].values() if op["action"] == "send"
            for m in op["messages"]}
    replies = {m["$ref"].rsplit("_", 1)[1] for op in doc["operations"].values() for m in
               op.get("reply", {}).get("messages", [])}
    assert sent | replies == set(SERVER)


def test_the_asyncapi_parser_finds_no_error(parser):
    code, lines = _check(parser, DOC)
    errors = [line for line in lines if line.get("severity") == 0]
    assert code == 0 and not errors, lines
    assert lines[-1] == {"ok": True, "channels": 1, "messages": len(CLIENT) + len(SERVER),
                         "operations": len(asyncapi.document()["operations"])}


def test_the_parser_refuses_a_broken_document(parser, tmp_path):
    """The check can fail: an operation whose action is neither send nor receive is an error."""
    broken = asyncapi.document()
    broken["operations"]["hello"]["action"] = "push"
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(broken), encoding="utf-8")
    code, lines = _check(parser, path)
    assert code == 1 and any(line.get("severity") == 0 for line in lines), lines
