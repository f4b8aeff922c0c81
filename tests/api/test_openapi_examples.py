"""The examples of the OpenAPI document are real answers of the server, and stay so.

`record()` plays a fixed script against the app (over a MemoryStore, and over a Redis address where
nothing listens for the 503s): every operation, every status it declares, and the request that got it.
The server's randomness (`secrets`: game ids, seeds, salts, codes, tokens) comes from a seeded generator
while it runs, so the same script gives the same answers; seat tokens are then replaced by obvious
placeholders, and the 429's seconds by the limit's window. api/http/openapi.py serves them from
api/http/openapi_examples.json. The test records them again and fails when the file differs: after a
change of the API, look at the difference and refresh the file with

    .venv/bin/python -m tests.api.test_openapi_examples
"""

from __future__ import annotations

import base64
import contextlib
import json
import random
import secrets
import sys
import threading
from collections.abc import Iterator

from redis.backoff import NoBackoff
from redis.retry import Retry

from api.http import openapi
from api.store.memory import MemoryStore
from api.store.redis import RedisStore
from tests.api.fixtures_api import API, make_app

SEED = 19
# Response headers shown with an example (the ones the document declares; not Content-Length etc.).
SHOWN = ("Location", "Retry-After", "WWW-Authenticate", "Allow", "Idempotent-Replayed", "Cache-Control",
         "X-Request-Id")
# A Redis address where nothing listens: the store is unreachable, as when Redis is down.
DOWN = "redis://127.0.0.1:1/0"
LIMIT_WINDOW = 60
GAME = f"{API}/games/{{game_id}}"
TOO_LARGE = "x" * (17 * 1024)  # past MAX_CONTENT_LENGTH (16 KiB)
_MISSING = object()


NOT_JSON = "A body not sent as application/json: invalid_request (415)"


@contextlib.contextmanager
def seeded_secrets(seed: int, tokens: list[str]) -> Iterator[None]:
    """Let `secrets` draw from random.Random(seed) in this thread while the script runs (the test
    client serves requests in it), then restore it. Other threads (another test's leftovers) keep the
    real ones, so they cannot shift the sequence. Every seat token made meanwhile (api.game.auth.new_token:
    32 bytes) is added to `tokens`."""
    rng = random.Random(seed)
    here = threading.get_ident()
    names = ("token_urlsafe", "token_hex", "randbelow", "choice")
    saved = {name: getattr(secrets, name) for name in names}

    def token_urlsafe(n: int = 32) -> str:
        made = base64.urlsafe_b64encode(rng.randbytes(n)).rstrip(b"=").decode()
        if n == 32:
            tokens.append(made)
        return made

    seeded = {"token_urlsafe": token_urlsafe, "token_hex": lambda n=32: rng.randbytes(n).hex(),
              "randbelow": rng.randrange, "choice": rng.choice}

    def this_thread_only(name: str):
        def draw(*args):
            return (seeded if threading.get_ident() == here else saved)[name](*args)
        return draw

    for name in names:
        setattr(secrets, name, this_thread_only(name))
    try:
        yield
    finally:
        for name, func in saved.items():
            setattr(secrets, name, func)


class Recorder:
    """Sends requests through a Flask test client and keeps each as an exchange of the examples file."""

    def __init__(self, exchanges: list[dict], client):
        self.exchanges = exchanges
        self.client = client

    def __call__(self, name: str, summary: str, operation: str, *, path: dict | None = None,
                 query: dict | None = None, token: str | None = None, authorization: str | None = None,
                 key: str | None = None, body=_MISSING, data: str | None = None, status: int):
        method, template = operation.split(" ", 1)
        url = template.format(**(path or {}))
        headers = {"X-Request-Id": f"example-{name}"}
        if token is not None:
            authorization = f"Bearer {token}"
        if authorization is not None:
            headers["Authorization"] = authorization
        if key is not None:
            headers["Idempotency-Key"] = key
        kwargs = {"headers": headers, "query_string": query}
        if body is not _MISSING:
            kwargs["json"] = body
        elif data is not None:
            kwargs["data"], headers["Content-Type"] = data, "text/plain"
        with self.client.open(url, method=method, **kwargs) as resp:
            text = resp.get_data(as_text=True)
            mimetype = resp.mimetype
            assert resp.status_code == status, (name, resp.status_code, text[:300])
            answer = json.loads(text) if mimetype.endswith("json") else text
            shown = {h: resp.headers[h] for h in SHOWN if h in resp.headers}
        request: dict = {}
        if path:
            request["path"] = dict(path)
        if query:
            request["query"] = dict(query)
        request["headers"] = {k: v for k, v in headers.items()
                              if k in ("Authorization", "Idempotency-Key", "X-Request-Id")}
        # A body that is JSON and small enough to show (the 413's is not).
        if body is not _MISSING and len(json.dumps(body)) < 1000:
            request["body"] = body
        elif body is not _MISSING:
            request["body_bytes"] = len(json.dumps(body))
        elif data is not None:
            request["text"] = data
        self.exchanges.append({"operation": operation, "name": name, "summary": summary, "request": request,
                               "response": {"status": status, "content_type": mimetype, "headers": shown,
                                            "body": answer}})
        return answer


