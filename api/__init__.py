"""Al Cabohne Online's HTTP API: `create_app(config)` builds the Flask app (docs/architecture.md).

Flask is imported inside create_app, not here: the commands in api.cli (play, simulate, verify,
replay) import this package on their way and must run without Flask or Redis.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from api import config as config_module

if TYPE_CHECKING:
    from flask import Flask


def create_app(config: dict | None = None) -> Flask:
    """Return a configured app: defaults (api.config.Config), then the environment, then `config`.

    `config["STORE"]` may be a ready GameStore (tests); otherwise `STORE_URL`/`DATA_DIR` open one.
    """
    from flask import Flask

    from api.game.model import Lifetimes
    from api.game.service import GameService
    from api.http import bodysize, cors, openapi, probes, problems, routes, web
    from api.live import admission, ws
    from api.live.hub import Hub
    from api.ops import gctune, limits, logs, metrics
    from api.ops.limits import Limiter

    app = Flask(__name__, static_folder=None)
    app.config.from_object(config_module.Config)
    app.config.update(config_module.from_env())
    app.config.update(config or {})
    # Errors go out as problem+json by our own handlers; never as HTML debugger pages.
    app.config["PROPAGATE_EXCEPTIONS"] = False
    logs.init_app(app)  # X-Request-Id in and out, on every log line of the request
    bodysize.init_app(app)  # every body past MAX_CONTENT_LENGTH is 413, chunked or not

    if app.config["PROXY_COUNT"]:
        from api.ops.proxies import TrustedProxyFix

        # X-Forwarded-* only from the proxies named (api.ops.proxies): anyone else could name any address.
        app.wsgi_app = TrustedProxyFix(app.wsgi_app, app.config["PROXY_COUNT"], app.config["TRUSTED_PROXIES"])

    store = app.config["STORE"]
    if store is None:
        from api.store import open_store

        store = open_store(app.config["STORE_URL"], app.config["DATA_DIR"])
        app.extensions["alcabohne.own_store"] = store  # opened here, so closed by close(app)
    c = app.config
    # The service is built with what hears of its work: the hub fans each commit out to the websockets
    # (of this process at once, of others through the store's announcement); the observer feeds the metrics.
    watching = metrics.observer(store)
    hub = Hub(store, ping_interval=c["WS_PING_INTERVAL"] or 25.0, observer=watching)
    app.extensions["alcabohne.hub"] = hub
    app.extensions["alcabohne.service"] = GameService(
        store,
        Lifetimes(game=c["GAME_TTL"], finished=c["FINISHED_TTL"], lobby=c["LOBBY_TTL"],
                  transfer=c["TRANSFER_TTL"]),
        limiter=Limiter.from_config(store, c),
        bot_budgets={"mc": {"playouts": c["BOT_MC_PLAYOUTS"], "width": c["BOT_MC_WIDTH"]}},
        fanout=hub,
        observer=watching,
    )

    api = _api_class()(app, spec_kwargs={"info": {"description": openapi.DESCRIPTION}})
    api.spec.components.security_scheme("seatToken", {"type": "http", "scheme": "bearer",
                                                      "description": "The seat token from create/join."})
    app.url_map.converters["game_id"] = routes.GameIdConverter
    api.register_converter(routes.GameIdConverter, lambda _converter: routes.GameIdConverter.SCHEMA)
    api.register_blueprint(routes.blp)
    problems.register(app, api)
    limits.init_app(app)  # reads of games per client (api.ops.limits)
    openapi.register(app, api)
    ws.init_app(app)  # GET /api/v1/games/{id}/ws and /api/v1/ws.schema.json (docs/websocket.md)
    admission.init_app(app, store)  # the sockets' places per client address, server-wide
    app.register_blueprint(web.bp)
    app.register_blueprint(probes.bp)  # /healthz, /readyz
    metrics.register(app, watching)  # /metrics

    cors.init_app(app)  # any origin may call /api/ (tokens travel in headers, never cookies)
    gctune.tune(app.config["GC_THRESHOLD"])  # last: what exists now is frozen (in a worker, the app)
    return app


def close(app: Flask) -> None:
    """Stop every thread `app` started (the hub's, the metrics flusher) and close a store it opened.

    The owner of an app calls this when it is done with it: a test, or a process that shuts down."""
    app.extensions["alcabohne.hub"].close()
    app.extensions["alcabohne.active_games"].close()
    own = app.extensions.get("alcabohne.own_store")
    if own is not None:
        own.close()


def _api_class():
    """flask-smorest's Api, with our problem document as the error schema of the `default` answers."""
    from flask_smorest import Api

    from api.http.schemas import ProblemSchema

    class ProblemApi(Api):
        ERROR_SCHEMA = ProblemSchema

    return ProblemApi
