"""Storage benchmark (a script, not a pytest test): bytes one complete game occupies in each store.

    .venv/bin/python tests/perf/storage_bench.py [--games 5] [--seed 1]

Plays complete duo games (two players, the second joining with the join code) and solo games over real
HTTP (the app served by werkzeug on a loopback port) the way the phone plays them: every move is a POST
/actions with a fresh Idempotency-Key, chosen at random among the legal actions of the mover's view.
Then prints, per mode, the median (and the range) of:

  redis play     MEMORY USAGE summed over every key of the game, when the game has just ended (every
                 idempotency record still alive: the most a game ever holds while it is played);
  redis after    the same once the idempotency window has passed: the benchmark DELETEs the game's
                 idempotency keys to simulate their expiry (the same keys Redis drops at their TTL);
  sqlite play    the bytes of every stored value of the game (every column of its rows in every table,
                 SQLite's LENGTH; keys included), at the end of the game;
  sqlite after   the same without the rows of the idempotency table (again: what outlives the window).

Redis is a private redis-server (tests/redis_server.py); SQLite a file in a temporary directory.
"""

from __future__ import annotations

import argparse
import random
import sqlite3
import statistics
import sys
import tempfile
import threading
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from werkzeug.serving import make_server  # noqa: E402

from api import create_app  # noqa: E402
from tests.perf.api_bench import Client  # noqa: E402
from tests.redis_server import RedisServer  # noqa: E402


def serve(store_url: str, data_dir: str):
    """Start the app on a free loopback port in a thread; return (server, port)."""
    # Every game is played from one address: no rate limits (api.limits).
    app = create_app({"STORE_URL": store_url, "DATA_DIR": data_dir, "CREATE_LIMIT": 0, "MOVE_LIMIT": 0})
    server = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_port


def play(port: int, mode: str, rng: random.Random) -> tuple[str, int]:
    """Play one complete game of `mode` as phones do; return (game id, actions taken)."""
    client = Client(port)
    status, game = client.call("POST", "/api/v1/games", {"mode": mode})
    assert status == 201, game
    game_id = game["game_id"]
    tokens = {0: game["token"]}
    if mode == "duo":
        status, joined = client.call("POST", "/api/v1/games/join", {"code": game["join_code"]})
        assert status in (200, 201), joined
        tokens[1] = joined["token"]
    actions = 0
    while True:
        status, body = client.call("GET", f"/api/v1/games/{game_id}",
                                   headers={"Authorization": f"Bearer {tokens[0]}"})
        assert status == 200, body
        view, version = body["view"], body["version"]
        if view["phase"] == "over":
            return game_id, actions
        seat = view["active"]
        if seat != 0:
            _, body = client.call("GET", f"/api/v1/games/{game_id}",
                                  headers={"Authorization": f"Bearer {tokens[seat]}"})
            view = body["view"]
        status, answer = client.call(
            "POST", f"/api/v1/games/{game_id}/actions",
            {"version": version, "action": rng.choice(view["legal_actions"])},
            headers={"Authorization": f"Bearer {tokens[seat]}", "Idempotency-Key": str(uuid.uuid4())})
        assert status == 200, answer
        actions += 1


def redis_bytes(client, game_id: str) -> tuple[int, int, dict[str, int]]:
    """Return (all bytes, bytes without idempotency records, bytes by kind of key) of one game."""
    by_kind: dict[str, int] = {}
    for key in client.scan_iter(match=f"*{{{game_id}}}*", count=1000):
        kind = "idem" if ":idem" in key else key.rsplit(":", 1)[-1]
        by_kind[kind] = by_kind.get(kind, 0) + (client.memory_usage(key, samples=0) or 0)
    total = sum(by_kind.values())
    return total, total - by_kind.get("idem", 0), by_kind


def sqlite_bytes(path: str, game_id: str) -> tuple[int, int, dict[str, int]]:
    """Return (all bytes, bytes without idempotency rows, bytes by table) of one game: the LENGTH of
    every column of every row that belongs to the game."""
    conn = sqlite3.connect(path)
    by_table = {}
    tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")]
    for table in tables:
        columns = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
        key = "game_id" if "game_id" in columns else "id" if "id" in columns else None
        if key is None:
            continue
        total = " + ".join(f"COALESCE(LENGTH({c}), 0)" for c in columns)
        query = f"SELECT COALESCE(SUM({total}), 0) FROM {table} WHERE {key}=?"
        (n,) = conn.execute(query, (game_id,)).fetchone()
        by_table[table] = n
    conn.close()
    total = sum(by_table.values())
    return total, total - sum(n for t, n in by_table.items() if "idem" in t), by_table


def summary(values: list[int]) -> str:
    return f"{int(statistics.median(values)):>9,} B  ({min(values):,}-{max(values):,})"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--games", type=int, default=5, help="complete games per mode and store")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    import logging

    import redis

    import api

    logging.getLogger("werkzeug").setLevel(logging.WARNING)  # no line per request

    print(f"code under test: {Path(api.__file__).resolve().parent}")
    rows: dict[tuple[str, str], list[int]] = {}
    kinds: dict[tuple[str, str], dict[str, list[int]]] = {}
    actions: dict[str, list[int]] = {}
    with RedisServer() as server, tempfile.TemporaryDirectory() as tmp:
        stores = {"redis": server.url, "sqlite": "sqlite:///games.db"}
        client = redis.Redis.from_url(server.url, decode_responses=True)
        for store, url in stores.items():
            http_server, port = serve(url, tmp)
            rng = random.Random(args.seed)
            try:
                for mode in ("duo", "solo"):
                    for _ in range(args.games):
                        game_id, n = play(port, mode, rng)
                        if store == "redis":
                            actions.setdefault(mode, []).append(n)
                            total, _, by_kind = redis_bytes(client, game_id)
                            for key in client.scan_iter(match=f"*{{{game_id}}}:idem*", count=1000):
                                client.delete(key)  # the idempotency window has passed
                            after, _, _ = redis_bytes(client, game_id)
                        else:
                            total, after, by_kind = sqlite_bytes(str(Path(tmp) / "games.db"), game_id)
                        rows.setdefault((store + " play", mode), []).append(total)
                        rows.setdefault((store + " after", mode), []).append(after)
                        for kind, n_bytes in by_kind.items():
                            kinds.setdefault((store, mode), {}).setdefault(kind, []).append(n_bytes)
            finally:
                http_server.shutdown()
        client.close()

    for mode in ("duo", "solo"):
        print(f"\n{mode}: {args.games} complete games, actions per game median "
              f"{int(statistics.median(actions[mode]))} ({min(actions[mode])}-{max(actions[mode])})")
        for what in ("redis play", "redis after", "sqlite play", "sqlite after"):
            print(f"  {what:<13} {summary(rows[(what, mode)])}")
        for store in ("redis", "sqlite"):
            parts = ", ".join(f"{k} {int(statistics.median(v)):,}"
                              for k, v in sorted(kinds[(store, mode)].items()))
            print(f"  {store} by part (median B): {parts}")


if __name__ == "__main__":
    main()
