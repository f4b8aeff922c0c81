"""push_bench.py's clients as two processes, one per seat: the mover's process sends, the other seat's
process receives, as on two phones. Not a test.

In one process (push_bench --clients 1) the mover's socket reads its ack and its own state at the very
moment the opponent's socket reads the state being timed, and all of them wait for that one process's
GIL; the relay baseline has no such frames (its sender gets nothing back). Here each seat has its own
process for the game and the baseline alike, so a measurement waits only for what the receiving side
itself is doing. Both processes read the same clock (time.perf_counter is CLOCK_MONOTONIC on Linux,
one clock for the whole machine), so a send stamped in one and a receipt stamped in the other subtract.

    python tests/perf/push_clients.py SPEC.json   # run by push_bench: reads "go <json>" on stdin

SPEC: {"url", "seat", "games": [[game_id, token], ...], "pairs": [channel, ...], "interval", "out"}.
The go line: {"windows": [["game"|"baseline", start, end], ...]} in perf_counter seconds. Each process
writes to `out` one JSON object: {"sent": [[kind, key, seq, t0], ...], "got": [[kind, key, seq, t1],
...], "errors": [...], "state_bytes", "relay_bytes"} (mean sizes of the states received and of the
relay frames sent) with kind "game" (key game id, seq the version) or "relay" (key channel).
"""

from __future__ import annotations

import contextlib
import json
import random
import socket
import statistics
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from api.cli.netclient import LiveSocket  # noqa: E402

# A relay frame unanswered this long is re-sent with a new number (the other side never saw it).
RESEND_AFTER = 5.0
# One state in this many is measured (encoded again) for the relay frames' size: measuring each one
# cost the game's receiving side about 25 us of CPU per state that the relay's side did not spend.
SIZE_EVERY = 16


