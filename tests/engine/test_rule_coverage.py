"""Acceptance: every rule of docs/rules.md is cited by the name or docstring of some engine test, and
every rule or decision id that the code and the tests cite has its place in docs/rules.md."""

import ast
import pathlib
import re

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RULES_MD = ROOT / "docs" / "rules.md"


def _documented() -> tuple[list[str], set[str]]:
    """Return the rule ids that docs/rules.md states (each list item opens with its bold id, R1-R103
    with their gaps, R90a) and its decision ids (the rows of the table in §11: A1-A25)."""
    text = RULES_MD.read_text(encoding="utf-8")
    rules = re.findall(r"^- \*\*(R\d+a?)\b", text, flags=re.M)
    decisions = set(re.findall(r"^\| (A\d+) \|", text, flags=re.M))
    return rules, decisions


def _citations():
    cited = set()
    for path in HERE.glob("test_*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                for token in node.name.split("_"):  # test_r22_..., test_r90a_..., test_r66b_...
                    m = re.fullmatch(r"r(\d+)([ab]?)", token)
                    if m:
                        cited.update({f"R{m[1]}", f"R{m[1]}{m[2]}"})
                cited.update(re.findall(r"R\d+a?(?!\d)", ast.get_docstring(node) or ""))
    return cited


def test_rules_page_lists_every_rule_once():
    rules, decisions = _documented()
    assert len(rules) == len(set(rules)), "a rule id appears twice in docs/rules.md"
    # R1-R6, R10-R17, R20-R24, R30-R35, R40-R43, R50-R51, R60-R87, R90, R90a, R91-R95, R100-R103.
    assert len(rules) == 70, rules
    assert decisions == {f"A{i}" for i in range(1, 26)}


def test_every_rule_is_cited_by_a_test():
    rules, _ = _documented()
    cited = _citations()
    missing = [r for r in rules if r not in cited]
    assert not missing, f"rules without a test citing them: {missing}"


def test_every_cited_id_is_documented():
    """Every R#/A# that engine code, api code, the PWA or a test names exists in docs/rules.md (R66a and
    R66b name the two ways of R66)."""
    rules, decisions = _documented()
    known = set(rules) | decisions
    cited = set()
    for top in ("engine", "api", "pwa/js", "tests"):
        for path in (ROOT / top).rglob("*"):
            parts = path.relative_to(ROOT).parts
            if "node_modules" in parts or any(p.startswith(".") for p in parts):
                continue  # other packages' code: a client test's npm install or virtualenv
            if path.suffix in (".py", ".js") and path.is_file():
                cited.update(re.findall(r"\b(R\d+[ab]?|A\d+)\b", path.read_text(encoding="utf-8")))
    unknown = sorted(c for c in cited if c not in known and c.rstrip("ab") not in known)
    assert not unknown, f"ids cited but not in docs/rules.md: {unknown}"
