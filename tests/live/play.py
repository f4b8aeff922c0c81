"""Helpers for the live tests: set up games over HTTP, make moves, check frames for leaks and shape."""

from __future__ import annotations

import json
import random
import uuid

from api.netclient import HttpApi
from api.ws_schema import SERVER


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
