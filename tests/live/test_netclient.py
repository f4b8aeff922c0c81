"""`alcabohne play --server URL` (api/cli/netclient.py) against a live server, driven by scripted stdin."""

from __future__ import annotations

import gc
import re
import subprocess
import sys
import threading
import warnings
from collections.abc import Iterator

import pytest

from api.cli.netclient import HttpApi, LiveSocket
from api.store.memory import MemoryStore
from tests.live.play import Bot
from tests.live.servers import ROOT, ThreadServer

pytestmark = pytest.mark.live


@pytest.fixture
def server(no_leaked_threads) -> Iterator[ThreadServer]:
    store = MemoryStore()
    try:
        with ThreadServer(store, WS_PING_INTERVAL=1.0) as running:
            yield running
    finally:
        store.close()


def _play(*args: str, stdin: str) -> str:
    """Run the command line in a subprocess; return its output (stdout and stderr)."""
    done = subprocess.run([sys.executable, "-m", "api.cli", "play", *args], input=stdin, cwd=ROOT,
                          capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout + done.stderr


def test_a_solo_game_over_the_network(server: ThreadServer) -> None:
    out = _play("--server", server.url, stdin="1\n" * 6 + "q\n")
    game_id = re.search(r"game (\S+) - you are player 1", out).group(1)
    assert out.count("Your choice") == 7 and "Refused" not in out
    assert "== Al Cabohne (solo)" in out
    assert HttpApi(server.url).get(game_id)["version"] == 1 + 6


def test_joining_a_duo_game_and_playing_against_a_remote_seat(server: ThreadServer) -> None:
    http = HttpApi(server.url)
    grant = http.create("duo")
    bot = Bot(server.url, grant["game_id"], grant["token"])  # seat 0 plays over its own socket
    thread = threading.Thread(target=bot.run, name="seat-0-bot")
    thread.start()
    try:
        out = _play("--server", server.url, "--join", grant["join_code"], stdin="1\n" * 20 + "q\n")
    finally:
        bot.stop = True
        thread.join(timeout=10)
    assert "you are player 2" in out and "Refused" not in out
    assert out.count("Your choice") == 21
    version = http.get(grant["game_id"])["version"]
    assert version == 2 + 20 + len(bot.acked)  # created, joined, our 20 moves and the bot's
    assert bot.acked


def test_join_needs_a_server() -> None:
    done = subprocess.run([sys.executable, "-m", "api.cli", "play", "--join", "ABCDEF"], cwd=ROOT,
                          capture_output=True, text=True, timeout=30, check=False)
    assert done.returncode == 2 and "--join needs --server" in done.stderr


def test_the_library_takes_the_hellos_state_even_when_it_holds_a_newer_version(server: ThreadServer) -> None:
    # A store restored from a backup is behind the client: the hello's state is the truth (docs/websocket.md).
    grant = HttpApi(server.url).create("solo")
    live = LiveSocket(server.url, grant["game_id"], grant["token"], since=grant["version"] + 40).connect()
    try:
        state = live.wait(lambda frame: frame["type"] == "state", timeout=10)
        assert state["version"] == grant["version"] == live.version
    finally:
        live.close()


def test_a_refused_handshake_leaves_no_socket_open(server: ThreadServer) -> None:
    # simple-websocket leaves the TCP socket of a refused handshake to the garbage collector; ours closes it.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ResourceWarning)
        with pytest.raises(OSError, match="refused"):
            LiveSocket(server.url, "x" * 65, None).connect()  # no such id: 404 at the handshake
        gc.collect()
    assert not [w for w in caught if issubclass(w.category, ResourceWarning)]
