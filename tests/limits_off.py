"""Rate limits lifted for tests and benchmarks that play many games from one address (127.0.0.1).

api.ops.limits counts games created, moves, websocket hellos and failed join codes per client address
(and api.live.admission caps sockets per address and game); a
test suite creates hundreds of games from one address in minutes, which the defaults (api.config) are
made to refuse. tests/conftest.py puts ENV into the environment of every test session (create_app and
the gunicorn subprocesses read it); the benchmarks in tests/perf/ pass it to their servers. The tests
of the limits themselves (tests/security/) set their own limits explicitly, which win.
"""

ENV = {
    "ALCABOHNE_CREATE_LIMIT": "1000000",
    "ALCABOHNE_MOVE_LIMIT": "1000000",
    "ALCABOHNE_HELLO_LIMIT": "1000000",
    "ALCABOHNE_TRANSFER_LIMIT": "1000000",
    "ALCABOHNE_JOIN_LIMIT": "1000000",
    "ALCABOHNE_JOIN_TOTAL_LIMIT": "1000000",
    "ALCABOHNE_JOIN_GAME_LIMIT": "1000000",
    "ALCABOHNE_CREATE_TOTAL_LIMIT": "1000000",
    "ALCABOHNE_BOT_LIMIT": "1000000",
    "ALCABOHNE_BOT_CLIENT_LIMIT": "1000000",
    "ALCABOHNE_READ_LIMIT": "1000000",
    # Websocket admission (api.live.admission): many sockets of one game from one address.
    "ALCABOHNE_WS_MAX_PER_CLIENT": "0",
    "ALCABOHNE_WS_MAX_PER_GAME": "0",
    "ALCABOHNE_WS_MAX_WATCHERS_PER_GAME": "0",
    "ALCABOHNE_WS_MAX_PENDING": "0",
    "ALCABOHNE_WS_MAX_PENDING_PER_CLIENT": "0",
    "ALCABOHNE_WS_MAX_WATCHERS_PER_CLIENT": "0",
    "ALCABOHNE_WS_MAX_SEATED_PER_CLIENT": "0",
}
