"""Node.js for the tests that run JavaScript outside the browser (docs examples, the JS client's example).

Node 22 has a global WebSocket; Node 20 (Debian's backports, this machine's) needs
`--experimental-websocket` for it; older Node has none and is refused. Under CI (ALCABOHNE_CI=1) a
missing or too old node fails the test instead of skipping it: .ci/run installs it.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest

MINIMUM = 20


def node_command() -> list[str]:
    """Return the command that runs node with a global WebSocket (skip, or fail under CI, without one)."""
    binary = shutil.which("node") or shutil.which("nodejs")
    major = _major(binary) if binary else 0
    if major < MINIMUM:
        why = f"Node.js >= {MINIMUM} is needed (found: {binary or 'none'}, major {major})"
        if os.environ.get("ALCABOHNE_CI") == "1":
            pytest.fail(why)
        pytest.skip(why)
    return [binary, "--experimental-websocket"] if major < 22 else [binary]


def _major(binary: str) -> int:
    version = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True).stdout
    return int(version.strip().lstrip("v").split(".")[0])
