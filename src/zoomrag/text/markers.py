"""Numbering markers that open a title line: ``PART II``, ``Chapter 3`` (``Kapitel 3``,
``Глава 3``), ``ARTICLE IV``, a filing's ``Item 1A.``, ``Section 2.1``, ``第三章``, ``一、``,
``2.3``; and how they rank."""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["BLANK", "MARKER_RANK", "NAMED", "PLAIN", "PLAIN_FIRST", "LinePattern", "marker_rank"]


class LinePattern:
    """A ``^``-anchored multiline pattern, searched at line starts only.

    ``re`` tries a leading ``^`` at every offset of the text; the same pattern led by ``\n``
    instead has a literal prefix, which ``re`` finds at C speed. The first line is matched
    apart. Every pattern here ends its matches on their first line, so the two scans agree.
    """

    def __init__(self, pattern: str, flags: int = 0):
        if not pattern.startswith("^"):
            raise ValueError(f"line pattern {pattern!r} must start with ^")
        self.first = re.compile(pattern, flags | re.MULTILINE)
        self.led = re.compile("\n" + pattern[1:], flags | re.MULTILINE)

    def finditer(self, text: str, start: int = 0) -> Iterator[tuple[int, re.Match[str]]]:
        """``(line start, match)`` for every match, as ``first.finditer(text, start)`` finds them."""
        if start == 0 or text[start - 1] == "\n":
            m = self.first.match(text, start)
            if m is not None:
                yield start, m
        for m in self.led.finditer(text, start):
            yield m.start() + 1, m


_CN_NUM = "零〇一二三四五六七八九十百千两"
_ROMAN = "IVXLC"
# One alternative per family; the marker is the group, the rest of the line is the title.
# Every family starts with one of these characters (see headings._MAY_START_HEADING).
# The words that name a part, a chapter, an article or a section in English, German, French,
# Spanish, Italian, Portuguese, Dutch, Polish and Russian: DocBook and Sphinx write a translated
# manual's text version with them ("Kapitel 1.", "Глава 2.").
_WORDS = {
    "part": "Part Book Teil Buch Partie Livre Parte Libro Deel Część Часть Книга",
    "chapter": "Chapter Kapitel Chapitre Capítulo Capitolo Hoofdstuk Rozdział Глава",
    "article": "Article Artikel Artículo Articolo Artigo Статья",
    "section": "Section Abschnitt Sección Sezione Seção Secção Раздел",
}


def _named(family: str) -> str:
    """The words of a family as an alternation, each also in capitals (``Chapter|CHAPTER``)."""
    words = _WORDS[family].split()
    return "|".join(w for word in words for w in (word, word.upper()))


_INITIALS = "".join(sorted({w[0] for words in _WORDS.values() for w in words.split()} - set("PBCAIS")))
PLAIN_FIRST = rf"[第PBCAIS§{_CN_NUM}（(\d{_INITIALS}]"
# Blanks around a marker: a text dumped from HTML (w3m, lynx, a DocBook ".txt") keeps the page's
# no-break spaces, as in "7.3.\u00a0Why…" and a paragraph indented by "\u00a0\u00a0\u00a0 ".
BLANK = r"[ \t\u3000\u00a0]"
# "第 1 章 定义" (DocBook's Chinese) as well as "第一章总则": a spaced marker is followed by a
# blank too, so that a wrapped sentence's "第 9 章使您的…" is not taken for one.
_SPACED = rf"{BLANK}[{_CN_NUM}\d]+{BLANK}"
_THEN = rf"(?={BLANK}|$)"
PLAIN = LinePattern(
    rf"^{BLANK}*(?={PLAIN_FIRST})(?:"
    rf"(?P<cn_part>第(?:[{_CN_NUM}\d]+[编篇部卷]|{_SPACED}[编篇部卷]{_THEN}))"
    rf"|(?P<cn_chapter>第(?:[{_CN_NUM}\d]+[章回]|{_SPACED}[章回]{_THEN}))"
    rf"|(?P<cn_section>第(?:[{_CN_NUM}\d]+节|{_SPACED}节{_THEN}))"
    rf"|(?P<part>(?:{_named('part')}){BLANK}+(?:\d+|[{_ROMAN}]+)[.:]?)(?={BLANK}|$)"
    rf"|(?P<chapter>(?:{_named('chapter')}){BLANK}+(?:\d+|[{_ROMAN}]+)[.:]?)(?={BLANK}|$)"
    rf"|(?P<article>(?:{_named('article')}|Art\.){BLANK}*(?:\d+|[{_ROMAN}]+)[.:]?)(?={BLANK}|$)"
    rf"|(?P<item>(?:Item|ITEM){BLANK}+\d+[A-Z]?[.:]?)(?={BLANK}|$)"
    rf"|(?P<section>(?:{_named('section')}|Sec\.|§§?){BLANK}*\d+(?:\.\d+)*[a-z]?[.:]?)(?={BLANK}|$)"
    rf"|(?P<cn_item>[{_CN_NUM}]+、)"
    rf"|(?P<cn_sub>[（(][{_CN_NUM}]+[)）])"
    rf"|(?P<numbered>\d{{1,3}}(?:[.．]\d{{1,3}})*[.．]?)(?={BLANK})"
    r")",
)
#: The families a word names (``Part``, ``Chapter``, ``Article``, ``Item``, ``Section``): a title
#: when what follows it does not run on as a sentence.
NAMED = frozenset({"part", "chapter", "article", "item", "section"})
# Rank of each family: a lower rank is an outer level. Numbered headings add their depth.
MARKER_RANK = {
    "cn_part": 10, "part": 10, "cn_chapter": 11, "chapter": 11, "cn_section": 12,
    "article": 13, "item": 13, "section": 14, "cn_item": 15, "cn_sub": 16, "numbered": 17,
}


def marker_rank(line: str) -> tuple[int, int] | None:
    """The rank of the numbering that opens ``line`` (a lower rank is an outer level; a numbered
    title adds its depth: ``1.2`` is under ``1.``), or None when no marker opens it."""
    m = PLAIN.first.match(line)
    if m is None:
        return None
    family = m.lastgroup or ""
    depth = m.group(family).rstrip(".．:").replace("．", ".").count(".") if family in ("numbered", "section") else 0
    return MARKER_RANK[family], depth