class Log:
    """Sends and receipts of one process, from many threads."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.sent: list = []
        self.got: list = []
        self.errors: list[str] = []
        self.sizes: list[int] = []  # of some of the states received (SIZE_EVERY)
        self.states = 0  # states received
        self.relay_bytes: list[int] = []  # of the relay frames sent

    def add(self, which: list, *row) -> None:
        with self.lock:
            which.append(list(row))


def window_at(windows: list, now: float) -> tuple[str | None, float]:
    """Return (phase of the window holding `now` or None, end of that window or start of the next)."""
    for phase, start, end in windows:
        if now < start:
            return None, start
        if now < end:
            return phase, end
    return None, float("inf")


def play_seat(sock: LiveSocket, game_id: str, seat: int, state: dict, windows: list, finish: float,
              interval: float, log: Log) -> None:
    """Read every state of one game for `seat`; in game windows, move whenever it is this seat's turn
    (after a think time of 0.5-1.5 x interval, drawn afresh in each window), stamping each send."""
    rng = random.Random()
    due = None  # when to send the next action, while this seat is to move in a game window
    waiting = False  # an action was sent: wait for its state (or its error)
    while (now := time.perf_counter()) < finish:
        view = state["view"]
        phase, edge = window_at(windows, now)
        wait = min(edge, finish) - now
        if phase == "game" and not waiting and view["phase"] != "over" and view["active"] == seat:
            if due is None:
                due = now + rng.uniform(0.5, 1.5) * interval
            if now >= due:
                version = state["version"]
                t0 = time.perf_counter()
                try:
                    sock.action(view["legal_actions"][0], version)
                except OSError as err:
                    log.add(log.errors, repr(err))
                    return
                log.add(log.sent, "game", game_id, version + 1, t0)
                due, waiting = None, True
                continue
            wait = min(wait, due - now)
        elif phase != "game":
            due = None
        try:
            frame = sock.recv(timeout=max(wait, 0.001))
        except OSError as err:
            log.add(log.errors, repr(err))
            return
        if frame is None:
            continue
        if frame["type"] == "state":
            log.add(log.got, "game", game_id, frame["version"], time.perf_counter())
            with log.lock:
                log.states += 1
                if log.states % SIZE_EVERY == 1:
                    log.sizes.append(len(json.dumps(frame)))
            state, due, waiting = frame, None, False
        elif frame["type"] == "error" and frame.get("id"):
            log.add(log.errors, frame["code"])
            waiting = False


def relay_side(ws, channel: str, first: bool, windows: list, finish: float, interval: float,
               log: Log) -> None:
    """One side of a relay pair: in baseline windows, answer each frame received with one of ours
    after a think time (the side `first` opens each window), stamping sends and receipts."""
    rng = random.Random()
    seq = 0 if first else 1  # odd numbers from one side, even from the other: unique per pair
    my_turn = first
    last_sent = None
    due = None
    while True:
        now = time.perf_counter()
        if now >= finish:
            return
        phase, edge = window_at(windows, now)
        if phase != "baseline":
            my_turn, due, last_sent = first, None, None  # each window starts afresh
            wait = min(edge, finish) - now
        else:
            if my_turn and due is None:
                due = now + rng.uniform(0.5, 1.5) * interval
            if last_sent is not None and now - last_sent > RESEND_AFTER:
                my_turn, due = True, now  # our frame (or its answer) was lost: go on with a new one
            wait = min(edge, finish) - now
            if my_turn and due is not None:
                if now >= due:
                    seq += 2
                    recent = log.sizes[-200:] or [768]  # not statistics.mean: 21 us against 0.7
                    pad = "x" * max(sum(recent) // len(recent) - 40, 0)
                    text = json.dumps({"seq": seq, "pad": pad})
                    log.relay_bytes.append(len(text))
                    t0 = time.perf_counter()
                    try:
                        ws.send(text)
                    except Exception as err:  # noqa: BLE001 - a closed socket ends this pair
                        log.add(log.errors, repr(err))
                        return
                    log.add(log.sent, "relay", channel, seq, t0)
                    my_turn, due, last_sent = False, None, t0
                    continue
                wait = min(wait, due - now)
        try:
            text = ws.receive(timeout=max(wait, 0.001))
        except Exception as err:  # noqa: BLE001
            log.add(log.errors, repr(err))
            return
        if text is None:
            continue
        t1 = time.perf_counter()
        log.add(log.got, "relay", channel, json.loads(text)["seq"], t1)
        if window_at(windows, t1)[0] == "baseline":
            my_turn, due, last_sent = True, None, None


def main() -> int:
    from simple_websocket import Client

    spec = json.loads(Path(sys.argv[1]).read_text())
    seat, url, interval = spec["seat"], spec["url"], spec["interval"]
    log = Log()
    socks, states = [], []
    for game_id, token in spec["games"]:
        sock = LiveSocket(url, game_id, token).connect()
        socks.append(sock)
        states.append(sock.wait(lambda f: f["type"] == "state", timeout=30))
    base = url.replace("http://", "ws://") + "/api/v1/bench/ws/"
    pairs = []
    for channel in spec["pairs"]:
        ws = Client.connect(base + channel)
        ws.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)  # as LiveSocket does
        pairs.append(ws)
    print("ready", flush=True)
    go = json.loads(sys.stdin.readline().partition(" ")[2])
    windows = go["windows"]
    finish = windows[-1][2] + RESEND_AFTER  # late receipts still count (or show as drops)
    threads = [threading.Thread(target=play_seat, daemon=True,
                                args=(sock, game_id, seat, state, windows, finish, interval, log))
               for sock, (game_id, _token), state in zip(socks, spec["games"], states, strict=True)]
    threads += [threading.Thread(target=relay_side, daemon=True,
                                 args=(ws, channel, seat == 0, windows, finish, interval, log))
                for ws, channel in zip(pairs, spec["pairs"], strict=True)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=max(finish - time.perf_counter(), 0) + 5)
    Path(spec["out"]).write_text(json.dumps({
        "sent": log.sent, "got": log.got, "errors": log.errors,
        "state_bytes": statistics.mean(log.sizes or [0]),
        "relay_bytes": statistics.mean(log.relay_bytes or [0])}))
    for sock in socks:
        sock.close()
    for ws in pairs:
        with contextlib.suppress(Exception):  # already closed by the server
            ws.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
