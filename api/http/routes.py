"""The games resource (docs/protocol.md): thin views over api.game.service, documented by api.http.schemas."""

from __future__ import annotations

import io
from http import HTTPStatus

import segno
from flask import current_app, request
from flask_smorest import Blueprint
from webargs.core import missing
from webargs.flaskparser import FlaskParser, is_json_request
from werkzeug.routing import BaseConverter

from api.codec import own_json, untrusted_json
from api.errors import CODES, PROBLEM_TYPE, ApiError
from api.game import auth
from api.game.action_request import ActionRequestSchema
from api.game.service import GameService
from api.http.schemas import (
    ActionResultSchema,
    CreateGameSchema,
    EventsQuerySchema,
    EventsSchema,
    GameSchema,
    HealthSchema,
    HintSchema,
    IdempotencyHeaderSchema,
    JoinSchema,
    ProblemSchema,
    QrQuerySchema,
    RecordSchema,
    SeatGrantSchema,
    TransferSchema,
)
from api.ops.limits import client_key


class _Parser(FlaskParser):
    # A body that does not match its schema is a bad request (400 invalid_request); 422 is kept for
    # the rules (illegal_action) and idempotency mismatches.
    DEFAULT_VALIDATION_STATUS = 400

    def _raw_load_json(self, req):
        # Bounded in depth (api.codec.untrusted_json): deeply nested JSON is an invalid body, not a
        # RecursionError.
        if not is_json_request(req):
            return missing
        return untrusted_json.loads(req.get_data(cache=True))


class _Blueprint(Blueprint):
    ARGUMENTS_PARSER = _Parser()


class GameIdConverter(BaseConverter):
    """A game id: URL-safe characters, and never the word `join` (POST /games/join is its own resource,
    so that GET /games/join answers 405 and OPTIONS lists only POST)."""

    regex = r"(?!join$)[A-Za-z0-9_-]{1,64}"
    SCHEMA = {"type": "string", "pattern": r"^[A-Za-z0-9_-]{1,64}$"}


blp = _Blueprint("games", __name__, url_prefix="/api/v1", description="Games, seats and moves.")

TOKEN = [{"seatToken": []}]
OPTIONAL_TOKEN = [{}, {"seatToken": []}]


def problems(*codes: str, post: bool = False):
    """Document the problem+json answers with these codes (grouped by status).

    Only what the operation can really answer (tests/api/test_openapi_examples.py holds a real answer
    for every status declared): any request may be too large or meet a store that is down; a POST with
    a body not sent as application/json gets 415 before anything else. `invalid_request` (400) is named by the
    operations that read a body or query.
    """
    by_status: dict[int, list[str]] = {}
    for code in codes + ("payload_too_large", "store_unavailable"):
        by_status.setdefault(CODES[code][0], []).append(code)
    if post:
        by_status.setdefault(415, []).append("invalid_request")

    def decorate(func):
        for status, names in sorted(by_status.items()):
            desc = f"{HTTPStatus(status).phrase}: code " + " or ".join(sorted(set(names)))
            func = blp.alt_response(status, schema=ProblemSchema, description=desc,
                                    content_type=PROBLEM_TYPE)(func)
        return func

    return decorate


def _json(body: dict, status: int = 200, headers: dict | None = None):
    """Send `body` as built by the service (documented by the endpoint's schema, not dumped through it)."""
    resp = current_app.response_class(own_json.dumps(body), status=status, mimetype="application/json")
    resp.headers.update(headers or {})
    return resp


def _service() -> GameService:
    return current_app.extensions["alcabohne.service"]


def _token() -> str | None:
    try:
        return auth.bearer_token(request.headers.get("Authorization"))
    except ValueError as err:
        raise ApiError("bad_token", str(err)) from None


def _client() -> str:
    """The caller's rate-limit bucket (api.ops.limits): its IPv4 address or IPv6 /64."""
    return client_key(request.remote_addr)


def _base_url() -> str:
    return current_app.config["PUBLIC_URL"] or request.host_url


@blp.before_request
def _require_json_body():
    """Refuse a POST body not sent as application/json (415) before reading it."""
    has_body = request.content_length or request.headers.get("Transfer-Encoding")
    if request.method == "POST" and has_body and not request.is_json:
        raise ApiError("invalid_request", "Send the body as application/json.", status=415)


@blp.route("/games", methods=["POST"])
@blp.arguments(CreateGameSchema())
@blp.response(201, SeatGrantSchema, description="The game, the creator's seat (0) and its token; for duo "
              "also the join code and join link for the second player.")
@problems("invalid_request", "rate_limited", post=True)
def create_game(args):
    """Create a game."""
    body = _service().create(args["mode"], args["dealer"], _base_url(), bot=args["bot"], name=args["name"],
                             tutorial=args["tutorial"], client=_client())
    return _json(body, 201, {"Location": f"/api/v1/games/{body['game_id']}"})


@blp.route("/games/join", methods=["POST"])
@blp.arguments(JoinSchema())
@blp.response(200, SeatGrantSchema, description="The seat the code opened, with its new token. A caller "
              "sending a token that holds a seat of the code's game gets that seat and token back "
              "instead, and nothing changes (the code stays open for the other player).")
@blp.doc(security=OPTIONAL_TOKEN)
@problems("invalid_request", "unknown_code", "rate_limited", "bad_token", "outcome_unknown", post=True)
def join_game(args):
    """Take a seat with a join code, or move a seat here with a transfer code."""
    return _json(_service().join(args["code"], _client(), _base_url(),
                                 name=args["name"], token=_token()))


