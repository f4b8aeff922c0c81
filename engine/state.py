"""The game state and its position round trip (docs/protocol.md §4).

Internally piles keep their top at the END of a list (so taking the top is a cheap pop), hands keep the
front at index 0, fields and bosses are lists of `None` or `(bean, count)` tuples. Positions write piles
top first, hands front first. A State is never changed after `apply` returns it (apply works on a copy).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter

from .cards import BEANS, BOSS_COUNT, BOSSES, COUNTS, SEATS
from .errors import InvalidPosition

PHASES = ("leftovers", "protection", "plant", "use", "over")
_POSITION_KEYS = frozenset({"format", "mode", "phase", "active", "players", "bosses", "treasury", "display",
                            "discard", "deck", "set_aside", "exhaustions", "planted", "settled",
                            "last_turn", "seed", "result"})
FORMAT = 1

_SLOTS = ("mode", "phase", "active", "hands", "fields", "coins", "third", "bosses", "treasury",
          "display", "discard", "deck", "set_aside", "exhaustions", "planted", "settled", "last_turn",
          "seed", "result")


class State:
    """A complete game state. Compare with ==; the `_legal` memo is not part of the state."""

    __slots__ = _SLOTS + ("_legal",)

    def copy(self) -> State:
        """Return a copy that shares every list with this state (copy-on-write).

        Transitions never change a shared list in place: they replace it (`s.discard = s.discard + x`)
        or take their own copy first (`own_hand`, `s.deck = s.deck[:]`). The bosses list, changed by
        most Mafia steps, is copied here. Tuples and strings are immutable and shared.
        """
        n = State.__new__(State)
        n.mode = self.mode
        n.phase = self.phase
        n.active = self.active
        n.hands = self.hands
        n.fields = self.fields
        n.coins = self.coins
        n.third = self.third
        n.bosses = self.bosses[:]
        n.treasury = self.treasury
        n.display = self.display
        n.discard = self.discard
        n.deck = self.deck
        n.set_aside = self.set_aside
        n.exhaustions = self.exhaustions
        n.planted = self.planted
        n.settled = self.settled
        n.last_turn = self.last_turn
        n.seed = self.seed
        n.result = self.result
        n._legal = None
        return n

    # Give this state its own copy of one seat's list, ready to be changed in place.
    def own_fields(self, seat: int) -> list:
        """Return this state's own copy of `seat`'s fields."""
        self.fields, row = _own_row(self.fields, seat)
        return row

    def own_coins(self, seat: int) -> list:
        """Return this state's own copy of `seat`'s coin pile."""
        self.coins, row = _own_row(self.coins, seat)
        return row

    def own_hand(self, seat: int) -> list:
        """Return this state's own copy of `seat`'s hand."""
        self.hands, row = _own_row(self.hands, seat)
        return row

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, State):
            return NotImplemented
        return all(getattr(self, k) == getattr(other, k) for k in _SLOTS)

    def __hash__(self) -> int:  # states are compared, never used as keys
        raise TypeError("State is unhashable")

    def __repr__(self) -> str:
        return f"State({self.mode}, phase={self.phase}, active={self.active}, deck={len(self.deck)})"

    def card_count(self) -> int:
        """Return the number of cards anywhere in the game (constant from new_game on: 116)."""
        n = sum(len(h) for h in self.hands) + sum(len(c) for c in self.coins)
        n += sum(f[1] for fs in self.fields for f in fs if f) + sum(b[1] for b in self.bosses if b)
        return n + len(self.treasury) + len(self.display) + len(self.discard) + len(self.deck) + len(
            self.set_aside)


def _own_row(rows: list, seat: int) -> tuple[list, list]:
    """Copy the per-seat list `rows` and its entry for `seat`; return (new rows, new entry)."""
    rows = rows[:]
    row = rows[seat] = rows[seat][:]
    return rows, row


def blank(mode: str, seed: int) -> State:
    """Return an empty table for `mode` (no cards anywhere), phase `plant`, seat 0 active."""
    s = State.__new__(State)
    seats = SEATS[mode]
    s.mode = mode
    s.phase = "plant"
    s.active = 0
    s.hands = [[] for _ in range(seats)]
    s.fields = [[None] * (3 if mode == "solo" else 2) for _ in range(seats)]
    s.coins = [[] for _ in range(seats)]
    s.third = [mode == "solo"] * seats
    s.bosses = [None] * BOSS_COUNT[mode]
    s.treasury, s.display, s.discard, s.deck, s.set_aside, s.settled = [], [], [], [], [], []
    s.exhaustions = 0
    s.planted = 0
    s.last_turn = False
    s.seed = seed
    s.result = None
    s._legal = None
    return s


def _entry(e):
    return None if e is None else [e[0], e[1]]


def to_position(s: State) -> dict:
    """Return the JSON-serialisable position of `s` (docs/protocol.md §4); piles top first."""
    return {
        "format": FORMAT,
        "mode": s.mode,
        "phase": s.phase,
        "active": s.active,
        "players": [
            {"hand": s.hands[i][:], "fields": [_entry(f) for f in s.fields[i]],
             "coins": s.coins[i][::-1], "third_field": s.third[i]}
            for i in range(len(s.hands))
        ],
        "bosses": {BOSSES[i]: _entry(b) for i, b in enumerate(s.bosses)},
        "treasury": s.treasury[::-1],
        "display": s.display[:],
        "discard": s.discard[::-1],
        "deck": s.deck[::-1],
        "set_aside": s.set_aside[::-1],
        "exhaustions": s.exhaustions,
        "planted": s.planted,
        "settled": s.settled[:],
        "last_turn": s.last_turn,
        "seed": s.seed,
        "result": copy_result(s.result),
    }


def copy_result(r):
    """Return a copy of a result (None stays None), with its breakdown when it has one."""
    if r is None:
        return None
    out = {"scores": list(r["scores"]), "mafia": r["mafia"], "winners": list(r["winners"])}
    if "tie_to_mafia" in r:
        out["tie_to_mafia"] = r["tie_to_mafia"]
    if "breakdown" in r:
        b = r["breakdown"]
        out["breakdown"] = {"players": [dict(p) for p in b["players"]], "mafia": dict(b["mafia"])}
    return out


# ---------------------------------------------------------------- reading positions (strict)

def _fail(msg: str):
    raise InvalidPosition(f"position: {msg}")


def _int(v, what: str, lo: int = 0, hi: int | None = None) -> int:
    if type(v) is not int or v < lo or (hi is not None and v > hi):
        _fail(f"{what} must be an integer in {lo}..{'' if hi is None else hi}, got {v!r}")
    return v


def _bool(v, what: str) -> bool:
    if type(v) is not bool:
        _fail(f"{what} must be true or false, got {v!r}")
    return v


def _pile(v, what: str) -> list:
    try:  # one set operation per pile: from_position runs on every request and every push
        ok = type(v) is list and _BEAN_SET.issuperset(v)
    except TypeError:  # an unhashable item (a list, an object) is no bean code either
        ok = False
    if not ok:
        _fail(f"{what} must be a list of bean codes {BEANS}")
    return list(v)


_BEAN_SET = frozenset(BEANS)


def _field(v, what: str):
    if v is None:
        return None
    if (type(v) is not list or len(v) != 2 or type(v[0]) is not str or v[0] not in BEANS
            or type(v[1]) is not int or v[1] < 1):
        _fail(f"{what} must be null or [bean, count >= 1], got {v!r}")
    return (v[0], v[1])


def _derived_seed(pos: dict) -> int:
    """A missing seed comes from the rest of the position, never from a global random source."""
    blob = json.dumps({k: v for k, v in pos.items() if k != "seed"}, sort_keys=True, default=str)
    return int.from_bytes(hashlib.sha256(blob.encode()).digest()[:8], "big")


def from_position(pos: dict) -> State:
    """Return the State a position describes, taken literally (no automatic advancing).

    Missing keys take defaults (empty lists, null fields, 0, false, a seed derived from the position);
    `mode` and `phase` are required. Raises InvalidPosition for anything that cannot describe a game.
    """
    if type(pos) is not dict:
        _fail("must be a JSON object")
    extra = set(pos) - _POSITION_KEYS
    if extra:
        _fail(f"unknown keys {sorted(extra)}")
    if pos.get("format", FORMAT) != FORMAT:
        _fail(f"format must be {FORMAT}")
    mode = pos.get("mode")
    if mode not in SEATS:
        _fail(f"mode must be 'duo' or 'solo', got {mode!r}")
    seed = pos["seed"] if "seed" in pos and pos["seed"] is not None else _derived_seed(pos)
    if type(seed) is not int:
        _fail(f"seed must be an integer, got {seed!r}")
    s = blank(mode, seed)
    s.phase = pos.get("phase")
    if s.phase not in PHASES:
        _fail(f"phase must be one of {PHASES}, got {s.phase!r}")
    seats = SEATS[mode]
    s.active = _int(pos.get("active", 0), "active", 0, seats - 1)
    players = pos.get("players", [{} for _ in range(seats)])
    if type(players) is not list or len(players) != seats:
        _fail(f"players must be a list of {seats} entries")
    for i, p in enumerate(players):
        if type(p) is not dict or set(p) - {"hand", "fields", "coins", "third_field"}:
            _fail(f"players[{i}] must be an object with hand, fields, coins, third_field")
        third = _bool(p.get("third_field", mode == "solo"), f"players[{i}].third_field")
        if mode == "solo" and not third:
            _fail("in solo the player owns the third field from the start (R43)")
        fields = p.get("fields", [None] * (3 if third else 2))
        if type(fields) is not list or len(fields) != (3 if third else 2):
            _fail(f"players[{i}].fields must have {3 if third else 2} entries (third_field={third})")
        fs = [_field(f, f"players[{i}].fields[{j}]") for j, f in enumerate(fields)]
        types = [f[0] for f in fs if f]
        if len(types) != len(set(types)):
            _fail(f"players[{i}] has the same bean on two fields (R13)")
        s.hands[i] = _pile(p.get("hand", []), f"players[{i}].hand")
        s.fields[i] = fs
        s.coins[i] = _pile(p.get("coins", []), f"players[{i}].coins")[::-1]
        s.third[i] = third
    bosses = pos.get("bosses", {})
    names = BOSSES[:BOSS_COUNT[mode]]
    if type(bosses) is not dict or set(bosses) - set(names):
        _fail(f"bosses must be an object with keys {names}")
    s.bosses = [_field(bosses.get(b), f"bosses.{b}") for b in names]
    btypes = [b[0] for b in s.bosses if b]
    if len(btypes) != len(set(btypes)):
        _fail("two bosses hold the same bean (R14)")
    for name in ("treasury", "discard", "deck", "set_aside"):
        setattr(s, name, _pile(pos.get(name, []), name)[::-1])
    s.display = _pile(pos.get("display", []), "display")
    s.exhaustions = _int(pos.get("exhaustions", 0), "exhaustions", 0, 3)
    s.planted = _int(pos.get("planted", 0), "planted", 0, 2)
    settled = pos.get("settled", [])
    if type(settled) is not list:
        _fail("settled must be a list of field indexes")
    s.settled = [_int(f, "settled[]", 0, 2) for f in settled]
    s.last_turn = _bool(pos.get("last_turn", False), "last_turn")
    _check_counts(s)
    result = pos.get("result")
    if s.phase == "over":
        if result is None:
            _fail("a game that is over has a result (R101-R103)")
        s.result = _read_result(result, seats)
    elif result is not None:
        _fail("result is set only when the phase is 'over'")
    return s


def _check_counts(s: State) -> None:
    """A position may hold fewer cards than R1's deck, never more of a type than the deck has."""
    seen = Counter(s.treasury + s.display + s.discard + s.deck + s.set_aside)
    for i in range(len(s.hands)):
        seen.update(s.hands[i])
        seen.update(s.coins[i])
        for f in s.fields[i]:
            if f is not None:
                seen[f[0]] += f[1]
    for b in s.bosses:
        if b is not None:
            seen[b[0]] += b[1]
    over = sorted(b for b, n in seen.items() if n > COUNTS[b])
    if over:
        _fail(f"more cards of {over} than the deck holds (R1)")


