"""Sentence segmentation with exact spans, for English-like and CJK text.

``sentence_spans(text, start, end)`` returns ordered, non-overlapping ``(start, end)`` pairs
inside [start, end), trimmed of surrounding whitespace, that together cover every
non-whitespace character of the range. A blank line always ends a sentence.

How a boundary is found (measured against pysbd, blingfire and sentencex in docs/text.md):

* ``。！？；`` (and ``｡``) always end a sentence, with any closing quotes or brackets after them
  (``」』”）``), unless a Japanese quotative particle (``と``) or a comma follows the quote.
* ``. ! ? …`` end a sentence only when whitespace, the end of the range, or a CJK character
  follows. Then:

  - ``!`` ``?`` and ellipses end it unless the next word starts in lower case
    (``"Stop!" she cried.``, ``I was thinking... maybe not.``);
  - a ``.`` after a closing quote or bracket ends it unless the next word is lower case
    (``"Go." he said.``);
  - a ``.`` after a title or a Latin abbreviation that never ends a sentence (``Dr.``, ``Mr.``,
    ``e.g.``, ``i.e.``, ``cf.``, ``vs.``) or after a single letter (``J. R. R. Tolkien``,
    ``p. 42``) does not end it;
  - a ``.`` after an abbreviation that may end a sentence (``etc.``, ``Inc.``, ``U.S.``,
    ``a.m.``, ``Fig.``, ``No.``) ends it only when the next word starts with a capital letter or a
    non-Latin character;
  - a ``.`` after a list number at the start of a line (``1. Open the lid``) does not end it;
  - any other ``.`` ends it, even before a lower-case word (lower-cased corpora exist).
* A single line break ends a sentence unless the next line starts in lower case (a hard-wrapped
  paragraph) and the line is not a table row (``|``).
"""

from __future__ import annotations

import re

_CLOSE = "\"'”’»›)\\]}」』）】〕〉》"
_OPEN = "\"'“‘«‹(\\[{「『（【〔〈《"
_CJK_STOP = "。！？；｡"
_CJK_CHARS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"

# Every place where a sentence may end; the rules in _latin_ends decide the ambiguous ones.
_CANDIDATE = re.compile(
    rf"(?P<cjk>[{_CJK_STOP}][{_CJK_STOP}!?…]*[{_CLOSE}]*)"
    rf"|(?P<latin>[.!?‽…．]+[{_CLOSE}]*)(?=\s|\Z|[{_CJK_CHARS}])"
    r"|(?P<para>(?:\r\n?|\n)[^\S\r\n]*(?:\r\n?|\n)|\u2029)"
    r"|(?P<line>\r\n?|\n|\u2028)"
)
# What follows a candidate: whitespace, opening quotes, then the first visible character.
_NEXT = re.compile(rf"\s*[{_OPEN}]*(\S)")
_LINE_NEXT = re.compile(r"[^\S\r\n]*(\S)")
# Japanese quotation followed by its quotative particle, or a comma after a closing quote.
_CJK_GOES_ON = "と、，,"