def _play_to_end(client, game: dict, tokens: dict[int, str], rng: random.Random) -> int:
    """Play `game` to its end with the seats' legal actions (unrecorded); return its last version."""
    version = game["version"]
    while True:
        public = client.get(f"{API}/games/{game['game_id']}").get_json()
        version = public["version"]
        if public["view"]["phase"] == "over":
            return version
        seat = public["view"]["active"]
        auth = {"Authorization": f"Bearer {tokens[seat]}"}
        mine = client.get(f"{API}/games/{game['game_id']}", headers=auth).get_json()
        action = rng.choice(mine["view"]["legal_actions"])
        resp = client.post(f"{API}/games/{game['game_id']}/actions", headers=auth,
                           json={"action": action, "version": version})
        assert resp.status_code == 200, resp.get_json()


def _script(ex: Recorder, store: MemoryStore) -> None:
    """Every operation with every status it declares, on one server."""
    client = ex.client
    create = f"POST {API}/games"
    duo = ex("duo", "A duo game: seat 0 and the join code for the other player", create,
             body={"mode": "duo", "name": "Ann"}, status=201)
    gid, ann = duo["game_id"], duo["token"]
    ex("solo_tutorial", "The solo tutorial game (the same cards every time)", create,
       body={"mode": "solo", "tutorial": True}, status=201)
    ex("duo_bot", "A duo game against the computer (seat 1 is the greedy bot)", create,
       body={"mode": "duo", "bot": "greedy", "name": "Ann"}, status=201)
    ex("bad_mode", "A mode that does not exist: invalid_request", create, body={"mode": "trio"}, status=400)
    ex("not_json", NOT_JSON, create, data="mode=duo", status=415)
    ex("too_large", "A body past 16 KiB: payload_too_large", create,
       body={"mode": "duo", "name": TOO_LARGE}, status=413)

    join = f"POST {API}/games/join"
    ex("already_seated", "A device that holds a seat of the code's game gets its seat back (the code "
       "stays open)", join, body={"code": duo["join_code"]}, token=ann, status=200)
    joined = ex("join", "Bob takes the free seat of a duo game with its join code", join,
                body={"code": duo["join_code"], "name": "Bob"}, status=200)
    bob = joined["token"]
    tokens = {0: ann, 1: bob}
    ex("unknown_code", "A code that is not live: unknown_code", join, body={"code": "ZZZZ22"}, status=404)
    ex("no_code", "No code: invalid_request", join, body={"name": "Bob"}, status=400)
    ex("bad_authorization", "An Authorization header that is not a bearer token: bad_token", join,
       body={"code": "ZZZZ22"}, authorization="Basic Ym9iOnNlY3JldA==", status=401)
    ex("not_json", NOT_JSON, join, data="code=ZZZZ22", status=415)
    ex("too_large", "A body past 16 KiB: payload_too_large", join, body={"code": TOO_LARGE}, status=413)

    game = f"GET {GAME}"
    seat_view = ex("seat_view", "A seat's view (its own hand, its legal actions on its turn)", game,
                   path={"game_id": gid}, token=ann, status=200)
    ex("table_view", "The table view (no token): no hand, no legal actions", game, path={"game_id": gid},
       status=200)
    ex("wrong_token", "A token that holds no seat of this game: bad_token", game, path={"game_id": gid},
       token="not-a-seat-token", status=401)
    ex("unknown_game", "No such game: unknown_game", game, path={"game_id": "nosuchgame"}, status=404)
    ex("too_large", "A body past 16 KiB, even on a GET: payload_too_large", game, path={"game_id": gid},
       body={"x": TOO_LARGE}, status=413)

    act = f"POST {GAME}/actions"
    version = seat_view["version"]
    active = seat_view["view"]["active"]
    mover, waiter = tokens[active], tokens[1 - active]
    legal = ex.client.get(f"{API}/games/{gid}", headers={"Authorization": f"Bearer {mover}"}).get_json()[
        "view"]["legal_actions"]
    move = legal[0]
    ex("not_your_turn", "The other seat moves now: not_your_turn", act, path={"game_id": gid}, token=waiter,
       key="c0ffee00-0000-4000-8000-000000000001", body={"action": move, "version": version}, status=403)
    ex("invalid_action", "An action type that does not exist: invalid_action", act, path={"game_id": gid},
       token=mover, body={"action": {"type": "fly"}, "version": version}, status=400)
    ex("no_version", "A body without version: invalid_request", act, path={"game_id": gid}, token=mover,
       body={"action": move}, status=400)
    ex("illegal_action", "A well-formed action the rules forbid now: illegal_action", act,
       path={"game_id": gid}, token=mover, status=422,
       body={"action": {"type": "harvest", "field": 2}, "version": version})
    ex("no_token", "No seat token: bad_token", act, path={"game_id": gid},
       body={"action": move, "version": version}, status=401)
    ex("unknown_game", "No such game: unknown_game", act, path={"game_id": "nosuchgame"}, token=mover,
       body={"action": move, "version": version}, status=404)
    ex("not_json", NOT_JSON, act, path={"game_id": gid}, token=mover,
       data="end_phase", status=415)
    ex("too_large", "A body past 16 KiB: payload_too_large", act, path={"game_id": gid}, token=mover,
       body={"action": {"type": TOO_LARGE}, "version": version}, status=413)
    key = "c0ffee00-0000-4000-8000-000000000002"
    accepted = ex("accepted", "A legal action of the active seat, with an Idempotency-Key", act,
                  path={"game_id": gid}, token=mover, key=key, body={"action": move, "version": version},
                  status=200)
    ex("replayed", "The same request again (a retry): the first answer, Idempotent-Replayed", act,
       path={"game_id": gid}, token=mover, key=key, body={"action": move, "version": version}, status=200)
    ex("idempotency_mismatch", "The same key with a different request: idempotency_mismatch", act,
       path={"game_id": gid}, token=mover, key=key, status=422,
       body={"action": {"type": "end_phase"}, "version": version})
    ex("stale_version", "A version the game has moved past: stale_version, with the current view", act,
       path={"game_id": gid}, token=mover, body={"action": move, "version": version}, status=409)

    events = f"GET {GAME}/events"
    ex("since", "What happened after a version, as this seat may see it", events, path={"game_id": gid},
       query={"since": version - 1}, token=ann, status=200)
    ex("negative_since", "A negative since: invalid_request", events, path={"game_id": gid},
       query={"since": -1}, status=400)
    ex("wrong_token", "A token that holds no seat of this game: bad_token", events, path={"game_id": gid},
       token="not-a-seat-token", status=401)
    ex("unknown_game", "No such game: unknown_game", events, path={"game_id": "nosuchgame"}, status=404)
    ex("too_large", "A body past 16 KiB, even on a GET: payload_too_large", events, path={"game_id": gid},
       body={"x": TOO_LARGE}, status=413)

    hint = f"GET {GAME}/hint"
    now = accepted["view"]["active"]
    ex("hint", "A hint for the seat to move", hint, path={"game_id": gid}, token=tokens[now], status=200)
    ex("not_your_turn", "A hint for the seat that waits: not_your_turn", hint, path={"game_id": gid},
       token=tokens[1 - now], status=403)
    ex("no_token", "No seat token: bad_token", hint, path={"game_id": gid}, status=401)
    ex("unknown_game", "No such game: unknown_game", hint, path={"game_id": "nosuchgame"}, token=ann,
       status=404)
    ex("too_large", "A body past 16 KiB, even on a GET: payload_too_large", hint, path={"game_id": gid},
       token=ann, body={"x": TOO_LARGE}, status=413)

    qr = f"GET {GAME}/qr.svg"
    other = ex.client.post(f"{API}/games", json={"mode": "duo"}).get_json()
    ex("join_code", "The open join code of a game as a QR code, for a seated caller", qr,
       path={"game_id": other["game_id"]}, token=other["token"], status=200)
    ex("too_long_code", "A code parameter past 32 characters: invalid_request", qr,
       path={"game_id": gid}, query={"code": "Z" * 33}, status=400)
    ex("no_token", "No code and no seat token: bad_token", qr, path={"game_id": gid}, status=401)
    ex("unknown_code", "A code that is not live in this game: unknown_code", qr, path={"game_id": gid},
       query={"code": "ZZZZ22"}, status=404)
    ex("too_large", "A body past 16 KiB, even on a GET: payload_too_large", qr, path={"game_id": gid},
       body={"x": TOO_LARGE}, status=413)

    transfer = f"POST {GAME}/transfer"
    moved = ex("transfer", "A code that moves Bob's seat to another device", transfer, path={"game_id": gid},
               token=bob, status=201)
    ex("no_token", "No seat token: bad_token", transfer, path={"game_id": gid}, status=401)
    ex("unknown_game", "No such game: unknown_game", transfer, path={"game_id": "nosuchgame"}, token=ann,
       status=404)
    ex("not_json", NOT_JSON, transfer, path={"game_id": gid},
       token=ann, data="please", status=415)
    ex("too_large", "A body past 16 KiB: payload_too_large", transfer, path={"game_id": gid}, token=ann,
       body={"x": TOO_LARGE}, status=413)
    claimed = ex("transfer_code", "The new device claims the seat with the transfer code", join,
                 body={"code": moved["transfer_code"]}, status=200)
    tokens[1] = claimed["token"]

    record = f"GET {GAME}/record"
    rematch = f"POST {GAME}/rematch"
    ex("game_not_over", "The game is still on: game_not_over", record, path={"game_id": gid}, status=409)
    ex("game_not_over", "The game is still on: game_not_over", rematch, path={"game_id": gid}, token=ann,
       status=409)
    solo = ex.client.post(f"{API}/games", json={"mode": "solo", "tutorial": True}).get_json()
    _play_to_end(client, solo, {0: solo["token"]}, random.Random(SEED))
    ex("record", "The record of a finished solo game: seed, salt, every action", record,
       path={"game_id": solo["game_id"]}, status=200)
    ex("unknown_game", "No such game: unknown_game", record, path={"game_id": "nosuchgame"}, status=404)
    ex("too_large", "A body past 16 KiB, even on a GET: payload_too_large", record,
       path={"game_id": solo["game_id"]}, body={"x": TOO_LARGE}, status=413)
    lost = ex.client.post(f"{API}/games", json={"mode": "solo", "tutorial": True}).get_json()
    _play_to_end(client, lost, {0: lost["token"]}, random.Random(SEED))
    # The store losing the start of a finished game's log (what record_unavailable is about): done by
    # hand here, as no store does it on its own in a short run.
    del store._games[lost["game_id"]].log[0]
    ex("record_unavailable", "A finished game whose log no longer reaches back to its start", record,
       path={"game_id": lost["game_id"]}, status=410)

    ex("rematch", "The next game of a finished game, for the calling seat", rematch,
       path={"game_id": solo["game_id"]}, token=solo["token"], status=200)
    ex("no_token", "No seat token: bad_token", rematch, path={"game_id": gid}, status=401)
    ex("unknown_game", "No such game: unknown_game", rematch, path={"game_id": "nosuchgame"}, token=ann,
       status=404)
    ex("not_json", NOT_JSON, rematch, path={"game_id": gid},
       token=ann, data="again", status=415)
    ex("too_large", "A body past 16 KiB: payload_too_large", rematch, path={"game_id": gid}, token=ann,
       body={"x": TOO_LARGE}, status=413)
    _play_to_end(client, {"game_id": gid, "version": 0}, tokens, random.Random(SEED))
    client.post(f"{API}/games/{gid}/rematch", headers={"Authorization": f"Bearer {ann}"})
    moved = client.post(f"{API}/games/{gid}/transfer", headers={"Authorization": f"Bearer {ann}"}).get_json()
    elsewhere = client.post(f"{API}/games/join", json={"code": moved["transfer_code"]}).get_json()
    ex("seat_taken", "Seat 0 moved to another device after its old token took the rematch seat", rematch,
       path={"game_id": gid}, token=elsewhere["token"], status=409)

    health = f"GET {API}/health"
    ex("ok", "The server and its store answer", health, status=200)
    ex("too_large", "A body past 16 KiB, even on a GET: payload_too_large", health, body={"x": TOO_LARGE},
       status=413)

    pages = f"GET {API}/problems"
    page = f"GET {API}/problems/{{code}}"
    ex("index", "Every problem type", pages, status=200)
    ex("too_large", "A body past 16 KiB, even on a GET: payload_too_large", pages, body={"x": TOO_LARGE},
       status=413)
    ex("stale_version", "The page of stale_version", page, path={"code": "stale_version"}, status=200)
    ex("unknown", "A code that does not exist: not_found", page, path={"code": "no_such_code"}, status=404)
    ex("too_large", "A body past 16 KiB, even on a GET: payload_too_large", page,
       path={"code": "stale_version"}, body={"x": TOO_LARGE}, status=413)


