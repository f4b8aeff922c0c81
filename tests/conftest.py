"""Shared pytest configuration: hypothesis profiles, selected with HYPOTHESIS_PROFILE (default: "default").

Tests pick their own `max_examples`; the profiles only decide timing and reproducibility.
"""

import os

from hypothesis import settings

from tests.limits_off import ENV

settings.register_profile("default", deadline=None)
# CI: no example database, a fixed search order, and the reproduction blob printed on failure.
settings.register_profile("ci", deadline=None, derandomize=True, database=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

# Every test plays from 127.0.0.1: the rate limits are lifted (tests/limits_off.py) unless the environment
# or a test's own config sets them (tests/security/ does).
for _var, _value in ENV.items():
    os.environ.setdefault(_var, _value)


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
