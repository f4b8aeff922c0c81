"""docs/protocol.md cannot drift from what the engine and the API send.

Random games are played through the engine (duo and solo, fixed seeds) and one duo game through the HTTP
API (with a join, a seat transfer and a rematch). Every event type and every field that occurs must be
in the events table of docs/protocol.md §8, every documented event type must occur, and every field of a
view, a player entry, a result and an answer must be in the tables of §5.
"""

from __future__ import annotations

import json
import pathlib
import random
import re

import pytest

import engine
from api import create_app
from api.store.memory import MemoryStore

DOC = pathlib.Path(__file__).resolve().parents[1] / "docs" / "protocol.md"
API = "/api/v1"


def _section(title_start: str) -> str:
    """Return the text of the `## ` section whose title starts with `title_start`."""
    text = DOC.read_text(encoding="utf-8")
    m = re.search(rf"^## {re.escape(title_start)}.*?(?=^## |\Z)", text, flags=re.M | re.S)
    assert m, f"docs/protocol.md has no section '## {title_start}'"
    return m.group(0)


def _rows(section: str) -> dict[str, str]:
    """Return the table rows of `section` by their first cell's code name (`name` -> the whole row)."""
    return {m[1]: m[0] for m in re.finditer(r"^\| `([^`]+)` \|.*$", section, flags=re.M)}


def _names(cell: str) -> set[str]:
    return set(re.findall(r"`([a-z_]+)`", cell))


def _record(seen: dict[str, set[str]], events: list[dict]) -> None:
    for e in events:
        seen.setdefault(e["type"], set()).update(k for k in e if k != "type")


def _engine_games() -> tuple[dict[str, set[str]], list[dict]]:
    """Play random games; return the event fields seen by type and a sample of views (every phase)."""
    seen: dict[str, set[str]] = {}
    views = []
    for mode in ("duo", "solo"):
        for seed in range(12):
            rng = random.Random(seed)
            s = engine.new_game(mode, seed)
            while s.phase != "over":
                s, events = engine.apply(s, rng.choice(engine.legal_actions(s)))
                _record(seen, events)
                for seat in range(len(s.hands)):
                    _record(seen, engine.redact_events(events, seat))
            views += [engine.view(s, 0), engine.view(s, None)]
            views.append(engine.view(engine.new_game(mode, seed), 0))
    return seen, views


@pytest.fixture(scope="module")
def api_game() -> dict:
    """Play one duo game over HTTP (join, moves of both seats, a transfer, a rematch); return the event
    fields seen by type and every answer body."""
    client = create_app({"STORE": MemoryStore(), "PUBLIC_URL": "http://table.test"}).test_client()
    answers = []

    def call(method: str, path: str, token: str | None = None, headers: dict | None = None, **kw):
        headers = dict(headers or {}, **({"Authorization": f"Bearer {token}"} if token else {}))
        res = client.open(API + path, method=method, headers=headers, **kw)
        assert res.status_code in (200, 201), res.get_json()
        answers.append(res.get_json())
        return res.get_json()

    made = call("POST", "/games", json={"mode": "duo", "name": "Ada"})
    gid, tokens = made["game_id"], [made["token"], None]
    tokens[1] = call("POST", "/games/join", json={"code": made["join_code"], "name": "Bo"})["token"]
    rng = random.Random(7)
    body = call("GET", f"/games/{gid}", tokens[0])
    moves = 0
    while body["view"]["phase"] != "over":
        active = body["view"]["active"]
        mine = call("GET", f"/games/{gid}", tokens[active])
        action = rng.choice(mine["view"]["legal_actions"])
        body = call("POST", f"/games/{gid}/actions", tokens[active],
                    json={"action": action, "version": mine["version"]},
                    headers={"Idempotency-Key": f"k{moves}"})
        moves += 1
        if moves == 3:  # move seat 1 to another device
            code = call("POST", f"/games/{gid}/transfer", tokens[1])["transfer_code"]
            tokens[1] = call("POST", "/games/join", json={"code": code})["token"]
    call("POST", f"/games/{gid}/rematch", tokens[0])
    seen: dict[str, set[str]] = {}
    for seat_token in (*tokens, None):
        for entry in call("GET", f"/games/{gid}/events?since=0", seat_token)["log"]:
            _record(seen, entry["events"])
    for answer in answers:
        _record(seen, answer.get("events", []))
    return {"seen": seen, "answers": answers}


