"""What durability costs, and how long a failover takes (a script, not a pytest test).

    .venv/bin/python tests/perf/scaling_bench.py [--games 16] [--seconds 4] [--rounds 3]

Starts a primary, one replica and three Sentinels (tests/redis_server.py SentinelSet: AOF fsync'd on
every write, like the tests' servers) and two gunicorn servers of two workers each on the same
redis+sentinel:// URL: one with ALCABOHNE_REDIS_WAIT_REPLICAS=0, one with 1. Then in the same run:
  0. commits: one thread committing to one game through a RedisStore, without WAIT and with it in turn
     (`--rounds` times, 1000 commits each): the round trip WAIT adds, without the servers' noise;
  1. moves: N client threads playing solo games over HTTP (tests/perf/api_bench.py), against the
     server without WAIT and with it in turn, `--rounds` times interleaved; prints each phase and the
     medians of moves/s and move p99;
  2. failover: N threads keep playing on the WAIT server (asking again, same Idempotency-Key, when an
     answer is 503 or does not come) while the primary is SIGKILLed; the old primary is started again
     as the new primary's replica as soon as the Sentinels have named the new one. Prints the time
     from the SIGKILL until the Sentinels name the replica, and until the first move is acknowledged
     again (with WAIT: after the new primary has a replica).
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import sys
import threading
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests import limits_off  # noqa: E402
from tests.live.servers import Gunicorn  # noqa: E402
from tests.perf.api_bench import Client, play_games, run_phase  # noqa: E402
from tests.redis_server import SentinelSet  # noqa: E402


def commits(url: str, rounds: int, count: int = 1000) -> None:
    """Print the median p50/p99 of single commits through a store without WAIT and with WAIT 1."""
    from api.store.redis import RedisStore

    stores = {"no wait": RedisStore(url, wait_replicas=0), "wait 1": RedisStore(url, wait_replicas=1)}
    found: dict[str, list[tuple[float, float]]] = {name: [] for name in stores}
    try:
        for r in range(rounds):
            for name, store in stores.items():
                game = f"bench-{name[0]}-{r}-{uuid.uuid4().hex[:6]}"
                store.create(game, "{}", 600)
                times = []
                for v in range(1, count + 1):
                    started = time.perf_counter()
                    done = store.commit(game, v, f'{{"n": {v}}}', ttl=600, idem_key=str(v), log="x")
                    assert done.status == "ok", done
                    times.append(time.perf_counter() - started)
                q = statistics.quantiles(times, n=100)
                found[name].append((q[49], q[98]))
        for name, runs in found.items():
            print(f"commit   {name:8s} p50 {statistics.median(a for a, _ in runs) * 1e3:6.3f} ms   "
                  f"p99 {statistics.median(b for _, b in runs) * 1e3:6.3f} ms   "
                  f"(one thread, {rounds} x {count})")
    finally:
        for store in stores.values():
            store.close()


def failover(port: int, sentinels: SentinelSet, threads: int) -> tuple[float, float, int]:
    """Kill the primary under load; return (s until promoted, s until a move is acknowledged, retries)."""
    killed: list[float] = []
    first_ok: list[float] = []
    retries = [0]
    stop = threading.Event()

    def player(seed: int) -> None:
        client = Client(port)
        while not stop.is_set():
            status, game = client.call("POST", "/api/v1/games", {"mode": "solo"})
            if status != 201:
                retries[0] += 1
                time.sleep(0.05)
                continue
            auth, version, view = {"Authorization": f"Bearer {game['token']}"}, game["version"], game["view"]
            while view["phase"] != "over" and not stop.is_set():
                body = {"action": view["legal_actions"][0], "version": version}
                key = str(uuid.uuid4())
                asked = time.monotonic()
                while True:
                    try:
                        status, answer = client.call("POST", f"/api/v1/games/{game['game_id']}/actions", body,
                                                     {**auth, "Idempotency-Key": key})
                    except OSError:
                        client = Client(port)
                        status, answer = 0, {}
                    if status == 200:
                        break
                    assert status in (0, 503), answer
                    retries[0] += 1
                    time.sleep(0.05)
                if killed and asked > killed[0] and not first_ok:  # asked after the kill
                    first_ok.append(time.monotonic())
                version, view = answer["version"], answer["view"]

    pool = [threading.Thread(target=player, args=(i,), daemon=True) for i in range(threads)]
    for t in pool:
        t.start()
    time.sleep(2)
    old = sentinels.primary
    os.kill(old.pid, signal.SIGKILL)
    killed.append(time.monotonic())
    old._proc.wait()
    old._proc = None
    while (primary := sentinels.primary_port()) == old.port:
        time.sleep(0.02)
    promoted = time.monotonic()
    old.args = ["--repl-diskless-sync-delay", "0", "--replicaof", "127.0.0.1", str(primary)]
    old.start()
    while not first_ok:
        time.sleep(0.02)
    stop.set()
    for t in pool:
        t.join(timeout=30)
    return promoted - killed[0], first_ok[0] - killed[0], retries[0]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=16, help="concurrent games (client threads)")
    parser.add_argument("--seconds", type=float, default=4.0, help="duration of each phase")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved phases of each kind")
    args = parser.parse_args()

    with SentinelSet() as sentinels:
        commits(sentinels.url, args.rounds)
        env = dict(limits_off.ENV)
        plain = Gunicorn(sentinels.url, workers=2, threads=32, extra_env=env)
        durable = Gunicorn(sentinels.url, workers=2, threads=32,
                           extra_env={**env, "ALCABOHNE_REDIS_WAIT_REPLICAS": "1",
                                      "ALCABOHNE_REDIS_WAIT_TIMEOUT": "1.0"})
        with plain, durable:
            results: dict[str, list[tuple[float, float]]] = {"no wait": [], "wait 1": []}
            for _ in range(args.rounds):
                for name, server in (("no wait", plain), ("wait 1", durable)):
                    rate, latencies = run_phase(name, play_games, args.games, args.seconds, server.port,
                                                game_ids=lambda i: [], seed=lambda i: i)
                    results[name].append((rate, statistics.quantiles(latencies, n=100)[98]))
            for name, runs in results.items():
                print(f"median {name:8s} {statistics.median(r for r, _ in runs):7.0f} moves/s   "
                      f"p99 {statistics.median(p for _, p in runs) * 1000:6.2f} ms   ({len(runs)} phases)")
            promoted, recovered, retries = failover(durable.port, sentinels, args.games)
            print(f"failover: replica named primary {promoted:.2f} s after the SIGKILL, first move "
                  f"acknowledged again after {recovered:.2f} s ({retries} requests asked again)")


if __name__ == "__main__":
    main()