def _limited(ex: Recorder) -> None:
    """The 429 of every limited operation, on a server whose limits are 1 (or 0 failures) a minute."""
    client = ex.client
    duo = client.post(f"{API}/games", json={"mode": "duo"}).get_json()
    gid, auth = duo["game_id"], {"Authorization": f"Bearer {duo['token']}"}
    ex("rate_limited", "One game too many from this client: rate_limited", f"POST {API}/games",
       body={"mode": "solo"}, status=429)
    client.get(f"{API}/games/join")  # no effect: a 405
    assert client.post(f"{API}/games/join", json={"code": "ZZZZ22"}).status_code == 404
    ex("rate_limited", "One failed code too many from this client: rate_limited", f"POST {API}/games/join",
       body={"code": "ZZZZ33"}, status=429)
    ex("rate_limited", "Checking codes counts as guessing them: rate_limited", f"GET {GAME}/qr.svg",
       path={"game_id": gid}, query={"code": "ZZZZ33"}, status=429)
    version = duo["version"]
    assert client.post(f"{API}/games/{gid}/actions", headers=auth,
                       json={"action": {"type": "end_phase"}, "version": version + 5}).status_code == 409
    ex("rate_limited", "One action too many from this seat: rate_limited", f"POST {GAME}/actions",
       path={"game_id": gid}, token=duo["token"], body={"action": {"type": "end_phase"}, "version": version},
       status=429)
    assert client.post(f"{API}/games/{gid}/transfer", headers=auth).status_code == 201
    ex("rate_limited", "One seat transfer too many: rate_limited", f"POST {GAME}/transfer",
       path={"game_id": gid}, token=duo["token"], status=429)
    assert client.get(f"{API}/games/{gid}/hint", headers=auth).status_code == 200
    ex("rate_limited", "A hint is the computer's work, budgeted per client: rate_limited", f"GET {GAME}/hint",
       path={"game_id": gid}, token=duo["token"], status=429)


