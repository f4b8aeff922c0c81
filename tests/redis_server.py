"""A private redis-server for tests: free loopback port, temporary directory, AOF fsync'd on every write.

Never the machine's shared instance on 6379. `stop()` + `start()` restart it on the same port and
directory, so the AOF replays what was acknowledged before.

Beside the single server: `RedisClusterServers` (three masters made a cluster by `redis-cli --cluster
create`) and `SentinelSet` (a primary, one replica and three Sentinels with short timeouts), for the
tests of tests/scaling/.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

from tests.live.servers import free_port, free_ports

# How long start() waits for the server to answer PING (seconds).
START_TIMEOUT = 10.0


def redis_server_binary() -> str | None:
    """Return the path of `redis-server` on PATH, or None."""
    return shutil.which("redis-server")


def require_redis_server(*, cli: bool = False) -> None:
    """Skip the calling test without `redis-server` (and, with `cli`, `redis-cli`, which makes a
    cluster); under CI (ALCABOHNE_CI=1) fail instead."""
    import pytest  # only the fixtures that call this need pytest

    needed = ("redis-server", "redis-cli") if cli else ("redis-server",)
    missing = [name for name in needed if shutil.which(name) is None]
    if missing:
        message = f"{' and '.join(missing)} not on PATH (Debian package redis-server; .ci/run installs it)"
        if os.environ.get("ALCABOHNE_CI") == "1":
            pytest.fail(message)
        pytest.skip(message)


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

    def __init__(self, binary: str | None = None, *, args: list[str] | None = None) -> None:
        found = binary or redis_server_binary()
        if found is None:
            raise FileNotFoundError("redis-server is not on PATH")
        self.binary = found
        self.args = list(args or [])  # more options (cluster mode, replicaof)
        self.dir = Path(tempfile.mkdtemp(prefix="alcabohne-redis-"))
        self.port = free_port()
        self.started = False  # once it has started, its port is its own: a restart keeps it
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

        A port found free when this server was made may be taken by the time it first starts (another
        process's listener, or an outgoing connection's port from the same range): the first start then
        takes other free ports and tries again. Raises RuntimeError with the server's log when it exits
        or stays silent for START_TIMEOUT.
        """
        for _ in range(3):
            if self._start_once():
                self.started = True
                return
            taken = "Address already in use" in self.log_tail()
            if self.started or not taken:
                break
            self.port = free_port()
            self.args = [str(free_port()) if before == "--cluster-port" else arg
                         for before, arg in zip(["", *self.args[:-1]], self.args, strict=True)]
        raise RuntimeError(f"redis-server did not start on port {self.port}:\n{self.log_tail()}")

    def _start_once(self) -> bool:
        if self._proc is not None:
            return True
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
            *self.args,
        ]  # fmt: skip
        self._proc = subprocess.Popen(args, cwd=self.dir, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + START_TIMEOUT
        while time.monotonic() < deadline:
            if _ping(self.port):
                return True
            if self._proc.poll() is not None:
                break
            time.sleep(0.02)
        self.stop()
        return False

    def stop(self) -> None:
        """Stop the server with SIGTERM (it flushes the AOF), SIGKILL after 10 s; wait for it to exit."""
        proc, self._proc = self._proc, None
        if proc is None:
            return
        terminate(proc)

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


def replica_online(primary_port: int, caught_up: bool = False) -> bool:
    """Return True when the primary on `primary_port` counts a replica as online (as WAIT does; a
    replica says its link is up a moment before its primary has its first acknowledgement); with
    `caught_up`, one that has acknowledged everything the primary wrote (after a replica was killed
    and started again, the primary may still list the killed connection, behind, for a moment)."""
    import redis

    with redis.Redis(port=primary_port, decode_responses=True) as client:
        info = client.info("replication")
    replicas = [v for k, v in info.items() if k.startswith("slave") and isinstance(v, dict)]
    return any(replica.get("state") == "online"
               and (not caught_up or int(replica.get("offset", -1)) >= info["master_repl_offset"])
               for replica in replicas)


def terminate(proc: subprocess.Popen, grace: float = 10) -> None:
    """SIGTERM `proc` (a server flushes its AOF), SIGKILL after `grace` seconds; wait for it to exit."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _wait_for(check, what: str, timeout: float = START_TIMEOUT) -> None:
    """Poll `check()` until it is true; raise RuntimeError naming `what` after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        try:
            if check():
                return
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out waiting for {what}")
        time.sleep(0.05)


class _Launched:
    """`with` starts the servers and removes them at the end, or at once when starting fails."""

    def __enter__(self):
        try:
            self.start()
        except BaseException:
            self.remove()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


class RedisClusterServers(_Launched):
    """Three private redis-servers in cluster mode made one cluster of three masters (no replicas).

    `url` is the store URL (redis+cluster://...). Use as a context manager.
    """

    def __init__(self, masters: int = 3) -> None:
        self.servers = [self._node() for _ in range(masters)]
        self.replicas: list[RedisServer] = []

    @staticmethod
    def _node() -> RedisServer:
        # The cluster bus port defaults to the port + 10000 (so only ports up to 55535 would do, and
        # that one may be taken): a free port of its own instead.
        return RedisServer(args=["--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                                 "--cluster-node-timeout", "2000", "--repl-diskless-sync-delay", "0",
                                 "--cluster-port", str(free_port())])

    def add_replica(self, master: RedisServer) -> RedisServer:
        """Start a node and make it a replica of `master` (redis-cli --cluster add-node --cluster-slave);
        return it once `master` counts it online."""
        import redis

        node = self._node()
        self.replicas.append(node)
        node.start()
        with redis.Redis(port=master.port, decode_responses=True) as client:
            master_id = client.cluster("myid")
        args = ["redis-cli", "--cluster", "add-node", f"127.0.0.1:{node.port}", f"127.0.0.1:{master.port}",
                "--cluster-slave", "--cluster-master-id", master_id]
        done = subprocess.run(args, capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster add-node failed:\n{done.stdout}\n{done.stderr}")
        _wait_for(lambda: replica_online(master.port), "the cluster replica", timeout=30)
        # A failover needs the votes of the other masters, which vote only for a replica they know: wait
        # until the gossip has told every master about it (else a kill right away is never failed over).
        with redis.Redis(port=node.port, decode_responses=True) as client:
            node_id = client.cluster("myid")

        def every_master_knows_it() -> bool:
            for server in self.servers:
                with redis.Redis(port=server.port, decode_responses=True) as client:
                    if f"{node_id} " not in client.execute_command("CLUSTER", "NODES"):
                        return False
            return True

        _wait_for(every_master_knows_it, "every master to know the cluster replica", timeout=30)
        return node

    @property
    def url(self) -> str:
        return "redis+cluster://" + ",".join(f"127.0.0.1:{s.port}" for s in self.servers)

    def start(self) -> None:
        """Start the servers, create the cluster and return once every node reports it ok."""
        import redis

        for server in self.servers:
            server.start()
        nodes = [f"127.0.0.1:{s.port}" for s in self.servers]
        done = subprocess.run(["redis-cli", "--cluster", "create", *nodes, "--cluster-replicas", "0",
                               "--cluster-yes"], capture_output=True, text=True, timeout=60)
        if done.returncode != 0:
            raise RuntimeError(f"redis-cli --cluster create failed:\n{done.stdout}\n{done.stderr}")
        for server in self.servers:
            with redis.Redis(port=server.port, decode_responses=True) as client:
                _wait_for(lambda c=client: c.cluster("info")["cluster_state"] == "ok", "the cluster")

    def remove(self) -> None:
        for server in self.servers + self.replicas:
            server.kill()  # the data goes anyway; SIGTERM may wait for an AOF rewrite to end
            server.remove()


class SentinelSet(_Launched):
    """A primary, one replica and three Sentinels (quorum 2) watching them as service `service`.

    The Sentinels judge the primary down after `down_after_ms` without an answer, so that a failover
    takes a few seconds. `url` is the store URL (redis+sentinel://...). Use as a context manager.
    """

    def __init__(self, service: str = "alcabohne", *, down_after_ms: int = 1000) -> None:
        self.service = service
        # A primary waits repl-diskless-sync-delay (5 s by default) for more replicas before it sends a
        # full copy to one: with a single replica that is 5 s of no replica after every failover.
        self.primary = RedisServer(args=["--repl-diskless-sync-delay", "0"])
        self.replica = RedisServer(args=["--repl-diskless-sync-delay", "0"])
        self.down_after_ms = down_after_ms
        self.sentinel_ports = free_ports(3)
        self.dir = Path(tempfile.mkdtemp(prefix="alcabohne-sentinel-"))
        self._procs: list[subprocess.Popen[bytes]] = []

    @property
    def url(self) -> str:
        hosts = ",".join(f"127.0.0.1:{port}" for port in self.sentinel_ports)
        return f"redis+sentinel://{hosts}/{self.service}"

    def start(self) -> None:
        """Start primary, replica (synced) and Sentinels (each seeing the replica and the two others)."""
        import redis

        self.primary.start()
        # The primary's port is known once it runs (RedisServer.start may take another).
        self.replica.args += ["--replicaof", "127.0.0.1", str(self.primary.port)]
        self.replica.start()
        _wait_for(lambda: replica_online(self.primary.port), "replica sync")
        for i, port in enumerate(self.sentinel_ports):
            conf = self.dir / f"sentinel-{i}.conf"  # a Sentinel rewrites its own file: one each
            conf.write_text(
                f"port {port}\nbind 127.0.0.1\ndir {self.dir}\nlogfile sentinel-{i}.log\n"
                f"sentinel monitor {self.service} 127.0.0.1 {self.primary.port} 2\n"
                f"sentinel down-after-milliseconds {self.service} {self.down_after_ms}\n"
                f"sentinel failover-timeout {self.service} 5000\n"
                f"sentinel parallel-syncs {self.service} 1\n")
            self._procs.append(subprocess.Popen([self.primary.binary, str(conf), "--sentinel"], cwd=self.dir,
                                                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL))
        for port in self.sentinel_ports:
            with redis.Redis(port=port, decode_responses=True) as client:
                _wait_for(lambda c=client: len(c.sentinel_slaves(self.service)) == 1
                          and len(c.sentinel_sentinels(self.service)) == 2, "the Sentinels", timeout=30)

    def primary_port(self) -> int:
        """The port of the primary the Sentinels name now."""
        import redis

        with redis.Redis(port=self.sentinel_ports[0], decode_responses=True) as client:
            return int(client.sentinel_get_master_addr_by_name(self.service)[1])

    def replaced(self, old_port: int, timeout: float = 30.0) -> int:
        """Wait until the Sentinels name a primary other than the one on `old_port`; return its port."""
        deadline = time.monotonic() + timeout
        while (port := self.primary_port()) == old_port:
            if time.monotonic() > deadline:
                raise RuntimeError(f"the Sentinels did not replace {old_port}:\n{self.log_tail()}")
            time.sleep(0.05)
        return port

    def remove(self) -> None:
        for proc in self._procs:  # a Sentinel keeps nothing worth a clean exit: its dir goes below
            proc.kill()
        for proc in self._procs:
            proc.wait()
        self._procs.clear()
        for server in (self.primary, self.replica):
            # The data goes anyway: SIGTERM may be refused while a replica writes its first AOF after a
            # sync ("can't exit"), which would cost stop()'s 10 s.
            server.kill()
            server.remove()
        shutil.rmtree(self.dir, ignore_errors=True)

    def log_tail(self, lines: int = 30) -> str:
        """The end of every Sentinel's log (what it saw of the failover)."""
        out = []
        for path in sorted(self.dir.glob("sentinel-*.log")):
            out += [f"== {path.name}", *path.read_text(errors="replace").splitlines()[-lines:]]
        return os.linesep.join(out)
