"""deploy/scaling/ as far as CI can check it without a container engine: the compose files parse and
mount files that exist, their store URLs are ones the app takes, and a real Sentinel runs on
deploy/scaling/sentinel.conf (pointed at a private primary instead of the compose service's name)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest
import redis
import yaml

from api.store.redis_connect import connect
from tests.live.servers import free_port
from tests.redis_server import RedisServer, _wait_for, require_redis_server

SCALING = Path(__file__).resolve().parents[2] / "deploy" / "scaling"


@pytest.mark.parametrize("name", ["compose-sentinel.yaml", "compose-cluster.yaml"])
def test_compose_examples_parse_mount_existing_files_and_name_a_store_the_app_takes(name: str) -> None:
    compose = yaml.safe_load((SCALING / name).read_text())
    for service in compose["services"].values():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if source.startswith("."):
                assert (SCALING / source).exists(), (name, source)
    env = compose["services"]["app"]["environment"]
    connector = connect(env["REDIS_URL"], timeout=1.0, pool_size=4)  # parses; connects lazily
    assert connector.kind == {"compose-sentinel.yaml": "sentinel", "compose-cluster.yaml": "cluster"}[name]
    assert int(env.get("ALCABOHNE_REDIS_WAIT_REPLICAS", 0)) >= 0


def test_a_sentinel_runs_on_the_shipped_configuration(tmp_path: Path) -> None:
    require_redis_server()
    with RedisServer() as primary:
        text = (SCALING / "sentinel.conf").read_text()
        assert "sentinel monitor alcabohne redis-primary 6379 2" in text
        conf = tmp_path / "sentinel.conf"
        conf.write_text(text.replace("redis-primary 6379", f"127.0.0.1 {primary.port}"))
        port = free_port()
        proc = subprocess.Popen([primary.binary, str(conf), "--sentinel", "--port", str(port),
                                 "--bind", "127.0.0.1"], cwd=tmp_path, stdout=subprocess.DEVNULL,
                                stderr=subprocess.STDOUT)
        try:
            with redis.Redis(port=port, decode_responses=True) as client:
                _wait_for(lambda: client.sentinel_get_master_addr_by_name("alcabohne")
                          == ("127.0.0.1", primary.port), "the Sentinel")
                assert client.sentinel_master("alcabohne")["down-after-milliseconds"] == 5000
        finally:
            proc.kill()
            proc.wait()
