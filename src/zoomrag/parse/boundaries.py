"""Where a piece of text may end: boundary tiers and safe cut positions.

A *cut* is an offset ``c`` between ``text[c-1]`` and ``text[c]``. Cuts are ranked in tiers:
paragraph break, sentence end, line break, word gap, and (for scripts written without spaces)
a gap between characters. A cut never falls inside a space-delimited word, before a combining
mark or emoji modifier, or after a zero-width joiner.

The backward searches find the rightmost cut in ``[lo, hi]`` with one regex match: a greedy
``(?s).*`` prefix backtracks from ``hi``, so the cost is the window length, run in C.
"""

from __future__ import annotations

import re
import unicodedata

#: Scripts written without spaces (CJK, kana, full-width forms, Thai, Lao, Myanmar, Khmer) and
#: CJK punctuation: a cut between two of these characters is not inside a word.
CONTINUOUS = (
    "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u2e80-\u2fdf\u3000-\u303f\u3040-\u30ff"
    "\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\ufe30-\ufe4f\uff00-\uffef"
    "\U00020000-\U0003134f"
)
_CONTINUOUS = re.compile(f"[{CONTINUOUS}]")
# Whitespace that allows a line break (no-break spaces glue their neighbours).
BREAKING_SPACE = r"[^\S\xa0\u2007\u202f]"
_CLOSERS = "\"'\u201d\u2019\u00bb)]}\u300d\u300f\uff09\u3011\u300b\u3015\u3009"
_CLOSERS_CLASS = re.escape(_CLOSERS)
#: Stops that end a sentence when a space follows them (and their closing quotes): "3.14" is
#: not an end. (text.sentences keeps its own list for its own rules: see ``_LATIN_STOPS`` there.)
SENTENCE_STOPS = ".!?\u2026\u203c\u2047\u2048\u2049\u0964\u0965\u061f\u06d4"
#: CJK and full-width stops, which end a sentence before any character: that text has no spaces.
#: The one exception is ``DECIMAL_POINT``.
WIDE_SENTENCE_STOPS = "\u3002\uff01\uff1f\uff1b\uff61\uff0e"
#: A full-width full stop between two ASCII digits is a decimal point (``3．5``), not a sentence
#: end, as in text.sentences (which ends a sentence after it only before a space or CJK text).
DECIMAL_POINT = "(?<=[0-9]\uff0e)(?=[0-9])"


def closers_after(lookahead: str) -> str:
    """The pattern of a stop's closing quotes and brackets, then ``lookahead``."""
    return f"[{_CLOSERS_CLASS}]*{lookahead}"


#: A sentence end; the match end is the cut. Any stop first, then the rule of its kind: a
#: backward search tests one character class per offset instead of two alternatives.
SENTENCE_END = (
    "[" + re.escape(SENTENCE_STOPS) + WIDE_SENTENCE_STOPS + "]"
    + "(?:(?<=[" + re.escape(SENTENCE_STOPS) + "])" + closers_after(r"(?=\s)")
    + "|(?<=[" + WIDE_SENTENCE_STOPS + "])" + closers_after(rf"(?=[\s\S])(?!{DECIMAL_POINT})") + ")"
)
#: Clause punctuation of CJK text, which plays the role of a space between words.
CJK_CLAUSE = "\uff0c\u3001\uff1a\ufe50\ufe51"

ZWJ = "\u200d"
#: How far before a window a boundary's characters may start (punctuation and closing quotes).
REACH = 16

#: Boundary patterns by tier; each match's end is the cut.
TIERS: dict[str, re.Pattern[str]] = {
    "paragraph": re.compile(r"(?s).*\n(?=[^\S\n]*\n)"),
    "sentence": re.compile(rf"(?s).*(?:{SENTENCE_END})"),
    "line": re.compile(r"(?s).*(?=\n)"),
    "word": re.compile(rf"(?s).*(?:(?={BREAKING_SPACE})|[{CJK_CLAUSE}](?=[\s\S]))"),
    "script": re.compile(rf"(?s).*(?:[{CONTINUOUS}](?=[\s\S])|(?=[{CONTINUOUS}]))"),
}
# Tiers that need a newline: skipped with one str.find when the window has none.
_NEEDS_NEWLINE = ("paragraph", "line")


def _order(*names: str) -> tuple[tuple[re.Pattern[str], bool], ...]:
    return tuple((TIERS[t], t in _NEEDS_NEWLINE) for t in names)


#: Preference order of ``fixed``: a sentence end beats a line break (hard-wrapped prose).
FIXED_ORDER = _order("paragraph", "sentence", "line", "word", "script")
#: Preference order of ``recursive``: paragraph, line, sentence, word, character.
RECURSIVE_ORDER = _order("paragraph", "line", "sentence", "word", "script")
# A sentence closed by a wide stop and its quotes (``！"|0``) is a gap too (:func:`can_cut`).
_WORD_TIERS = (TIERS["word"], TIERS["script"], TIERS["sentence"])
# Candidate positions for a forward search: next to a space or a continuous-script character.
_GAP = re.compile(rf"(?={BREAKING_SPACE})|(?<={BREAKING_SPACE})|(?=[{CONTINUOUS}])|(?<=[{CONTINUOUS}])"
                  rf"|(?<=[{_CLOSERS_CLASS}])")


