"""Node.js for the tests that run JavaScript outside the browser (docs examples, the JS client's example),
and the locked npm installs of the tests that need npm packages (tests/clients).

Node 22 has a global WebSocket; Node 20 (Debian's backports, this machine's) needs
`--experimental-websocket` for it; older Node has none and is refused. Under CI (ALCABOHNE_CI=1) a
missing or too old node (or a missing npm) fails the test instead of skipping it: .ci/run installs them.
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

MINIMUM = 20


def _missing(why: str):
    if os.environ.get("ALCABOHNE_CI") == "1":
        pytest.fail(why)
    pytest.skip(why)


def node_command() -> list[str]:
    """Return the command that runs node with a global WebSocket (skip, or fail under CI, without one)."""
    binary = shutil.which("node") or shutil.which("nodejs")
    major = _major(binary) if binary else 0
    if major < MINIMUM:
        _missing(f"Node.js >= {MINIMUM} is needed (found: {binary or 'none'}, major {major})")
    return [binary, "--experimental-websocket"] if major < 22 else [binary]


@contextmanager
def npm_installed(folder: Path, marker: str) -> Iterator[Path]:
    """Hold `folder`'s packages installed as its package-lock.json pins them (`npm ci`, no install
    scripts) while the block runs: `node_modules/<marker>` missing means not installed yet. Parallel
    test workers take turns on a lock of the folder's package.json, so they install once and may build
    in the folder inside the block. Yields the folder's node_modules/.bin."""
    node_command()
    npm = shutil.which("npm")
    if npm is None:
        _missing(f"npm is needed to install {folder.name}'s packages")
    with open(folder / "package.json", "rb") as lock_file:
        fcntl.flock(lock_file, fcntl.LOCK_EX)
        if not (folder / "node_modules" / marker).is_dir():
            run = subprocess.run([npm, "ci", "--no-audit", "--no-fund", "--ignore-scripts"], cwd=folder,
                                 capture_output=True, text=True, timeout=600, check=False)
            assert run.returncode == 0, run.stdout + run.stderr
        yield folder / "node_modules" / ".bin"


def _major(binary: str) -> int:
    version = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout
    return int(version.strip().lstrip("v").split(".")[0])
