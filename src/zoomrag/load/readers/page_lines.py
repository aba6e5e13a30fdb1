"""Paragraphs and headings of pages given as lines alone, as a PDF loader gives them.

pypdf (LangChain's ``PyPDFLoader``, LlamaIndex's ``PDFReader``, Haystack's ``PyPDFToDocument``)
writes each line of a typeset page and no blank line between paragraphs: a page is one run of
lines, and a heading is a line among them. zoomrag's PDF reader parts paragraphs by where lines
lie on the page; here only their lengths are left, and they are enough for prose set to a
measure:

- a line that closes a sentence ends its paragraph where the next line's first word would have
  fitted on it (a typesetter breaks a line only when the next word does not fit); lines of code,
  a list's or a table's, which close none, stay together;
- a line standing alone after a paragraph's end, short, of at most ten words, opening with a
  capital, closing with no stop, comma or colon, without a sign of code, an address or a
  formula, over a line of prose, is a heading, set under the headings the document numbers
  (``2.4 The glob files``, whose numbers give their depth to the plain-text outline,
  :mod:`zoomrag.parse.plaintext`), so a line taken for one wrongly reaches no further than the
  next of them.

The measure is learned over the document (the longest tenth of its lines). A text whose lines
are short (a table, code, verse) is not prose set to a measure and is left as it is, as is a
page that parts its paragraphs with blank lines already.
"""

from __future__ import annotations

import re
from dataclasses import replace
from types import MappingProxyType

from ...model import Document

#: A line the next word would have fitted on ends its paragraph, give or take this share of the
#: measure (a proportional face sets more narrow letters than wide ones on a line).
SLACK = 0.12
#: Lines shorter than this (characters) at the measure's length are not prose set to a measure.
MIN_MEASURE = 40
#: Fewer lines than this teach no measure.
MIN_LINES = 20
#: A heading is at most this share of the measure and this many words.
HEADING_SHARE = 0.6
HEADING_WORDS = 10
#: What the line under a heading is at least, as a share of the measure: prose.
PROSE_SHARE = 0.6
#: The level of a heading found by its line: the deepest, under any the document numbers.
LEVEL = 6
#: The meta key of a heading block found by its line (the outline reads numbered titles beside
#: it: ``zoomrag.parse.headings``).
GUESSED = "guessed"
_NUMBERED = re.compile(r"\s*(?:\d+(?:\.\d+)*\.?|[IVXLC]+\.|[A-Z]\.)\s")
_CLOSED = re.compile(r"[.,;:!]\s*$")
#: What closes a sentence at a line's end (a stop, maybe inside a quote or a bracket).
_STOP = re.compile(r"[.!?:;]['\"’”)\]]*\s*$")
_SENTENCE = re.compile(r"[.!?]\s+[A-Z]")
#: Signs of code, an address or a formula, which a heading does not hold.
_NOT_TITLE = re.compile(r"[=()\[\]{}<>@/\\_*#$%|+^~`]")


def _measure(pages: list[str]) -> int:
    lengths = sorted(len(line.rstrip()) for page in pages for line in page.split("\n") if line.strip())
    if len(lengths) < MIN_LINES:
        return 0
    return lengths[int(0.9 * (len(lengths) - 1))]


def _short(line: str, after: str, measure: int) -> bool:
    """Whether the first word of ``after`` would have fitted on ``line``."""
    line, after = line.rstrip(), after.strip()
    if not after or line.endswith("-"):
        return False
    return len(line) + 1 + len(after.split()[0]) <= (1 - SLACK) * measure


def _heading(line: str, after: str, measure: int) -> bool:
    """Whether ``line`` reads as a heading (a numbered one too) over ``after``."""
    words = _NUMBERED.sub("", line, count=1).split()
    return (0 < len(words) <= HEADING_WORDS and len(line.strip()) <= HEADING_SHARE * measure
            and words[0][:1].isupper() and not _CLOSED.search(line)
            and not _SENTENCE.search(line) and not _NOT_TITLE.search(line) and any(c.isalpha() for c in line)
            and len(after.rstrip()) >= PROSE_SHARE * measure)


def line_paragraphs(pages: list[str]) -> tuple[list[str], dict[int, dict[str, int]]]:
    """``pages`` with a blank line where a paragraph ends, and the headings found, page (from 1)
    -> heading text -> level (:data:`LEVEL`: lines give no depth)."""
    measure = _measure(pages)
    if measure < MIN_MEASURE:
        return pages, {}
    out: list[str] = []
    headings: dict[int, dict[str, int]] = {}
    for number, page in enumerate(pages, 1):
        lines = page.split("\n")
        if "\n\n" in page.strip("\n") or len(lines) < 2:
            out.append(page)
            continue
        parts: list[str] = []
        alone = True  # the line before ended a paragraph (or the page begins)
        for i, line in enumerate(lines):
            after = lines[i + 1] if i + 1 < len(lines) else ""
            short = _short(line, after, measure)
            ends = short and bool(_STOP.search(line))
            if alone and short and _heading(line, after, measure):
                if not _NUMBERED.match(line):
                    headings.setdefault(number, {})[" ".join(line.split())] = LEVEL
                ends = True
            parts.append(line)
            if ends:
                parts.append("")
            alone = ends
        out.append("\n".join(parts))
    return out, headings


def guessed(doc: Document) -> Document:
    """``doc`` with its heading blocks marked as found by their lines (:data:`GUESSED`)."""
    if not any(b.type == "heading" for b in doc.blocks):
        return doc
    return replace(doc, blocks=tuple(replace(b, meta=MappingProxyType({**b.meta, GUESSED: True}))
                                     if b.type == "heading" else b for b in doc.blocks))
