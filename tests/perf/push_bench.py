"""Push latency of live play: action sent on one socket -> the opponent's socket has the new state.

    .venv/bin/python tests/perf/push_bench.py [--games 200] [--duration 30] [--interval 1.0]
                                              [--ramp 400,800,1600] [--slice 5] [--clients 1|2]
                                              [--switches]

Starts a private redis-server (AOF everysec, as deploy/) and gunicorn with 2 gthread workers (the real
app plus the baseline relay: tests/perf/baselines.py), then, on that same server:

1. game:     N concurrent duo games, two sockets each; in every game the seat to move sends its first
             legal action over its socket every `interval` seconds (jittered); measured from just
             before the send to the opponent's socket receiving the state of the new version.
2. baseline: N pairs of sockets on the bare flask-sock + Redis pub/sub relay (tests/perf/baselines.py):
             one sends a frame the size of an average state, measured to the other's receipt.
   Both sets stay open the whole time and the two phases alternate in slices of `slice` seconds,
   so that both see the same machine (other processes included).
3. ramp:     the game phase alone, plus 400, 800, ... idle sockets (watchers of a quiet game), to find
             the most open sockets held while the games' p99 stays under 50 ms. A step whose sockets
             cannot be opened (e.g. "can't start new thread": the host's thread limit, as every socket
             holds a thread in the client and two in the server) ends the ramp, and says so.

Clients: with `--clients 2` (the default) each seat's sockets, of the games and of the relay pairs alike,
live in a process of their own (tests/perf/push_clients.py), as on two phones: the receiving side's
GIL is not busy with the mover's ack and state at the moment it is timed. `--clients 1` runs every
socket in this process, as the first version of this benchmark did (its figures are comparable with
the earlier notes).

A drop is a state (or relayed frame) that did not arrive within 5 s. Client and server share the
machine, so these are upper bounds for the server. Prints one line per phase, with two client
processes a `cpu` line (user and system CPU of the workers, Redis and the clients per move and per
relayed frame, from /proc; `--switches` adds context switches), and a summary.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from pathlib import Path

import redis

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from api.cli.netclient import HttpApi, LiveSocket  # noqa: E402
from api.ops.sizing import threads_for  # noqa: E402
from tests import limits_off  # noqa: E402
from tests.live.servers import Gunicorn  # noqa: E402
from tests.redis_server import RedisServer  # noqa: E402

DROP_AFTER = 5.0


class Stats:
    """Latencies (ms) and drops, from many threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.ms: list[float] = []
        self.drops = 0
        self.errors: list[str] = []
        self.sizes: list[int] = []

    def add(self, ms: float) -> None:
        with self.lock:
            self.ms.append(ms)

    def summary(self) -> dict:
        ms = sorted(self.ms)
        if len(ms) < 2:
            return {"n": len(ms), "drops": self.drops, "errors": len(self.errors)}
        q = statistics.quantiles(ms, n=100, method="inclusive")
        return {"n": len(ms), "p50": round(q[49], 2), "p95": round(q[94], 2), "p99": round(q[98], 2),
                "max": round(ms[-1], 2), "drops": self.drops, "errors": len(self.errors)}


