"""gunicorn settings for Al Cabohne Online behind nginx, sized for websockets.

    REDIS_URL=redis://127.0.0.1:6379/0 gunicorn -c deploy/gunicorn.conf.py 'api:create_app()'

Sizing (api/ops/sizing.py, the same rule `alcabohne serve` uses): with the gthread worker every open
websocket holds ONE pool thread for its whole life (its handler, which also does all its sends) plus
ONE simple-websocket reader thread outside the pool. A full pool blocks new sockets *and* plain HTTP,
so each worker gets threads = 1.25 x (expected sockets / workers) + 32 for HTTP, and refuses a socket
past threads - 32 with 503 server_busy (ALCABOHNE_WS_MAX_SOCKETS, set below unless given):

    ALCABOHNE_SOCKETS (peak open sockets, all workers)    400    1000    2000
    workers = WEB_CONCURRENCY (default: 2, the cores)       2       2       4
    threads per worker                                     282     657     657
    OS threads per worker at peak (2 per socket + pool)   ~530   ~1270   ~1270

Beyond ~1000 sockets per worker prefer more workers (cores) or the gevent worker (docs/architecture.md,
"Serving many sockets").
The kernel caps threads before CPU does (measured 2026-11-30): every thread takes a pid, and
kernel.pid_max (32768 by default) counts the whole host, so two threads per socket stop a host at
about 16000 sockets less its other threads; and vm.max_map_count (65530) stops one process at about
22000 threads (~11000 sockets per worker). Past them a new socket fails with "can't start new
thread" and the worker can stall until it is killed. For more, raise both sysctls or add hosts.
Several workers need Redis (REDIS_URL): the embedded SQLite store fans out inside one process only.
Several workers also need PROMETHEUS_MULTIPROC_DIR for /metrics (see the hooks at the end).
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from api.ops.logs import logconfig_dict as _json_logging  # noqa: E402
from api.ops.sizing import (  # noqa: E402
    DEPLOY_SOCKETS,
    expected_sockets,
    socket_cap,
    threads_for,
    worker_connections_for,
)

bind = os.environ.get("BIND", "127.0.0.1:8000")
workers = int(os.environ.get("WEB_CONCURRENCY", "2"))
worker_class = "gthread"
threads = threads_for(expected_sockets(DEPLOY_SOCKETS), workers)
# Connections per worker: at least the pool (gunicorn would otherwise cap the sockets silently).
worker_connections = worker_connections_for(threads)
# A worker refuses sockets past its pool less the HTTP headroom (503 server_busy, Retry-After) rather
# than let them wait for a thread and hang plain requests too. The workers inherit this environment.
os.environ.setdefault("ALCABOHNE_WS_MAX_SOCKETS", str(socket_cap(threads)))

# gthread's timeout is a worker heartbeat, not a request limit: a socket open for hours is fine.
timeout = 30
# On reload/stop, sockets are closed after this; clients reconnect and resync by version.
graceful_timeout = 10
keepalive = 5
# Never recycle workers: every restart drops all of that worker's websockets.
max_requests = 0
max_requests_jitter = 0
# No preload: each worker opens its own store connections and pub/sub listener after the fork.
preload_app = False
# The control socket ($HOME/.gunicorn/gunicorn.ctl) would be shared by parallel servers: off.
control_socket_disable = True

# nginx on the same host sets X-Forwarded-*; set ALCABOHNE_PROXY_COUNT=1 for the app to trust it. The app
# believes those headers only from ALCABOHNE_TRUSTED_PROXIES (default 127.0.0.1 and ::1; api/ops/proxies.py).
# (compose.yaml: nginx is another container, so FORWARDED_ALLOW_IPS names its network.)
forwarded_allow_ips = os.environ.get("FORWARDED_ALLOW_IPS", "127.0.0.1")
accesslog = "-"
errorlog = "-"
loglevel = os.environ.get("LOG_LEVEL", "info")
# Every line on stderr is one JSON object (api/ops/logs.py), gunicorn's own lines included (journald keeps
# them). The access line names the path WITHOUT its query string (%(U)s, never %(r)s or %(q)s), no
# request header (Authorization carries seat tokens) and no user (%(u)s would decode Basic auth).
access_log_format = '%(h)s "%(m)s %(U)s" %(s)s %(B)s %(M)sms rid=%({x-request-id}o)s'
logconfig_dict = _json_logging(loglevel.upper())


# /metrics with several workers (api/ops/metrics.py): PROMETHEUS_MULTIPROC_DIR names a directory where every
# worker keeps its values; the scraped worker adds them up. Files of an earlier run would be counted
# again, so the directory is emptied when the arbiter starts, and a dead worker's gauges are dropped.
def on_starting(server):
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if directory:
        os.makedirs(directory, exist_ok=True)
        for name in os.listdir(directory):
            if name.endswith(".db"):
                os.remove(os.path.join(directory, name))


def child_exit(server, worker):
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        from prometheus_client import multiprocess

        multiprocess.mark_process_dead(worker.pid)
