"""The wire contract: marshmallow schemas for bodies and answers; they also feed the OpenAPI document.

Requests are loaded through their schemas. Answers are built by api.game.service and sent as they are
(api.http.routes): the answer schemas document them, and schemathesis checks that they keep to them. Views,
results, actions and events come from the engine (engine.view / engine.redact_events, docs/protocol.md):
their JSON Schemas are engine.schemas', which api.http.openapi puts in the document in place of the
placeholders here.
"""

from __future__ import annotations

from marshmallow import Schema, ValidationError, fields, validate, validates_schema

import engine.bots
from api.errors import CODES
from api.game import auth, names
from api.game.action_request import JsonInteger
from api.game.gamelog import MAX_VERSION

VIEW_DOC = ("What the caller's seat may see (docs/protocol.md §5, engine.view): its own hand and public "
            "information, never the seed, the deck order or another hand.")


class OpenSchema(Schema):
    """An answer part made by the engine: documented keys, and others may be added (additionalProperties)."""

    class Meta:
        unknown = "include"


class EngineSchema(Schema):
    """A placeholder naming an answer part the engine makes: api.http.openapi puts engine.schemas' JSON
    Schema of it in the document (one source for the OpenAPI and the websocket schema). Answers are sent
    as the engine makes them, never dumped through marshmallow."""

    class Meta:
        unknown = "include"


class ViewSchema(EngineSchema):
    """engine.view: the View schema of engine.schemas."""


class ResultSchema(EngineSchema):
    """A finished game's result: the Result schema of engine.schemas."""


class StrictSchema(Schema):
    """Unknown keys in a request are an error, not silently ignored."""


class JsonBoolean(fields.Boolean):
    """A boolean as JSON Schema means it: true and false only (not 1, "true" or "yes")."""

    def _deserialize(self, value, attr, data, **kwargs):
        if not isinstance(value, bool):
            raise self.make_error("invalid", input=value)
        return value


class NameField(fields.String):
    """A player's name (api.game.names.clean_name): loaded trimmed; null or absent: no name."""

    def __init__(self, **kwargs):
        super().__init__(allow_none=True, load_default=None, metadata={
            "description": f"The player's name, shown to the other players as text (never markup). "
                           f"{names.NAME_RULE} Absent or null: no name (clients say \"Player 1\").",
            "pattern": names.NAME_PATTERN, "maxLength": names.NAME_RAW_MAX, "examples": ["Ann"]}, **kwargs)

    def _deserialize(self, value, attr, data, **kwargs):
        text = super()._deserialize(value, attr, data, **kwargs)
        try:
            return names.clean_name(text)
        except ValueError as err:
            raise ValidationError(str(err)) from None


# ------------------------------------------------------------------ requests

# ActionRequestSchema (POST /actions) is the game room's (api.game.action_request): the websocket's
# action messages are loaded with it too.


class CreateGameSchema(StrictSchema):
    mode = fields.String(required=True, validate=validate.OneOf(["duo", "solo"]),
                         metadata={"description": "duo: two players against the Mafia; solo: one player."})
    dealer = JsonInteger(allow_none=True, load_default=None, validate=validate.OneOf([0, 1]),
                         metadata={"description": "duo: the dealing seat (R50), default random."})
    bot = fields.String(allow_none=True, load_default=None, validate=validate.OneOf(list(engine.bots.BOTS)),
                        metadata={"description": "duo: play against the computer; this bot takes seat 1 at "
                                                 "once (no join code) and moves right after each of your "
                                                 "moves, each bot action its own version. Ignored in "
                                                 "solo (one seat)."})
    name = NameField()
    tutorial = JsonBoolean(load_default=False, metadata={
        "description": "solo only: the guided game, a short game from a prepared table (the same cards "
                       "every time; played along its hints, it shows every phase and ends after a few "
                       "turns). true with duo: 400."})

    @validates_schema
    def _tutorial_is_solo(self, data, **kwargs):
        if data.get("tutorial") and data.get("mode") == "duo":
            raise ValidationError("The tutorial is a solo game.", field_name="tutorial")


