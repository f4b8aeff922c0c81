"""The load scenario of tests/faults, longer, with its figures (and optionally a fault) printed.

    .venv/bin/python tests/perf/load_run.py [--games 12] [--seconds 60] [--workers 2]
                                            [--fault none|kill-worker|restart-redis|restart-server|drop]

Starts a private redis-server (AOF, appendfsync everysec as deploy/redis.conf) and gunicorn with
`--workers` gthread workers on loopback, plays `--games` concurrent duo games (moves over HTTP, a
websocket per seat; see tests/faults/driver.py) for `--seconds`, then checks against the store that no
acknowledged move was lost or applied twice and that every socket converged. Prints actions/s, p50/p99
action latency (POST to answer), p50/p99 push latency (POST sent to the other seat's socket holding
the new state), retries, replays, reconnects and errors. Client and server share the machine: the
figures are upper bounds for the server alone. Exits 1 when a check failed.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from api.store.redis import RedisStore  # noqa: E402
from tests import limits_off  # noqa: E402
from tests.faults.conftest import production_fsync  # noqa: E402
from tests.faults.driver import run_load, socket_workers, verify  # noqa: E402
from tests.live.servers import Gunicorn  # noqa: E402
from tests.redis_server import RedisServer  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=12)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--threads", type=int, default=64)
    parser.add_argument("--fault", choices=["none", "kill-worker", "restart-redis", "restart-server", "drop"],
                        default="none")
    parser.add_argument("--fault-at", type=float, default=None, help="seconds into the run (default: 1/3)")
    args = parser.parse_args(argv)

    with RedisServer() as redis_server:
        production_fsync(redis_server)
        # Every game is joined from this one address: lift the join-code guard (10 a minute).
        with Gunicorn(redis_server.url, workers=args.workers, threads=args.threads, ping=25.0,
                      extra_env=limits_off.ENV) as server:
            faults = {
                "kill-worker": lambda games: os.kill(min(socket_workers(games) & set(server.worker_pids())),
                                                     signal.SIGKILL),
                # SIGKILL, 1.5 s down (moves meet 503 and are retried), then back with its AOF.
                "restart-redis": lambda games: (redis_server.kill(), time.sleep(1.5), redis_server.start(),
                                                production_fsync(redis_server)),
                "restart-server": lambda games: server.restart(),
            }
            games, stats = run_load(server.url, games=args.games, seconds=args.seconds,
                                    drop_every=3 if args.fault == "drop" else 0,
                                    fault=faults.get(args.fault),
                                    fault_at=args.seconds / 3 if args.fault_at is None else args.fault_at)
            store = RedisStore(redis_server.url)
            try:
                problems = verify(games, store)
            finally:
                store.close()
    summary = {"games": args.games, "workers": args.workers, "fault": args.fault, **stats.summary()}
    print(json.dumps(summary))
    for line in stats.errors[:20] + problems[:20]:
        print("problem:", line)
    return 1 if stats.errors or problems else 0


if __name__ == "__main__":
    sys.exit(main())