_RESULT_KEYS = {"scores", "mafia", "winners"}
# Positions written before the end breakdown existed have only _RESULT_KEYS.
_BREAKDOWN_KEYS = {"tie_to_mafia", "breakdown"}


def _ints(d, keys: set) -> bool:
    """True when `d` is an object with exactly `keys`, each an integer."""
    return type(d) is dict and set(d) == keys and all(type(d[k]) is int for k in keys)


def _read_result(r, seats: int) -> dict:
    if (type(r) is not dict or not _RESULT_KEYS <= set(r) <= _RESULT_KEYS | _BREAKDOWN_KEYS
            or type(r["scores"]) is not list
            or len(r["scores"]) != seats or any(type(x) is not int for x in r["scores"])
            or type(r["mafia"]) is not int or type(r["winners"]) is not list):
        _fail("result must be {scores: [int per seat], mafia: int, winners: [...]} (and tie_to_mafia, "
              "breakdown)")
    if "tie_to_mafia" in r and type(r["tie_to_mafia"]) is not bool:
        _fail("result.tie_to_mafia must be a boolean")
    if "breakdown" in r:
        b = r["breakdown"]
        if (type(b) is not dict or set(b) != {"players", "mafia"} or type(b["players"]) is not list
                or len(b["players"]) != seats
                or not all(_ints(p, {"coins_before", "final_harvest"}) for p in b["players"])
                or not _ints(b["mafia"], {"treasury_before", "final_harvest", "factor"})):
            _fail("result.breakdown must be {players: [{coins_before, final_harvest}], mafia: "
                  "{treasury_before, final_harvest, factor}}")
    return copy_result(r)