def _open_all(make, count: int, workers: int = 32) -> list:
    """Run `make(i)` for i in range(count) on a few threads (set-up); return the results in order."""
    out: list = [None] * count
    errors: list[BaseException] = []

    def run(start: int) -> None:
        for i in range(start, count, workers):
            try:
                out[i] = make(i)
            except BaseException as err:  # noqa: BLE001 - reported below
                errors.append(err)

    threads = [threading.Thread(target=run, args=(w,)) for w in range(workers)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
    return out


def _game_setup(url: str):
    http = HttpApi(url, timeout=30)

    def make(_i: int):
        grant = http.create("duo")
        joined = http.join(grant["join_code"])
        tokens = {grant["seat"]: grant["token"], joined["seat"]: joined["token"]}
        socks = {seat: LiveSocket(url, grant["game_id"], tokens[seat]).connect() for seat in (0, 1)}
        states = {}
        for seat, sock in socks.items():
            states[seat] = sock.wait(lambda f: f["type"] == "state", timeout=30)
        return socks, states

    return make


def _play_game(socks: dict, states: dict, stats: Stats, stop: threading.Event, interval: float) -> None:
    """Drive one game until `stop`: the seat to move sends its first legal action over its socket;
    time until the opponent's socket has that version. `states` (seat -> last state) carries over."""
    rng = random.Random()
    while not stop.wait(rng.uniform(0.5, 1.5) * interval):
        version = states[0]["version"]
        view = states[0]["view"]
        if view["phase"] == "over":
            return
        active = view["active"]
        mover, other = socks[active], socks[1 - active]
        action = states[active]["view"]["legal_actions"][0]  # the mover's own view has its actions
        msg_id = str(uuid.uuid4())
        t0 = time.perf_counter()
        try:
            mover.action(action, version, msg_id)
            frame = other.wait(lambda f, v=version + 1: f["type"] == "state" and f["version"] >= v,
                               timeout=DROP_AFTER)
            stats.add((time.perf_counter() - t0) * 1000)
            with stats.lock:
                stats.sizes.append(len(json.dumps(frame)))
            mine = mover.wait(lambda f, v=frame["version"]: f["type"] == "state" and f["version"] >= v,
                              timeout=DROP_AFTER)
        except TimeoutError:
            # A refused action is not a lost push: look for its error on the mover's socket.
            refused = mover_error(mover, msg_id)
            with stats.lock:
                if refused:
                    stats.errors.append("refused")
                else:
                    stats.drops += 1
            return
        except OSError as err:
            with stats.lock:
                stats.errors.append(repr(err))
            return
        states[1 - active], states[active] = frame, mine


def mover_error(sock: LiveSocket, msg_id: str) -> bool:
    """Return whether an error answer to `msg_id` arrives on `sock` (frames before it are dropped)."""
    try:
        sock.wait(lambda f: f.get("id") == msg_id and f["type"] == "error", timeout=0.5)
    except (TimeoutError, OSError):
        return False
    return True


def _drive(target, setups: list, stats: Stats, seconds: float, interval: float) -> None:
    """Run `target(*setup, stats, stop, interval)` for every setup for `seconds`."""
    stop = threading.Event()
    threads = [threading.Thread(target=target, args=(*setup, stats, stop, interval), daemon=True)
               for setup in setups]
    try:
        for t in threads:
            t.start()
        time.sleep(seconds)
    finally:
        stop.set()
        for t in threads:
            t.join(timeout=DROP_AFTER + 2)


def open_games(url: str, games: int) -> list:
    """Open `games` duo games with both seats' sockets; return [(sockets, states)]."""
    return _open_all(_game_setup(url), games)


def close_games(setups: list) -> None:
    _open_all(lambda i: [s.close() for s in setups[i][0].values()], len(setups))


def open_pairs(url: str, pairs: int) -> list:
    """Open `pairs` socket pairs on the bare relay; return [(a, b)]."""
    from simple_websocket import Client

    base = url.replace("http://", "ws://") + "/api/v1/bench/ws/"

    def make(i: int):
        pair = Client.connect(base + f"c{i}"), Client.connect(base + f"c{i}")
        for ws in pair:  # as LiveSocket does on the client side
            ws.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        return pair

    setups = _open_all(make, pairs)
    time.sleep(0.5)  # let the relay register both sockets of every pair
    return setups


def close_pairs(setups: list) -> None:
    for a, b in setups:
        for ws in (a, b):
            with contextlib.suppress(Exception):  # already closed by the server
                ws.close()


def _relay_pair(a, b, stats: Stats, stop: threading.Event, interval: float, pad: list) -> None:
    """Drive one relay pair until `stop`: a frame the size of a state, timed to the other's receipt."""
    rng = random.Random()
    seq = 0
    while not stop.wait(rng.uniform(0.5, 1.5) * interval):
        seq += 1
        sender, receiver = (a, b) if seq % 2 else (b, a)
        t0 = time.perf_counter()
        try:
            sender.send(json.dumps({"seq": seq, "pad": pad[0]}))
            deadline = t0 + DROP_AFTER
            while True:
                text = receiver.receive(timeout=max(deadline - time.perf_counter(), 0))
                if text is None:
                    with stats.lock:
                        stats.drops += 1
                    return
                if json.loads(text)["seq"] == seq:
                    break
            stats.add((time.perf_counter() - t0) * 1000)
        except Exception as err:  # noqa: BLE001 - a closed socket is an error of the run
            with stats.lock:
                stats.errors.append(repr(err))
            return


def one_client(url: str, args) -> tuple[Stats, Stats, int]:
    """Game and baseline slices with every socket in this process; return (game, baseline, frame size)."""
    games, pairs = open_games(url, args.games), open_pairs(url, args.games)
    game, base, pad = Stats(), Stats(), ["x" * 700]
    try:
        for _ in range(max(int(args.duration // args.slice), 1)):
            _drive(_play_game, games, game, args.slice, args.interval)
            if game.sizes:
                pad[0] = "x" * max(int(statistics.mean(game.sizes)) - 25, 0)
            _drive(lambda a, b, st, stop, iv: _relay_pair(a, b, st, stop, iv, pad), pairs, base,
                   args.slice, args.interval)
    finally:
        close_games(games)
        close_pairs(pairs)
    return game, base, len(pad[0]) + 25


class CpuMeter:
    """CPU (user and system, from /proc) and context switches of groups of processes in the game and
    the baseline windows. Each window is sampled from 0.5 s after its start to its end, so that
    messages sent just before a switch of phase are not counted in the wrong one."""

    def __init__(self, groups: dict[str, list[int]], *, switches: bool = False) -> None:
        self.groups = dict(groups)
        self.switches = switches  # reading every thread's status costs CPU at each window's edges
        self.spent: dict[tuple[str, str], list[float]] = {}
        self.seconds = {"game": 0.0, "baseline": 0.0}

    def _sample(self, pids: list[int]) -> list[float]:
        """Return [user s, system s, context switches (0 unless asked for)] summed over `pids` and all
        their threads."""
        tick = os.sysconf("SC_CLK_TCK")
        user = system = switches = 0.0
        for pid in pids:
            with contextlib.suppress(OSError):
                fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
                user += int(fields[11]) / tick
                system += int(fields[12]) / tick
            for status in Path(f"/proc/{pid}/task").glob("*/status") if self.switches else ():
                with contextlib.suppress(OSError):
                    for line in status.read_text().splitlines():
                        if "ctxt_switches:" in line:  # voluntary and involuntary
                            switches += int(line.split()[1])
        return [user, system, switches]

    def follow(self, windows: list, more: dict[str, list[int]]) -> None:
        """Sample every window until the last one ends (call right after the windows were handed out)."""
        self.groups.update(more)
        for phase, start, end in windows:
            time.sleep(max(start + 0.5 - time.perf_counter(), 0))
            t0 = time.perf_counter()
            before = {name: self._sample(pids) for name, pids in self.groups.items()}
            time.sleep(max(end - time.perf_counter(), 0))
            after = {name: self._sample(pids) for name, pids in self.groups.items()}
            self.seconds[phase] += time.perf_counter() - t0
            for name in self.groups:
                total = self.spent.setdefault((phase, name), [0.0, 0.0, 0.0])
                for i in range(3):
                    total[i] += after[name][i] - before[name][i]

    def report(self, rates: dict[str, float]) -> dict:
        """Return {phase: {group: [user ms, system ms(, context switches)] per message}}, given each
        phase's messages per second."""
        out = {}
        for phase, seconds in self.seconds.items():
            if seconds:
                per = seconds * max(rates[phase], 1e-9)
                out[phase] = {name: [round(1000 * u / per, 3), round(1000 * s / per, 3)]
                              + ([round(c / per, 1)] if self.switches else [])
                              for (ph, name), (u, s, c) in self.spent.items() if ph == phase}
        return out


def two_clients(url: str, args, cpu: CpuMeter | None = None) -> tuple[Stats, Stats, int]:
    """Game and baseline slices with each seat's sockets in its own process (push_clients.py); the
    sends of one process are matched with the receipts of the other. Return (game, baseline, frame size)."""
    http = HttpApi(url, timeout=30)

    def make(_i: int):
        grant = http.create("duo")
        joined = http.join(grant["join_code"])
        return grant["game_id"], {grant["seat"]: grant["token"], joined["seat"]: joined["token"]}

    games = _open_all(make, args.games)
    with tempfile.TemporaryDirectory() as tmp:
        procs = []
        for seat in (0, 1):
            spec = {"url": url, "seat": seat, "games": [[g, tokens[seat]] for g, tokens in games],
                    "pairs": [f"p{i}" for i in range(args.games)], "interval": args.interval,
                    "out": f"{tmp}/seat{seat}.json"}
            Path(f"{tmp}/spec{seat}.json").write_text(json.dumps(spec))
            procs.append(subprocess.Popen([sys.executable, str(Path(__file__).with_name("push_clients.py")),
                                           f"{tmp}/spec{seat}.json"], stdin=subprocess.PIPE,
                                          stdout=subprocess.PIPE, text=True))
        for proc in procs:
            if proc.stdout.readline().strip() != "ready":
                raise RuntimeError("a seat client did not start")
        start, windows = time.perf_counter() + 1.0, []
        for _ in range(max(int(args.duration // args.slice), 1)):
            windows += [["game", start, start + args.slice],
                        ["baseline", start + args.slice, start + 2 * args.slice]]
            start += 2 * args.slice
        for proc in procs:
            proc.stdin.write("go " + json.dumps({"windows": windows}) + "\n")
            proc.stdin.flush()
        if cpu is not None:
            cpu.follow(windows, {"clients": [p.pid for p in procs]})
        for proc in procs:
            proc.wait(timeout=start - time.perf_counter() + 60)
        logs = [json.loads(Path(f"{tmp}/seat{seat}.json").read_text()) for seat in (0, 1)]
    game, base = Stats(), Stats()
    for seat in (0, 1):
        got: dict = {}
        for kind, key, seq, t1 in logs[1 - seat]["got"]:
            got.setdefault((kind, key), []).append((seq, t1))
        for kind, key, seq, t0 in logs[seat]["sent"]:
            stats = game if kind == "game" else base
            # The other seat's first receipt of that version (a game) or of that very frame (a relay).
            t1 = min((t for s, t in got.get((kind, key), ()) if t >= t0 and
                      (s >= seq if kind == "game" else s == seq)), default=None)
            if t1 is None or t1 - t0 > DROP_AFTER:
                stats.drops += 1
            else:
                stats.add((t1 - t0) * 1000)
        game.errors += logs[seat]["errors"]
    game.sizes = [int(log["state_bytes"]) for log in logs]  # per-process means, reported
    return game, base, int(statistics.mean(log["relay_bytes"] for log in logs))


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--duration", type=float, default=30.0, help="seconds measured per phase")
    ap.add_argument("--interval", type=float, default=1.0, help="mean seconds between moves of a game")
    ap.add_argument("--slice", type=float, default=5.0, help="seconds per alternation game/baseline")
    ap.add_argument("--ramp", default="400,800,1600", help="idle sockets for the ramp ('' = none)")
    ap.add_argument("--clients", type=int, choices=(1, 2), default=2,
                    help="client processes: 2 = one per seat (default), 1 = all sockets in this one")
    ap.add_argument("--switches", action="store_true",
                    help="also count context switches (reads every thread's /proc status: some CPU)")
    args = ap.parse_args()
    ramp = [int(n) for n in args.ramp.split(",") if n]
    most = max([4 * args.games, 2 * args.games + max(ramp, default=0)])

    server = RedisServer()
    server.start()
    try:
        with redis.Redis.from_url(server.url) as admin:
            admin.config_set("appendfsync", "everysec")  # as deploy/redis.conf, not the tests' "always"
        threads = threads_for(most, 2)
        gunicorn = Gunicorn(server.url, workers=2, threads=threads, ping=25.0,
                            app="tests.perf.baselines:create_app()",
                            extra_env=limits_off.ENV)
        gunicorn.start()
        try:
            results = {}
            # Game and baseline alternate in slices on the same server, so both see the same machine
            # (other processes on it included).
            if args.clients == 2:
                cpu = CpuMeter({"workers": gunicorn.worker_pids(), "redis": [server.pid]},
                               switches=args.switches)
                game, base, frame_bytes = two_clients(gunicorn.url, args, cpu)
                measured = max(int(args.duration // args.slice), 1) * args.slice
                results["cpu_per_message"] = cpu.report({"game": game.summary()["n"] / measured,
                                                            "baseline": base.summary()["n"] / measured})
            else:
                game, base, frame_bytes = one_client(gunicorn.url, args)
            sockets = 4 * args.games
            results["game"] = {"sockets": sockets, "clients": args.clients, **game.summary(),
                               "state_bytes": int(statistics.mean(game.sizes)) if game.sizes else None}
            results["baseline"] = {"frame_bytes": frame_bytes, **base.summary()}
            print(f"game      {args.games} games + {args.games} relay pairs open ({sockets} sockets): "
                  f"{results['game']}", flush=True)
            print(f"baseline  {args.games} relay pairs, frames of {frame_bytes} B: "
                  f"{results['baseline']}", flush=True)
            if "cpu_per_message" in results:
                print("cpu       [user ms, system ms(, context switches)] per move (game) / per relayed "
                      f"frame (baseline): {results['cpu_per_message']}", flush=True)
            ok = results["game"].get("p99", 1e9) < 50 and not game.drops and not game.errors
            best = sockets if ok else 0
            # Ramp: the same games again, plus more and more idle sockets (watchers of a quiet game).
            active = open_games(gunicorn.url, args.games)
            idle_game = HttpApi(gunicorn.url).create("solo")["game_id"]
            idle: list[LiveSocket] = []
            try:
                for extra in ramp:
                    try:
                        idle += _open_all(lambda _i: LiveSocket(gunicorn.url, idle_game, None).connect(),
                                          extra - len(idle))
                    except (OSError, RuntimeError) as err:
                        # RuntimeError "can't start new thread": the host's thread limit (every client
                        # and server socket holds a thread; kernel.pid_max counts them all).
                        results[f"ramp_{2 * args.games + extra}"] = {"failed": repr(err)}
                        print(f"ramp      {args.games} games + {extra} idle sockets: could not open them: "
                              f"{err!r}", flush=True)
                        break
                    stats = Stats()
                    _drive(_play_game, active, stats, args.duration / 2, args.interval)
                    held = 2 * args.games + len(idle)
                    line = {"sockets": held, **stats.summary()}
                    results[f"ramp_{held}"] = line
                    print(f"ramp      {args.games} games + {len(idle)} idle sockets ({held} sockets): {line}",
                          flush=True)
                    if line.get("p99", 1e9) < 50 and not stats.drops and not stats.errors:
                        best = max(best, held)
                    else:
                        break
            finally:
                close_games(active)
                _open_all(lambda i: idle[i].close(), len(idle))
            ratio = results["game"]["p99"] / results["baseline"]["p99"]
            print(f"\nsummary: game p50 {results['game']['p50']} ms p99 {results['game']['p99']} ms, "
                  f"baseline p50 {results['baseline']['p50']} ms p99 {results['baseline']['p99']} ms, "
                  f"p99 ratio {ratio:.2f} (target <= 2), drops {results['game']['drops']}, "
                  f"most sockets with p99 < 50 ms: {best}")
            print(json.dumps(results))
        except BaseException:
            gunicorn.stop()
            print("gunicorn's log (tail):\n" + gunicorn.log.decode(errors="replace")[-3000:], file=sys.stderr)
            raise
        finally:
            gunicorn.stop()
    finally:
        server.remove()
    return 0


if __name__ == "__main__":
    sys.exit(main())
