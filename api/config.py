"""Settings of the HTTP API, with their defaults.

`create_app(config)` starts from `Config`, then applies `ALCABOHNE_*` environment variables, then the
mapping passed in. Lifetimes are in seconds.
"""

from __future__ import annotations

import os

DAY = 24 * 3600


class Config:
    """Defaults; every attribute in capitals becomes a Flask config key."""

    # Where games live: a GameStore instance (tests) wins over STORE_URL (see api.store.open_store).
    STORE = None
    STORE_URL = "memory://"
    DATA_DIR = None
    # Redis durability (api.store.redis.RedisStore): a create or commit is acknowledged only once this
    # many replicas confirm it (Redis WAIT), waiting at most REDIS_WAIT_TIMEOUT seconds; past that the
    # answer is 503 outcome_unknown and a retry with the same Idempotency-Key settles it. 0: no wait
    # (replication stays asynchronous: a failover may lose the last acknowledged moves). Read from the
    # environment by api.store.open_store.
    REDIS_WAIT_REPLICAS = 0
    REDIS_WAIT_TIMEOUT = 1.0
    # Base URL put into join links and QR codes (e.g. "http://192.168.1.20:8000"); None: the request's host.
    PUBLIC_URL = None
    # Requests above this size get 413 payload_too_large; an action is well under 1 KB.
    MAX_CONTENT_LENGTH = 16 * 1024

    # Lifetimes. A game stays resumable this long after its last change (refreshed on every commit) ...
    GAME_TTL = 30 * DAY
    # ... a finished game is kept this long for a last look ...
    FINISHED_TTL = 7 * DAY
    # ... and a duo game whose second seat is still free (a lobby) expires after this.
    LOBBY_TTL = DAY
    # A seat-transfer code is meant to be used at once, from the phone next to the old one.
    TRANSFER_TTL = 15 * 60

    # Rate limits (api.ops.limits), counted in the store, so shared by every worker and host: at most
    # <KIND>_LIMIT events in any <KIND>_WINDOW seconds (a moving window); past it a request gets 429
    # rate_limited with Retry-After. A "client" is an IPv4 address or an IPv6 /64.
    # 0 switches a limit off. The defaults leave a real table far below them (a night of two phones
    # and a tablet behind one home router creates a few games an hour and makes a move every few
    # seconds) and bound what one client can do to the store: README "Limits".
    # Games created per client (POST /games, and the rematch call that makes the next game).
    CREATE_LIMIT = 30
    CREATE_WINDOW = 600
    # Games created on the whole server, from every client together: what fills the store however many
    # addresses an abuser has (an unplayed game is kept 30 days: 600 an hour is a few GB a month at most).
    CREATE_TOTAL_LIMIT = 600
    CREATE_TOTAL_WINDOW = 3600
    # Actions per seat of a game, over HTTP and the websocket together (a whole solo game is about 400).
    MOVE_LIMIT = 600
    MOVE_WINDOW = 60
    # Action requests in one game against the computer: each may make the bot move, at several times a
    # human move's CPU; a person makes far fewer than 90 moves a minute.
    BOT_LIMIT = 90
    BOT_WINDOW = 60
    # The computer's work asked for by one client in all its games together: action requests in games
    # against the computer and hints (the same search), one each. More games must not get one address
    # more of it: a household of a few phones playing against the computer stays far below.
    BOT_CLIENT_LIMIT = 120
    BOT_CLIENT_WINDOW = 60
    # Reads of games per client (GET /games/{id}, its events, record, hint, QR code): a phone reads
    # on (re)connect, a table screen polls none; a replay of a whole game per request must not be free.
    READ_LIMIT = 300
    READ_WINDOW = 60
    # Websocket hellos per client (every reconnect of a phone is one).
    HELLO_LIMIT = 60
    HELLO_WINDOW = 60
    # Seat-transfer codes issued per client (moving a seat to another phone: a few times an evening).
    TRANSFER_LIMIT = 10
    TRANSFER_WINDOW = 15 * 60
    # Join-code brute-force guard: failed join/transfer codes per client, and per game where a request
    # names the game (QR checks). Past JOIN_TOTAL_LIMIT failed codes on the whole server in the window,
    # an address that failed a code within it waits; one whose codes were all right never does (a right
    # code is not counted; a code space of 31^6 must not be searched from many addresses).
    JOIN_LIMIT = 10
    JOIN_GAME_LIMIT = 20
    JOIN_TOTAL_LIMIT = 120
    JOIN_WINDOW = 60
    # Number of reverse proxies in front whose X-Forwarded-For may be trusted (0: use the peer address).
    PROXY_COUNT = 0
    # The peers allowed to set X-Forwarded-* (addresses or networks, api.ops.proxies); from any other peer the
    # headers are ignored and the peer is the client. Default: nginx on this host (deploy/).
    TRUSTED_PROXIES = ["127.0.0.1", "::1"]

    # Bots (POST /games {"bot": ...}): the mc bot's playouts per decision on the server. The bot moves
    # inside the human's request, so its budget is latency: a third of the engine's default (96)
    # answers within a second at p99 on a busy 2-core machine (README "Bots, hints and records").
    # The hint searches with the same budget (engine.bots.hint).
    BOT_MC_PLAYOUTS = 32
    # Root actions the mc bot tries (the engine's default is 6). With 32 playouts, six actions get about
    # five playouts each, too few to tell apart; three are, in the same time (docs/bots.md).
    BOT_MC_WIDTH = 3

    # Websocket (api.live.ws, docs/websocket.md). The server pings every WS_PING_INTERVAL seconds; a
    # client that misses a pong is dropped, so a vanished phone shows as offline within 2 x
    # WS_PING_INTERVAL.
    WS_PING_INTERVAL = 25.0
    # Origins allowed to open a websocket (e.g. ["https://beans.example"]); None: no check (the seat
    # token in the first message, never a cookie, is what authorizes a socket).
    WS_ALLOWED_ORIGINS = None
    # Open websockets one process accepts; past it a handshake gets 503 server_busy (Retry-After) instead
    # of waiting for a pool thread that the sockets hold (a full gthread pool hangs HTTP too). 0: no cap.
    # `alcabohne serve` and deploy/gunicorn.conf.py set it to the pool less its HTTP headroom
    # (api.ops.sizing).
    WS_MAX_SOCKETS = 0
    # Websocket admission (api.live.admission), per process: sockets that have not said hello yet (beside
    # WS_MAX_SOCKETS; they get 5 s), sockets from one client and to one game in any state, and token-less
    # watchers of one game. The last eighth of WS_MAX_SOCKETS is kept for seated players. 0: no cap.
    WS_MAX_PENDING = 16
    WS_MAX_PER_CLIENT = 16
    WS_MAX_PER_GAME = 24
    WS_MAX_WATCHERS_PER_GAME = 8
    # ... and per client address across the whole server (every worker and host: counted in Redis):
    # sockets waiting for their hello (a phone says it at once), watchers, and seated players (a club
    # behind one address may seat this many phones at once). 0: no cap.
    WS_MAX_PENDING_PER_CLIENT = 4
    WS_MAX_WATCHERS_PER_CLIENT = 8
    WS_MAX_SEATED_PER_CLIENT = 32

    # Serve GET /metrics to clients on this host only (others get 404). `alcabohne serve`, which listens on
    # every interface of a LAN, sets it; deploy/ binds to 127.0.0.1 and nginx admits the host only.
    METRICS_LOCAL_ONLY = False

    # Young-generation threshold of Python's cyclic garbage collector in the server process (api.ops.gctune:
    # fewer, bounded collections, each of which stalls every socket of the worker); 0 keeps Python's 700.
    GC_THRESHOLD = 50_000

    # flask-smorest: the document is served by api.http.routes at /api/v1/openapi.json, not by flask-smorest.
    API_TITLE = "Al Cabohne Online"
    API_VERSION = "1"
    OPENAPI_VERSION = "3.1.0"
    JSON_SORT_KEYS = False


