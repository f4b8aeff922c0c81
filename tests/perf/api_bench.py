"""HTTP API benchmark (a script, not a pytest test): concurrent games on gunicorn + a private Redis.

    .venv/bin/python tests/perf/api_bench.py [--games 32] [--seconds 10] [--workers 2]

Starts a private redis-server (AOF everysec, as in production) and `alcabohne serve` (api.cli.serve) with
2 gunicorn workers serving the real app plus its baseline route (tests/perf/baselines.py), then in the
same run:
  1. games: N client threads, each playing solo games through HTTP (POST /actions, choosing among the
     legal actions of the last answer's view), for the given time;
  2. baseline: the same N threads on GET /api/v1/bench/baseline (one Redis GET + one SET, nothing else).
Prints actions/s, p50/p99 latency, the ratio to the baseline (target >= 0.5) and the stored bytes per
game (the document; target <= 2 KB), plus the whole Redis footprint per game (document, log, idempotency).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests import limits_off  # noqa: E402


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def wait_for(predicate, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            if predicate():
                return
        except OSError:
            pass
        time.sleep(0.05)
    raise SystemExit(f"{what} did not come up in {seconds} s")


class Client:
    """One keep-alive HTTP connection (one per thread)."""

    def __init__(self, port: int):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)

    def call(self, method: str, path: str, body=None, headers=None) -> tuple[int, dict]:
        data = None if body is None else json.dumps(body)
        headers = {"Content-Type": "application/json", **(headers or {})}
        self.conn.request(method, path, body=data, headers=headers)
        resp = self.conn.getresponse()
        raw = resp.read()
        return resp.status, (json.loads(raw) if raw else {})


def play_games(port: int, stop_at: float, latencies: list, game_ids: list, seed: int) -> int:
    """Play solo games until `stop_at`; return the number of accepted actions."""
    client, rng, done = Client(port), random.Random(seed), 0
    while time.monotonic() < stop_at:
        status, game = client.call("POST", "/api/v1/games", {"mode": "solo"})
        assert status == 201, game
        game_ids.append(game["game_id"])
        auth = {"Authorization": f"Bearer {game['token']}"}
        version, view = game["version"], game["view"]
        while view["phase"] != "over" and time.monotonic() < stop_at:
            action = rng.choice(view["legal_actions"])
            started = time.perf_counter()
            status, answer = client.call("POST", f"/api/v1/games/{game['game_id']}/actions",
                                         {"action": action, "version": version},
                                         {**auth, "Idempotency-Key": f"{seed}-{done}"})
            latencies.append(time.perf_counter() - started)
            assert status == 200, answer
            version, view = answer["version"], answer["view"]
            done += 1
    return done


def baseline(port: int, stop_at: float, latencies: list) -> int:
    client, done = Client(port), 0
    while time.monotonic() < stop_at:
        started = time.perf_counter()
        status, _ = client.call("GET", "/api/v1/bench/baseline")
        latencies.append(time.perf_counter() - started)
        assert status == 200
        done += 1
    return done


def run_phase(name: str, target, threads: int, seconds: float, port: int, **extra) -> tuple[float, list]:
    latencies: list[float] = []
    counts = [0] * threads
    stop_at = time.monotonic() + seconds

    def work(i: int) -> None:
        counts[i] = target(port, stop_at, latencies, **({k: v(i) for k, v in extra.items()}))

    pool = [threading.Thread(target=work, args=(i,)) for i in range(threads)]
    started = time.monotonic()
    for t in pool:
        t.start()
    for t in pool:
        t.join()
    elapsed = time.monotonic() - started
    rate = sum(counts) / elapsed
    q = statistics.quantiles(latencies, n=100)
    print(f"{name:9s} {rate:9.0f}/s   p50 {q[49] * 1000:6.2f} ms   p99 {q[98] * 1000:6.2f} ms   "
          f"({sum(counts)} in {elapsed:.1f} s, {threads} threads)")
    return rate, latencies


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=32, help="concurrent games (client threads)")
    parser.add_argument("--seconds", type=float, default=10.0, help="duration of each phase")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()

    binary = shutil.which("redis-server")
    if binary is None:
        raise SystemExit("redis-server is not installed (Debian package redis-server)")
    workdir = Path(tempfile.mkdtemp(prefix="alcabohne-bench-"))
    redis_port, http_port = free_port(), free_port()
    redis_proc = subprocess.Popen(
        [binary, "--bind", "127.0.0.1", "--port", str(redis_port), "--dir", str(workdir), "--save", "",
         "--appendonly", "yes", "--appendfsync", "everysec", "--maxmemory-policy", "noeviction",
         "--logfile", "redis.log"], stdout=subprocess.DEVNULL)
    redis_url = f"redis://127.0.0.1:{redis_port}/0"
    import redis

    rclient = redis.Redis.from_url(redis_url)
    wait_for(rclient.ping, 10, "redis-server")
    env = dict(os.environ)
    env.pop("REDIS_URL", None)
    env.update(limits_off.ENV)  # every game comes from this one address
    # The workers import the baselines (and with them Flask), as they import the app; the arbiter not.
    code = ("from api.cli.serve import serve\n"
            "def app(config):\n"
            "    from tests.perf.baselines import create_app\n"
            "    return create_app(config)\n"
            f"serve('127.0.0.1', {http_port}, {args.workers}, {str(workdir)!r}, None, {redis_url!r}, "
            f"app_factory=app)")
    server = subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: Client(http_port).call("GET", "/api/v1/health")[0] == 200, 20, "the server")
        print(f"gunicorn: {args.workers} gthread workers, Redis {redis_url}, {args.games} concurrent games")
        game_ids: list[str] = []
        actions, _ = run_phase("actions", play_games, args.games, args.seconds, http_port,
                               game_ids=lambda i: game_ids, seed=lambda i: i)
        base, _ = run_phase("baseline", baseline, args.games, args.seconds, http_port)
        print(f"ratio     {actions / base:9.2f}   (actions/s over baseline GET+SET req/s; target >= 0.5)")

        docs, totals = [], []
        for gid in game_ids:
            doc = rclient.hget(f"cg:v1:g:{{{gid}}}:state", "s")
            if doc is None:
                continue
            docs.append(len(doc))
            keys = list(rclient.scan_iter(f"cg:v1:g:{{{gid}}}:*", count=1000))
            totals.append(sum(rclient.memory_usage(k) or 0 for k in keys))
        print(f"document  {statistics.mean(docs):9.0f} B per game (max {max(docs)}; target <= 2048)")
        print(f"in Redis  {statistics.mean(totals):9.0f} B per game incl. event log and idempotency records "
              f"({len(docs)} games)")
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=15)
        except subprocess.TimeoutExpired:
            server.kill()
        rclient.close()
        redis_proc.terminate()
        redis_proc.wait(timeout=10)
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
