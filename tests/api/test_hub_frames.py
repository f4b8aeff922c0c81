"""The frames a commit carries in its nudge (api.live.frames.nudge_frames): rendered by the committer for the
other seats, forwarded as they are by the hubs of other processes, and exactly what those hubs would
have rendered themselves. The fan-out: docs/architecture.md; a state after every change, per seat:
docs/websocket.md."""

from __future__ import annotations

import queue

import pytest

import engine
from api import auth, jsontext
from api.live.frames import nudge_frames, state_frame
from api.live.hub import Connection, Hub
from api.night import table_info
from api.service import BOT_SEAT, GameService, Lifetimes, dumps
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
    conn = Connection(game_id, seat, auth.token_hash(token) if token else None, since, 2)
    hub.attach(conn)  # no `direct`: every frame waits in the outbox, where the test reads it
    return conn


def states_of(conn: Connection, timeout: float = 5.0) -> list[str]:
    """Return the state frames queued for `conn`: waits up to `timeout` for the first, then takes what
    is there (presence frames, which the broker delivers when it likes, are left out)."""
    out: list[str] = []
    while not out:
        item = conn.outbox.get(timeout=timeout)
        if isinstance(item, str) and item.startswith('{"type":"state"'):
            out.append(item)
    while True:
        try:
            item = conn.outbox.get_nowait()
        except queue.Empty:
            return out
        if isinstance(item, str) and item.startswith('{"type":"state"'):
            out.append(item)


def test_the_committer_renders_the_frames_of_the_other_players_seats_only():
    state = engine.new_game("duo", 5)
    mover = state.active
    other = 1 - mover
    action = engine.legal_actions(state)[0]
    state, events = engine.apply(state, action)
    seats = ["a" * 64, "b" * 64]
    # First the move's events (the log keeps none: other processes render from these), then the frames.
    head = jsontext.dumps(events)
    frame = state_frame(state, 7, other, events)
    assert nudge_frames(state, 7, events, seats, mover) == f"{head}\n{other}:{frame}"
    # A free seat or a bot's has no socket; solo has no other seat.
    seats[other] = None
    assert nudge_frames(state, 7, events, seats, mover) == head
    seats[other] = BOT_SEAT
    assert nudge_frames(state, 7, events, seats, mover) == head


def test_a_nudge_s_frames_are_forwarded_and_the_rest_is_rendered(service):
    game_id, tokens = duo(service)
    _listener, hub = worker(service.store)
    try:
        game, _events = service.latest(game_id)
        state = game.state()
        mover = state.active
        other = 1 - mover
        action = engine.legal_actions(state)[0]
        new_state, events = engine.apply(state, action)
        version = game.version + 1
        behind = attach(hub, game_id, other, tokens[other], game.version - 1)
        ready = attach(hub, game_id, other, tokens[other], game.version)
        moving = attach(hub, game_id, mover, tokens[mover], game.version)
        table = attach(hub, game_id, None, None, game.version)
        doc = dict(game.doc, position=engine.to_position(new_state))
        marker = dumps({"type": "state", "version": version, "forwarded": True})
        hub._on_nudge(game_id, version, (dumps(doc), f"{mover}:{engine.actions.parse(action)}",
                                         f"{jsontext.dumps(events)}\n{other}:{marker}"))
        # The socket that held the version before gets the committer's frame as it came.
        assert states_of(ready) == [marker]
        # The others get what the hub renders: without events two versions on, the mover's own view,
        # and the table's.
        seats = table_info(doc)
        assert states_of(behind) == [state_frame(new_state, version, other, None, seats)]
        assert states_of(moving) == [state_frame(new_state, version, mover, events, seats)]
        assert states_of(table) == [state_frame(new_state, version, None, events, seats)]
    finally:
        hub.close()


def test_a_committed_move_reaches_another_hub_with_the_frame_it_would_have_rendered(service):
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
        action = engine.legal_actions(game.state())[0]
        outcome = committer.act(game_id, tokens[mover], action, game.version, "m1")
        assert outcome.version == game.version + 1 and not outcome.replayed
        after, events = service.latest(game_id)
        [text] = states_of(watcher)
        assert text == state_frame(after.state(), after.version, other, events(), table_info(after.doc))
        assert '"events"' in text
    finally:
        hub.close()
        committer_hub.close()
