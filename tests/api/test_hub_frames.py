"""How the hubs of other processes bring their sockets to a commit (docs/architecture.md): they hear the
store's announcement (a move's log entry, nothing secret), follow it through their reader (the move
applied to the version they hold, or a read), and render every frame themselves: exactly the frames
the committing process renders for its own sockets. A state after every change, per seat:
docs/websocket.md."""

from __future__ import annotations

import time

import pytest

import engine
from api.game import auth
from api.game.model import Lifetimes
from api.game.seats import table_info
from api.game.service import GameService
from api.live.frames import state_frame
from api.live.hub import Connection, Hub
from api.live.wssocket import Sender
from api.store.memory import MemoryStore

BASE = "http://table.test/"
LIFETIMES = Lifetimes(game=3600, finished=600, lobby=600, transfer=600)


@pytest.fixture
def service():
    store = MemoryStore()
    yield GameService(store, LIFETIMES)
    store.close()


def worker(store) -> tuple[GameService, Hub]:
    """Return the service and hub of one more worker process over `store` (as create_app builds them)."""
    hub = Hub(store, ping_interval=25)
    return GameService(store, LIFETIMES, fanout=hub), hub


def duo(service: GameService):
    """Return (game id, {seat: token}) of a duo game with both seats taken."""
    grant = service.create("duo", None, BASE)
    joined = service.join(grant["join_code"], "client", BASE)
    return grant["game_id"], {grant["seat"]: grant["token"], joined["seat"]: joined["token"]}


def attach(hub: Hub, game_id: str, seat: int | None, token: str | None, since: int) -> Connection:
    # A socket-less Sender: every frame waits, where the test reads it.
    conn = Connection(game_id, seat, auth.token_hash(token) if token else None, 2, Sender(None, None, since))
    hub.attach(conn)
    return conn


def states_of(conn: Connection, version: int, timeout: float = 5.0) -> list[str]:
    """Return the state frames pushed to `conn` once one of `version` is there (waits up to `timeout`)."""
    deadline = time.monotonic() + timeout
    while True:
        states = [text for text in conn.sender.waiting() if text.startswith('{"type":"state"')]
        if any(f'"version":{version},' in text for text in states) or time.monotonic() > deadline:
            return states
        time.sleep(0.005)


def counting_reads(store) -> list:
    """Count the store's game reads (load_latest) from now on."""
    reads: list = []
    load_latest = store.load_latest
    store.load_latest = lambda *args: reads.append(args) or load_latest(*args)
    return reads


def test_another_hub_follows_a_move_from_the_version_it_holds_without_reading(service):
    """Every socket of the listening process gets what a hub renders from the committed game: the move's
    events for the sockets one version behind, none for a socket further behind, the mover's own view
    and the table's; the listening process read nothing (it held the version before)."""
    game_id, tokens = duo(service)
    listener, hub = worker(service.store)
    committer, committer_hub = worker(service.store)
    try:
        game, _events = listener.latest(game_id)
        listener.follow(game_id, game.version, None)  # holds the version before (read once)
        state = game.state()
        mover = state.active
        other = 1 - mover
        version = game.version + 1
        behind = attach(hub, game_id, other, tokens[other], game.version - 1)
        ready = attach(hub, game_id, other, tokens[other], game.version)
        moving = attach(hub, game_id, mover, tokens[mover], game.version)
        table = attach(hub, game_id, None, None, game.version)
        reads = counting_reads(service.store)
        action = engine.legal_actions(state)[0]
        assert committer.act(game_id, tokens[mover], action, game.version, "m1").version == version
        new_state, events = engine.apply(state, action)
        seats = table_info(game.doc)
        assert states_of(ready, version) == [state_frame(new_state, version, other, events, seats)]
        assert states_of(behind, version) == [state_frame(new_state, version, other, None, seats)]
        assert states_of(moving, version) == [state_frame(new_state, version, mover, events, seats)]
        assert states_of(table, version) == [state_frame(new_state, version, None, events, seats)]
        assert reads == []
        # The next move made there starts from what it followed: the stored version.
        after, _ = service.latest(game_id)
        assert listener.recent.get(game_id, version).doc["position"] == after.doc["position"]
    finally:
        hub.close()
        committer_hub.close()


def test_a_hub_that_does_not_hold_the_version_before_reads_the_game(service):
    """Through the store's broker, as between two workers: the opponent's socket gets the very frame
    a hub renders from the committed game, with the move's events, and nothing of the mover's hand."""
    game_id, tokens = duo(service)
    _listener, hub = worker(service.store)
    committer, committer_hub = worker(service.store)
    try:
        game, _events = service.latest(game_id)
        mover = game.state().active
        other = 1 - mover
        watcher = attach(hub, game_id, other, tokens[other], game.version)
        reads = counting_reads(service.store)
        action = engine.legal_actions(game.state())[0]
        outcome = committer.act(game_id, tokens[mover], action, game.version, "m1")
        assert outcome.version == game.version + 1 and not outcome.replayed
        states = states_of(watcher, outcome.version)
        assert len(reads) == 1
        after, events = service.latest(game_id)
        assert states == [state_frame(after.state(), after.version, other, events(), table_info(after.doc))]
        assert '"events"' in states[0]
    finally:
        hub.close()
        committer_hub.close()


def test_a_change_at_the_table_is_read_and_a_moved_seat_s_socket_is_closed(service):
    """A transfer's announcement carries nothing (the seats' token hashes changed): the listening hub
    reads the game, and the socket of the seat's old device is told and closed."""
    game_id, tokens = duo(service)
    _listener, hub = worker(service.store)
    committer, committer_hub = worker(service.store)
    try:
        game, _events = service.latest(game_id)
        old = attach(hub, game_id, 1, tokens[1], game.version)
        code = committer.transfer(game_id, tokens[1], BASE)["transfer_code"]
        committer.join(code, "client", BASE)
        deadline = time.monotonic() + 5
        while not old.sender.closing and time.monotonic() < deadline:
            time.sleep(0.005)
        assert old.sender.closing and old.sender.close_as == (1008, "bad_token")
        assert '"code":"bad_token"' in old.sender.waiting()[-1]
    finally:
        hub.close()
        committer_hub.close()
