"""The served contract, read strictly: every answer, view, event, frame and problem of whole games fits it.

A live server (werkzeug, threaded, the memory store) is played by HTTP and by websocket: a solo game, a duo
game (join, a seat transfer mid-game, moves over both channels, a watcher, a rematch) and a duo game
against the bot. Every HTTP answer is validated against the schema the served OpenAPI document gives for
its operation, status and content type; every websocket frame, both ways, against the served ws.schema.json.
Both are made strict first: every object schema that lists properties gets `additionalProperties: false`
(the problem schema too, which is open for RFC 9457 extensions), so a member the documents do not declare,
at any depth, fails. The errors the test provokes (body, query and header validation, a body that is not
JSON, every refusal of a move, websocket errors) are validated the same way.
"""

from __future__ import annotations

import copy
import json
import random
import uuid

import jsonschema_rs
import pytest

import engine.bots
from api.cli.netclient import LiveSocket
from api.store.memory import MemoryStore
from engine import events
from tests.contract import strict
from tests.live.servers import ThreadServer

API = "/api/v1"
GAME = API + "/games/{game_id}"


class Contract:
    """The served documents, strict, with what was checked against them."""

    def __init__(self, spec: dict, ws_schema: dict):
        self.spec = strict(spec)
        self.ws = strict(ws_schema)
        self.checked: dict[str, int] = {}
        self.event_types: set[str] = set()
        self._validators: dict[str, jsonschema_rs.Draft202012Validator] = {}

    def _validator(self, key: str, schema: dict, root: dict):
        if key not in self._validators:
            self._validators[key] = jsonschema_rs.Draft202012Validator({**root, **schema})
        return self._validators[key]

    def _fits(self, validator, instance, what) -> None:
        errors = [f"{list(e.instance_path)}: {e.message}" for e in validator.iter_errors(instance)]
        assert not errors, (what, errors[:5], json.dumps(instance)[:800])

    def answer(self, method: str, template: str, status: int, content_type: str, body) -> None:
        # A method the path does not have (405) is answered as every operation's `default` says.
        op = self.spec["paths"][template].get(method, {"responses": {}})
        response = op["responses"].get(str(status)) or self.spec["components"]["responses"]["DEFAULT_ERROR"]
        if "$ref" in response:
            response = self.spec["components"]["responses"][response["$ref"].rsplit("/", 1)[1]]
        media = content_type.split(";")[0]
        assert media in response["content"], (method, template, status, media)
        schema = response["content"][media]["schema"]
        validator = self._validator(f"{method} {template} {status} {media}", schema,
                                    {"components": self.spec["components"]})
        self._fits(validator, body, (method, template, status))
        self.checked[f"http {status}"] = self.checked.get(f"http {status}", 0) + 1
        self._note_events(body)

    def frame(self, direction: str, message: dict) -> None:
        validator = self._validator(direction, {"$ref": f"#/$defs/{direction}Message"},
                                    {"$defs": self.ws["$defs"]})
        self._fits(validator, message, direction)
        kind = f"{direction} {message.get('type')}"
        self.checked[kind] = self.checked.get(kind, 0) + 1
        self._note_events(message)

    def _note_events(self, body) -> None:
        if isinstance(body, dict):
            for e in body.get("events", []):
                self.event_types.add(e["type"])
            for entry in body.get("log", []):
                self.event_types.update(e["type"] for e in entry["events"])


