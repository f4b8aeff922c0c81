"""The client's bean data (pwa/js/beans.js) is the engine's (engine/cards.py), byte for byte as generated."""

from __future__ import annotations

import importlib.util
import json
import re
from pathlib import Path

from engine import cards

ROOT = Path(__file__).resolve().parents[2]


def _tool():
    spec = importlib.util.spec_from_file_location("make_beans", ROOT / "pwa" / "tools" / "make_beans.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_beans_js_is_generated_from_the_engine():
    text = (ROOT / "pwa" / "js" / "beans.js").read_text(encoding="utf-8")
    assert text == _tool().render(), "pwa/js/beans.js is stale: run python pwa/tools/make_beans.py"


def test_beans_js_values_match_engine_cards():
    # Read the module's data back independently of the generator, so a generator bug cannot hide.
    text = (ROOT / "pwa" / "js" / "beans.js").read_text(encoding="utf-8")
    consts = {m[1]: json.loads(m[2]) for m in re.finditer(r"^export const (\w+) = (.+);$", text, re.M)
              if not m[2].startswith("(")}
    assert consts["BEANOMETER"] == {b: list(v) for b, v in cards.BEANOMETER.items()}
    assert consts["COUNTS"] == cards.COUNTS and sum(consts["COUNTS"].values()) == cards.DECK_SIZE
    engine_thresholds = dict(zip(cards.BOSSES, cards.THRESHOLD, strict=True))
    assert consts["THRESHOLD"] == {"al": 3, "don": 2, "joe": 1} == engine_thresholds
    assert consts["THIRD_FIELD_COST"] == cards.THIRD_FIELD_COST == 4
    # The client's coins() formula agrees with the engine for every bean and count.
    for bean, steps in consts["BEANOMETER"].items():
        for n in range(0, 14):
            assert sum(1 for s in steps if s <= n) == cards.coins(bean, n), (bean, n)
