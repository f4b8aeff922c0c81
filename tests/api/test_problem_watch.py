"""The suite-wide problem watch (tests/contract.py) sees the problems of the in-process apps and refuses
a problem that does not fit the served schema."""

from __future__ import annotations

from api import close
from api.store.memory import MemoryStore
from tests.api.fixtures_api import API, make_app
from tests.contract import PROBLEMS


def test_a_provoked_problem_is_checked():
    app = make_app(MemoryStore())
    try:
        before = PROBLEMS.seen.get("404 unknown_game", 0)
        assert app.test_client().get(f"{API}/games/nosuchgame").status_code == 404
        assert PROBLEMS.seen.get("404 unknown_game", 0) == before + 1
        assert not PROBLEMS.misfits
    finally:
        close(app)


def test_a_problem_with_an_undeclared_member_is_a_misfit():
    PROBLEMS.check(404, b'{"type": "/api/v1/problems/not_found", "title": "Not found", "status": 404,'
                        b' "detail": "No.", "code": "not_found", "hidden": "a member nobody declared"}')
    misfits, PROBLEMS.misfits[:] = PROBLEMS.misfits[:], []
    assert len(misfits) == 1 and "hidden" in misfits[0]