def _rematch_limited(ex: Recorder) -> None:
    """The 429 of a rematch, on a server that lets a client create one game a minute."""
    solo = ex.client.post(f"{API}/games", json={"mode": "solo", "tutorial": True}).get_json()
    _play_to_end(ex.client, solo, {0: solo["token"]}, random.Random(SEED))
    ex("rate_limited", "A rematch creates a game, which counts against the create limit: rate_limited",
       f"POST {GAME}/rematch", path={"game_id": solo["game_id"]}, token=solo["token"], status=429)


def _read_limited(ex: Recorder) -> None:
    """The 429 of the reads, on a server that lets a client read one game a minute (the limit counts
    before the route runs, so an unfinished game's record is refused by it too)."""
    solo = ex.client.post(f"{API}/games", json={"mode": "solo"}).get_json()
    assert ex.client.get(f"{API}/games/{solo['game_id']}").status_code == 200
    for operation in (f"GET {GAME}", f"GET {GAME}/events", f"GET {GAME}/record"):
        ex("rate_limited", "One read too many from this client: rate_limited", operation,
           path={"game_id": solo["game_id"]}, status=429)


def _down(ex: Recorder) -> None:
    """The 503 of every operation that reads the store, on a server whose store cannot be reached."""
    down = "The game store cannot be reached: store_unavailable"
    some = {"game_id": "AbCdEfGhIjKlMnOp"}
    ex("store_unavailable", down, f"POST {API}/games", body={"mode": "duo"}, status=503)
    ex("store_unavailable", down, f"POST {API}/games/join", body={"code": "ZZZZ22"}, status=503)
    for operation in (f"GET {GAME}", f"GET {GAME}/events", f"GET {GAME}/record"):
        ex("store_unavailable", down, operation, path=some, status=503)
    for operation in (f"GET {GAME}/hint", f"POST {GAME}/rematch", f"POST {GAME}/transfer"):
        ex("store_unavailable", down, operation, path=some, token="not-a-seat-token", status=503)
    ex("store_unavailable", down, f"GET {GAME}/qr.svg", path=some, query={"code": "ZZZZ22"}, status=503)
    ex("store_unavailable", down, f"POST {GAME}/actions", path=some, token="not-a-seat-token",
       body={"action": {"type": "end_phase"}, "version": 2}, status=503)
    ex("store_unavailable", "The store does not answer: store_unavailable", f"GET {API}/health", status=503)


