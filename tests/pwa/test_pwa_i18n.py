"""Every interface string exists in German and English, and no rule number reaches the player.

- pwa/i18n/en.json and de.json have the same keys; plural keys come with both forms (.one, .other).
- Every key the client asks for with t('...') exists: literal keys (also inside a conditional first
  argument), plural bases (t('table.cards', {n}) -> table.cards.one/.other), and dynamic keys: a
  template t(`err.${code}`) needs keys under its prefix, and the families whose values the client
  knows (beans, bosses, hint reasons of the server, rules sections) must be complete.
- The rules text (pwa/i18n/rules.<lang>.json) has the same shape in both languages, and the coach's
  tips (pwa/js/views/coachcard.js) all have a text.
- No player-facing string quotes a rule id of the specification (R69, A13).
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from engine import cards

ROOT = Path(__file__).resolve().parents[2]
PWA = ROOT / "pwa"
LANGS = ("en", "de")


def _catalog(lang: str) -> dict:
    return json.loads((PWA / "i18n" / f"{lang}.json").read_text(encoding="utf-8"))


def _rules(lang: str) -> dict:
    return json.loads((PWA / "i18n" / f"rules.{lang}.json").read_text(encoding="utf-8"))


def _sources() -> dict[str, str]:
    files = sorted((PWA / "js").rglob("*.js"))
    return {str(p.relative_to(PWA)): p.read_text(encoding="utf-8") for p in files}


def _first_args(src: str) -> list[str]:
    """The text of the first argument of every t(...) call (balanced brackets, strings skipped)."""
    out = []
    for m in re.finditer(r"(?<![\w.$])t\(", src):
        i, depth, start = m.end(), 0, m.end()
        quote = None
        while i < len(src):
            c = src[i]
            if quote:
                if c == "\\":
                    i += 1
                elif c == quote:
                    quote = None
            elif c in "'\"`":
                quote = c
            elif c in "([{":
                depth += 1
            elif c in ")]}":
                if depth == 0:
                    break
                depth -= 1
            elif c == "," and depth == 0:
                break
            i += 1
        out.append(src[start:i].strip())
    return out


def _exists(key: str, cat: dict) -> bool:
    return key in cat or (f"{key}.one" in cat and f"{key}.other" in cat)


def test_same_keys_in_both_languages():
    en, de = _catalog("en"), _catalog("de")
    assert not sorted(set(en) - set(de)), f"missing in de.json: {sorted(set(en) - set(de))}"
    assert not sorted(set(de) - set(en)), f"missing in en.json: {sorted(set(de) - set(en))}"


@pytest.mark.parametrize("lang", LANGS)
def test_plural_keys_have_both_forms(lang):
    cat = _catalog(lang)
    bases = {k.rsplit(".", 1)[0] for k in cat if k.endswith((".one", ".other"))}
    broken = [b for b in sorted(bases) if not (f"{b}.one" in cat and f"{b}.other" in cat)]
    assert not broken, f"{lang}: plural keys without both .one and .other: {broken}"


@pytest.mark.parametrize("lang", LANGS)
def test_placeholders_match_english(lang):
    en, cat = _catalog("en"), _catalog(lang)
    ph = lambda s: set(re.findall(r"\{(\w+)\}", s))  # noqa: E731
    bad = [k for k in cat if k in en and ph(cat[k]) != ph(en[k])]
    assert not bad, f"{lang}: placeholders differ from en.json: {bad}"


def test_every_key_used_in_the_client_exists():
    cats = {lang: _catalog(lang) for lang in LANGS}
    missing, prefixes = [], []
    for name, src in _sources().items():
        for arg in _first_args(src):
            if arg.startswith("`"):  # a template: its static head must name an existing family
                head = arg[1:].split("${", 1)[0]
                if "${" in arg and head:
                    prefixes.append((name, head))
                elif "${" not in arg:
                    key = arg.strip("`")
                    missing += [(name, lang, key) for lang in LANGS if not _exists(key, cats[lang])]
                continue
            for key in re.findall(r"'([a-z][\w.-]*\.[\w.-]+)'|\"([a-z][\w.-]*\.[\w.-]+)\"", arg):
                key = key[0] or key[1]
                missing += [(name, lang, key) for lang in LANGS if not _exists(key, cats[lang])]
    assert not missing, f"t() keys missing from a catalog: {missing}"
    empty = [(n, h) for n, h in prefixes for lang in LANGS if not any(k.startswith(h) for k in cats[lang])]
    assert not empty, f"dynamic t() keys with no catalog entry under their prefix: {empty}"
    assert prefixes, "the scan found no dynamic keys: the t() parser is broken"


def _hint_codes() -> set[str]:
    src = (ROOT / "engine" / "bots" / "hint.py").read_text(encoding="utf-8")
    return set(re.findall(r'(?:return|code, text =) \(?"([a-z_]+)",', src))


@pytest.mark.parametrize("lang", LANGS)
def test_dynamic_families_are_complete(lang):
    cat = _catalog(lang)
    rules = _rules(lang)
    want = [f"bean.{b}" for b in cards.BEANS] + [f"boss.{b}" for b in cards.BOSSES]
    codes = _hint_codes()
    assert len(codes) >= 10, codes  # the parse of engine/bots/hint.py found the reason codes
    want += [f"hint.reason.{c}" for c in sorted(codes)]
    want += [f"learn.section.{s['id']}" for s in rules["sections"]]
    missing = [k for k in want if not _exists(k, cat)]
    assert not missing, f"{lang}: {missing}"


def test_hint_links_and_rules_sections_agree():
    learn = (PWA / "js" / "learn.js").read_text(encoding="utf-8")
    listed = re.search(r"export const SECTIONS = \[(.*?)\];", learn, re.S).group(1)
    sections = re.findall(r"'(\w+)'", listed)
    for lang in LANGS:
        assert [s["id"] for s in _rules(lang)["sections"]] == sections, lang
    linked = set(re.findall(r"\b\w+: '(\w+)'", re.search(r"HINT_SECTION = \{(.*?)\};", learn, re.S).group(1)))
    assert linked <= set(sections), linked - set(sections)
    hint_map = re.search(r"HINT_SECTION = \{(.*?)\};", learn, re.S).group(1)
    assert set(re.findall(r"(\w+): '", hint_map)) == _hint_codes()


def _shape(node, path="$"):
    """The structure of a rules document: keys, list lengths and block kinds, not the words."""
    if isinstance(node, dict):
        return {k: _shape(v, f"{path}.{k}") for k, v in node.items()}
    if isinstance(node, list):
        return [_shape(v, f"{path}[{i}]") for i, v in enumerate(node)]
    if isinstance(node, str):
        return "str"
    return node  # true, ids stay comparable through dict keys


def test_rules_text_has_the_same_shape_in_both_languages():
    en, de = _rules("en"), _rules("de")
    assert _shape(en) == _shape(de)
    for a, b in zip(en["sections"], de["sections"], strict=True):
        assert a["id"] == b["id"]
        for x, y in zip(a["body"], b["body"], strict=True):
            if isinstance(x, dict):
                assert x.keys() == y.keys() and x.get("pic") == y.get("pic"), (a["id"], x, y)
        # links inside the text point at the same sections in both languages
        links = lambda s: re.findall(r"\]\((\w+)\)", json.dumps(s, ensure_ascii=False))  # noqa: E731
        assert links(a) == links(b), a["id"]
        assert set(links(a)) <= {s["id"] for s in en["sections"]}


def test_every_picture_and_coach_tip_has_its_text():
    sketch = (PWA / "js" / "views" / "sketch.js").read_text(encoding="utf-8")
    pics = set(re.findall(r"^  (\w+): \{ lit:", sketch, re.M))
    coach = (PWA / "js" / "views" / "coachcard.js").read_text(encoding="utf-8")
    tips = re.findall(r"\{ id: '(\w+)'", coach)
    assert len(pics) >= 10 and len(tips) >= 8
    for lang in LANGS:
        r = _rules(lang)
        used = {b["pic"] for s in r["sections"] for b in s["body"] if isinstance(b, dict) and "pic" in b}
        assert used <= pics, used - pics
        assert pics <= set(r["pics"]), pics - set(r["pics"])
        for tip in tips:
            assert r["coach"][tip]["title"] and r["coach"][tip]["text"], (lang, tip)


def _strings(node):
    if isinstance(node, dict):
        for v in node.values():
            yield from _strings(v)
    elif isinstance(node, list):
        for v in node:
            yield from _strings(v)
    elif isinstance(node, str):
        yield node


@pytest.mark.parametrize("lang", LANGS)
def test_no_rule_ids_in_player_text(lang):
    rule_id = re.compile(r"\b[RA]\d{1,3}[a-z]?\b")
    bad = [s for s in _strings(_catalog(lang)) if rule_id.search(s)]
    bad += [s for s in _strings(_rules(lang)) if rule_id.search(s)]
    assert not bad, bad