def test_every_event_and_field_is_documented(api_game):
    rows = _rows(_section("8. Events"))
    seen, _views = _engine_games()
    for kind, fields in api_game["seen"].items():
        seen.setdefault(kind, set()).update(fields)
    undocumented = {k: sorted(f - _names(rows[k].split("|")[2])) if k in rows else "the type"
                    for k, f in seen.items()}
    undocumented = {k: v for k, v in undocumented.items() if v}
    assert not undocumented, f"missing in docs/protocol.md §8: {undocumented}"
    never = sorted(set(rows) - set(seen))
    assert not never, f"documented in §8 but never sent: {never}"


def test_every_view_field_is_documented():
    rows = _rows(_section("5. Views"))
    _seen, views = _engine_games()
    missing = set()
    for v in views:
        missing |= set(v) - set(rows)
        for p in v["players"]:
            missing |= set(p) - set(rows)
        if v["result"] is not None:
            r = v["result"]
            missing |= set(r) - set(rows) - {"breakdown"}
            missing |= set(r["breakdown"]["players"][0]) - _names(rows["breakdown.players[]"])
            missing |= set(r["breakdown"]["mafia"]) - _names(rows["breakdown.mafia"])
        missing |= set(v["bosses"]) - _names(rows["bosses"])
    assert not missing, f"view fields missing in docs/protocol.md §5: {sorted(missing)}"


def test_every_answer_field_is_documented(api_game):
    rows = _rows(_section("5. Views"))
    game_answers = [a for a in api_game["answers"] if "view" in a]
    missing = set()
    for a in game_answers:
        missing |= set(a) - set(rows)
        for seat in a["seats"]:
            missing |= set(seat) - _names(rows["seats"])
    assert not missing, f"answer fields missing in docs/protocol.md §5: {sorted(missing)}"


def test_bean_and_boss_tables_match_the_engine():
    beans = _rows(_section("1. Names"))
    from engine import cards

    for bean in engine.BEANS:
        row = beans[bean]
        assert cards.NAMES_DE[bean] in row and f"| {engine.COUNTS[bean]} |" in row
        assert " / ".join(map(str, engine.BEANOMETER[bean])) in row
    for boss, threshold in zip(engine.BOSSES, cards.THRESHOLD, strict=True):
        assert cards.BOSS_NAMES[boss] in beans[boss] and f"| {threshold} coin" in beans[boss]


def test_order_of_checks_and_idempotency_as_documented():
    """docs/protocol.md §9 (the order of checks of POST /actions) and §10 (the key's scope): each request
    fails several checks at once and must get the error of the first one listed."""
    client = create_app({"STORE": MemoryStore(), "PUBLIC_URL": "http://table.test"}).test_client()
    made = client.post(f"{API}/games", json={"mode": "duo"}).get_json()
    gid = made["game_id"]
    joined = client.post(f"{API}/games/join", json={"code": made["join_code"]}).get_json()
    tokens = [made["token"], joined["token"]]
    game = client.get(f"{API}/games/{gid}").get_json()
    version, active = game["version"], game["view"]["active"]
    me, other = f"Bearer {tokens[active]}", f"Bearer {tokens[1 - active]}"

    def post(body=None, game_id=gid, auth=None, key=None, raw=None, ctype="application/json"):
        headers = {k: v for k, v in (("Authorization", auth), ("Idempotency-Key", key)) if v}
        url = f"{API}/games/{game_id}/actions"
        res = (client.post(url, data=raw, headers=headers, content_type=ctype) if raw is not None
               else client.post(url, json=body, headers=headers))
        code = (res.get_json(silent=True) or {}).get("code")
        return res.status_code, code, res.headers.get("Idempotent-Replayed")

    def legal_now():
        answer = client.get(f"{API}/games/{gid}", headers={"Authorization": me}).get_json()
        return answer["view"]["legal_actions"]

    bad = {"type": "harvest"}  # malformed: no field
    illegal = {"type": "harvest", "field": 2}  # well-formed, but field 2 is not owned
    assert post(raw="x", ctype="text/plain", auth="Basic x")[:2] == (415, "invalid_request")
    assert post({"action": bad}, game_id="nope", auth="Basic x")[:2] == (400, "invalid_request")
    assert post({"action": bad, "version": 1}, game_id="nope", auth="Basic x")[:2] == (401, "bad_token")
    assert post({"action": bad, "version": 1}, game_id="nope")[:2] == (404, "unknown_game")
    assert post({"action": bad, "version": 1})[:2] == (401, "bad_token")
    assert post({"action": bad, "version": version + 5}, auth=other)[:2] == (409, "stale_version")
    assert post({"action": bad, "version": version}, auth=other)[:2] == (403, "not_your_turn")
    assert post({"action": bad, "version": version}, auth=me)[:2] == (400, "invalid_action")
    assert post({"action": None, "version": version}, auth=me)[:2] == (400, "invalid_action")
    assert post({"action": illegal, "version": version}, auth=me)[:2] == (422, "illegal_action")

    legal = legal_now()
    first = {"action": legal[0], "version": version}
    assert post(first, auth=me, key="k1") == (200, None, None)
    assert post(first, auth=me, key="k1") == (200, None, "true")
    assert post({"action": bad, "version": version}, auth=me, key="k1")[:2] == (422, "idempotency_mismatch")
    mismatch = (422, "idempotency_mismatch")
    assert post({"action": bad, "version": version}, auth=other, key="k1")[:2] == mismatch  # the game's key
    # A recorded key decides before the version, the turn and the rules (§9, check 6).
    assert post({"action": illegal, "version": version + 1}, auth=me, key="k1")[:2] == mismatch
    assert post({"action": bad, "version": version + 9}, auth=me, key="k1")[:2] == mismatch
    # An error answer is not recorded: the key stays fresh.
    assert post({"action": illegal, "version": version + 1}, auth=me, key="k2")[:2] == (422, "illegal_action")
    legal = legal_now()
    assert post({"action": legal[0], "version": version + 1}, auth=me, key="k2") == (200, None, None)
    # The same key in another game is another key.
    solo = client.post(f"{API}/games", json={"mode": "solo"}).get_json()
    assert post({"action": solo["view"]["legal_actions"][0], "version": solo["version"]},
                game_id=solo["game_id"], auth=f"Bearer {solo['token']}", key="k1") == (200, None, None)


