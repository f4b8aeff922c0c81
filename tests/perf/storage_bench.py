"""Storage benchmark (a script, not a pytest test): bytes one complete game occupies in each store.

    .venv/bin/python tests/perf/storage_bench.py [--games 5] [--seed 1]

Plays complete duo games (two players, the second joining with the join code) and solo games over real
HTTP (the app served by werkzeug on a loopback port) the way the phone plays them: every move is a POST
/actions under a fresh Idempotency-Key. Two kinds of game per mode:

  phone    a random legal action per move, a UUID per key (36 characters);
  longest  games made long (a random action other than ending the phase whenever there is one: some
           500-560 moves in duo where random play makes some 400) under keys of the greatest accepted
           length (api.game.gamelog.IDEMPOTENCY_KEY_MAX characters, random).

Prints, per mode and kind, the median (and the range) of:

  redis played   the most MEMORY USAGE summed over every key of the game at any moment of play
                 (measured after every move);
  redis kept     the same once the game is over: what stays until the game's lifetime ends (the
                 idempotency records, a few per seat, are part of it);
  sqlite played  the most bytes of every stored value of the game at any moment (every column of its
                 rows in every table, SQLite's LENGTH; keys included; pages and indexes not counted);
  sqlite kept    the same once the game is over.

The budget (docs/protocol.md §11, tests/api/test_storage_budget.py): 16 KiB played, 8 KiB kept.
Redis is a private redis-server (tests/redis_server.py); SQLite a file in a temporary directory.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import sqlite3
import statistics
import string
import sys
import tempfile
import threading
import uuid
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from werkzeug.serving import make_server  # noqa: E402

from api import create_app  # noqa: E402
from tests import limits_off  # noqa: E402
from tests.perf.api_bench import Client  # noqa: E402
from tests.redis_server import RedisServer  # noqa: E402

BUDGET_PLAYED, BUDGET_KEPT = 16 * 1024, 8 * 1024


def serve(store_url: str, data_dir: str):
    """Start the app on a free loopback port in a thread; return (server, port)."""
    # Every game is played from one address: no rate limits (api.ops.limits; create_app reads them).
    os.environ.update(limits_off.ENV)
    app = create_app({"STORE_URL": store_url, "DATA_DIR": data_dir})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_port


def phone_action(view: dict, rng: random.Random) -> dict:
    return rng.choice(view["legal_actions"])


def long_action(view: dict, rng: random.Random) -> dict:
    """A random legal action, but never ending a phase while anything else may be done."""
    others = [a for a in view["legal_actions"] if a["type"] != "end_phase"]
    return rng.choice(others or view["legal_actions"])


def uuid_key(_rng: random.Random) -> str:
    return str(uuid.uuid4())


def longest_key(rng: random.Random) -> str:
    from api.game.gamelog import IDEMPOTENCY_KEY_MAX

    alphabet = string.ascii_letters + string.digits + "-_.:~"
    return "".join(rng.choice(alphabet) for _ in range(IDEMPOTENCY_KEY_MAX))


KINDS = {"phone": (phone_action, uuid_key), "longest": (long_action, longest_key)}


def play(port: int, mode: str, kind: str, rng: random.Random,
         measure: Callable[[str], int]) -> tuple[int, int, int]:
    """Play one complete game of `mode` as phones do, calling `measure(game_id)` after every change;
    return (actions taken, the most bytes measured, the bytes at the end)."""
    choose, new_key = KINDS[kind]
    client = Client(port)
    # Names of the greatest length (24) for the longest games: the document holds them.
    name = "Bench " + secrets.token_hex(2) if kind == "phone" else "N" * 24
    status, game = client.call("POST", "/api/v1/games", {"mode": mode, "name": name})
    assert status == 201, game
    game_id = game["game_id"]
    tokens = {0: game["token"]}
    most = measure(game_id)
    if mode == "duo":
        status, joined = client.call("POST", "/api/v1/games/join", {"code": game["join_code"], "name": name})
        assert status in (200, 201), joined
        tokens[1] = joined["token"]
        most = max(most, measure(game_id))
    actions = 0
    while True:
        status, body = client.call("GET", f"/api/v1/games/{game_id}",
                                   headers={"Authorization": f"Bearer {tokens[0]}"})
        assert status == 200, body
        view, version = body["view"], body["version"]
        if view["phase"] == "over":
            return actions, most, measure(game_id)
        seat = view["active"]
        if seat != 0:
            _, body = client.call("GET", f"/api/v1/games/{game_id}",
                                  headers={"Authorization": f"Bearer {tokens[seat]}"})
            view = body["view"]
        status, answer = client.call(
            "POST", f"/api/v1/games/{game_id}/actions", {"version": version, "action": choose(view, rng)},
            headers={"Authorization": f"Bearer {tokens[seat]}", "Idempotency-Key": new_key(rng)})
        assert status == 200, answer
        actions += 1
        most = max(most, measure(game_id))


def redis_bytes(client, game_id: str) -> int:
    """MEMORY USAGE summed over every key of the game."""
    return sum(client.memory_usage(key, samples=0) or 0
               for key in client.scan_iter(match=f"*{{{game_id}}}*", count=1000))


def sqlite_bytes(path: str, game_id: str) -> int:
    """The LENGTH of every column of every row that belongs to the game, in every table."""
    conn = sqlite3.connect(path)
    try:
        total = 0
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
        for table in tables:
            columns = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
            key = "game_id" if "game_id" in columns else "id" if "id" in columns else None
            if key is None:
                continue
            lengths = " + ".join(f"COALESCE(LENGTH({c}), 0)" for c in columns)
            (n,) = conn.execute(f"SELECT COALESCE(SUM({lengths}), 0) FROM {table} WHERE {key}=?",
                                (game_id,)).fetchone()
            total += n
        return total
    finally:
        conn.close()


def summary(values: list[int]) -> str:
    return f"{int(statistics.median(values)):>7,} B  ({min(values):,}-{max(values):,})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=5, help="complete games per mode, kind and store")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    import logging

    import redis

    import api

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request

    print(f"code under test: {Path(api.__file__).resolve().parent}")
    rows: dict[tuple[str, str, str], list[int]] = {}
    actions: dict[tuple[str, str], list[int]] = {}
    with RedisServer() as server, tempfile.TemporaryDirectory() as tmp:
        client = redis.Redis.from_url(server.url, decode_responses=True)
        path = str(Path(tmp) / "games.db")
        stores = {
            "redis": (server.url, lambda game_id: redis_bytes(client, game_id)),
            "sqlite": ("sqlite:///games.db", lambda game_id: sqlite_bytes(path, game_id)),
        }
        for store, (url, measure) in stores.items():
            http_server, port = serve(url, tmp)
            try:
                for mode in ("duo", "solo"):
                    for kind in KINDS:
                        rng = random.Random(f"{args.seed}:{mode}:{kind}")
                        for _ in range(args.games):
                            n, most, end = play(port, mode, kind, rng, measure)
                            actions.setdefault((mode, kind), []).append(n)
                            rows.setdefault((store + " played", mode, kind), []).append(most)
                            rows.setdefault((store + " kept", mode, kind), []).append(end)
            finally:
                http_server.shutdown()
        client.close()

    print(f"budget: {BUDGET_PLAYED:,} B played, {BUDGET_KEPT:,} B kept")
    for mode in ("duo", "solo"):
        for kind in KINDS:
            moves = actions[(mode, kind)]
            print(f"\n{mode}, {kind}: {args.games} complete games per store, actions per game median "
                  f"{int(statistics.median(moves))} ({min(moves)}-{max(moves)})")
            for what in ("redis played", "redis kept", "sqlite played", "sqlite kept"):
                values = rows[(what, mode, kind)]
                limit = BUDGET_PLAYED if what.endswith("played") else BUDGET_KEPT
                flag = "" if max(values) <= limit else "  OVER BUDGET"
                print(f"  {what:<14} {summary(values)}{flag}")


if __name__ == "__main__":
    main()
