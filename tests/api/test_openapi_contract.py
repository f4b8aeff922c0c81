"""The OpenAPI document as a client generator reads it (issue 28): typed to the bottom, one schema per event
type from the engine's vocabulary, discriminated unions, an operationId everywhere, nullable and optional
members in the forms generators understand, and the same objects in ws.schema.json.
"""

from __future__ import annotations

import json

import engine
import engine.actions
from api.http import openapi
from api.live.ws_schema import NOT_ON_SOCKETS
from api.live.ws_schema import SCHEMA as WS
from api.store.memory import MemoryStore
from engine import events, schemas
from tests.api.fixtures_api import make_app

SPEC = make_app(MemoryStore()).test_client().get(openapi.SPEC_URL).get_json()
COMPONENTS = SPEC["components"]["schemas"]
OPERATIONS = [(method, path, op) for path, item in SPEC["paths"].items() for method, op in item.items()
              if isinstance(op, dict) and "responses" in op]


def _walk(node, path=""):
    yield path, node
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _walk(v, f"{path}/{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _walk(v, f"{path}/{i}")


def test_every_operation_has_a_unique_operation_id():
    ids = [op.get("operationId") for _m, _p, op in OPERATIONS]
    assert None not in ids and len(set(ids)) == len(ids)


def test_the_engine_schemas_are_the_documents_schemas():
    """One source: the document's views, results, actions and events are engine.schemas' own."""
    mine = schemas.components(lambda n: f"#/components/schemas/{n}")
    for name, schema in mine.items():
        assert COMPONENTS[name] == schema, name
    theirs = schemas.components(lambda n: f"#/$defs/{n}")
    for name, schema in theirs.items():
        if name in NOT_ON_SOCKETS:
            assert name not in WS["$defs"], name
        else:
            assert WS["$defs"][name] == schema, name


def test_one_schema_per_event_type_under_a_discriminated_union():
    union = COMPONENTS["Event"]
    mapping = union["discriminator"]["mapping"]
    assert union["discriminator"]["propertyName"] == "type"
    assert set(mapping) == set(events.EVENTS)
    assert sorted(b["$ref"] for b in union["oneOf"]) == sorted(mapping.values())
    for kind, ref in mapping.items():
        branch = COMPONENTS[ref.rsplit("/", 1)[1]]
        assert branch["properties"]["type"]["const"] == kind
        assert set(branch["properties"]) == {"type", *events.EVENTS[kind].fields}
    # Every place that carries events refers to it.
    for name in ("ActionResult", "LogEntry"):
        assert COMPONENTS[name]["properties"]["events"]["items"] == {"$ref": "#/components/schemas/Event"}
    state = WS["$defs"]["server_state"]["properties"]["events"]["items"]
    assert state == {"$ref": "#/$defs/Event"}


def test_actions_are_a_discriminated_union():
    mapping = COMPONENTS["Action"]["discriminator"]["mapping"]
    assert set(mapping) == set(engine.actions.PARAMS)
    for name in ("ActionRequest", "Hint", "RecordAction"):
        assert COMPONENTS[name]["properties"]["action"]["$ref"] == "#/components/schemas/Action"
    legal = COMPONENTS["View"]["properties"]["legal_actions"]
    assert legal["items"] == {"$ref": "#/components/schemas/Action"}


def test_no_catch_all_objects_where_the_structure_is_known():
    """No `{}` item, no open map, no object without properties: only the problem is open (RFC 9457)."""
    for path, node in _walk(COMPONENTS):
        if not isinstance(node, dict):
            continue
        assert node.get("items", True) != {}, path
        assert node.get("additionalProperties", False) in (False, True), path  # never a schema of values
        if node.get("type") == "object" and path.count("/") == 1:
            assert node.get("properties"), path
            assert node.get("additionalProperties") is False or path == "/Problem", path


def test_every_view_field_is_typed():
    view = engine.view(engine.new_game("solo", 4), 0)
    props = COMPONENTS["View"]["properties"]
    assert set(props) == set(view) and set(COMPONENTS["View"]["required"]) == set(view)
    player = COMPONENTS["PlayerView"]["properties"]
    assert set(player) == set(view["players"][0])
    assert set(COMPONENTS["Bosses"]["properties"]) == set(engine.BOSSES)


def test_nullable_members_are_written_the_3_1_way():
    """No `nullable`, and no enum holding null next to a type list (generators make three classes of it)."""
    for path, node in _walk(SPEC):
        if isinstance(node, dict):
            assert "nullable" not in node, path
            if isinstance(node.get("enum"), list):
                assert None not in node["enum"], path


def test_request_members_with_a_default_stay_optional_in_generated_clients():
    for _method, _path, op in OPERATIONS:
        body = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
        if body is None:
            continue
        schema = COMPONENTS[body["$ref"].rsplit("/", 1)[1]]
        for name, member in schema["properties"].items():
            assert "default" not in member, name


def test_optional_authentication_is_the_documents_default():
    """Operations that read a token when one is sent carry no security of their own (the document's
    [{}, seatToken] applies, so generators accept a client with or without a token); those that need one
    say so; those that read none have []."""
    assert SPEC["security"] == [{}, {"seatToken": []}]
    need = {op["operationId"] for _m, _p, op in OPERATIONS if op.get("security") == [{"seatToken": []}]}
    optional = {op["operationId"] for _m, _p, op in OPERATIONS if "security" not in op}
    assert need == {"postAction", "getHint", "rematch", "transferSeat"}
    assert optional == {"joinGame", "getGame", "getEvents", "getJoinQr"}


def test_creating_a_game_always_has_join_code_and_join_url():
    created = SPEC["paths"]["/api/v1/games"]["post"]["responses"]["201"]["content"]["application/json"]
    assert created["schema"] == {"$ref": "#/components/schemas/CreatedGame"}
    assert {"join_code", "join_url"} <= set(COMPONENTS["CreatedGame"]["required"])


def test_problem_errors_have_one_shape():
    errors = COMPONENTS["Problem"]["properties"]["errors"]
    assert errors["items"] == {"$ref": "#/components/schemas/FieldError"}
    assert COMPONENTS["FieldError"]["required"] == ["location", "pointer", "detail"]
    assert WS["$defs"]["server_error"]["properties"]["errors"]["items"] == {"$ref": "#/$defs/FieldError"}


def test_ws_schema_has_no_required_but_undefined_members():
    for path, node in _walk(WS):
        if isinstance(node, dict) and "required" in node and isinstance(node["required"], list):
            assert set(node["required"]) <= set(node.get("properties", {})), path
    text = json.dumps(WS)
    for ref in {r for r in _refs(text)}:
        assert ref.rsplit("/", 1)[1] in WS["$defs"], ref


def _refs(text: str) -> set[str]:
    import re

    return set(re.findall(r'"\$ref": "(#/\$defs/\w+)"', text))