# Titles and Latin abbreviations that (almost) never end a sentence.
_NEVER = frozenset("""
    mr mrs ms mx dr prof sen rep gov gen col lt capt cmdr sgt maj adm hon fr st mt messrs mme
    mlle pres supt e.g i.e cf vs viz approx ca al esp
""".split())
# Abbreviations that may end a sentence: they end one before a capital letter.
_MAYBE = frozenset("""
    etc inc ltd co corp llc plc jr sr bros dept univ assn est fig figs eq eqs no nos vol vols
    pp ch chap sec sect art ref refs tab ed eds ser suppl ave blvd rd min max hr hrs incl excl
    misc govt natl intl jan feb mar apr jun jul aug sep sept oct nov dec mon tue wed thu fri sat
    sun op cit ibid resp et seq ph.d
""".split())
_AFTER_CJK = re.compile(rf"[^{_CJK_CHARS}]*\Z")
_DOTTED = re.compile(r"[^\W\d_]{1,2}(?:\.[^\W\d_]{1,2})+")
_VOWELS = frozenset("aeiouyAEIOUY")


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Sentences of ``text[start:end]`` as exact, trimmed ``(start, end)`` offsets into ``text``."""
    end = len(text) if end is None else end
    if not 0 <= start <= end <= len(text):
        raise ValueError(f"range [{start}, {end}) is outside a text of length {len(text)}")
    cuts = [start]
    for m in _CANDIDATE.finditer(text, start, end):
        kind = m.lastgroup
        if kind == "latin":
            if _latin_ends(text, m.start(), m.end(), start, end):
                cuts.append(m.end())
        elif kind == "cjk":
            if m.end() >= end or text[m.end()] not in _CJK_GOES_ON or text[m.end() - 1] not in _CLOSE:
                cuts.append(m.end())
        elif kind == "para":
            cuts.append(m.start())
        elif _line_ends(text, m.start(), m.end(), start, end):
            cuts.append(m.start())
    cuts.append(end)
    return _trimmed(text, cuts)


def _trimmed(text: str, cuts: list[int]) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    for s, e in zip(cuts, cuts[1:]):
        while s < e and text[s].isspace():
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        if s < e:
            out.append((s, e))
    return out


def _latin_ends(text: str, s: int, e: int, lo: int, hi: int) -> bool:
    """Does the terminator ``text[s:e]`` (stops, then closing quotes) end a sentence?"""
    nm = _NEXT.match(text, e, hi)
    if nm is None:
        return True  # nothing but whitespace follows in the range
    nxt = nm.group(1)
    if nxt in ".!?…":
        return False  # a spaced ellipsis ". . ." or a stray stop: the last one decides
    lower = nxt.islower()
    stops = text[s:e].rstrip(_CLOSE)
    if len(stops) > 1 and "." in stops or "…" in stops:
        # An ellipsis runs on into CJK text ("他犹豫了一下……然后"); before a space it ends
        # the sentence unless a lower-case word follows.
        return nm.start(1) > e and not lower
    if stops != ".":
        # ! ? and ellipses: a lower-case word goes on with the sentence.
        return not lower
    if s + 1 < e:
        return not lower  # a closing quote or bracket after the stop: '"Go." he said.'
    word = _word_before(text, s, lo)
    if not word:
        return not lower  # " . " as in tokenised text (wikitext)
    low = word.lower()
    if low in _NEVER or (len(word) == 1 and word.isalpha()):
        return False
    if low in _MAYBE or _DOTTED.fullmatch(word) or _consonants_only(word):
        return not lower and not nxt.isdigit()
    if word.isdigit() and len(word) <= 3 and _starts_line(text, s - len(word), lo):
        return False  # "1. Open the lid": a list number, not the end of a sentence
    return True


def _word_before(text: str, s: int, lo: int) -> str:
    """The non-space run that ends at ``s``, without leading opening brackets or quotes."""
    if s <= lo or text[s - 1].isspace():
        return ""
    piece = text[max(lo, s - 24):s].split()
    if not piece:
        return ""
    word = piece[-1]
    if not word.isascii():
        word = _AFTER_CJK.search(word).group()  # "总统Mr" -> "Mr"
    return word.lstrip(_OPEN)


def _consonants_only(word: str) -> bool:
    # Short all-consonant words are abbreviations or acronyms: Mr, Ltd, Jr, pp, BBC.
    return len(word) <= 4 and word.isalpha() and not _VOWELS.intersection(word)


def _starts_line(text: str, k: int, lo: int) -> bool:
    """Only spaces between the start of the line (or of the range) and ``k``."""
    i = k
    while i > lo and text[i - 1] in " \t":
        i -= 1
    return i == lo or text[i - 1] in "\n\r"


def _line_ends(text: str, s: int, e: int, lo: int, hi: int) -> bool:
    """Does the single line break ``text[s:e]`` end a sentence?"""
    nm = _LINE_NEXT.match(text, e, hi)
    if nm is None or not nm.group(1).islower():
        return True
    line = text[max(lo, text.rfind("\n", lo, s) + 1):s]
    return "|" in line.rpartition("\r")[2]  # table rows stay one per line
