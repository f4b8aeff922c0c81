"""(g) The OpenAPI document: served as 3.1, with an offline Swagger UI, and the API keeps its word.

schemathesis generates requests from the document (its examples, the coverage of every documented
value and status, then valid and invalid fuzzing) against the app over a SQLite store, and checks every
answer against it with all its checks: no server error, only documented statuses, content types,
headers (required ones present, every value fitting its schema) and bodies, 405 with Allow for methods
a path lacks. Derandomized and bounded: the same cases on every run.
"""

from __future__ import annotations

import json
import os
import random
import tempfile
from pathlib import Path

import pytest
import schemathesis
from hypothesis import HealthCheck, settings
from schemathesis.checks import positive_data_acceptance
from schemathesis.generation import GenerationMode

from api.http import openapi
from api.store.memory import MemoryStore
from api.store.sqlite import SqliteStore
from tests.api.fixtures_api import API, make_app, new_game

# Small in CI; API_FUZZ_EXAMPLES=300 for a deeper local run.
EXAMPLES = int(os.environ.get("API_FUZZ_EXAMPLES", "30"))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
                suppress_health_check=list(HealthCheck))
_DATA = tempfile.TemporaryDirectory(prefix="alcabohne-openapi-")
# Without rate limits (0: none): with them a sixth of the requests met a 429 and tested nothing else.
# The 429s keep to the document too: tests/api/test_openapi_examples.py records one per limited operation,
# and test_openapi_document.py checks them against their schema and headers.
UNLIMITED = {f"{kind}_LIMIT": 0 for kind in ("CREATE", "MOVE", "HELLO", "TRANSFER", "JOIN", "JOIN_TOTAL")}
APP = make_app(SqliteStore(Path(_DATA.name) / "games.db"), **UNLIMITED)
schema = schemathesis.openapi.from_wsgi(openapi.SPEC_URL, APP)


@schema.parametrize()
@FUZZ
def test_api_keeps_to_its_document(case):
    case.call_and_validate()


LIVE = APP.test_client().post(f"{API}/games", json={"mode": "duo"}).get_json()
# Valid requests only: an invalid path that we then replaced with the live game's id would be valid.
live_schema = schemathesis.openapi.from_wsgi(f"{API}/openapi.json", APP)
live_schema.config.generation.update(modes=[GenerationMode.POSITIVE])


@live_schema.parametrize()
@FUZZ
def test_api_keeps_to_its_document_on_a_live_game(case):
    # The same, aimed at a real game with its creator's token, so that requests get past the 404s.
    if "game_id" in (case.path_parameters or {}):
        case.path_parameters["game_id"] = LIVE["game_id"]
        if case.headers and "Authorization" in case.headers:  # keep schemathesis' no-token cases
            case.headers["Authorization"] = f"Bearer {LIVE['token']}"
    # An illegal move is schema-valid and still refused (422): that is the rules, not the document.
    case.call_and_validate(excluded_checks=[positive_data_acceptance])


def _with_document(spec: dict):
    """A WSGI app that is APP but serves `spec` as its document."""
    body = json.dumps(spec).encode()

    def app(environ, start_response):
        if environ["PATH_INFO"] == openapi.SPEC_URL:
            start_response("200 OK", [("Content-Type", "application/json"),
                                      ("Content-Length", str(len(body)))])
            return [body]
        return APP(environ, start_response)

    return app


def _wrong(change) -> dict:
    spec = APP.test_client().get(openapi.SPEC_URL).get_json()
    change(spec)
    return spec


def _health_200(spec: dict) -> dict:
    return spec["paths"][f"{API}/health"]["get"]["responses"]["200"]


@pytest.mark.parametrize("change, failure", [
    pytest.param(lambda s: s["components"]["headers"]["XRequestId"]["schema"].update(pattern="^never$"),
                 "JsonSchemaError", id="header-value"),
    pytest.param(lambda s: _health_200(s)["headers"].update(Sunset={"required": True,
                                                                    "schema": {"type": "string"}}),
                 "MissingHeaders", id="missing-header"),
    pytest.param(lambda s: _health_200(s).update(content={"text/plain": {"schema": {"type": "string"}}}),
                 "UndefinedContentType", id="content-type"),
])
def test_the_checks_catch_a_document_that_is_wrong(change, failure):
    """The conformance tests above would fail if the document and the answers parted: a header value, a
    required header or a content type the server does not send is caught."""
    wrong = schemathesis.openapi.from_wsgi(openapi.SPEC_URL, _with_document(_wrong(change)))
    case = wrong[f"{API}/health"]["GET"].Case()
    with pytest.raises(BaseExceptionGroup) as failed:  # schemathesis FailureGroup
        case.validate_response(case.call())
    assert failure in {type(error).__name__ for error in failed.value.exceptions}


def test_document_is_openapi_3_1_with_every_endpoint():
    client = APP.test_client()
    spec = client.get(f"{API}/openapi.json").get_json()
    assert spec["openapi"] == "3.1.0"
    paths = set(spec["paths"])
    game = f"{API}/games/{{game_id}}"
    assert {f"{API}/games", f"{API}/games/join", game, f"{game}/actions", f"{game}/events",
            f"{game}/transfer", f"{game}/qr.svg"} <= paths
    errors = spec["paths"][f"{API}/games/{{game_id}}/actions"]["post"]["responses"]
    assert {"400", "401", "403", "404", "409", "422"} <= set(errors)
    assert "application/problem+json" in errors["409"]["content"]


def test_swagger_ui_is_served_without_a_cdn():
    client = APP.test_client()
    page = client.get("/api/docs/")
    assert page.status_code == 200
    html = page.get_data(as_text=True)
    assert "https://" not in html and "http://" not in html.replace("http://localhost", "")
    assert f"{API}/openapi.json" in html
    for asset in ("swagger-ui-bundle.js", "swagger-ui.css", "swagger-ui-standalone-preset.js"):
        with client.get(f"/api/docs/{asset}") as resp:  # a file response: close it
            assert resp.status_code == 200, asset


def test_site_root_answers():
    with APP.test_client().get("/") as resp:  # may be a file response: close it
        assert resp.status_code == 200 and resp.mimetype == "text/html"


def test_every_answer_of_whole_games_matches_the_document():
    """The documented View holds in every phase the engine reaches, for players and spectators."""
    import jsonschema_rs  # what schemathesis validates with

    store = MemoryStore()
    client = make_app(store).test_client()
    components = client.get(f"{API}/openapi.json").get_json()["components"]

    def validator(name):
        return jsonschema_rs.Draft202012Validator({"$ref": f"#/components/schemas/{name}",
                                                   "components": components})

    game_schema, result_schema = validator("Game"), validator("ActionResult")
    phases = set()
    for mode, seed in (("solo", 21), ("duo", 22)):
        game = new_game(client, mode)
        rng = random.Random(seed)
        while True:
            public = game.get(None).get_json()
            game_schema.validate(public)
            phases.add(public["view"]["phase"])
            if public["view"]["phase"] == "over":
                break
            seat = public["view"]["active"]
            mine = game.get(seat).get_json()
            game_schema.validate(mine)
            resp = game.act(seat, rng.choice(mine["view"]["legal_actions"]))
            result_schema.validate(resp.get_json())
            game.version = resp.get_json()["version"]
    assert {"plant", "use", "over"} <= phases
