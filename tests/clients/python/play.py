"""Play one game with the Python client generated from the served OpenAPI document (openapi-python-client;
`alcabohne_client`, written beside this file by tests/clients/test_generated_clients.py) and checked with
mypy --strict: no casts, no `type: ignore`. Usage: python play.py BASE_URL solo|duo. Prints one JSON line:
the game id, its final version, the result's scores and how many events of each type were seen.
"""

from __future__ import annotations

import json
import sys
import uuid

from alcabohne_client import AuthenticatedClient, Client
from alcabohne_client.api.games import create_game, get_events, get_game, join_game, post_action
from alcabohne_client.models import (
    ActionRequest,
    ActionResult,
    BossHarvestEvent,
    CreatedGame,
    CreateGame,
    CreateGameMode,
    EndPhaseAction,
    Events,
    Game,
    GameOverEvent,
    HarvestEvent,
    Join,
    PlantDisplayAction,
    PlantHandAction,
    Problem,
    SeatGrant,
)


def main(base: str, mode: str) -> dict[str, object]:
    public = Client(base_url=base)
    created = create_game.sync(client=public, body=CreateGame(mode=CreateGameMode(mode), name="Python"))
    if not isinstance(created, CreatedGame):
        raise SystemExit(f"create: {created}")
    game_id = created.game_id
    seats = {0: AuthenticatedClient(base_url=base, token=created.token)}
    if mode == "duo":
        code = created.join_code
        if not isinstance(code, str):
            raise SystemExit("a duo game without a join code")
        joined = join_game.sync(client=public, body=Join(code=code))
        if not isinstance(joined, SeatGrant):
            raise SystemExit(f"join: {joined}")
        seats[1] = AuthenticatedClient(base_url=base, token=joined.token)
    counts: dict[str, int] = {}
    coins = 0
    version = 0
    # The active seat's view: the answer to its last move while its turn goes on (one request per move),
    # read again when the turn passed to another seat.
    mine: Game | ActionResult | None = None
    for _ in range(2000):
        if mine is not None and mine.view.phase == "over":
            version = mine.version
            break
        if mine is None or mine.seat != mine.view.active:
            table = get_game.sync(game_id, client=public)
            if not isinstance(table, Game):
                raise SystemExit(f"get: {table}")
            version = table.version
            if table.view.phase == "over":
                break
            read = get_game.sync(game_id, client=seats[table.view.active])
            if not isinstance(read, Game):
                raise SystemExit(f"get: {read}")
            mine = read
        me = seats[mine.view.active]
        legal = mine.view.legal_actions
        plant = [a for a in legal if isinstance(a, PlantHandAction | PlantDisplayAction)]
        other = [a for a in legal if not isinstance(a, EndPhaseAction)]
        action = (plant or other or legal)[0]
        answer = post_action.sync(game_id, client=me, body=ActionRequest(action=action, version=mine.version),
                                  idempotency_key=str(uuid.uuid4()))
        if not isinstance(answer, ActionResult):
            raise SystemExit(f"act: {answer}")
        mine = answer
        for event in answer.events:
            counts[event.type_] = counts.get(event.type_, 0) + 1
            if isinstance(event, HarvestEvent | BossHarvestEvent):
                coins += event.coins
            if isinstance(event, GameOverEvent) and not event.result.scores:
                raise SystemExit("a result without scores")
    log = get_events.sync(game_id, client=public, since=0)
    if not isinstance(log, Events):
        raise SystemExit(f"events: {log}")
    final = get_game.sync(game_id, client=public)
    if not isinstance(final, Game) or final.view.result is None:
        raise SystemExit("not over")
    refused = post_action.sync(game_id, client=seats[0],
                               body=ActionRequest(action=EndPhaseAction(type_="end_phase"),
                                                 version=final.version + 5))
    stale = isinstance(refused, Problem) and refused.code.value == "stale_version"
    return {"game_id": game_id, "version": version, "log_entries": len(log.log),
            "scores": final.view.result.scores, "counts": counts, "coins_seen": coins, "stale": stale}


if __name__ == "__main__":
    print(json.dumps(main(sys.argv[1], sys.argv[2])))
