"""CHANGELOG.md and the release number agree (docs/versioning.md, "Releases")."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
GROUPS = {"Added", "Changed", "Deprecated", "Removed", "Fixed", "Security"}


def test_the_newest_release_in_the_changelog_is_the_projects_version():
    version = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    changelog = (ROOT / "CHANGELOG.md").read_text()
    releases = re.findall(r"^## \[(\d+\.\d+\.\d+)\] - \d{4}-\d{2}-\d{2}$", changelog, re.M)
    assert releases and releases[0] == version
    assert releases == sorted(releases, key=lambda v: tuple(map(int, v.split("."))), reverse=True)


def test_changes_are_grouped_as_the_policy_says():
    groups = set(re.findall(r"^### (.+)$", (ROOT / "CHANGELOG.md").read_text(), re.M))
    assert groups and groups <= GROUPS
