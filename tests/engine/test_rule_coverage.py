"""Acceptance: every behavioural rule of RULES.md is cited by the name or docstring of some engine test."""

import ast
import pathlib
import re

HERE = pathlib.Path(__file__).resolve().parent

# Every rule id of RULES.md that states behaviour (R1-R103 with their gaps; R90a included).
RULES = (
    [f"R{i}" for i in (1, 2, 3, 4, 5, 6)]
    + [f"R{i}" for i in range(10, 18)]
    + [f"R{i}" for i in range(20, 25)]
    + [f"R{i}" for i in range(30, 36)]
    + [f"R{i}" for i in range(40, 44)]
    + ["R50", "R51"]
    + [f"R{i}" for i in range(60, 88)]
    + ["R90", "R90a"]
    + [f"R{i}" for i in range(91, 96)]
    + [f"R{i}" for i in range(100, 104)]
)


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


def test_every_rule_is_cited_by_a_test():
    cited = _citations()
    missing = [r for r in RULES if r not in cited]
    assert not missing, f"rules without a test citing them: {missing}"
