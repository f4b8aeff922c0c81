"""A private redis-server for tests: free loopback port, temporary directory, AOF fsync'd on every write.

Never the machine's shared instance on 6379. `stop()` + `start()` restart it on the same port and
directory, so the AOF replays what was acknowledged before.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

# How long start() waits for the server to answer PING (seconds).
START_TIMEOUT = 10.0


def redis_server_binary() -> str | None:
    """Return the path of `redis-server` on PATH, or None."""
    return shutil.which("redis-server")


def require_redis_server() -> None:
    """Skip the calling test without `redis-server`; under CI (ALCABOHNE_CI=1) fail instead."""
    import pytest  # only the fixtures that call this need pytest

    if redis_server_binary() is None:
        message = "redis-server is not on PATH (Debian package redis-server; .ci/run installs it)"
        if os.environ.get("ALCABOHNE_CI") == "1":
            pytest.fail(message)
        pytest.skip(message)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _ping(port: int) -> bool:
    """Return True when a Redis on `port` answers PING with PONG (raw RESP, no client library)."""
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as sock:
            sock.sendall(b"PING\r\n")
            return sock.recv(64).startswith(b"+PONG")
    except OSError:
        return False


class RedisServer:
    """One private redis-server process. Use as a context manager or call start()/stop()."""

    def __init__(self, binary: str | None = None) -> None:
        found = binary or redis_server_binary()
        if found is None:
            raise FileNotFoundError("redis-server is not on PATH")
        self.binary = found
        self.dir = Path(tempfile.mkdtemp(prefix="alcabohne-redis-"))
        self.port = _free_port()
        self._proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    @property
    def pid(self) -> int | None:
        """The server process's id while it runs (for CPU accounting in tests/perf/), else None."""
        return self._proc.pid if self._proc is not None else None

    def start(self) -> None:
        """Start the server (again) on this port and directory; return once it answers PING.

        Raises RuntimeError with the server's log when it exits or stays silent for START_TIMEOUT.
        """
        if self._proc is not None:
            return
        args = [
            self.binary,
            "--bind", "127.0.0.1",
            "--port", str(self.port),
            "--dir", str(self.dir),
            "--save", "",
            "--appendonly", "yes",
            "--appendfsync", "always",
            "--maxmemory-policy", "noeviction",
            "--logfile", "redis.log",
            "--daemonize", "no",
            "--protected-mode", "yes",
        ]  # fmt: skip
        self._proc = subprocess.Popen(args, cwd=self.dir, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if _ping(self.port):
                return
            if self._proc.poll() is not None:
                break
            time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"redis-server did not start on port {self.port}:\n{self.log_tail()}")

    def stop(self) -> None:
        """Stop the server with SIGTERM (it flushes the AOF), SIGKILL after 10 s; wait for it to exit."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()

    def kill(self) -> None:
        """Stop the server abruptly (SIGKILL): only what was fsync'd to the AOF survives."""
        proc, self._proc = self._proc, None
        if proc is not None:
            proc.kill()
            proc.wait()

    def restart(self, *, hard: bool = False) -> None:
        """Stop (SIGKILL when `hard`) and start again on the same port and directory."""
        if hard:
            self.kill()
        else:
            self.stop()
        self.start()

    def remove(self) -> None:
        """Stop the server and delete its directory."""
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)

    def log_tail(self, lines: int = 20) -> str:
        path = self.dir / "redis.log"
        if not path.exists():
            return "(no log)"
        return os.linesep.join(path.read_text(errors="replace").splitlines()[-lines:])

    def __enter__(self) -> RedisServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()
