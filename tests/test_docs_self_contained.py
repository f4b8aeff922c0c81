"""The repository documents itself: no tracked file points at documents outside it, and every `docs/...`
path that a tracked file names exists.

The game's rules are docs/rules.md and the client's contract docs/protocol.md; the team's working notes
that preceded them are not part of the product, so a reference to them would send a reader nowhere.
"""

from __future__ import annotations

import pathlib
import re
import subprocess

ROOT = pathlib.Path(__file__).resolve().parents[1]

# Names of the documents outside the repository (spelled in pieces so that this file does not match).
_OUTSIDE = ["RULES", "PROTOCOL", "DESIGN", "TECH-NOTES", "TABLE"]
OUTSIDE_RE = re.compile(
    r"\.\./" + "shared"  # the folder next to the repository
    + r"|\b(?:" + "|".join(map(re.escape, _OUTSIDE)) + r")\.md\b"  # RULES.md and the like
    + r"|\b(?:" + "|".join(map(re.escape, _OUTSIDE)) + r") (?:§|\\u00a7|principle)"  # "PROTOCOL §6"
)
# A docs/ path as written in text: not part of a longer path (api/docs/...) or a host (docs.example).
DOCS_PATH_RE = re.compile(r"(?<![\w./-])docs/[\w./-]*[\w]")
TEXT_SUFFIXES = {".py", ".md", ".js", ".json", ".html", ".css", ".txt", ".toml", ".cfg", ".conf", ".yml",
                 ".yaml", ".sh", ".svg", ".webmanifest", ""}


def _tracked_text_files() -> list[pathlib.Path]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    files = []
    for name in out.decode().split("\0"):
        path = ROOT / name
        if name and path.suffix in TEXT_SUFFIXES and path.is_file() and "vendor" not in path.parts:
            files.append(path)
    return files


def _read(path: pathlib.Path) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        return ""


def test_nothing_points_outside_the_repository():
    found = []
    for path in _tracked_text_files():
        if path == pathlib.Path(__file__).resolve():
            continue
        for n, line in enumerate(_read(path).splitlines(), 1):
            if OUTSIDE_RE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()[:120]}")
    assert not found, "references to documents outside the repository:\n" + "\n".join(found)


def test_every_docs_path_mentioned_exists():
    missing = []
    for path in _tracked_text_files():
        for n, line in enumerate(_read(path).splitlines(), 1):
            for ref in DOCS_PATH_RE.findall(line):
                ref = ref.rstrip(".")
                if not (ROOT / ref).exists():
                    missing.append(f"{path.relative_to(ROOT)}:{n}: {ref}")
    assert not missing, "docs/ paths that do not exist:\n" + "\n".join(missing)


def test_the_patterns_catch_what_they_are_for():
    for text in ("see ../" + "shared/X", "RULES" + ".md", "PROTOCOL" + " §6", "TECH-NOTES" + ".md",
                 "DESIGN" + " principle 12", "PROTOCOL" + " \\u00a73."):
        assert OUTSIDE_RE.search(text), text
    for text in ("docs/rules.md", "docs/protocol.md §6", "RULES_MD", "PROTOCOL_VERSION"):
        assert not OUTSIDE_RE.search(text), text
    assert DOCS_PATH_RE.findall("see docs/rules.md. And /api/docs#x, api/docs/y") == ["docs/rules.md"]
