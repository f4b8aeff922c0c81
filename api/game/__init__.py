"""The game master's room: everything that decides what happens to a game, knowing no transport.

`GameService` (service.py) is the one façade the transports call (api.http, api.live, the CLI's
server), and `GameService._commit` the one corridor of every change: store, then the store's one
announcement, then the fan-out (the hub's `advance`). The jobs beside it are functions of the service:

- moves.py: an action (seat, turn, idempotency records, the engine) and its answer;
- seats.py: join and transfer codes, join links, the table as answers show it; names.py: the name rule;
- start.py: a new game (tutorial.py: the guided game's prepared table); rematch.py: the next game;
- bots.py: the computer's moves and the hints;
- gamelog.py: the log, one short line per version; history.py: replays of a stored game and its
  record; records.py: the record format and its checks (engine only: the CLI's `verify` and `replay`);
- recent.py: the versions this process holds, so a move needs no read;
- model.py: the values passed around (Loaded, Commit, Outcome) and the ports (FanOut, Observer);
- action_request.py: what a valid action request is, for HTTP and the websocket alike;
- auth.py: seat tokens and join/transfer codes.

Imports: engine, api.errors, api.codec, api.ops.limits (the limiter it is given) and the store
contract (api.store.base); never api.http, api.live or a store backend. This package imports nothing
itself, so the CLI can take records.py without the server.
"""
