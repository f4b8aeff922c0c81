"""deploy/ as far as CI can check it without a systemd host or a container engine: nginx -t on the site
file, gunicorn's config loads, the compose file parses and points at files that exist, Redis starts with
deploy/redis.conf and holds the durability settings, the units parse."""

from __future__ import annotations

import configparser
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import redis
import yaml

from tests.redis_server import RedisServer, redis_server_binary

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def _need(binary: str, package: str) -> str:
    """Return the path of `binary`; skip when missing, except under CI (ALCABOHNE_CI=1), where fail."""
    sbin = f"/usr/sbin/{binary}"  # root's PATH has it; a user's may not
    found = shutil.which(binary) or (sbin if os.access(sbin, os.X_OK) else None)
    if found is None:
        message = f"{binary} is not installed (Debian package {package}; .ci/run installs it)"
        if os.environ.get("ALCABOHNE_CI") == "1":
            pytest.fail(message)
        pytest.skip(message)
    return found


def test_nginx_accepts_the_site_file(tmp_path: Path) -> None:
    nginx = _need("nginx", "nginx")
    # The site file as shipped, with the certificate and log paths moved into tmp_path (nginx -t opens
    # both); wrapped in the smallest main config, as Debian's nginx.conf or the nginx image would.
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
                    "/CN=localhost", "-keyout", tmp_path / "key.pem", "-out", tmp_path / "cert.pem"],
                   check=True, capture_output=True)
    (tmp_path / "logs").mkdir()
    site = (DEPLOY / "nginx.conf").read_text()
    site = (site.replace("/etc/letsencrypt/live/beans.example/fullchain.pem", str(tmp_path / "cert.pem"))
                .replace("/etc/letsencrypt/live/beans.example/privkey.pem", str(tmp_path / "key.pem"))
                .replace("/var/log/nginx/", f"{tmp_path}/logs/"))
    (tmp_path / "site.conf").write_text(site)
    mime = "include /etc/nginx/mime.types;" if Path("/etc/nginx/mime.types").exists() else ""
    (tmp_path / "nginx.conf").write_text(
        f"pid {tmp_path}/nginx.pid;\nerror_log {tmp_path}/logs/error.log;\nevents {{}}\n"
        f"http {{ {mime} include {tmp_path}/site.conf; }}\n")
    args = [nginx, "-t", "-p", str(tmp_path), "-c", str(tmp_path / "nginx.conf"),
            "-e", str(tmp_path / "logs/error.log")]
    done = subprocess.run(args, capture_output=True, text=True, timeout=30)
    assert done.returncode == 0, done.stderr
    assert "test is successful" in done.stderr


def test_nginx_site_keeps_the_rules_of_the_app() -> None:
    site = (DEPLOY / "nginx.conf").read_text()
    assert "map $http_upgrade $connection_upgrade" in site
    ws = site[site.index("location ~ ^/api/v1/games/"):]
    ws = ws[:ws.index("}")]
    for line in ("proxy_read_timeout 75s;", "proxy_buffering off;", "proxy_http_version 1.1;",
                 "proxy_set_header Connection $connection_upgrade;"):
        assert line in ws
    # The access log names $uri, never $request or $args (query strings), nor the Authorization header.
    log_format = site[site.index("log_format"):site.index(";", site.index("log_format"))]
    assert "$uri" in log_format
    for leak in ("$request\"", "$request ", "$args", "$query_string", "$http_authorization", "$request_uri"):
        assert leak not in log_format


def _gunicorn_settings() -> dict:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    code = ("import runpy, json; s = runpy.run_path('deploy/gunicorn.conf.py'); print(json.dumps("
            "{k: v for k, v in s.items() if isinstance(v, (str, int, float, bool, type(None)))}))")
    out = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True, text=True,
                         check=True, timeout=60).stdout
    return json.loads(out)


