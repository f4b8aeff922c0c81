"""The server's rooms import one way (docs/architecture.md, "Rooms"): every import statement under api/,
top-level or inside a function, read with ast (no module is imported), is held to these rules.

- api/http and api/live import the game room, never each other, and of the store only its contract
  (api/store/base.py);
- the game room (api/game) imports neither transport, and of the store only its contract;
- the store imports none of the rooms above it; the codecs import nothing of the server;
- nothing inside a room imports the app factory (api/__init__.py: `import api`, `from api import
  create_app`); the root's plain modules (config, errors) may be imported by anyone.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

API = Path(__file__).resolve().parents[2] / "api"

# room -> module prefixes it must not import (a prefix covers the module and everything below it).
FORBIDDEN = {
    "api.http": ("api.live", "api.cli", "api.store"),
    "api.live": ("api.http", "api.cli", "api.store"),
    "api.game": ("api.http", "api.live", "api.cli", "api.store"),
    "api.store": ("api.http", "api.live", "api.game", "api.ops", "api.cli"),
    "api.ops": ("api.http", "api.live", "api.cli", "api.store"),
    "api.codec": ("api.http", "api.live", "api.game", "api.store", "api.ops", "api.cli"),
}
# The store's contract, which every room above the store may import (its backends and open_store not).
CONTRACT = "api.store.base"
# What `from api import NAME` may take inside a room: the root's plain modules, not the factory.
ROOT_MODULES = {"config", "errors"}


def _module_name(path: Path) -> str:
    parts = path.relative_to(API.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(source: str, module: str, is_package: bool = False) -> list[tuple[int, str]]:
    """Return (line, imported module) for every import in `source`, the text of `module`; `from X import
    Y` counts as X.Y (Y may be a module), relative imports are resolved."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = module.split(".") if is_package else module.split(".")[:-1]
                package = package[:len(package) - (node.level - 1)]
                base = ".".join([*package, base] if base else package)
            found += [(node.lineno, f"{base}.{alias.name}") for alias in node.names]
    return found


def violations(source: str, module: str, is_package: bool = False) -> list[str]:
    """Return what `source` (the text of `module`) imports against the rules, as readable lines."""
    room = next((r for r in FORBIDDEN if module == r or module.startswith(r + ".")), None)
    if room is None:
        return []
    bad = []
    for line, name in imports_of(source, module, is_package):
        allowed = room != "api.store" and (name == CONTRACT or name.startswith(CONTRACT + "."))
        if not allowed and any(name == p or name.startswith(p + ".") for p in FORBIDDEN[room]):
            bad.append(f"{module}:{line} imports {name}")
        elif name == "api" or (name.count(".") == 1 and name.startswith("api.")
                                and name.split(".")[1] not in ROOT_MODULES
                                and f"api.{name.split('.')[1]}" not in (*FORBIDDEN, "api.cli")):
            bad.append(f"{module}:{line} imports the app factory's package: {name}")
    return bad


def _sources() -> list[Path]:
    return sorted(p for p in API.rglob("*.py") if "cli" not in p.relative_to(API).parts[:1])


def test_the_rooms_import_one_way() -> None:
    checked, bad = 0, []
    for path in _sources():
        module = _module_name(path)
        source = path.read_text(encoding="utf-8")
        checked += len(imports_of(source, module, path.name == "__init__.py"))
        bad += violations(source, module, path.name == "__init__.py")
    assert checked > 150  # the rules were applied to the real code, import by import
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(("module", "source"), [
    ("api.live.ws", "from api.http.schemas import ActionRequestSchema"),
    ("api.live.ws", "def f():\n    from api.http import routes"),
    ("api.http.openapi", "from api import CORS_HEADERS"),
    ("api.http.openapi", "import api"),
    ("api.game.seats", "from api.store.redis import RedisStore"),
    ("api.game.service", "from api.store import open_store"),
    ("api.live.hub", "from ..store.memory import MemoryStore"),
    ("api.game.seats", "from api.live.hub import Hub"),
    ("api.store.redis", "from ..game.model import Commit"),
    ("api.codec.own_json", "from api.game import gamelog"),
])
def test_a_sideways_or_upward_import_is_caught(module: str, source: str) -> None:
    assert violations(source, module)


@pytest.mark.parametrize(("module", "source"), [
    ("api.live.hub", "from api.store.base import GameStore"),
    ("api.http.routes", "from api.game.service import GameService"),
    ("api.game.service", "from api.ops.limits import Limiter"),
    ("api.store", "from api import config"),
    ("api.http.problems", "from api.errors import CODES"),
    ("api.live.frames", "from api.codec import own_json"),
])
def test_the_allowed_imports_pass(module: str, source: str) -> None:
    assert not violations(source, module)
