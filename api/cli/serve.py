"""`alcabohne serve`: gunicorn started from code, with the API app in every worker.

The embedded SQLite store (in the data dir) is the default and fans out in-process, so it runs one
worker; REDIS_URL switches to Redis, which allows several workers (and hosts).
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
import sys
from collections.abc import Callable

import segno
from gunicorn.app.base import BaseApplication

from api.ops.sizing import TABLE_SOCKETS, expected_sockets, socket_cap, threads_for, worker_connections_for


def lan_address() -> str:
    """Return this machine's address on the local network (no packet is sent), or 127.0.0.1."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("10.254.254.254", 1))  # any non-local address selects the outgoing interface
        return probe.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        probe.close()


def public_base(host: str, port: int, public_url: str | None) -> str:
    """Return the URL phones should open: `public_url`, else this machine's LAN (or loopback) address."""
    if public_url:
        return public_url.rstrip("/")
    if host in ("0.0.0.0", "", "::"):
        host = lan_address()
    return f"http://{host}:{port}"


def check_port(host: str, port: int) -> None:
    """Raise SystemExit with one sentence when this process could not listen on `host`:`port` now.

    Bound and released at once, with SO_REUSEADDR as gunicorn binds, so only a socket that would make
    gunicorn fail (a listener, not a connection closing in TIME_WAIT) makes it fail. `serve` asks before
    it prints the address and QR code: a taken port used to show both and then stop.
    """
    try:
        infos = socket.getaddrinfo(host or None, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as err:
        raise SystemExit(f"Cannot listen on {host}:{port}: the address is unknown ({err.strerror}).") \
            from None
    family, kind, proto, _name, address = infos[0]
    with socket.socket(family, kind, proto) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(address)
        except OSError as err:
            if err.errno == errno.EADDRINUSE:
                raise SystemExit(f"Port {port} is already in use (another program, perhaps another "
                                 f"alcabohne serve, listens on it): stop that program or choose another "
                                 f"port with --port or PORT.") from None
            if err.errno == errno.EACCES:
                raise SystemExit(f"Not allowed to listen on port {port} (ports below 1024 need extra "
                                 f"rights): choose another port with --port.") from None
            raise SystemExit(f"Cannot listen on {host}:{port}: {err.strerror}.") from None


class _Server(BaseApplication):
    """gunicorn with settings from code instead of a config file or the command line."""

    def __init__(self, settings: dict, app_config: dict, app_factory: Callable[[dict], object] | None):
        self.settings = settings
        self.app_config = app_config
        self.app_factory = app_factory
        super().__init__()

    def load_config(self):
        for key, value in self.settings.items():
            self.cfg.set(key, value)

    def load(self):
        # Runs in each worker (no preload): stores own connections and threads that must not cross a fork.
        if self.app_factory is not None:
            return self.app_factory(self.app_config)
        from api import create_app

        return create_app(self.app_config)


def serve(host: str, port: int, workers: int, data_dir: str | None, public_url: str | None,
          redis_url: str | None, *, app_factory: Callable[[dict], object] | None = None) -> None:
    """Run the server until interrupted. Raises SystemExit (with the reason) for settings that cannot work.

    `app_factory(config)` builds the WSGI app in each worker (default: api.create_app); the benchmarks
    pass one that adds their baselines to the real app (tests/perf/baselines.py).
    """
    from api.ops import logs
    from api.store import open_store

    redis_url = redis_url or os.environ.get("REDIS_URL") or None
    if workers < 1:
        raise SystemExit("--workers must be at least 1")
    if workers > 1 and not redis_url:
        raise SystemExit(
            f"The embedded store serves one worker only (its updates fan out inside one process); "
            f"you asked for {workers}. Set REDIS_URL (or --redis-url) to run several workers.")
    check_port(host, port)
    store_url = redis_url or ""
    # Open the store once here so that a wrong path or an unreachable Redis stops us before forking.
    try:
        store = open_store(store_url, data_dir)
    except ValueError as err:
        raise SystemExit(f"Cannot use the store: {err}") from None
    try:
        if not store.ping():
            raise SystemExit(f"The store does not answer: {redis_url or data_dir or 'embedded'}")
    finally:
        store.close()

    base = public_base(host, port, public_url)
    print(f"Al Cabohne Online: open {base} on the phones at the table.", flush=True)
    # A terminal that cannot draw the blocks still got the link above.
    with contextlib.suppress(OSError, UnicodeError):
        segno.make(base, error="m").terminal(out=sys.stdout, compact=True)
    sys.stdout.flush()

    # gthread: each websocket holds one pool thread for its life (api.ops.sizing; same as deploy/).
    threads = threads_for(expected_sockets(TABLE_SOCKETS), workers)
    settings = {
        "bind": f"[{host}]:{port}" if ":" in host else f"{host}:{port}",
        "workers": workers,
        "worker_class": "gthread",
        "threads": threads,
        "worker_connections": worker_connections_for(threads),
        "timeout": 30,
        "graceful_timeout": 10,
        "keepalive": 5,
        "max_requests": 0,  # never recycle workers: that would drop every open websocket
        # gunicorn >= 25 otherwise shares $HOME/.gunicorn/gunicorn.ctl between parallel servers.
        "control_socket_disable": True,
        "accesslog": None,
        "errorlog": "-",
        # gunicorn's warnings quote refused request lines, join codes and all: masked (api.ops.logs).
        "logconfig_dict": logs.logconfig_dict(plain=True),
    }
    app_config = {"STORE_URL": store_url, "DATA_DIR": data_dir, "PUBLIC_URL": base}
    if not os.environ.get("ALCABOHNE_METRICS_LOCAL_ONLY"):  # on every interface: metrics for this host only
        app_config["METRICS_LOCAL_ONLY"] = True
    if not os.environ.get("ALCABOHNE_WS_MAX_SOCKETS"):  # past the pool, refuse sockets (api.ops.sizing)
        app_config["WS_MAX_SOCKETS"] = socket_cap(threads)
    _Server(settings, app_config, app_factory).run()
