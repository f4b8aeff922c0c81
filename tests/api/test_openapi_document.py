"""The OpenAPI document as a reference: valid 3.1, every error problem+json with a type page that
resolves, every header declared, an example of every request and answer (tests/api/test_openapi_examples.py
keeps them real) that fits its schema, and no leftovers.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import jsonschema_rs
import pytest
from openapi_spec_validator import OpenAPIV31SpecValidator

from api.errors import ADVICE, CODES, PROBLEM_TYPE, type_uri
from api.http import openapi
from api.store.memory import MemoryStore
from tests.api.fixtures_api import API, PUBLIC, make_app

APP = make_app(MemoryStore())
SPEC = APP.test_client().get(openapi.SPEC_URL).get_json()
OPERATIONS = [(method, path, op) for path, item in SPEC["paths"].items() for method, op in item.items()
              if isinstance(op, dict) and "responses" in op]


def _responses():
    for method, path, op in OPERATIONS:
        for status, response in op["responses"].items():
            yield method, path, status, response


def _resolve(node: dict) -> dict:
    if "$ref" in node:
        name = node["$ref"].rsplit("/", 1)[1]
        kind = node["$ref"].split("/")[2]
        return SPEC["components"][kind][name]
    return node


def test_document_is_valid_openapi_3_1():
    assert SPEC["openapi"].startswith("3.1.")
    OpenAPIV31SpecValidator(SPEC).validate()  # raises on the first error


def test_validator_refuses_a_broken_document():
    # The validator in use does look: a response without its required description is an error.
    broken = json.loads(json.dumps(SPEC))
    del broken["paths"][f"{API}/health"]["get"]["responses"]["200"]["description"]
    assert list(OpenAPIV31SpecValidator(broken).iter_errors())


def test_info_version_is_the_release():
    import importlib.metadata

    assert SPEC["info"]["version"] == importlib.metadata.version("alcabohne")


def test_servers_name_this_server_and_its_public_address():
    assert SPEC["servers"][0]["url"] == "/"
    assert SPEC["servers"][1]["url"] == PUBLIC + "/"


def test_every_component_schema_is_used():
    """No leftovers (flask-smorest's PaginationMetadata was one): every schema is reachable from an
    operation, through other schemas as well."""
    schemas = SPEC["components"]["schemas"]
    text = json.dumps({k: v for k, v in SPEC.items() if k != "components"}) + json.dumps(
        {k: v for k, v in SPEC["components"].items() if k != "schemas"})
    reached, todo = set(), re.findall(r'"#/components/schemas/(\w+)"', text)
    while todo:
        name = todo.pop()
        if name not in reached:
            reached.add(name)
            todo += re.findall(r'"#/components/schemas/(\w+)"', json.dumps(schemas[name]))
    assert set(schemas) - reached == set()
    assert "PaginationMetadata" not in schemas


def test_every_error_is_problem_json_and_every_answer_has_a_type():
    checked = 0
    for method, path, status, response in _responses():
        content = _resolve(response).get("content", {})
        assert content, (method, path, status)
        if status == "default" or status[0] in "45":
            assert list(content) == [PROBLEM_TYPE], (method, path, status)
            assert content[PROBLEM_TYPE]["schema"] == {"$ref": "#/components/schemas/Problem"}
            checked += 1
    assert checked >= 75
    qr = SPEC["paths"][f"{API}/games/{{game_id}}/qr.svg"]["get"]["responses"]["200"]["content"]
    assert list(qr) == ["image/svg+xml"]
    page = SPEC["paths"][f"{API}/problems/{{code}}"]["get"]["responses"]["200"]["content"]
    assert list(page) == ["text/html"]


def test_every_code_has_its_advice():
    """One list of codes (api.errors.CODES), and a page text for each (ADVICE): no code without a page."""
    assert list(ADVICE) == list(CODES)
    assert all(len(text) > 40 for text in ADVICE.values())


def test_the_problem_schema_names_every_code_and_its_type_page():
    problem = SPEC["components"]["schemas"]["Problem"]
    assert set(problem["properties"]["code"]["enum"]) == set(CODES)
    assert problem["properties"]["type"]["format"] == "uri-reference"
    assert problem.get("additionalProperties", True) is not False  # RFC 9457 extension members
    for code in CODES:
        assert f"]({type_uri(code)})" in SPEC["info"]["description"], code


def test_headers_are_declared_where_they_apply():
    declared = 0
    for method, path, status, response in _responses():
        headers = _resolve(response)["headers"]
        assert "X-Request-Id" in headers, (method, path, status)
        if status == "401":
            assert _resolve(headers["WWW-Authenticate"])["required"] is True
        if status in ("429", "503"):
            assert _resolve(headers["Retry-After"])["required"] is True
        declared += len(headers)
    assert "Allow" in SPEC["components"]["responses"]["DEFAULT_ERROR"]["headers"]
    actions = SPEC["paths"][f"{API}/games/{{game_id}}/actions"]["post"]
    assert "Idempotent-Replayed" in actions["responses"]["200"]["headers"]
    assert "Idempotency-Key" in [p["name"] for p in actions["parameters"] if p["in"] == "header"]
    assert actions["security"] == [{"seatToken": []}]
    assert SPEC["components"]["securitySchemes"]["seatToken"] == {
        "type": "http", "scheme": "bearer", "description": "The seat token from create/join."}
    assert "Location" in SPEC["paths"][f"{API}/games"]["post"]["responses"]["201"]["headers"]
    assert declared > 100


def test_answers_that_seat_a_player_link_to_the_game():
    links = SPEC["paths"][f"{API}/games"]["post"]["responses"]["201"]["links"]
    assert len(links) == 8
    for link in links.values():
        path, method = link["operationRef"][len("#/paths/"):].rsplit("/", 1)
        assert method in SPEC["paths"][path.replace("~1", "/").replace("~0", "~")]
        assert link["parameters"] == {"game_id": "$response.body#/game_id"}


def test_action_is_a_well_formed_action_never_null():
    schemas = SPEC["components"]["schemas"]
    assert schemas["ActionRequest"]["properties"]["action"]["$ref"] == "#/components/schemas/Action"
    action = _validator({"$ref": "#/components/schemas/Action"})
    assert action.is_valid({"type": "plant_display", "bean": "BL", "field": 2})
    for wrong in (None, {"type": "plant_display", "bean": "BL"}, {"type": "end_phase", "field": 0},
                  {"type": "harvest", "field": 3}, {"type": "give_hand", "index": 0, "boss": "mafia"},
                  {"type": "fly"}):
        assert not action.is_valid(wrong), wrong
    assert schemas["View"]["properties"]["legal_actions"]["items"] == {"$ref": "#/components/schemas/Action"}


def test_every_operation_has_examples_of_its_requests_and_of_every_answer():
    answers = 0
    for method, path, op in OPERATIONS:
        if "requestBody" in op:
            assert op["requestBody"]["content"]["application/json"]["examples"], (method, path)
        for status, response in op["responses"].items():
            if status == "default":
                continue
            for content_type, media in response["content"].items():
                assert media.get("examples"), (method, path, status, content_type)
                answers += len(media["examples"])
    assert len(OPERATIONS) == 13
    assert answers >= 80


def _validator(schema: dict):
    return jsonschema_rs.Draft202012Validator({**schema, "components": SPEC["components"]})


def test_every_example_fits_its_schema():
    """The examples are real answers (test_openapi_examples.py); here they must also fit the schema they
    illustrate, requests and answers alike, headers included."""
    count = 0
    for method, path, op in OPERATIONS:
        if "requestBody" in op:
            media = op["requestBody"]["content"]["application/json"]
            for name, example in media["examples"].items():
                errors = [e.message for e in _validator(media["schema"]).iter_errors(example["value"])]
                assert not errors, (method, path, name, errors)
                count += 1
        for status, response in op["responses"].items():
            for media in response.get("content", {}).values():
                for name, example in media.get("examples", {}).items():
                    errors = [e.message for e in _validator(media["schema"]).iter_errors(example["value"])]
                    assert not errors, (method, path, status, name, errors)
                    count += 1
    assert count >= 90


def test_example_tokens_are_placeholders():
    for example in openapi.load_examples():
        body = example["response"]["body"]
        if isinstance(body, dict) and "token" in body:
            assert re.fullmatch(r"EXAMPLE-SEAT-TOKEN-\d+", body["token"]), body["token"]
        auth = example["request"].get("headers", {}).get("Authorization", "")
        assert not auth.startswith("Bearer ") or re.fullmatch(
            r"Bearer (EXAMPLE-SEAT-TOKEN-\d+|not-a-seat-token)", auth), auth


def test_every_problem_example_and_every_401_keeps_to_the_rules():
    """Every problem body's type is its code's page; every 401 challenges with Bearer; 429 and 503 say
    when to come back."""
    seen = set()
    for example in openapi.load_examples():
        response = example["response"]
        if response["status"] >= 400:
            body = response["body"]
            assert response["content_type"] == PROBLEM_TYPE
            assert body["type"] == type_uri(body["code"]) and body["status"] == response["status"]
            seen.add(body["code"])
        if response["status"] == 401:
            assert response["headers"]["WWW-Authenticate"].startswith('Bearer realm="alcabohne"')
        if response["status"] in (429, 503):
            assert int(response["headers"]["Retry-After"]) >= 1
    # Those the examples cannot show: a websocket's, a bug's, a store that times out mid-change, a
    # method the path lacks (the Allow test below).
    assert set(CODES) - seen == {"forbidden_origin", "server_busy", "internal_error", "outcome_unknown",
                                 "method_not_allowed"}


@pytest.mark.parametrize("code", sorted(CODES))
def test_problem_type_pages_resolve(code):
    client = APP.test_client()
    resp = client.get(type_uri(code))
    assert resp.status_code == 200 and resp.mimetype == "text/html"
    page = resp.get_data(as_text=True)
    status, title = CODES[code]
    assert f"<h1><code>{code}</code></h1>" in page
    assert f"Status: <strong>{status}</strong>" in page
    index = client.get(f"{API}/problems").get_data(as_text=True)
    assert f'href="{type_uri(code)}"' in index


def test_protocol_doc_table_agrees_with_the_pages():
    """docs/protocol.md §9 (read here, written by its own author) names the same codes and statuses as
    the problem pages, and the same type URI."""
    text = (Path(__file__).resolve().parents[2] / "docs" / "protocol.md").read_text(encoding="utf-8")
    section = text.split("## 9.", 1)[1].split("\n## ", 1)[0]
    rows = dict(re.findall(r"^\| `(\w+)` \| (\d{3})", section, re.M))
    assert rows == {code: str(status) for code, (status, _title) in CODES.items()}
    assert type_uri("{code}") in section
    client = APP.test_client()
    for code, status in rows.items():
        assert f"Status: <strong>{status}</strong>" in client.get(type_uri(code)).get_data(as_text=True)


def test_an_unknown_problem_type_is_a_problem_itself():
    resp = APP.test_client().get(f"{API}/problems/no_such_code")
    assert resp.status_code == 404 and resp.mimetype == PROBLEM_TYPE
    assert resp.get_json()["type"] == type_uri("not_found")


def test_401_challenges_and_405_allows():
    client = APP.test_client()
    game = client.post(f"{API}/games", json={"mode": "solo"}).get_json()
    url = f"{API}/games/{game['game_id']}/actions"
    body = {"action": {"type": "end_phase"}, "version": 1}
    cases = {None: 'Bearer realm="alcabohne"',
             "Basic eDp5": 'Bearer realm="alcabohne", error="invalid_request"',
             "Bearer nope": 'Bearer realm="alcabohne", error="invalid_token"'}
    for authorization, challenge in cases.items():
        headers = {"Authorization": authorization} if authorization else {}
        resp = client.post(url, json=body, headers=headers)
        assert resp.status_code == 401 and resp.headers["WWW-Authenticate"].startswith(challenge)
        assert "nope" not in resp.headers["WWW-Authenticate"]
    resp = client.delete(url)
    assert resp.status_code == 405 and resp.mimetype == PROBLEM_TYPE
    assert resp.get_json()["type"] == type_uri("method_not_allowed")
    assert set(resp.headers["Allow"].replace(" ", "").split(",")) == {"POST", "OPTIONS"}
