"""The served contract read strictly, and a watch on every problem the suite's in-process servers answer.

`strict` closes every object schema of a document (a member it does not declare, at any depth, fails).
`watch_problems(app)` holds every `application/problem+json` answer of an app to the served `Problem`
schema, made strict; the autouse fixture in tests/conftest.py fails the test that provoked a misfit. So
every error the suite provokes in-process is checked, not only the ones tests/clients/test_strict_contract.py
provokes on purpose.
"""

from __future__ import annotations

import functools
import json
import threading

import jsonschema_rs

SPEC_URL = "/api/v1/openapi.json"
PROBLEM_TYPE = "application/problem+json"


def strict(node, key: str = ""):
    """A copy of `node` where every object schema listing properties allows no other member."""
    if isinstance(node, dict):
        out = {k: strict(v, k) for k, v in node.items()}
        if "properties" in out and key not in ("if", "not"):
            out.setdefault("additionalProperties", False)
            out["additionalProperties"] = False if out["additionalProperties"] is True else out[
                "additionalProperties"]
        return out
    if isinstance(node, list):
        return [strict(v) for v in node]
    return node


@functools.cache
def _problem_validator() -> jsonschema_rs.Draft202012Validator:
    from api import close, create_app
    from api.store.memory import MemoryStore

    app = create_app({"STORE": MemoryStore()})
    try:
        spec = strict(app.test_client().get(SPEC_URL).get_json())
    finally:
        close(app)
    return jsonschema_rs.Draft202012Validator({"components": spec["components"],
                                               "$ref": "#/components/schemas/Problem"})


class ProblemWatch:
    """What the watched apps answered as problems, and the answers that do not fit the schema."""

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}
        self.misfits: list[str] = []
        self._lock = threading.Lock()

    def check(self, status: int, body: bytes) -> None:
        try:
            problem = json.loads(body)
            found = _problem_validator().iter_errors(problem)
            errors = [f"{list(e.instance_path)}: {e.message}" for e in found]
        except ValueError as err:
            problem, errors = {}, [f"not JSON: {err}"]
        with self._lock:
            code = f"{status} {problem.get('code')}"
            self.seen[code] = self.seen.get(code, 0) + 1
            if errors:
                self.misfits.append(f"{code}: {errors[:3]} in {body[:300]!r}")


PROBLEMS = ProblemWatch()


def watch_problems(app):
    """Check every problem answer of `app` (before its first request) against the served schema."""

    @app.after_request
    def _check_problem(response):
        if response.mimetype == PROBLEM_TYPE and not response.direct_passthrough:
            PROBLEMS.check(response.status_code, response.get_data())
        return response

    return app
