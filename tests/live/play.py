"""Helpers for the live tests: set up games over HTTP, make moves, check frames for leaks and shape."""

from __future__ import annotations

import json
import random
import time
import uuid

from api.cli.netclient import HttpApi
from api.live.ws_schema import SERVER


def duo_game(http: HttpApi) -> tuple[str, dict[int, str]]:
    """Create a duo game and fill its second seat; return (game id, {seat: token})."""
    grant = http.create("duo")
    joined = http.join(grant["join_code"])
    return grant["game_id"], {grant["seat"]: grant["token"], joined["seat"]: joined["token"]}


def move(http: HttpApi, game_id: str, tokens: dict[int, str], rng: random.Random | None = None) -> dict:
    """Make one legal move (random with `rng`, else the first) for the seat to move; return the answer."""
    seat = http.get(game_id)["view"]["active"]
    game = http.get(game_id, tokens[seat])
    actions = game["view"]["legal_actions"]
    action = rng.choice(actions) if rng else actions[0]
    return http.act(game_id, tokens[seat], action, game["version"], key=str(uuid.uuid4()))


def check_shape(frame: dict) -> None:
    """Assert that a server frame is one of the documented messages, with its required members."""
    kind = frame.get("type")
    assert kind in SERVER, frame
    for name in SERVER[kind]["required"]:
        assert name in frame, (name, frame)


def _lists(value, out: list) -> list:
    if isinstance(value, list):
        out.append(value)
        for item in value:
            _lists(item, out)
    elif isinstance(value, dict):
        for item in value.values():
            _lists(item, out)
    return out


def check_no_leak(frame: dict, position: dict, seat: int) -> None:
    """Assert that `frame`, sent to `seat`, shows no other hand, no deck order and no seed of `position`
    (engine.to_position of the stored game at the frame's version)."""
    text = json.dumps(frame)
    assert '"seed"' not in text and '"deck"' not in text
    own = frame["view"]["players"][seat]["hand"] if frame.get("type") == "state" else None
    # Every list in the frame but the viewer's own hand; short lists of 7 bean codes match by chance.
    lists = [found for found in _lists(frame, []) if found is not own]
    for other, player in enumerate(position["players"]):
        if other == seat:
            continue
        hand = player["hand"]
        if frame.get("type") == "state":
            assert frame["view"]["players"][other]["hand"] is None
        if len(hand) >= 5:
            assert hand not in lists, f"seat {other}'s hand leaked to seat {seat}"
    deck = position["deck"]
    if len(deck) >= 8:
        for found in lists:
            assert len(found) < 8 or found[:8] != deck[:8], "the deck order leaked"
    for event in frame.get("events", []):
        if event["type"] == "draw" and event["seat"] != seat:
            assert "bean" not in event, "another seat's draw leaked"


class Bot:
    """Plays one seat of one game over a LiveSocket until stopped: acts with the first legal action
    when it is its turn, reconnects (with its version) whenever the socket fails, and retries an
    unanswered action with the same id (idempotent), also after `stop` (for up to 15 s), so that a move
    applied by a worker killed before its ack is acked too. `acked` lists the versions its acks reported."""

    def __init__(self, base_url: str, game_id: str, token: str):
        from api.cli.netclient import LiveSocket

        self.live = LiveSocket(base_url, game_id, token)
        self.acked: list[int] = []
        self.errors: list[str] = []
        self.reconnects = 0
        self.stop = False

    def _connect(self, deadline: float | None = None) -> None:
        while not self._done(deadline):
            try:
                self.live.connect()
                return
            except OSError:
                time.sleep(0.1)

    def _done(self, deadline: float | None) -> bool:
        """Stopped, and either nothing is left unanswered or the time to settle it is up."""
        return self.stop and (deadline is None or time.monotonic() > deadline)

    def run(self) -> None:
        pending = None  # (id, version, action) sent but not answered
        settle_by = None  # once stopped: until when a pending move may still be resent
        self._connect()
        try:
            while True:
                if self.stop:
                    # Stopped: no new turn, but a move still unanswered is resent until answered (its ack
                    # may have gone with a killed worker), so that every applied move has its ack.
                    if pending is None:
                        return
                    settle_by = settle_by or time.monotonic() + 15
                    if time.monotonic() > settle_by:
                        return
                try:
                    if pending is not None:
                        self.live.action(pending[2], pending[1], pending[0])
                        # keep: the state of the move may come before its ack
                        answer = self.live.wait(lambda f, i=pending[0]: f.get("id") == i, timeout=5,
                                                keep=True)
                        if answer["type"] == "ack":
                            self.acked.append(answer["version"])
                        elif answer["code"] != "stale_version":
                            self.errors.append(answer["code"])
                        pending = None
                        continue
                    frame = self.live.recv(timeout=0.5)
                    if frame is None or frame["type"] != "state":
                        continue
                    view = frame["view"]
                    if view["phase"] == "over":
                        return
                    if view["active"] == view["seat"]:
                        pending = (str(uuid.uuid4()), frame["version"], view["legal_actions"][0])
                except (OSError, TimeoutError):
                    self.reconnects += 1
                    self.live.close()
                    self._connect(settle_by if pending is not None else None)
        finally:
            self.live.close()
