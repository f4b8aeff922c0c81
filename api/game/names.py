"""Player names: the rule a name must meet (`clean_name`, and the OpenAPI pattern NAME_PATTERN that
clients may check first), and the names of a stored game's seats. Names are kept per seat in the
document's optional `names` field (None: no name); the game's own words (the computer, the Mafia, its
bosses, 'you', a seat's number) are kept for the game (RESERVED).
"""

from __future__ import annotations

import re
import unicodedata

NAME_MAX = 24
# Longest name text accepted before trimming (in code points; what a person sees is at most NAME_MAX).
NAME_RAW_MAX = 64
# Combining marks one character may carry (Vietnamese needs two; a stack of dozens covers the lines
# around the name).
MARKS_MAX = 3
ZWJ = "\u200d"
# Characters a name may never hold, as a regular expression class: C0 and C1 controls, line and paragraph
# separators, the bidi marks, overrides and isolates (they would reorder the text around the name on the
# other phone), and the invisible ones (zero-width spaces and joiners but the emoji's ZWJ, word joiner,
# soft hyphen, Hangul fillers, the Braille blank, tag characters, byte-order mark). The OpenAPI pattern
# holds this much; `clean_name` checks the rest (every format character, what a person sees).
_FORBIDDEN = (r"\x00-\x1f\x7f-\x9f\xad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b\u200c"
              r"\u200e\u200f\u2028-\u202e\u2060-\u206f\u2800\u3164\ufeff\uffa0\ufff9-\ufffb")


def _marks_class() -> str:
    """The combining marks of the Basic Multilingual Plane (and the emoji presentation selectors), as
    the ranges of a regular expression class: BMP only, which ECMA-262 and Python read alike."""
    ranges, start = [], None
    for code in range(0x10000):
        mark = unicodedata.category(chr(code)).startswith("M") or code in (0xFE0E, 0xFE0F)
        if mark and start is None:
            start = code
        elif not mark and start is not None:
            ranges.append((start, code - 1))
            start = None
    return "".join(f"\\u{a:04x}" if a == b else f"\\u{a:04x}-\\u{b:04x}" for a, b in ranges)


_MARKS = _marks_class()
# The `pattern` of the OpenAPI document: what a client may send for sure (every name it matches is
# accepted, reserved names aside): optional whitespace, then 1..NAME_MAX code points that start with a
# character that is no space, mark or joiner and end with a non-space, then optional whitespace; no
# four marks in a row. It is applied as JSON Schema does (re.search). The server accepts more (up to
# NAME_MAX characters as seen, NAME_RAW_MAX code points): `clean_name` decides.
NAME_PATTERN = (rf"^(?!.*[{_MARKS}]{{4}})[^\S{_FORBIDDEN}]*[^\s{_FORBIDDEN}{_MARKS}\u200d]"
                rf"(?:[^{_FORBIDDEN}]{{0,{NAME_MAX - 2}}}[^\s{_FORBIDDEN}])?[^\S{_FORBIDDEN}]*$")
# What the server takes before its own checks: the same, up to NAME_RAW_MAX code points.
_RAW_PATTERN = (rf"^[^\S{_FORBIDDEN}]*[^\s{_FORBIDDEN}](?:[^{_FORBIDDEN}]{{0,{NAME_RAW_MAX - 2}}}"
                rf"[^\s{_FORBIDDEN}])?[^\S{_FORBIDDEN}]*$")
_NAME_RE = re.compile(_RAW_PATTERN)
_FORBIDDEN_RE = re.compile(f"[{_FORBIDDEN}]")
NAME_RULE = (f"A name is 1-{NAME_MAX} characters as a person sees them (a letter with its accents, an "
             f"emoji), after trimming, without control, invisible or direction-changing characters "
             f"(at most {NAME_RAW_MAX} code points before trimming); names of the game (the computer, the "
             f"Mafia, its bosses, 'you', 'Player 1') are kept for the game.")
RESERVED_RULE = ("That name belongs to the game (the computer, the Mafia or one of its bosses, 'you' or a "
                 "seat's number): please choose another. / Dieser Name gehört zum Spiel (der Computer, die "
                 "Mafia oder einer ihrer Bosse, 'Du' oder eine Platznummer): bitte wähle einen anderen.")
# Names that belong to the game, in both languages, compared as `_name_key` makes them (case, accents,
# spaces, punctuation and look-alike digits ignored; "Computer 2" counts as "Computer").
RESERVED = frozenset({
    "computer", "thecomputer", "dercomputer", "computerplayer", "computerspieler", "bot", "cpu", "ai", "ki",
    "mafia", "themafia", "diemafia", "beanmafia", "bohnenmafia", "mafiaboss", "boss", "theboss", "derboss",
    "alcabohne", "doncorlebohne", "joebohnano", "cabohne", "corlebohne", "bohnano", "alcabohneonline",
    "you", "du", "player", "spieler", "spielerin",
})
_LOOKALIKE = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "@": "a", "$": "s",
                            "|": "i"})