def _placeholders(exchanges: list[dict], tokens: list[str]) -> list[dict]:
    """Replace every seat token (`tokens`, and those of the answers: a rematch's are derived) by an
    obvious placeholder, the same one wherever it appears, and the seconds of a 429 (which depend on
    where in the window the request fell) by the window."""
    tokens = list(tokens)
    for ex in exchanges:
        body = ex["response"]["body"]
        if isinstance(body, dict) and isinstance(body.get("token"), str) and body["token"] not in tokens:
            tokens.append(body["token"])
        if ex["response"]["status"] == 429:
            assert 0 < body["retry_after"] <= LIMIT_WINDOW
            body["retry_after"] = LIMIT_WINDOW
            ex["response"]["headers"]["Retry-After"] = str(LIMIT_WINDOW)
            body["detail"] = body["detail"].rsplit("retry in", 1)[0] + f"retry in {LIMIT_WINDOW} s."
    text = json.dumps(exchanges)
    for i, token in enumerate(tokens, start=1):
        text = text.replace(token, f"EXAMPLE-SEAT-TOKEN-{i}")
    return json.loads(text)


def record() -> dict:
    """Run the script; return the examples file's content."""
    exchanges: list[dict] = []
    tokens: list[str] = []
    with seeded_secrets(SEED, tokens):
        store = MemoryStore()
        _script(Recorder(exchanges, make_app(store).test_client()), store)
        limits = {"CREATE_LIMIT": 1, "JOIN_LIMIT": 1, "MOVE_LIMIT": 1, "TRANSFER_LIMIT": 1,
                  "BOT_CLIENT_LIMIT": 1}
        limits.update({name.replace("LIMIT", "WINDOW"): LIMIT_WINDOW for name in limits})
        _limited(Recorder(exchanges, make_app(MemoryStore(), **limits).test_client()))
        once = {"CREATE_LIMIT": 1, "CREATE_WINDOW": LIMIT_WINDOW}
        _rematch_limited(Recorder(exchanges, make_app(MemoryStore(), **once).test_client()))
        reads = {"READ_LIMIT": 1, "READ_WINDOW": LIMIT_WINDOW}
        _read_limited(Recorder(exchanges, make_app(MemoryStore(), **reads).test_client()))
        unreachable = RedisStore(DOWN)
        # Nothing listens there: every connection is refused at once, and redis-py's retries would only
        # wait out their backoff (0.1 + 0.2 s a request, the better part of this test) before the same 503.
        unreachable._client.connection_pool.connection_kwargs["retry"] = Retry(NoBackoff(), 2)
        try:
            _down(Recorder(exchanges, make_app(unreachable).test_client()))
        finally:
            unreachable.close()
    return {"about": "Real answers of the server, recorded by tests/api/test_openapi_examples.py; "
                     "refresh with `.venv/bin/python -m tests.api.test_openapi_examples`.",
            "exchanges": _placeholders(exchanges, tokens)}


def dump(content: dict) -> str:
    return json.dumps(content, indent=1, ensure_ascii=False, sort_keys=True) + "\n"


def test_examples_are_what_the_server_answers():
    fresh = dump(record())
    kept = openapi.EXAMPLES_FILE.read_text(encoding="utf-8")
    assert fresh == kept, ("The server's answers differ from api/http/openapi_examples.json: look at the "
                           "difference, then refresh it: .venv/bin/python -m tests.api.test_openapi_examples")


if __name__ == "__main__":
    import os

    from tests.limits_off import ENV

    for name, value in ENV.items():  # as in the test session (tests/conftest.py): many games, one address
        os.environ.setdefault(name, value)
    openapi.EXAMPLES_FILE.write_text(dump(record()), encoding="utf-8")
    print(f"wrote {openapi.EXAMPLES_FILE}", file=sys.stderr)
