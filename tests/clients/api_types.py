"""Write pwa/js/api-types.d.ts, the types of the JavaScript client's JSDoc, from the served documents.

The JavaScript client (pwa/js/client.js) has no build step; its JSDoc names its types from this file
(`import('./api-types').components['schemas']['View']`), so an editor or `tsc --checkJs` checks code
written against the client with the same schemas a generated client gets. The file is what
openapi-typescript (pinned in tests/clients/typescript, as for the generated TypeScript client) writes
for one OpenAPI document: the served /api/v1/openapi.json, with the websocket messages of the served
/api/v1/ws.schema.json added to its schemas (`client_hello`, `server_state`, ..., `clientMessage`,
`serverMessage`). The objects both documents describe (the view, actions, events, ...) are taken once,
from the OpenAPI document; they must be the same in both. The answers recorded as examples are left
out: they are data, not types, and change with every recording.

    .venv/bin/python -m tests.clients.api_types        # rewrite pwa/js/api-types.d.ts

tests/clients/test_js_types.py regenerates it and fails on a difference.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGET = ROOT / "pwa" / "js" / "api-types.d.ts"
TYPESCRIPT = Path(__file__).with_name("typescript")
HEADER = """\
// The types of the Al Cabohne Online API for pwa/js/client.js's JSDoc (no code: nothing imports it at run
// time). Generated from the served OpenAPI document and the websocket messages of ws.schema.json by
// tests/clients/api_types.py with openapi-typescript; do not edit: run
// `.venv/bin/python -m tests.clients.api_types`.

"""


def served() -> tuple[dict, dict]:
    """The OpenAPI document and the websocket JSON Schema, as a server serves them."""
    from api import close, create_app
    from api.store.memory import MemoryStore

    app = create_app({"STORE": MemoryStore()})
    try:
        client = app.test_client()
        return (client.get("/api/v1/openapi.json").get_json(),
                client.get("/api/v1/ws.schema.json").get_json())
    finally:
        close(app)


def _rewrite(node, old: str, new: str):
    """`node` with every reference (a `$ref`, a discriminator's mapping) that starts with `old` moved."""
    if isinstance(node, dict):
        return {k: _rewrite(v, old, new) for k, v in node.items()}
    if isinstance(node, list):
        return [_rewrite(v, old, new) for v in node]
    if isinstance(node, str) and node.startswith(old):
        return new + node[len(old):]
    return node


def _without_examples(node):
    """The document without its recorded answers (media types' `examples`); schemas keep theirs."""
    if isinstance(node, dict):
        out = {k: _without_examples(v) for k, v in node.items()}
        if "schema" in out and isinstance(out.get("examples"), dict):
            del out["examples"]
        return out
    if isinstance(node, list):
        return [_without_examples(v) for v in node]
    return node


def combined(openapi: dict, ws: dict) -> dict:
    """The OpenAPI document whose schemas also hold the websocket messages."""
    doc = _without_examples(openapi)
    schemas = doc["components"]["schemas"]
    defs = _rewrite(ws["$defs"], "#/$defs/", "#/components/schemas/")
    for name, schema in defs.items():
        if name in schemas:
            # One name, one type: the websocket document's objects are the OpenAPI document's.
            assert _comparable(schemas[name]) == _comparable(schema), f"{name} differs between the documents"
        else:
            schemas[name] = schema
    return doc


# What a schema says that a TypeScript type does not: words and bounds.
NOT_TYPES = frozenset({"description", "title", "examples", "minimum", "maximum", "minLength", "maxLength",
                       "pattern", "format"})


def _comparable(node, members: bool = False):
    """A schema as far as it makes a TypeScript type (openapi-typescript's): no words, no bounds.
    (`members`: `node` maps member names to schemas, so none of its keys is a keyword.)"""
    if isinstance(node, dict):
        out = {k: _comparable(v, k in ("properties", "$defs") and not members) for k, v in node.items()
               if members or k not in NOT_TYPES}
        if isinstance(out.get("required"), list):
            out["required"] = sorted(out["required"])
        return out
    if isinstance(node, list):
        return [_comparable(v) for v in node]
    return node


def render(node: list[str], bin_dir: Path) -> str:
    """The file's text: openapi-typescript's output for the combined document, after the header."""
    with tempfile.TemporaryDirectory(prefix="alcabohne-api-types-") as tmp:
        source, out = Path(tmp) / "api.json", Path(tmp) / "api-types.d.ts"
        source.write_text(json.dumps(combined(*served()), indent=1), encoding="utf-8")
        run = subprocess.run([*node, str(bin_dir / "openapi-typescript"), str(source), "-o", str(out)],
                             capture_output=True, text=True, timeout=300, check=False)
        if run.returncode != 0:
            raise RuntimeError(run.stdout + run.stderr)
        return HEADER + out.read_text(encoding="utf-8")


def main() -> int:
    from tests.node import node_command, npm_installed

    with npm_installed(TYPESCRIPT, "openapi-typescript") as bin_dir:
        TARGET.write_text(render(node_command(), bin_dir), encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