def test_action_table_matches_the_engine():
    """§3 lists every action type with exactly its fields, and the phases that offer it."""
    from engine import actions, rules

    rows = _rows(_section("3. Actions"))
    assert set(rows) == set(actions.PARAMS)
    for kind, params in actions.PARAMS.items():
        cells = rows[kind].split("|")
        assert _names(cells[2]) == set(params), kind
        assert {p.strip() for p in cells[3].split(",")} == set(rules._PHASES_OF[kind]), kind


def _json_blocks(section: str) -> list:
    return [json.loads(b) for b in re.findall(r"```json\n(.*?)```", section, flags=re.S)]


def test_the_examples_are_what_the_engine_says():
    """The position of §4 is a valid position, and the view of §5 and the events of §8 are exactly what
    the engine gives for the game they name."""
    (position,) = _json_blocks(_section("4. Position format"))
    assert engine.to_position(engine.from_position(position)) == position
    start = engine.new_game("duo", 2, dealer=1)
    (view,) = _json_blocks(_section("5. Views"))
    assert view == engine.view(start, 0)
    after_plant, planted = engine.apply(start, {"type": "plant_hand", "field": 0})
    section8 = _section("8. Events")
    assert json.dumps(planted) in " ".join(section8.split())  # written inline, across a line break
    (revealed,) = _json_blocks(section8)
    assert revealed == engine.apply(after_plant, {"type": "end_phase"})[1]


def test_the_move_limit_comes_after_the_seat_and_before_the_version():
    """docs/protocol.md §9 step 5 and §11: every action request of a seat counts, refused ones too;
    past the limit the answer is 429 with Retry-After and retry_after, whatever else is wrong."""
    client = create_app({"STORE": MemoryStore(), "PUBLIC_URL": "http://table.test", "MOVE_LIMIT": 2,
                         "MOVE_WINDOW": 60}).test_client()
    solo = client.post(f"{API}/games", json={"mode": "solo"}).get_json()
    url, auth = f"{API}/games/{solo['game_id']}/actions", {"Authorization": f"Bearer {solo['token']}"}
    stale = {"action": {"type": "end_phase"}, "version": solo["version"] + 7}
    assert client.post(url, json=stale, headers=auth).status_code == 409
    assert client.post(url, json=stale, headers=auth).status_code == 409
    refused = client.post(url, json=stale, headers=auth)
    assert refused.status_code == 429 and refused.get_json()["code"] == "rate_limited"
    assert int(refused.headers["Retry-After"]) == refused.get_json()["retry_after"] >= 1
    # A request without a seat is refused before it is counted.
    assert client.post(url, json=stale).get_json()["code"] == "bad_token"


def test_error_table_matches_the_api():
    """§9 lists every error code of the API with its status."""
    from api.errors import CODES

    rows = _rows(_section("9. Errors"))
    assert set(rows) == set(CODES)
    for code, (status, _title) in CODES.items():
        assert f"| {status}" in rows[code], code