@blp.route("/games/<game_id:game_id>", methods=["GET"])
@blp.response(200, GameSchema, description="The game as the caller may see it (no token: the table view).")
@blp.doc(security=OPTIONAL_TOKEN)
@problems("unknown_game", "bad_token", "rate_limited")
def get_game(game_id):
    """Look at a game."""
    return _json(_service().get(game_id, _token(), _base_url()))


@blp.route("/games/<game_id:game_id>/actions", methods=["POST"])
@blp.arguments(IdempotencyHeaderSchema(), location="headers")
@blp.arguments(ActionRequestSchema())
@blp.response(200, ActionResultSchema, description="Accepted: the new version, view and events. A retry with "
              "the same Idempotency-Key gets this same answer (header Idempotent-Replayed: true). A 503 "
              "`outcome_unknown` means the store did not answer in time and the action may or may not have "
              "been applied: resend it with the same Idempotency-Key to learn which (it is applied at most "
              "once); without a key, look at the game first.")
@blp.doc(security=TOKEN)
@problems("invalid_request", "invalid_action", "bad_token", "not_your_turn", "unknown_game", "stale_version",
          "illegal_action", "idempotency_mismatch", "rate_limited", "outcome_unknown", post=True)
def post_action(headers, args, game_id):
    """Make a move."""
    service = _service()
    outcome = service.act(game_id, _token(), args["action"], args["version"], headers.get("idempotency_key"),
                          client=_client())
    # Sent as rendered by the service (ActionResultSchema describes it): a retry gets the same bytes,
    # rendered again from the log.
    resp = current_app.response_class(service.answer(outcome, _base_url()), mimetype="application/json")
    if outcome.replayed:
        resp.headers["Idempotent-Replayed"] = "true"
    return resp


@blp.route("/games/<game_id:game_id>/events", methods=["GET"])
@blp.arguments(EventsQuerySchema(), location="query")
@blp.response(200, EventsSchema, description="The log after `since`, oldest first, redacted for the caller.")
@blp.doc(security=OPTIONAL_TOKEN)
@problems("invalid_request", "unknown_game", "bad_token", "rate_limited")
def get_events(args, game_id):
    """Read what happened since a version."""
    return _json(_service().events(game_id, _token(), args["since"]))


@blp.route("/games/<game_id:game_id>/hint", methods=["GET"])
@blp.response(200, HintSchema, description="A suggested action for the caller's seat (the mc bot's "
              "search, from the caller's own view) with a one-line reason.")
@blp.doc(security=TOKEN)
@problems("unknown_game", "bad_token", "not_your_turn", "rate_limited")
def get_hint(game_id):
    """Ask for a hint on my turn."""
    return _json(_service().hint(game_id, _token(), client=_client()))


@blp.route("/games/<game_id:game_id>/record", methods=["GET"])
@blp.response(200, RecordSchema, description="The finished game's record: seed, salt, every action and the "
              "result. Check it with `alcabohne verify RECORD.json`.")
@problems("unknown_game", "game_not_over", "record_unavailable", "rate_limited")
def get_record(game_id):
    """Download the record of a finished game."""
    return _json(_service().record(game_id))


@blp.route("/games/<game_id:game_id>/rematch", methods=["POST"])
@blp.response(200, SeatGrantSchema, description="The caller's seat in the next game of the same players "
              "(same mode, computer and names, the start player alternating): created by the first call, "
              "the same game for every later call from either seat (also at once), with the same token "
              "for the same seat. The finished game then shows it as `rematch`, and its sockets get a "
              "`rematch` frame. No body.")
@blp.doc(security=TOKEN)
@problems("unknown_game", "bad_token", "game_not_over", "seat_taken", "outcome_unknown", "rate_limited",
          post=True)
def rematch(game_id):
    """Play again: the next game of a finished game."""
    return _json(_service().rematch(game_id, _token(), _base_url(), client=_client()))


@blp.route("/games/<game_id:game_id>/transfer", methods=["POST"])
@blp.response(201, TransferSchema, description="A short-lived code to claim this seat on another device.")
@blp.doc(security=TOKEN)
@problems("unknown_game", "bad_token", "rate_limited", post=True)
def transfer_seat(game_id):
    """Move my seat to another device."""
    return _json(_service().transfer(game_id, _token(), _base_url(), client=_client()), 201)


@blp.route("/games/<game_id:game_id>/qr.svg", methods=["GET"])
@blp.arguments(QrQuerySchema(), location="query")
@blp.response(200, description="The join link as a QR code.", content_type="image/svg+xml")
@blp.doc(security=OPTIONAL_TOKEN)
@problems("invalid_request", "unknown_game", "bad_token", "unknown_code", "rate_limited")
def join_qr(args, game_id):
    """Draw a join (or transfer) link as a QR code."""
    link = _service().join_link(game_id, _token(), args.get("code"), _client(), _base_url())
    # A standalone document: an <img src> shows an SVG only when it declares the SVG namespace, which
    # svg_inline leaves out (it is meant for pasting into HTML).
    buf = io.BytesIO()
    segno.make(link, error="m").save(buf, kind="svg", xmldecl=False, scale=8, border=2,
                                     title="Join Al Cabohne")
    svg = buf.getvalue()
    resp = current_app.response_class(svg, mimetype="image/svg+xml")
    resp.headers["Cache-Control"] = "no-store"
    return resp


@blp.route("/health", methods=["GET"])
@blp.response(200, HealthSchema, description="The server and its store answer.")
@problems()
def health():
    """Check the server and its store."""
    if not _service().store.ping():
        raise ApiError("store_unavailable")
    return {"status": "ok"}
