"""Shared pytest configuration: hypothesis profiles, selected with HYPOTHESIS_PROFILE (default: "default").

Tests pick their own `max_examples`; the profiles only decide timing and reproducibility.
"""

import os

from hypothesis import settings

settings.register_profile("default", deadline=None)
# CI: no example database, a fixed search order, and the reproduction blob printed on failure.
settings.register_profile("ci", deadline=None, derandomize=True, database=None, print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))
