"""docs/architecture.md names only functions and files that exist: every `Class.function` (and
`module.function`) it mentions for a move's path, in the text and in its diagram, every dotted
`api.module.name`, and every file of the server it names (a path, or a file named in its room's row of
the rooms table), is looked up in the code."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import engine
from api.game import bots
from api.game.service import GameService
from api.http import routes
from api.live.hub import Hub
from api.live.ws import Session
from api.live.wssocket import Sender, SerialSocket
from api.store.base import GameStore

DOC = Path(__file__).resolve().parents[2] / "docs" / "architecture.md"
OWNERS = {"GameService": GameService, "Hub": Hub, "Session": Session, "Sender": Sender,
          "SerialSocket": SerialSocket, "routes": routes, "engine": engine, "store": GameStore,
          "GameStore": GameStore, "bots": bots}


def test_every_function_the_architecture_names_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    pattern = r"\b(" + "|".join(OWNERS) + r")\.([A-Za-z_]\w*)\b"
    named = {(owner, name) for owner, name in re.findall(pattern, text)
             if name not in ("py", "md")}  # not file names: bots.py, docs/bots.md
    assert len(named) > 15  # the corridor is drawn with its functions
    missing = sorted(f"{owner}.{name}" for owner, name in named if not hasattr(OWNERS[owner], name))
    assert not missing, missing


def _resolves(dotted: str) -> bool:
    """Whether `dotted` (api.module[.name...]) names a module, or something in one."""
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            found = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            if not hasattr(found, name):
                return False
            found = getattr(found, name)
        return True
    return False


def test_every_dotted_name_the_architecture_gives_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    dotted = set(re.findall(r"`(api(?:\.\w+)+)", text))
    assert dotted
    missing = sorted(name for name in dotted if not _resolves(name))
    assert not missing, missing


def test_every_file_the_architecture_names_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    root = DOC.parents[1]
    paths = set(re.findall(r"`(api/[\w/]+(?:\.py|/))", text))
    # In the rooms table, a row's files (`name.py`) are in the folder that starts the row.
    for folder, row in re.findall(r"^\| `(api/\w+/)` \|(.*)$", text, re.MULTILINE):
        paths |= {folder + name for name in re.findall(r"`(\w+\.py)`", row)}
    assert len(paths) > 30
    missing = sorted(path for path in paths if not (root / path).exists())
    assert not missing, missing
