"""api.ops.gctune: the server process's collector settings (each case in a fresh interpreter, since the
settings are the process's own)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import gc, json, sys
from api import create_app
from api.store.memory import MemoryStore
before = gc.get_threshold()
config = {"STORE": MemoryStore()}
if len(sys.argv) > 1:
    config["GC_THRESHOLD"] = int(sys.argv[1])
create_app(config)
frozen = gc.get_freeze_count()
create_app(config)
print(json.dumps({"before": before, "after": gc.get_threshold(), "frozen": frozen,
                  "frozen_again": gc.get_freeze_count()}))
"""


def _probe(*args: str, env: dict | None = None) -> dict:
    out = subprocess.run([sys.executable, "-c", PROBE, *args], cwd=ROOT, capture_output=True, text=True,
                         check=True, env=env)
    return json.loads(out.stdout)


def test_the_app_raises_the_young_threshold_and_freezes_its_startup_objects_once() -> None:
    seen = _probe()
    assert seen["before"][0] == 700
    assert seen["after"] == [50_000, *seen["before"][1:]]
    assert seen["frozen"] > 10_000  # modules, classes and the app itself
    # A second app in the same process (tests build many) freezes nothing more.
    assert seen["frozen_again"] == seen["frozen"]


@pytest.mark.parametrize("value, expected", [("20000", 20_000), ("0", 700)])
def test_gc_threshold_is_a_setting_and_zero_keeps_pythons_default(value: str, expected: int) -> None:
    seen = _probe(value)
    assert seen["after"][0] == expected
    assert (seen["frozen"] > 0) == (expected != 700)