def is_continuous(ch: str) -> bool:
    """True for characters of scripts written without spaces between words."""
    return _CONTINUOUS.match(ch) is not None


def is_glued(ch: str) -> bool:
    """True for a character that belongs to the one before it (combining mark, joiner, ...)."""
    o = ord(ch)
    return (
        unicodedata.category(ch)[0] == "M"
        or ch in "\u200d\u200c"
        or 0x1F3FB <= o <= 0x1F3FF  # emoji skin-tone modifiers
        or 0xE0020 <= o <= 0xE007F  # emoji tag sequences
    )


# is_glued of every character at or above U+0300 seen so far: cuts in CJK text land before a
# CJK character at almost every cut, and unicodedata's lookup costs more than a dict's.
_GLUED: dict[str, bool] = {}


def joins(text: str, c: int) -> bool:
    """True when a cut at ``c`` would split a user-perceived character."""
    if not 0 < c < len(text):
        return False
    ch = text[c]
    # Fast path: nothing below U+0300 (the first combining mark) is glued to its neighbour.
    if ch < "\u0300":
        return text[c - 1] == ZWJ
    glued = _GLUED.get(ch)
    if glued is None:
        glued = _GLUED[ch] = is_glued(ch)
    return glued or text[c - 1] == ZWJ


def _is_break(ch: str) -> bool:
    return ch.isspace() and ch not in "\xa0\u2007\u202f"


def can_cut(text: str, c: int) -> bool:
    """True when ``c`` is a gap between words (or characters of a continuous script), or the
    end of a sentence that a wide stop and its closing quotes end (``。"`` before any character,
    as the sentence tier cuts it)."""
    if not 0 < c < len(text) or joins(text, c):
        return False
    a, b = text[c - 1], text[c]
    if _is_break(a) or _is_break(b) or is_continuous(a) or is_continuous(b):
        return True
    k = c - 1
    while k >= 0 and text[k] in _CLOSERS:
        k -= 1
    return k < c - 1 and k >= 0 and text[k] in WIDE_SENTENCE_STOPS


def grapheme_cut(text: str, c: int) -> bool:
    """True when ``c`` does not split a character from its marks (words may be split)."""
    return 0 < c < len(text) and not joins(text, c)


def _last(pattern: re.Pattern[str], text: str, lo: int, hi: int) -> int:
    # The match starts a little before ``lo``: a cut at ``lo`` may follow its punctuation.
    begin = lo - REACH if lo > REACH else 0
    while lo <= hi:
        m = pattern.match(text, begin, hi + 1)
        if m is None or m.end() < lo:
            return -1
        c = m.end()
        if not joins(text, c):
            return c
        hi = c - 1
    return -1


def best_cut(text: str, lo: int, hi: int,
             order: tuple[tuple[re.Pattern[str], bool], ...] = FIXED_ORDER) -> int:
    """Rightmost cut in ``[lo, hi]`` of the first tier in ``order`` present, or -1."""
    if lo > hi:
        return -1
    newline = text.find("\n", max(0, lo - REACH), hi + 1) >= 0
    for pattern, needs_newline in order:
        if needs_newline and not newline:
            continue
        c = _last(pattern, text, lo, hi)
        if c >= 0:
            return c
    return -1


def last_gap(text: str, lo: int, hi: int) -> int:
    """Rightmost gap between words in ``[lo, hi]``, whatever its tier, or -1."""
    if lo > hi:
        return -1
    return max(_last(p, text, lo, hi) for p in _WORD_TIERS)


def last_grapheme(text: str, lo: int, hi: int) -> int:
    """Rightmost cut in ``[lo, hi]`` that keeps every character with its marks, or -1."""
    c = hi
    while c >= lo and not grapheme_cut(text, c):
        c -= 1
    return c if c >= lo else -1


def first_grapheme(text: str, lo: int, hi: int) -> int:
    """Leftmost cut in ``[lo, hi]`` that keeps every character with its marks, or -1."""
    c = lo
    while c <= hi and not grapheme_cut(text, c):
        c += 1
    return c if c <= hi else -1


def first_gap(text: str, lo: int, hi: int) -> int:
    """Leftmost gap between words in ``[lo, hi]`` (see :func:`can_cut`), or -1."""
    pos = max(lo, 1)
    while pos <= hi:
        m = _GAP.search(text, pos, hi + 1)
        if m is None:
            return -1
        c = m.start()
        if c <= hi and can_cut(text, c):
            return c
        pos = c + 1
    return -1
