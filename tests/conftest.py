"""Shared pytest configuration: hypothesis profiles, selected with HYPOTHESIS_PROFILE (default: "default"),
and the test lanes.

Tests pick their own `max_examples`; the profiles only decide timing and reproducibility.

Lanes: `./test --fast` (the edit loop) runs what needs no browser, no gunicorn, no Sentinel or Cluster and
no long property run, by deselecting the markers `browser`, `gunicorn`, `cluster` and `slow`. Whole folders
are marked here by where they are (FOLDER_LANES); a test that starts gunicorn is marked by its module
(`pytestmark`) or itself, and a gunicorn started in the fast lane fails the test (tests/live/servers.py:
`refuse_in_fast_lane`), so a missing mark cannot slip a slow test into the edit loop unnoticed.
"""

import os
from pathlib import Path

import pytest
from hypothesis import settings

from tests.contract import PROBLEMS
from tests.limits_off import ENV

settings.register_profile("default", deadline=None)
# CI: no example database, a fixed search order, and the reproduction blob printed on failure.
settings.register_profile("ci", deadline=None, derandomize=True, database=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# Every test plays from 127.0.0.1: the rate limits are lifted (tests/limits_off.py) unless the environment
# or a test's own config sets them (tests/security/ does).
for _var, _value in ENV.items():
    os.environ.setdefault(_var, _value)


@pytest.fixture(autouse=True)
def problems_fit_the_contract():
    """Every problem an in-process server answered during the test fits the served Problem schema, read
    strictly (tests/contract.py): the test that provoked a misfit fails."""
    PROBLEMS.misfits.clear()
    yield
    misfits, PROBLEMS.misfits[:] = PROBLEMS.misfits[:], []
    assert not misfits, misfits


def pytest_sessionfinish(session, exitstatus):
    """Under CI (ALCABOHNE_CI=1) a skipped test is a failure: CI installs everything the tests need."""
    if os.environ.get("ALCABOHNE_CI") != "1":
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    skipped = reporter.stats.get("skipped", []) if reporter else []
    if skipped and session.exitstatus == 0:
        reporter.write_line(f"ALCABOHNE_CI=1: {len(skipped)} test(s) skipped; CI must run them all.",
                            red=True)
        session.exitstatus = 1


TESTS = Path(__file__).parent
# Folders whose every test belongs to a slow lane, and the marker that says which.
FOLDER_LANES = {"e2e": "browser", "scaling": "cluster",
                "security": "gunicorn", "faults": "gunicorn", "clients": "gunicorn"}
# Run first, so that the parallel workers end together instead of one finishing a long test alone.
SLOW_FIRST = ("e2e", "scaling", "faults", "security", "clients", "live", "docs", "deploy")


def pytest_collection_modifyitems(config, items):
    for item in items:
        parts = Path(item.path).relative_to(TESTS).parts
        lane = FOLDER_LANES.get(parts[0]) if len(parts) > 1 else None
        if lane:
            item.add_marker(lane)

    def rank(item):
        parts = Path(item.path).relative_to(TESTS).parts
        slow = parts[0] in SLOW_FIRST or any(item.get_closest_marker(m) for m in ("gunicorn", "slow"))
        return 0 if slow else 1

    items.sort(key=rank)  # stable: the order inside each group is the files' own