def _list(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def _flag(value: str) -> bool:
    return value.strip().lower() in ("1", "true", "yes")


# Environment variables read at start (tests pass a mapping instead).
ENV_KEYS = {
    "ALCABOHNE_STORE_URL": ("STORE_URL", str),
    "ALCABOHNE_DATA_DIR": ("DATA_DIR", str),
    "ALCABOHNE_PUBLIC_URL": ("PUBLIC_URL", str),
    "ALCABOHNE_PROXY_COUNT": ("PROXY_COUNT", int),
    "ALCABOHNE_TRUSTED_PROXIES": ("TRUSTED_PROXIES", _list),
    "REDIS_URL": ("STORE_URL", str),
    "ALCABOHNE_REDIS_WAIT_REPLICAS": ("REDIS_WAIT_REPLICAS", int),
    "ALCABOHNE_REDIS_WAIT_TIMEOUT": ("REDIS_WAIT_TIMEOUT", float),
    "ALCABOHNE_JOIN_LIMIT": ("JOIN_LIMIT", int),
    "ALCABOHNE_JOIN_TOTAL_LIMIT": ("JOIN_TOTAL_LIMIT", int),
    "ALCABOHNE_JOIN_WINDOW": ("JOIN_WINDOW", int),
    "ALCABOHNE_CREATE_LIMIT": ("CREATE_LIMIT", int),
    "ALCABOHNE_CREATE_WINDOW": ("CREATE_WINDOW", int),
    "ALCABOHNE_CREATE_TOTAL_LIMIT": ("CREATE_TOTAL_LIMIT", int),
    "ALCABOHNE_CREATE_TOTAL_WINDOW": ("CREATE_TOTAL_WINDOW", int),
    "ALCABOHNE_BOT_LIMIT": ("BOT_LIMIT", int),
    "ALCABOHNE_BOT_WINDOW": ("BOT_WINDOW", int),
    "ALCABOHNE_BOT_CLIENT_LIMIT": ("BOT_CLIENT_LIMIT", int),
    "ALCABOHNE_BOT_CLIENT_WINDOW": ("BOT_CLIENT_WINDOW", int),
    "ALCABOHNE_READ_LIMIT": ("READ_LIMIT", int),
    "ALCABOHNE_READ_WINDOW": ("READ_WINDOW", int),
    "ALCABOHNE_JOIN_GAME_LIMIT": ("JOIN_GAME_LIMIT", int),
    "ALCABOHNE_MOVE_LIMIT": ("MOVE_LIMIT", int),
    "ALCABOHNE_MOVE_WINDOW": ("MOVE_WINDOW", int),
    "ALCABOHNE_HELLO_LIMIT": ("HELLO_LIMIT", int),
    "ALCABOHNE_HELLO_WINDOW": ("HELLO_WINDOW", int),
    "ALCABOHNE_TRANSFER_LIMIT": ("TRANSFER_LIMIT", int),
    "ALCABOHNE_TRANSFER_WINDOW": ("TRANSFER_WINDOW", int),
    "ALCABOHNE_BOT_MC_PLAYOUTS": ("BOT_MC_PLAYOUTS", int),
    "ALCABOHNE_BOT_MC_WIDTH": ("BOT_MC_WIDTH", int),
    "ALCABOHNE_WS_PING_INTERVAL": ("WS_PING_INTERVAL", float),
    "ALCABOHNE_WS_ORIGINS": ("WS_ALLOWED_ORIGINS", lambda v: [o.strip() for o in v.split(",") if o.strip()]),
    "ALCABOHNE_WS_MAX_SOCKETS": ("WS_MAX_SOCKETS", int),
    "ALCABOHNE_WS_MAX_PENDING": ("WS_MAX_PENDING", int),
    "ALCABOHNE_WS_MAX_PER_CLIENT": ("WS_MAX_PER_CLIENT", int),
    "ALCABOHNE_WS_MAX_PER_GAME": ("WS_MAX_PER_GAME", int),
    "ALCABOHNE_WS_MAX_WATCHERS_PER_GAME": ("WS_MAX_WATCHERS_PER_GAME", int),
    "ALCABOHNE_WS_MAX_PENDING_PER_CLIENT": ("WS_MAX_PENDING_PER_CLIENT", int),
    "ALCABOHNE_WS_MAX_WATCHERS_PER_CLIENT": ("WS_MAX_WATCHERS_PER_CLIENT", int),
    "ALCABOHNE_WS_MAX_SEATED_PER_CLIENT": ("WS_MAX_SEATED_PER_CLIENT", int),
    "ALCABOHNE_GC_THRESHOLD": ("GC_THRESHOLD", int),
    "ALCABOHNE_METRICS_LOCAL_ONLY": ("METRICS_LOCAL_ONLY", _flag),
}


def from_env(environ: dict[str, str] | None = None) -> dict:
    """Return the settings found in the environment, as Flask config keys."""
    environ = os.environ if environ is None else environ
    found = {}
    for var, (key, convert) in ENV_KEYS.items():
        if environ.get(var):
            found[key] = convert(environ[var])
    return found