class Socket(LiveSocket):
    """A LiveSocket whose every frame, both ways, is checked against the contract."""

    def __init__(self, contract: Contract, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.contract = contract
        self.closed_with: dict | None = None

    def connect(self):
        super().connect()
        raw = self.ws.receive

        def receive(timeout=None):
            text = raw(timeout=timeout)
            if text is not None:
                frame = json.loads(text)
                self.contract.frame("server", frame)
                if frame.get("type") == "error" and frame.get("id") is None:
                    self.closed_with = frame
            return text

        self.ws.receive = receive
        return self

    def send(self, message: dict) -> None:
        self.contract.frame("client", message)
        super().send(message)

    def until_version(self, version: int) -> None:
        self.wait(lambda f: f["type"] == "state" and f["version"] >= version)


class Table:
    """One server, its HTTP client (the same app as the sockets') and the contract."""

    def __init__(self, server: ThreadServer, contract: Contract):
        self.server, self.contract = server, contract
        self.http = server.app.test_client()

    def call(self, method: str, template: str, *, game_id: str = "", token: str | None = None,
             json_body=None, query: str = "", headers: dict | None = None, data=None,
             content_type: str | None = None, expect: int | None = None):
        path = template.format(game_id=game_id) + (f"?{query}" if query else "")
        headers = dict(headers or {})
        if token:
            headers["Authorization"] = f"Bearer {token}"
        kw = {"json": json_body} if json_body is not None else {}
        if data is not None:
            kw = {"data": data, "content_type": content_type}
        res = self.http.open(path, method=method.upper(), headers=headers, **kw)
        body = res.get_json(silent=True)
        if body is None:
            body = res.get_data(as_text=True)
        self.contract.answer(method, template, res.status_code, res.content_type, body)
        if expect is not None:
            assert res.status_code == expect, (method, path, res.status_code, body)
        return body

    def socket(self, game_id: str, token: str | None, since: int = 0) -> Socket:
        return Socket(self.contract, self.server.url, game_id, token, since=since).connect()


@pytest.fixture(scope="module")
def table():
    with ThreadServer(MemoryStore(), PUBLIC_URL="http://table.test", WS_PING_INTERVAL=5.0) as server:
        client = server.app.test_client()
        contract = Contract(client.get(API + "/openapi.json").get_json(),
                            client.get(API + "/ws.schema.json").get_json())
        yield Table(server, contract)


def _choose(view: dict, rng: random.Random) -> dict:
    if rng.random() < 0.5:
        return rng.choice(view["legal_actions"])
    return engine.bots.choose("greedy", view, rng.randrange(1000))


def _play(t: Table, game_id: str, tokens: dict[int, str], sockets: list[Socket], rng: random.Random,
          *, ws_seats: dict[int, Socket], on_move=None) -> dict:
    """Play to the end; seats in `ws_seats` move over their socket on odd moves, by HTTP otherwise."""
    moves = 0
    while True:
        game = t.call("get", GAME, game_id=game_id)
        if game["view"]["phase"] == "over":
            return game
        seat = game["view"]["active"]
        mine = t.call("get", GAME, game_id=game_id, token=tokens[seat], expect=200)
        action, version = _choose(mine["view"], rng), mine["version"]
        if moves % 7 == 3:
            t.call("get", GAME + "/hint", game_id=game_id, token=tokens[seat], expect=200)
        if seat in ws_seats and moves % 2:
            live = ws_seats[seat]
            msg_id = live.action(action, version)
            live.wait(lambda f, m=msg_id: f["type"] == "ack" and f["id"] == m)
        else:
            t.call("post", GAME + "/actions", game_id=game_id, token=tokens[seat], expect=200,
                   json_body={"action": action, "version": version},
                   headers={"Idempotency-Key": str(uuid.uuid4())})
        moves += 1
        now = t.call("get", GAME, game_id=game_id)["version"]
        for live in sockets:
            live.until_version(now)
        if on_move:
            on_move(moves)


def _provoke_errors(t: Table, game_id: str, token: str, other: str) -> None:
    """The refusals of docs/protocol.md §9, each answer checked against its operation."""
    game = t.call("get", GAME, game_id=game_id, token=token)
    version = game["version"]
    act = GAME + "/actions"
    t.call("post", API + "/games", json_body={"mode": "trio", "tutorial": 3}, expect=400)
    t.call("post", API + "/games", json_body={"mode": "duo", "tutorial": True}, expect=400)
    t.call("post", API + "/games", data="{not json", content_type="application/json", expect=400)
    t.call("post", API + "/games", data="mode=duo", content_type="text/plain", expect=415)
    t.call("post", API + "/games/join", json_body={"code": "ZZZZZZ"}, expect=404)
    t.call("get", GAME + "/events", game_id=game_id, query="since=-1", expect=400)
    t.call("get", GAME, game_id="nope", expect=404)
    t.call("get", GAME, game_id=game_id, token="wrong", expect=401)
    t.call("post", act, game_id=game_id, token=token, json_body={"action": {"type": "end_phase"}}, expect=400)
    t.call("post", act, game_id=game_id, token=token, headers={"Idempotency-Key": ""},
           json_body={"action": {"type": "end_phase"}, "version": version}, expect=400)
    t.call("post", act, game_id=game_id, token=token, json_body={"action": {"type": "harvest"},
                                                                 "version": version}, expect=400)
    t.call("post", act, game_id=game_id, token=token, json_body={"action": {"type": "harvest", "field": 2},
                                                                 "version": version}, expect=422)
    t.call("post", act, game_id=game_id, token=other, json_body={"action": {"type": "end_phase"},
                                                                 "version": version}, expect=403)
    t.call("post", act, game_id=game_id, token=token, json_body={"action": {"type": "end_phase"},
                                                                 "version": version + 5}, expect=409)
    t.call("get", GAME + "/record", game_id=game_id, expect=409)
    t.call("post", GAME + "/rematch", game_id=game_id, token=token, expect=409)
    t.call("get", GAME + "/hint", game_id=game_id, token=other, expect=403)
    t.call("get", GAME + "/qr.svg", game_id=game_id, query="code=" + "x" * 40, expect=400)
    t.call("delete", GAME, game_id=game_id, expect=405)
    # Over the websocket: a schema error (errors), a stale version (view), a watcher acting, a bad hello.
    live = t.socket(game_id, token, since=version)
    # (sent past the client check: it is meant not to fit)
    LiveSocket.send(live, {"type": "action", "id": "bad", "version": "x", "action": {"type": "end_phase"}})
    assert live.wait(lambda f: f["type"] == "error" and f["id"] == "bad")["errors"]
    live.action({"type": "end_phase"}, version + 9, "stale")
    assert "view" in live.wait(lambda f: f["type"] == "error" and f["id"] == "stale")
    live.close()
    watcher = t.socket(game_id, None)
    watcher.action({"type": "end_phase"}, version, "w")
    watcher.wait(lambda f: f["type"] == "error" and f["id"] == "w")
    watcher.close()
    refused = t.socket(game_id, "not-a-token")
    with pytest.raises(OSError):
        refused.wait(lambda f: False, timeout=5)
    assert refused.closed_with and refused.closed_with["code"] == "bad_token"
    refused.close()


def test_a_solo_game_fits_the_contract(table):
    t = table
    made = t.call("post", API + "/games", json_body={"mode": "solo", "name": "Ada"}, expect=201)
    gid, token = made["game_id"], made["token"]
    me, watcher = t.socket(gid, token), t.socket(gid, None)
    _play(t, gid, {0: token}, [me, watcher], random.Random(1), ws_seats={0: me})
    t.call("get", GAME + "/events", game_id=gid, token=token, query="since=0", expect=200)
    t.call("get", GAME + "/events", game_id=gid, query="since=0", expect=200)
    t.call("get", GAME + "/record", game_id=gid, expect=200)
    t.call("post", GAME + "/rematch", game_id=gid, token=token, expect=200)
    me.wait(lambda f: f["type"] == "rematch")
    watcher.wait(lambda f: f["type"] == "rematch")
    me.close()
    watcher.close()
    tutorial = t.call("post", API + "/games", json_body={"mode": "solo", "tutorial": True}, expect=201)
    assert tutorial["tutorial"] is True


def test_a_duo_game_with_a_transfer_fits_the_contract(table):
    t = table
    made = t.call("post", API + "/games", json_body={"mode": "duo", "name": "Ada", "dealer": 1}, expect=201)
    gid = made["game_id"]
    t.call("get", GAME + "/qr.svg", game_id=gid, token=made["token"], expect=200)
    joined = t.call("post", API + "/games/join", json_body={"code": made["join_code"], "name": "Bo"},
                    expect=200)
    tokens = {0: made["token"], 1: joined["token"]}
    _provoke_errors(t, gid, tokens[0], tokens[1])
    sockets = {0: t.socket(gid, tokens[0]), 1: t.socket(gid, tokens[1])}
    watcher = t.socket(gid, None)

    def transfer(moves: int) -> None:
        if moves != 5:
            return
        code = t.call("post", GAME + "/transfer", game_id=gid, token=tokens[1], expect=201)["transfer_code"]
        tokens[1] = t.call("post", API + "/games/join", json_body={"code": code}, expect=200)["token"]
        old = sockets[1]
        with pytest.raises(OSError):
            old.wait(lambda f: False, timeout=5)
        assert old.closed_with and old.closed_with["code"] == "bad_token"
        old.close()
        sockets[1] = t.socket(gid, tokens[1])
        live[1] = sockets[1]
        seats[:] = [sockets[0], sockets[1], watcher]

    live = dict(sockets)
    seats = [sockets[0], sockets[1], watcher]
    _play(t, gid, tokens, seats, random.Random(2), ws_seats=live, on_move=transfer)
    for token in (*tokens.values(), None):
        t.call("get", GAME + "/events", game_id=gid, token=token, query="since=0", expect=200)
    t.call("get", GAME + "/record", game_id=gid, expect=200)
    again = t.call("post", GAME + "/rematch", game_id=gid, token=tokens[0], expect=200)
    for s in seats:
        s.wait(lambda f: f["type"] == "rematch")
        s.close()
    t.call("post", GAME + "/rematch", game_id=gid, token=tokens[1], expect=200)
    t.call("get", GAME, game_id=again["game_id"], token=again["token"], expect=200)


def test_a_game_against_the_bot_fits_the_contract(table):
    t = table
    made = t.call("post", API + "/games", json_body={"mode": "duo", "bot": "greedy"}, expect=201)
    gid, token = made["game_id"], made["token"]
    me, watcher = t.socket(gid, token), t.socket(gid, None)
    _play(t, gid, {0: token}, [me, watcher], random.Random(3), ws_seats={0: me})
    t.call("get", GAME + "/record", game_id=gid, expect=200)
    me.close()
    watcher.close()


def test_everything_was_seen(table):
    """Runs last (file order): the games above met every event type of the vocabulary, every server
    frame type but the ones only a failure sends, and answers of many statuses."""
    c = table.contract
    assert c.event_types == set(events.EVENTS), set(events.EVENTS) - c.event_types
    frames = {k.split(" ", 1)[1] for k in c.checked if k.startswith("server ")}
    assert {"state", "presence", "ack", "error", "rematch"} <= frames, frames
    statuses = {k for k in c.checked if k.startswith("http ")}
    assert {"http 200", "http 201", "http 400", "http 401", "http 403", "http 404", "http 405", "http 409",
            "http 415", "http 422"} <= statuses, statuses


def test_the_strict_contract_refuses_an_undeclared_member(table):
    """The check can fail: one member more, at any depth, is refused."""
    c = table.contract
    made = table.call("post", API + "/games", json_body={"mode": "solo"}, expect=201)
    deeper = copy.deepcopy(made)
    deeper["view"]["players"][0]["secret"] = 1
    with pytest.raises(AssertionError):
        c.answer("post", API + "/games", 201, "application/json", deeper)
    with pytest.raises(AssertionError):
        c.frame("server", {"type": "state", "version": 1, "view": deeper["view"]})
    with pytest.raises(AssertionError):
        c.frame("server", {"type": "state", "version": 2, "view": made["view"],
                           "events": [{"type": "reveal", "bean": "BL", "seat": 0}]})
