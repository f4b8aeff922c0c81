"""Invariants checked after every step of the random playouts (test_playouts.py, test_properties.py).

Each check names the rule or contract clause it guards.
"""

from __future__ import annotations

import json
import random
from collections import Counter

from helpers import COUNTS, PHASES, RULE_RE, card_counter, well_formed_actions

import engine

TOTAL = Counter(COUNTS)


def card_total(pos: dict) -> int:
    n = len(pos["treasury"]) + len(pos["display"]) + len(pos["discard"]) + len(pos["deck"])
    n += len(pos["set_aside"]) + sum(b[1] for b in pos["bosses"].values() if b)
    for p in pos["players"]:
        n += len(p["hand"]) + len(p["coins"]) + sum(f[1] for f in p["fields"] if f)
    return n


def check_light(pos: dict) -> None:
    """The cheapest invariants, for every step of the long playout loop."""
    assert card_total(pos) == 116  # R1
    for p in pos["players"]:
        types = [f[0] for f in p["fields"] if f]
        assert len(types) == len(set(types)), p["fields"]  # R13
    bosses = [b[0] for b in pos["bosses"].values() if b]
    assert len(bosses) == len(set(bosses)), pos["bosses"]  # R14


def check_position(pos: dict, seats: int) -> None:
    """Structural invariants of one position."""
    # R1/docs/protocol.md §4: every card is somewhere, exactly once
    assert card_counter(pos) == TOTAL, card_counter(pos)
    assert pos["phase"] in PHASES
    assert len(pos["players"]) == seats and 0 <= pos["active"] < seats
    assert 0 <= pos["exhaustions"] <= 3  # R90: at most 3 passes
    for p in pos["players"]:
        fields = p["fields"]
        assert len(fields) == (3 if p["third_field"] else 2)  # R40, R43
        types = [f[0] for f in fields if f]
        assert len(types) == len(set(types)), fields  # R13
        assert all(f[1] >= 1 for f in fields if f)  # R12
    bosses = [b[0] for b in pos["bosses"].values() if b]
    assert len(bosses) == len(set(bosses)), pos["bosses"]  # R14
    assert all(b[1] >= 1 for b in pos["bosses"].values() if b)
    if pos["mode"] == "duo":
        assert pos["bosses"].get("joe") is None  # R6
    else:
        assert pos["players"][0]["third_field"] is True  # R43
        assert pos["phase"] != "leftovers"  # R60
    # docs/protocol.md §2: where the engine rests
    if pos["phase"] == "leftovers":
        assert pos["display"]
    if pos["phase"] == "protection":
        me = pos["players"][pos["active"]]
        held = {b[0] for b in pos["bosses"].values() if b}
        unsettled = [i for i, f in enumerate(me["fields"]) if f and f[0] in held and i not in pos["settled"]]
        assert unsettled, "protection rests only while an unsettled pair exists"
    if pos["phase"] != "plant":
        assert pos["planted"] == 0
    if pos["phase"] != "protection":
        assert pos["settled"] == []
    if pos["exhaustions"] < 3:
        assert pos["deck"], "R92: the draw pile is never empty before the 3rd exhaustion"
    if pos["phase"] == "over":
        assert pos["exhaustions"] == 3
        check_result(pos)
    else:
        assert pos["result"] is None


def check_result(pos: dict) -> None:
    """R100-R103: the final position is harvested and the result follows from it."""
    for p in pos["players"]:
        assert all(f is None for f in p["fields"])  # R100
    assert all(b is None for b in pos["bosses"].values())
    scores = [len(p["coins"]) for p in pos["players"]]
    mafia = len(pos["treasury"]) * (2 if pos["mode"] == "solo" else 1)  # R101
    best = max(scores)
    winners = [i for i, s in enumerate(scores) if s == best] if best > mafia else ["mafia"]  # R102, R103
    result = pos["result"]
    assert {k: result[k] for k in ("scores", "mafia", "winners")} == {"scores": scores, "mafia": mafia,
                                                                      "winners": winners}
    # The breakdown adds up to the scores, and a Mafia win by a tie says so (A17, R103).
    factor = 2 if pos["mode"] == "solo" else 1
    parts = result["breakdown"]
    assert [p["coins_before"] + p["final_harvest"] for p in parts["players"]] == scores
    assert all(p["coins_before"] >= 0 and p["final_harvest"] >= 0 for p in parts["players"])
    boss = parts["mafia"]
    assert boss["factor"] == factor and factor * (boss["treasury_before"] + boss["final_harvest"]) == mafia
    assert result["tie_to_mafia"] is (winners == ["mafia"] and best == mafia)


