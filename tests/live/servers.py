"""Live servers for the websocket tests: werkzeug in a thread (fast), gunicorn subprocesses (real).

Every server started here is stopped by its context manager; gunicorn runs with its control socket
disabled (parallel servers would otherwise share $HOME/.gunicorn/gunicorn.ctl) on a free port.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

from werkzeug.serving import make_server

from api import close as close_app
from api import create_app
from api.ops.sizing import worker_connections_for
from api.store.base import GameStore
from tests.contract import watch_problems

ROOT = Path(__file__).resolve().parents[2]


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def free_ports(count: int) -> list[int]:
    """Return `count` different free ports: bound all at once, since one port freed and asked for
    again may come back (two listeners on one port broke an nginx test in CI)."""
    with contextlib.ExitStack() as stack:
        socks = [stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) for _ in range(count)]
        for sock in socks:
            sock.bind(("127.0.0.1", 0))
        return [sock.getsockname()[1] for sock in socks]


def socket_holder(client: socket.socket, pids: list[int]) -> int | None:
    """Return which of the processes `pids` holds the other end of the loopback TCP connection `client`
    (IPv4), read from /proc as `ss -p` does: the connection's inode in /proc/net/tcp, then the process
    with a file descriptor on it. The server is watched from outside; it says nothing about itself."""
    here, there = client.getsockname(), client.getpeername()
    wanted = (_proc_address(*there), _proc_address(*here))  # the server's (local, remote)
    inodes = set()
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if (fields[1], fields[2]) == wanted:
            inodes.add(f"socket:[{fields[9]}]")
    for pid in pids:
        try:
            for fd in Path(f"/proc/{pid}/fd").iterdir():
                with contextlib.suppress(OSError):
                    if os.readlink(fd) in inodes:
                        return pid
        except OSError:
            continue  # the process ended meanwhile
    return None


def _proc_address(host: str, port: int) -> str:
    # /proc/net/tcp writes an IPv4 address as the hex of its 32-bit value in host byte order.
    return f"{int.from_bytes(socket.inet_aton(host), sys.byteorder):08X}:{port:04X}"


class ThreadServer:
    """create_app(store, config) served by werkzeug's threaded server in a daemon thread."""

    def __init__(self, store: GameStore, **config):
        self.app = watch_problems(create_app({"STORE": store, **config}))
        self._server = make_server("127.0.0.1", 0, self.app, threaded=True)
        self.url = f"http://127.0.0.1:{self._server.server_port}"
        # shutdown() waits for serve_forever to look at its flag, once per poll interval (0.5 s by default):
        # a short one ends every test's server at once.
        self._thread = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.02},
                                        name="live-werkzeug", daemon=True)

    def __enter__(self) -> ThreadServer:
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        # Let the sockets' sessions end (their clients are closed by now) before the store goes.
        deadline = time.monotonic() + 5
        while self.hub.connections() and time.monotonic() < deadline:
            time.sleep(0.02)
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)
        close_app(self.app)

    @property
    def hub(self):
        return self.app.extensions["alcabohne.hub"]


def refuse_in_fast_lane() -> None:
    """Fail the calling test under `./test --fast`: it starts gunicorn, so it belongs to the full run
    and must say so with `pytest.mark.gunicorn` (tests/conftest.py, "Lanes")."""
    if os.environ.get("ALCABOHNE_TEST_LANE") == "fast":
        import pytest

        pytest.fail("this test starts gunicorn but is not marked `gunicorn`: ./test --fast must not run it")


class Gunicorn:
    """`gunicorn -k gthread` serving `app` (default `api:create_app()`) in a subprocess, configured by
    environment.

    `restart()` stops and starts it on the same port (clients reconnect); `worker_pids()` lists the
    worker processes (children of the arbiter), `worker_of(live)` the one holding a client's socket.
    """

    def __init__(self, store_url: str, *, workers: int = 2, threads: int = 32, ping: float = 2.0,
                 app: str = "api:create_app()", extra_env: dict | None = None):
        self.app = app
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.workers = workers
        self.threads = threads
        self.env = {**os.environ, "ALCABOHNE_STORE_URL": store_url, "ALCABOHNE_WS_PING_INTERVAL": str(ping),
                    "PYTHONPATH": str(ROOT), **(extra_env or {})}
        self.env.pop("REDIS_URL", None)
        self.proc: subprocess.Popen | None = None
        self.log = b""

    def start(self, timeout: float = 20.0) -> None:
        """Start and wait until GET /api/v1/health answers; raise RuntimeError with the log otherwise."""
        refuse_in_fast_lane()
        # gthread accepts at most worker_connections (default 1000) connections per worker: sized from
        # the threads as `alcabohne serve` and deploy/gunicorn.conf.py do, or sockets beyond that hang.
        args = [sys.executable, "-m", "gunicorn", "-k", "gthread", "-w", str(self.workers),
                "--threads", str(self.threads),
                "--worker-connections", str(worker_connections_for(self.threads)),
                "-b", f"127.0.0.1:{self.port}", "--no-control-socket",
                "--graceful-timeout", "2", "--timeout", "30", "--log-level", "warning",
                self.app]
        self.proc = subprocess.Popen(args, cwd=ROOT, env=self.env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        self._stderr = []
        threading.Thread(target=self._drain, args=(self.proc,), daemon=True).start()
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            try:
                with urllib.request.urlopen(self.url + "/api/v1/health", timeout=1) as resp:
                    if resp.status == 200 and len(self.worker_pids()) >= self.workers:
                        return
            except OSError:
                pass
            time.sleep(0.1)
        self.stop()
        raise RuntimeError("gunicorn did not start:\n" + b"".join(self._stderr).decode(errors="replace"))

    def _drain(self, proc: subprocess.Popen) -> None:
        for line in proc.stderr:
            self._stderr.append(line)
        proc.stderr.close()

    def worker_pids(self) -> list[int]:
        """Return the pids of the live workers (children of the arbiter, read from /proc)."""
        if self.proc is None:
            return []
        children = []
        for stat in Path("/proc").glob("[0-9]*/stat"):
            try:
                fields = stat.read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue  # the process ended meanwhile
            if int(fields[1]) == self.proc.pid and fields[0] != "Z":
                children.append(int(stat.parent.name))
        return children

    def worker_of(self, live) -> int | None:
        """Return the pid of the worker holding the server end of `live`'s socket (a LiveSocket), or
        None when it is not connected (or its worker is gone)."""
        ws = live.ws
        if ws is None:
            return None
        try:
            return socket_holder(ws.sock, self.worker_pids())
        except OSError:
            return None  # closed meanwhile

    def stop(self) -> None:
        """Stop gunicorn (SIGTERM, SIGKILL after 10 s) and wait for it."""
        proc, self.proc = self.proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        self.log = b"".join(self._stderr)

    def restart(self) -> None:
        self.stop()
        self.start()

    def __enter__(self) -> Gunicorn:
        self.start()
        return self

    def __exit__(self, *exc) -> None:
        self.stop()
