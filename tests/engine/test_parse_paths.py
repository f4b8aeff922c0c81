"""The action parser's fast path (for well-formed input) agrees with the full parser (docs/protocol.md §3)."""

import itertools

import engine
from engine import actions

VALUES = [0, 1, 2, 3, -1, 7, True, False, 1.0, "0", "BL", "KI", "XX", "al", "joe", None, [], {}]


def test_fast_and_full_parser_agree_on_every_combination():
    checked = 0
    for t in [*actions.PARAMS, "nope", 3]:
        params = actions.PARAMS.get(t, ("field",))
        for combo in itertools.product(VALUES, repeat=len(params)):
            base = {"type": t, **dict(zip(params, combo, strict=True))}
            for extra in ({}, {"x": 1}, {"field": 0}):
                action = {**base, **extra}
                try:
                    fast = actions.parse(action)
                except engine.InvalidAction:
                    fast = "invalid"
                try:
                    full = actions._parse(action)
                except engine.InvalidAction:
                    full = "invalid"
                assert fast == full, action
                checked += 1
    assert checked > 1000


def test_codes_round_trip_through_dicts():
    for code, template in enumerate(actions.TEMPLATES):
        assert actions.parse(dict(template)) == code
        assert actions.decode(code)[0] == template["type"]
