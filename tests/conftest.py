"""Shared pytest configuration: hypothesis profiles, selected with HYPOTHESIS_PROFILE (default: "default").

Tests pick their own `max_examples`; the profiles only decide timing and reproducibility.
"""

import os

from hypothesis import settings

settings.register_profile("default", deadline=None)
# CI: no example database, a fixed search order, and the reproduction blob printed on failure.
settings.register_profile("ci", deadline=None, derandomize=True, database=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


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