# Emoji modifiers (skin tones) and presentation selectors belong to the emoji before them.
_EMOJI_PARTS = frozenset(chr(c) for c in range(0x1F3FB, 0x1F400)) | {"\ufe0e", "\ufe0f"}
_REGIONAL = range(0x1F1E6, 0x1F200)  # flags are pairs of regional indicators


def clean_name(value: str) -> str:
    """Return `value` as kept: NFC, every space a plain one, runs of spaces as one, trimmed. Raise
    ValueError (NAME_RULE, or RESERVED_RULE for a name of the game) when it is not a valid name."""
    if not isinstance(value, str) or len(value) > NAME_RAW_MAX or _NAME_RE.search(value) is None:
        raise ValueError(NAME_RULE)
    text = unicodedata.normalize("NFC", value)
    # Format characters beyond the Basic Multilingual Plane (tags, musical and shorthand format
    # controls) show nothing: dropped, as the OpenAPI pattern (BMP only) cannot name them.
    text = "".join(ch for ch in text if ord(ch) <= 0xFFFF or unicodedata.category(ch) != "Cf").lstrip(ZWJ)
    text = " ".join("".join(" " if unicodedata.category(ch) == "Zs" else ch for ch in text).split(" "))
    text = re.sub(" +", " ", text).strip()
    if visible_length(text) is None:
        raise ValueError(NAME_RULE)
    if _name_key(text) & RESERVED:
        raise ValueError(RESERVED_RULE)
    return text


def visible_length(text: str) -> int | None:
    """Return how many characters a person sees in `text` (grapheme clusters, approximately: a base
    with its combining marks, an emoji with its modifiers and ZWJ-joined parts, a flag), or None when
    the text may not be a name: a control or invisible character (_FORBIDDEN, a format character
    outside the Basic Multilingual Plane, a zero-width joiner first), more than MARKS_MAX marks on one
    character, nothing visible at all, or more than NAME_MAX characters. Unassigned and private-use
    characters count as visible: they show (as a box at least), and newer emoji are unassigned to an
    older Python."""
    count, marks, visible = 0, 0, False
    prev = ""
    for i, ch in enumerate(text):
        cat = unicodedata.category(ch)
        if cat in ("Cc", "Cs", "Zl", "Zp") or _FORBIDDEN_RE.match(ch) or (cat == "Cf" and ord(ch) > 0xFFFF):
            return None
        if ch == ZWJ:
            if not prev:
                return None
        elif (cat.startswith("M") or ch in _EMOJI_PARTS) and prev and prev != " ":
            marks += 1
            if marks > MARKS_MAX:
                return None
        elif prev == ZWJ or (ord(ch) in _REGIONAL and prev and ord(prev) in _REGIONAL and count_pair(
                text, i)):
            pass  # joined to the character before
        else:
            count += 1  # a base character (a mark with nothing to sit on shows on its own)
            marks = 0
            visible = visible or cat[0] in "LNPS" or cat in ("Co", "Cn")
        prev = ch
    if not visible or count > NAME_MAX:
        return None
    return count


def count_pair(text: str, i: int) -> bool:
    """Whether the regional indicator at `i` is the second of a flag (an odd run position)."""
    run = 0
    j = i - 1
    while j >= 0 and ord(text[j]) in _REGIONAL:
        run += 1
        j -= 1
    return run % 2 == 1


def _name_key(text: str) -> set[str]:
    """The forms a name is compared to RESERVED in: compatibility forms folded, accents dropped, case
    folded, only letters and digits left; then look-alike digits as letters, with and without a
    number at the end ("Player 2", "C0mputer")."""
    folded = unicodedata.normalize("NFKD", text).casefold()
    plain = "".join(ch for ch in folded if not unicodedata.category(ch).startswith("M"))
    base = "".join(ch for ch in plain.translate(_LOOKALIKE) if ch.isalnum() or ch in "0123456789")
    bare = "".join(ch for ch in plain if ch.isalnum()).rstrip("0123456789").translate(_LOOKALIKE)
    return {base, bare}


def names(doc: dict) -> list[str | None]:
    """Return the names per seat of a stored document (None: no name)."""
    return doc.get("names") or [None] * len(doc["seats"])


def with_name(doc_names: list[str | None] | None, seats: int, seat: int, name: str | None) -> list | None:
    """Return the document's `names` after giving `seat` the name `name` (None: keep them as they are)."""
    if name is None:
        return doc_names
    out = list(doc_names or [None] * seats)
    out[seat] = name
    return out
