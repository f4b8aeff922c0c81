"""The JavaScript client's JSDoc types come from the served documents (issue 28) and hold strictly.

pwa/js/api-types.d.ts is what openapi-typescript writes for the served OpenAPI document and the
websocket messages of the served ws.schema.json (tests/clients/api_types.py); regenerated here, it must
be the committed file byte for byte. tsc --noEmit --checkJs --strict (tests/clients/typescript/
tsconfig.jsdoc.json, the toolchain pinned there and installed with `npm ci`) then checks pwa/js/client.js
against it and tests/clients/typescript/client_types.js, code written against the client: every public
method's parameters and answer are typed (its `@ts-expect-error` lines are errors, and an unused one
fails the check), and frames narrow on their `type`.
"""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from tests.clients import api_types
from tests.node import node_command, npm_installed

HERE = Path(__file__).with_name("typescript")
ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "pwa" / "js" / "client.js"


@pytest.fixture(scope="module")
def toolchain():
    """node, and the pinned packages' bin folder (held installed for the module)."""
    with npm_installed(HERE, "openapi-typescript") as bin_dir:
        yield node_command(), bin_dir


def _tsc(toolchain, config: Path) -> subprocess.CompletedProcess:
    node, bin_dir = toolchain
    return subprocess.run([*node, str(bin_dir / "tsc"), "-p", str(config), "--pretty", "false"], cwd=HERE,
                          capture_output=True, text=True, timeout=300, check=False)


def test_the_types_are_the_served_documents(toolchain):
    node, bin_dir = toolchain
    assert api_types.TARGET.read_text(encoding="utf-8") == api_types.render(node, bin_dir), (
        "pwa/js/api-types.d.ts is stale: run .venv/bin/python -m tests.clients.api_types")


def test_the_websocket_messages_are_in_the_types():
    """Every frame both ways has its type, under the name the client's JSDoc uses."""
    openapi, ws = api_types.served()
    schemas = api_types.combined(openapi, ws)["components"]["schemas"]
    assert {n for n in ws["$defs"] if n.startswith(("client_", "server_"))} <= set(schemas)
    assert {"clientMessage", "serverMessage", "View", "Action", "Event", "Problem"} <= set(schemas)
    text = api_types.TARGET.read_text(encoding="utf-8")
    for name in ("server_state", "server_ack", "server_error", "client_action", "serverMessage"):
        assert re.search(rf"^\s+{name}: ", text, re.M), name


def test_the_client_checks_strictly_against_them(toolchain):
    run = _tsc(toolchain, HERE / "tsconfig.jsdoc.json")
    assert run.returncode == 0, run.stdout + run.stderr


def test_every_typedef_the_client_names_exists():
    """The JSDoc names schemas by string: each must be a schema of the generated file (tsc would say
    so too, but this names the one that went missing)."""
    openapi, ws = api_types.served()
    schemas = api_types.combined(openapi, ws)["components"]["schemas"]
    named = set(re.findall(r"Schemas\['(\w+)'\]", CLIENT.read_text(encoding="utf-8")))
    assert named and not named - set(schemas), named - set(schemas)


def test_the_check_finds_a_wrong_type(toolchain, tmp_path):
    """The same check fails on code that reads what the view does not have, or sends a malformed action."""
    wrong = tmp_path / "wrong.js"
    wrong.write_text(
        f"import {{ Client }} from {str(CLIENT)!r};\n"
        "const client = new Client({ baseUrl: 'http://127.0.0.1:8000' });\n"
        "const game = await client.getGame('g', null);\n"
        "export const coins = game.view.coins;\n"
        "await client.act('g', 't', { type: 'plant_hand', field: 'x' }, game.version);\n", encoding="utf-8")
    config = tmp_path / "tsconfig.json"
    settings = json.loads((HERE / "tsconfig.jsdoc.json").read_text(encoding="utf-8"))
    config.write_text(json.dumps({**settings, "files": [str(wrong)]}), encoding="utf-8")
    run = _tsc(toolchain, config)
    lines = {int(m) for m in re.findall(r"wrong\.js\((\d+),\d+\): error", run.stdout)}
    assert run.returncode != 0 and lines == {4, 5}, run.stdout
