"""How redis+sentinel:// and redis+cluster:// URLs (and the WAIT settings) become a store's clients
(api/store/redis_connect.py, api.store.open_store). Nothing here reaches a server: clients connect
lazily; the tests against real servers are the other files of tests/scaling/."""

from __future__ import annotations

import pytest

from api.store import open_store
from api.store.redis_connect import connect


def test_a_sentinel_url_carries_service_auth_tls_db_and_the_sentinels_own_auth() -> None:
    url = ("redis+sentinel://user:p%40ss@s1:26379,s2:26380,[::1]:26381/alcabohne"
           "?db=2&ssl=true&ssl_ca_certs=/etc/ca.pem&sentinel_password=sp&wait_replicas=1")
    made = connect(url, timeout=1.0, pool_size=4)
    pool = made.client.connection_pool
    assert made.kind == "sentinel" and pool.service_name == "alcabohne"
    kwargs = pool.connection_kwargs
    assert (kwargs["username"], kwargs["password"], kwargs["db"]) == ("user", "p@ss", 2)
    assert kwargs["ssl_ca_certs"] == "/etc/ca.pem" and "SSL" in pool.connection_class.__name__
    sentinels = [s.connection_pool.connection_kwargs for s in pool.sentinel_manager.sentinels]
    assert [(k["host"], k["port"], k["password"]) for k in sentinels] == [
        ("s1", 26379, "sp"), ("s2", 26380, "sp"), ("::1", 26381, "sp")]
    assert made.options == {"wait_replicas": "1"}  # the store's, not redis-py's
    assert pool.max_connections == 4  # a blocking pool, like the single server's


def test_a_cluster_url_names_any_nodes_and_makes_no_connection_before_use() -> None:
    made = connect("redis+cluster://:secret@10.0.0.1:6379,10.0.0.2:6379?wait_timeout=0.5", timeout=1.0,
                   pool_size=4)
    assert made.kind == "cluster" and made.sharded and made.options == {"wait_timeout": "0.5"}
    assert made._node_kwargs["password"] == "secret"
    made.client.close()  # never made: nothing to close, no network touched


@pytest.mark.parametrize("url", [
    "redis+sentinel://s1:26379,s2:26379/",  # no service
    "redis+sentinel://s1:26379/a/b",  # two path parts
    "redis+sentinel://s1/alcabohne",  # no port
    "redis+cluster://n1:6379/0",  # a cluster has one database
    "redis+cluster://n1:port",
])
def test_malformed_urls_are_refused(url: str) -> None:
    with pytest.raises(ValueError):
        open_store(url)


def test_wait_settings_come_from_the_call_the_url_or_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("ALCABOHNE_REDIS_WAIT_REPLICAS", "2")
    monkeypatch.setenv("ALCABOHNE_REDIS_WAIT_TIMEOUT", "0.25")
    stores = [
        open_store("redis://127.0.0.1:1/0"),
        open_store("redis://127.0.0.1:1/0?wait_replicas=1&wait_timeout=2"),
        open_store("redis://127.0.0.1:1/0", wait_replicas=0),
    ]
    try:
        assert [(s.wait_replicas, s.wait_timeout) for s in stores] == [(2, 0.25), (1, 2.0), (0, 0.25)]
    finally:
        for store in stores:
            store.close()
    with pytest.raises(ValueError):  # the wait must end before the command's own timeout
        open_store("redis://127.0.0.1:1/0?wait_replicas=1&wait_timeout=9")
