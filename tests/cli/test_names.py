"""Players' names in the terminal: every name printed is isolated from the line around it (U+2068 ...
U+2069), so a right-to-left name cannot reorder the words and numbers next to it; on the engine alone
(render, narrate, result_text over a whole game) and against a live server (`play --server --name`)."""

from __future__ import annotations

import random
import re
import threading
from collections.abc import Iterator

import pytest

import engine
from api.cli.netclient import HttpApi, play_online
from api.cli.terminal import narrate, render, result_text, seat_label
from api.store.memory import MemoryStore
from tests.live.play import Bot
from tests.live.servers import ThreadServer

SARA = "\u05e9\u05e8\u05d4 2"  # Hebrew letters, then a digit: unisolated, the digit would jump before them
NAMES = [SARA, "Ben"]


def bare(text: str, name: str) -> list[str]:
    """The places where `name` is printed without its isolates around it."""
    return [m.group(0) for m in re.finditer(re.escape(name), text)
            if text[m.start() - 1:m.start()] != "\u2068" or text[m.end():m.end() + 1] != "\u2069"]


def test_seat_labels():
    assert seat_label(0, NAMES) == f"\u2068{SARA}\u2069"
    assert seat_label(1, [None, None]) == "Player 2"
    assert seat_label(1) == "Player 2"


def test_every_name_in_a_whole_game_is_isolated():
    rng = random.Random(3)
    state = engine.new_game("duo", 41)
    text = []
    while state.phase != "over":
        seat = state.active
        text.append(render(engine.view(state, seat), NAMES))
        state, events = engine.apply(state, rng.choice(engine.legal_actions(state)))
        text.extend(narrate(events, 1 - seat, NAMES))
    final = engine.view(state, None)
    text += [render(final, NAMES), result_text(final, NAMES)]
    out = "\n".join(text)
    for name in NAMES:
        assert f"\u2068{name}\u2069" in out
        assert not bare(out, name), bare(out, name)[:3]
    assert "Final harvest: \u2068" in out and "Player 1" not in out


@pytest.fixture
def server() -> Iterator[ThreadServer]:
    store = MemoryStore()
    try:
        with ThreadServer(store, WS_PING_INTERVAL=1.0) as running:
            yield running
    finally:
        store.close()


def test_names_at_a_table_over_the_network(server: ThreadServer):
    http = HttpApi(server.url)
    grant = http.create("duo", "Ben")
    bot = Bot(server.url, grant["game_id"], grant["token"])  # Ben plays over his own socket
    thread = threading.Thread(target=bot.run, name="ben-bot")
    thread.start()
    lines: list[str] = []
    try:
        assert play_online(server.url, join=grant["join_code"], name=SARA, inp=lambda _p: "q",
                           out=lines.append) == 0
    finally:
        bot.stop = True
        thread.join(timeout=10)
    out = "\n".join(lines)
    assert f"you are player 2 (\u2068{SARA}\u2069)" in out
    assert "\u2068Ben\u2069: coins" in out and f"\u2068{SARA}\u2069 (you): coins" in out
    assert [s["name"] for s in http.get(grant["game_id"])["seats"]] == ["Ben", SARA]
    for name in NAMES:
        assert not bare(out, name), bare(out, name)[:3]
