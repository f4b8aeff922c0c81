"""The embedded default (SQLite store, in-process broker) on a real one-worker gunicorn."""

from __future__ import annotations

import pytest

from api.cli.netclient import HttpApi, LiveSocket
from tests.live.play import duo_game, move
from tests.live.servers import Gunicorn

pytestmark = [pytest.mark.live, pytest.mark.gunicorn]


def test_pushes_and_presence_on_the_embedded_store(tmp_path) -> None:
    with Gunicorn(f"sqlite:///{tmp_path}/games.db", workers=1, ping=1.0) as server:
        http = HttpApi(server.url)
        game_id, tokens = duo_game(http)
        socks = [LiveSocket(server.url, game_id, tokens[seat]) for seat in (0, 1)]
        try:
            for sock in socks:
                sock.connect().wait(lambda f: f["type"] == "state", keep=True)  # presence may come first
            socks[0].wait(lambda f: f["type"] == "presence" and all(s["online"] for s in f["seats"]))
            for _ in range(4):
                answer = move(http, game_id, tokens)
                for seat, sock in enumerate(socks):
                    frame = sock.wait(lambda f: f["type"] == "state")
                    assert (frame["version"], frame["view"]["seat"]) == (answer["version"], seat)
            socks[1].close()
            frame = socks[0].wait(lambda f: f["type"] == "presence", timeout=2.0)
            assert [s["online"] for s in frame["seats"]] == [True, False]
        finally:
            for sock in socks:
                sock.close()