class JoinSchema(StrictSchema):
    code = fields.String(required=True, validate=validate.Length(min=1, max=32),
                         metadata={"description": f"A join or transfer code ({auth.CODE_LENGTH} characters "
                                                  f"of {auth.CODE_ALPHABET}; case and dashes are ignored).",
                                   "examples": ["K7M2QX"]})
    name = NameField()


class EventsQuerySchema(Schema):
    class Meta:
        unknown = "exclude"  # other query parameters (cache busters) are ignored

    since = fields.Integer(load_default=0, validate=validate.Range(min=0, max=MAX_VERSION),
                           metadata={"description": "Return the log entries after this version."})


class QrQuerySchema(Schema):
    class Meta:
        unknown = "exclude"  # other query parameters (cache busters) are ignored

    code = fields.String(validate=validate.Length(min=1, max=32), metadata={
        "description": "Draw the link for this live join/transfer code of the game (no token needed). "
                       "Without it: the open join code, for a seated caller."})


class IdempotencyHeaderSchema(Schema):
    class Meta:
        unknown = "exclude"

    idempotency_key = fields.String(data_key="Idempotency-Key", validate=validate.Length(min=1, max=255),
                                    metadata={"description": "A fresh random key (UUID) per action, "
                                                             "reused on retry (it gets the first answer)."})


# The cross-field rule of CreateGameSchema in the OpenAPI document (api.http.openapi merges it into the
# component), so that generated clients and schemathesis know a duo tutorial is refused.
OPENAPI_EXTRA = {"CreateGame": {"if": {"properties": {"mode": {"const": "duo"}}, "required": ["mode"]},
                                "then": {"properties": {"tutorial": {"const": False}}}}}

# ------------------------------------------------------------------ answers


class SeatInfoSchema(Schema):
    """A seat: the served document replaces it by api.game.seats.SEAT_INFO_SCHEMA, its one description
    (the websocket schema serves the same); it is here for the answers that nest it."""

    seat = fields.Integer(required=True)
    taken = fields.Boolean(required=True)
    name = fields.String(required=True, allow_none=True)
    bot = fields.String()


class GameSchema(Schema):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "1 at creation, +1 per change."})
    seat = fields.Integer(required=True, allow_none=True,
                          metadata={"description": "The caller's seat; null for a spectator."})
    view = fields.Nested(ViewSchema, required=True, metadata={"description": VIEW_DOC})
    seats = fields.List(fields.Nested(SeatInfoSchema), required=True)
    join_code = fields.String(allow_none=True, metadata={
        "description": "The open join code while a seat is free (shown to seated callers only)."})
    join_url = fields.String(allow_none=True)
    tutorial = fields.Boolean(metadata={"description": "Only in a tutorial game (POST /games with "
                                                       "tutorial): true."})
    rematch = fields.String(required=True, allow_none=True, metadata={
        "description": "The id of the next game of the same players (POST /games/{id}/rematch), once "
                       "one exists; null before."})
    seed_commitment = fields.String(required=True, metadata={
        "description": "SHA-256 hex of \"<seed>:<salt>\", published at creation; the record (GET "
                       "/games/{id}/record, once the game is over) reveals seed and salt to check it."})


class SeatGrantSchema(GameSchema):
    token = fields.String(required=True, metadata={
        "description": "The seat token: send it as 'Authorization: Bearer <token>'. Shown only once."})


class ActionResultSchema(GameSchema):
    events = fields.List(fields.Dict(), required=True,
                         metadata={"description": "What happened, redacted for the caller (engine events)."})


class LogEntrySchema(Schema):
    version = fields.Integer(required=True, metadata={"description": "The version this change produced."})
    events = fields.List(fields.Dict(), required=True)