def check_step(before: dict, action: dict, after: dict, events: list) -> None:
    """Invariants of one transition (positions before and after)."""
    seat = before["active"]
    for i, (p, q) in enumerate(zip(before["players"], after["players"], strict=True)):
        # R4: coins are never lost, except the 4 paid for the third field (R42)
        bought = action["type"] == "buy_field" and i == seat
        assert len(q["coins"]) >= len(p["coins"]) - (4 if bought else 0)
        if bought:
            assert q["third_field"] and not p["third_field"]
    assert len(after["treasury"]) >= len(before["treasury"])  # R4, R35
    assert after["exhaustions"] >= before["exhaustions"]
    draws = [e for e in events if e["type"] == "draw"]
    assert all(e["seat"] == seat for e in draws)  # R86: only the active player draws
    assert len(draws) <= 2
    if draws and before["mode"] == "duo" and after["phase"] != "over":
        assert after["active"] == 1 - seat  # R87
    for e in events:
        assert isinstance(e, dict) and isinstance(e.get("type"), str)
        if e["type"] == "reshuffle":
            assert e["pass"] in (2, 3)  # R90: at most 2 reshuffles
    # every event is public except a draw, which other seats see without the bean
    for viewer in [*range(len(before["players"])), None] if draws else ():
        for e, r in zip(events, engine.redact_events(events, viewer), strict=True):
            if e["type"] == "draw" and e["seat"] != viewer:
                assert r == {"type": "draw", "seat": e["seat"]}
            else:
                assert r == e


def check_round_trip(state, pos: dict) -> None:
    """docs/protocol.md §4/§13: from_position(to_position(s)) == s, also through JSON."""
    copy_ = engine.from_position(pos)
    assert copy_ == state
    assert engine.legal_actions(copy_) == engine.legal_actions(state)  # a stable order
    again = json.loads(json.dumps(pos))
    assert again == pos
    assert engine.from_position(again) == state


def _perturbed(pos: dict, viewer, rng: random.Random) -> dict:
    """Shuffle every card the viewer cannot see among the hidden places (keeping each place's size)."""
    pos = json.loads(json.dumps(pos))
    places = []
    for i, p in enumerate(pos["players"]):
        if i != viewer:
            places.append((p, "hand"))
        places.append((p, "coins"))
    places += [(pos, "deck"), (pos, "treasury"), (pos, "set_aside")]
    hidden = [c for obj, key in places for c in obj[key]] + pos["discard"][1:]
    rng.shuffle(hidden)
    k = 0
    for obj, key in places:
        n = len(obj[key])
        obj[key], k = hidden[k : k + n], k + n
    pos["discard"] = pos["discard"][:1] + hidden[k:]
    pos["seed"] = rng.randrange(1, 2**31)
    return pos


def check_views(state, pos: dict, rng: random.Random) -> None:
    """R17/docs/protocol.md §5: a view shows the own hand and counts, never hidden cards or the seed."""
    seats = len(pos["players"])
    legal = engine.legal_actions(state)
    for viewer in [*range(seats), None]:
        v = engine.view(state, viewer)
        text = json.dumps(v)
        if pos["seed"] >= 100_000:
            assert str(pos["seed"]) not in text
        assert '"seed"' not in text and '"deck"' not in text
        # scan for the hidden lists themselves (unless the same run of cards is public anyway)
        public = json.dumps([pos["display"], pos["players"][viewer]["hand"] if viewer is not None else []])
        secrets = [pos["deck"][:5]] + [p["hand"] for i, p in enumerate(pos["players"]) if i != viewer]
        for secret in secrets:
            run = json.dumps(secret)[1:-1]
            if len(secret) >= 3 and run not in public:
                assert run not in text, (viewer, secret)
        assert v["seat"] == viewer and v["phase"] == pos["phase"] and v["active"] == pos["active"]
        for i, p in enumerate(v["players"]):
            assert p["hand"] == (pos["players"][i]["hand"] if i == viewer else None)
            assert p["hand_size"] == len(pos["players"][i]["hand"])
            assert p["coins"] == len(pos["players"][i]["coins"])
        assert v["deck_size"] == len(pos["deck"]) and v["discard_size"] == len(pos["discard"])
        assert v["treasury"] == len(pos["treasury"]) and v["set_aside"] == len(pos["set_aside"])
        if pos["exhaustions"] < 3:
            assert v["pass"] == pos["exhaustions"] + 1
        mine = viewer == pos["active"] and pos["phase"] != "over"
        assert v["legal_actions"] == (legal if mine else [])
        # the view must not change when hidden cards change
        assert engine.view(engine.from_position(_perturbed(pos, viewer, rng)), viewer) == v


def check_actions(state, pos: dict, legal: list, rng: random.Random, unlisted_sample: int | None) -> None:
    """docs/protocol.md §3: apply accepts exactly what legal_actions lists (a sample of the rest, or
    all of it)."""
    if pos["phase"] == "over":
        assert legal == []
    else:
        assert legal, "a resting state always offers an action"
    assert len({json.dumps(a, sort_keys=True) for a in legal}) == len(legal), "no duplicate actions"
    for action in legal:
        new, events = engine.apply(state, action)
        assert isinstance(events, list)
        assert card_counter(engine.to_position(new)) == TOTAL
    others = [a for a in well_formed_actions(pos) if a not in legal]
    if unlisted_sample is not None:
        others = rng.sample(others, min(unlisted_sample, len(others)))
    for action in others:
        try:
            engine.apply(state, action)
        except engine.IllegalAction as err:
            assert err.code == "illegal_action" and RULE_RE.search(str(err)), err
        else:
            raise AssertionError(f"unlisted action {action} was applied in {pos['phase']}")
    # purity: nothing above changed the state
    assert engine.to_position(state) == pos