@pytest.mark.gunicorn
def test_gunicorn_config_loads_and_never_logs_secrets(tmp_path: Path) -> None:
    settings = _gunicorn_settings()
    assert settings["worker_class"] == "gthread" and settings["max_requests"] == 0
    assert settings["threads"] >= 32 and settings["worker_connections"] >= settings["threads"]
    fmt = settings["access_log_format"]
    for leak in ("%(r)s", "%(q)s", "%(u)s", "%(f)s", "{authorization}i", "%(U)s?"):
        assert leak not in fmt
    # gunicorn itself loads the file and the app with it (no server is started).
    env = {**os.environ, "PYTHONPATH": str(ROOT), "REDIS_URL": "redis://127.0.0.1:9/0",
           "PROMETHEUS_MULTIPROC_DIR": str(tmp_path)}
    args = [sys.executable, "-m", "gunicorn", "--check-config", "-c", "deploy/gunicorn.conf.py",
            "api:create_app()"]
    done = subprocess.run(args, cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout + done.stderr


def test_compose_file_parses_and_names_existing_files() -> None:
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = compose["services"]
    assert set(services) == {"redis", "app", "nginx"}
    assert services["app"]["depends_on"]["redis"]["condition"] == "service_healthy"
    assert services["app"]["environment"]["REDIS_URL"].startswith("redis://redis:")
    assert "redis-cli" in services["redis"]["healthcheck"]["test"]
    assert services["nginx"]["network_mode"] == "service:app"
    build = services["app"]["build"]
    assert (DEPLOY / build["context"] / build["dockerfile"]).resolve().exists()
    for service in services.values():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                path = (DEPLOY / source).resolve()
                assert path.exists() or path.name == "certs", volume
    # Every file the image copies exists.
    for line in (DEPLOY / "Dockerfile").read_text().splitlines():
        if line.startswith("COPY "):
            for source in line.split()[1:-1]:
                assert (ROOT / source).exists(), line


def test_redis_runs_with_the_durability_settings() -> None:
    if redis_server_binary() is None:
        _need("redis-server", "redis-server")
    server = RedisServer()
    conf = DEPLOY / "redis.conf"
    try:
        # The shipped file, then the test's port and directory (later arguments win, as in compose).
        args = [server.binary, str(conf), "--port", str(server.port), "--dir", str(server.dir),
                "--bind", "127.0.0.1", "--daemonize", "no", "--logfile", ""]
        proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            client = redis.Redis(port=server.port, decode_responses=True, socket_connect_timeout=1)
            for _ in range(100):
                try:
                    client.ping()
                    break
                except redis.ConnectionError:
                    time.sleep(0.05)
            got = {key: client.config_get(key)[key] for key in
                   ("appendonly", "appendfsync", "maxmemory-policy", "aof-use-rdb-preamble")}
            client.close()
            assert got == {"appendonly": "yes", "appendfsync": "everysec", "maxmemory-policy": "noeviction",
                           "aof-use-rdb-preamble": "yes"}
        finally:
            proc.terminate()
            proc.wait(timeout=10)
    finally:
        server.remove()


def _unit(path: Path) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str
    parser.read(path)
    return parser


def test_systemd_units() -> None:
    app = _unit(DEPLOY / "alcabohne.service")
    service = app["Service"]
    assert service["Type"] == "notify"
    assert "HUP" in service["ExecReload"] and service["KillMode"] == "mixed"
    assert service["ProtectSystem"] == "strict" and service["NoNewPrivileges"] == "yes"
    assert "redis-server.service" in app["Unit"]["After"]
    assert "gunicorn.conf.py" in service["ExecStart"]
    drop_in = _unit(DEPLOY / "redis-server.service.d" / "alcabohne.conf")
    assert drop_in["Service"]["Restart"] == "always"
    analyze = shutil.which("systemd-analyze")
    if analyze:
        done = subprocess.run([analyze, "verify", str(DEPLOY / "alcabohne.service")], capture_output=True,
                              text=True, timeout=30)
        # Only the missing install (no /opt/alcabohne here) may be reported; never an unknown setting.
        problems = [line for line in (done.stdout + done.stderr).splitlines()
                    if line.strip() and "is not executable" not in line and "No such file" not in line]
        assert not problems, problems