class EventsSchema(Schema):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    seat = fields.Integer(required=True, allow_none=True)
    log = fields.List(fields.Nested(LogEntrySchema), required=True)


class HintSchema(Schema):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True, metadata={"description": "The version the hint is for."})
    seat = fields.Integer(required=True)
    action = fields.Dict(required=True, metadata={
        "description": "The suggested action: one of the caller's legal_actions (engine.bots.hint)."})
    reason_code = fields.String(required=True, metadata={
        "description": "A stable key of the reason, e.g. must_plant, cash_in, room_for_bundle, "
                       "pay_protection, take_bundle, end_phase (engine/bots/hint.py has them all), "
                       "for clients that translate it; a key a client does not know: show `reason`."})
    reason = fields.String(required=True, metadata={"description": "Why, in one English line."})


class RecordActionSchema(Schema):
    version = fields.Integer(required=True, metadata={"description": "The version this action produced."})
    seat = fields.Integer(required=True)
    action = fields.Dict(required=True)


class RecordSeatSchema(Schema):
    seat = fields.Integer(required=True)
    who = fields.String(required=True, validate=validate.OneOf(["human", "bot"]))
    name = fields.String(allow_none=True, metadata={"description": "The player's name (null: none given)."})
    bot = fields.String(metadata={"description": "The bot's name, on a bot's seat."})


class RecordSchema(Schema):
    """A finished game, replayable with the engine: `alcabohne verify RECORD.json` checks it."""

    format = fields.String(required=True, metadata={"examples": ["alcabohne-record/1"]})
    game_id = fields.String(required=True)
    mode = fields.String(required=True, validate=validate.OneOf(["duo", "solo"]))
    seed = fields.Integer(required=True, metadata={"description": "engine.new_game's seed."})
    salt = fields.String(required=True)
    seed_commitment = fields.String(required=True, metadata={
        "description": "SHA-256 hex of \"<seed>:<salt>\": the value every answer showed during the game."})
    options = fields.Dict(required=True, metadata={"description": "new_game's options ({} or dealer)."})
    seats = fields.List(fields.Nested(RecordSeatSchema), required=True)
    actions = fields.List(fields.Nested(RecordActionSchema), required=True,
                          metadata={"description": "Every action in order."})
    result = fields.Nested(ResultSchema, required=True)


class TransferSchema(Schema):
    game_id = fields.String(required=True)
    version = fields.Integer(required=True)
    seat = fields.Integer(required=True)
    transfer_code = fields.String(required=True, metadata={
        "description": "Claim it with POST /games/join on the new device; the old token then stops working."})
    transfer_url = fields.String(required=True)
    expires_in = fields.Integer(required=True, metadata={"description": "Seconds the code stays valid."})


class HealthSchema(Schema):
    status = fields.String(required=True)


class ProblemSchema(OpenSchema):
    """An error (RFC 9457), always with a stable `code`; other members may be added (RFC 9457 §3.2)."""

    type = fields.String(required=True, metadata={
        "format": "uri-reference", "pattern": "^/api/v1/problems/[a-z_]+$",
        "description": "The page describing this code (relative to the server): GET it for what the "
                       "code means and what to do.", "examples": ["/api/v1/problems/stale_version"]})
    title = fields.String(required=True, metadata={"description": "The code's title (the same every time)."})
    status = fields.Integer(required=True, metadata={"description": "The HTTP status of the answer."})
    detail = fields.String(required=True, metadata={"description": "This occurrence, in English."})
    code = fields.String(required=True, validate=validate.OneOf(list(CODES)),
                         metadata={"description": "The stable code (docs/protocol.md §9)."})
    version = fields.Integer(metadata={"description": "stale_version: the current version."})
    view = fields.Nested(ViewSchema, metadata={"description": "stale_version: the caller's current view."})
    errors = fields.Raw(metadata={"description": "invalid_request: what is wrong, per field."})
    retry_after = fields.Integer(metadata={"description": "rate_limited: seconds to wait (as Retry-After)."})
