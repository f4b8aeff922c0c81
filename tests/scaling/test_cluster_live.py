"""Two gunicorn workers on a three-master Redis Cluster: games whose keys live on different nodes,
each with sockets on both workers, and every socket receives every version (the nudges cross workers
by sharded pub/sub on the node of each game, subscribed while a worker holds a socket of the game)."""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
import redis
from redis.cluster import RedisCluster

from api.cli.netclient import HttpApi, LiveSocket
from api.store.redis import game_key
from tests.live.play import duo_game
from tests.live.servers import Gunicorn
from tests.redis_server import RedisClusterServers

pytestmark = [pytest.mark.live, pytest.mark.redis]


@pytest.fixture
def server(redis_cluster: RedisClusterServers) -> Iterator[Gunicorn]:
    for node in redis_cluster.servers:
        with redis.Redis(port=node.port) as client:
            client.flushall()
    with Gunicorn(redis_cluster.url, workers=2, ping=1.0) as running:
        yield running


def _games_on_every_node(http: HttpApi, cluster: RedisClusterServers) -> list[tuple[str, dict[int, str]]]:
    """Create duo games until one lives on each master; return one game per master."""
    first = cluster.servers[0]
    by_node: dict[str, tuple[str, dict[int, str]]] = {}
    with RedisCluster(host="127.0.0.1", port=first.port) as client:
        for _ in range(60):
            game_id, tokens = duo_game(http)
            by_node.setdefault(client.get_node_from_key(game_key(game_id, "state")).name, (game_id, tokens))
            if len(by_node) == len(cluster.servers):
                return list(by_node.values())
    raise AssertionError(f"60 games landed on {len(by_node)} nodes only")


def _socket_on(server: Gunicorn, game_id: str, token: str, pid: int | None, opened: list) -> LiveSocket:
    """Open sockets until one is served by a worker other than `pid` (any worker when None)."""
    for _ in range(60):
        sock = LiveSocket(server.url, game_id, token).connect()
        opened.append(sock)
        sock.wait(lambda f: f["type"] == "state")
        holder = server.worker_of(sock)
        if holder is not None and holder != pid:
            return sock
        sock.close()
    raise AssertionError("every socket landed on the same worker")


def test_every_socket_of_games_on_every_node_receives_every_version(
        server: Gunicorn, redis_cluster: RedisClusterServers) -> None:
    http = HttpApi(server.url)
    games = _games_on_every_node(http, redis_cluster)
    opened: list[LiveSocket] = []
    try:
        sockets: dict[str, list[LiveSocket]] = {}
        for game_id, tokens in games:
            a = _socket_on(server, game_id, tokens[0], None, opened)
            b = _socket_on(server, game_id, tokens[1], server.worker_of(a), opened)
            watcher = LiveSocket(server.url, game_id, None).connect()  # a table: either worker
            opened.append(watcher)
            watcher.wait(lambda f: f["type"] == "state")
            sockets[game_id] = [a, b, watcher]
        for _ in range(8):  # moves over HTTP, which lands on either worker
            for game_id, tokens in games:
                seat = http.get(game_id)["view"]["active"]
                state = http.get(game_id, tokens[seat])
                answer = http.act(game_id, tokens[seat], state["view"]["legal_actions"][0], state["version"],
                                  key=str(uuid.uuid4()))
                version = answer["version"]
                for sock in sockets[game_id]:
                    sock.wait(lambda f, v=version: f["type"] == "state" and f["version"] == v)
    finally:
        for sock in opened:
            sock.close()
