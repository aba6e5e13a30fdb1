"""A table of contents is no answer.

A README's list of links to its own sections (``- [Custom event listeners](#custom-event-listeners)``)
holds every section's title, so a question naming one matches it as well as the section itself,
and often better: the list is short and all titles. Returned, it spends a context and its tokens
on links the reader cannot follow from the context. A candidate loses the lines of such a list
it starts or ends with, and one that is only such a list is left out when any other candidate
is left (HTML pages lose their tables of contents when read).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace

from ..model import TreeSource
from ..text.markup import MARKDOWN_FORMATS
from .base import Candidate

#: A list item that is one link to a place in the same page, nothing else.
_ENTRY = re.compile(r"[ \t]*(?:[-*+]|\d{1,3}[.)])[ \t]+\[[^\]\n]+\]\(#[^)\s]*\)[ \t]*")
#: Lines a list must have to be read as a table of contents (one link is a link).
MIN_ENTRIES = 2


def is_contents(text: str) -> bool:
    """Whether ``text`` is a table of contents: list items, each one in-page link, and nothing else."""
    lines = [line for line in text.split("\n") if line.strip()]
    return len(lines) >= MIN_ENTRIES and all(_ENTRY.fullmatch(line) for line in lines)


def _in_contents(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is (a part of) a table of contents: its lines entries, in a
    block (between blank lines) that is one."""
    own = [line for line in text[start:end].split("\n") if line.strip()]
    if not own or not all(_ENTRY.fullmatch(line) for line in own):
        return False
    before, after = text.rfind("\n\n", 0, start), text.find("\n\n", end)
    return is_contents(text[before + 2 if before >= 0 else 0:after if after >= 0 else len(text)])


def trim_contents(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` without the lines of a table of contents it starts or ends with (and the
    blank lines beside them); an empty span when it is nothing else."""
    while start < end:
        nl = text.find("\n", start, end)
        line_end = end if nl < 0 else nl
        if text[start:line_end].strip() and not _in_contents(text, start, line_end):
            break
        start = end if nl < 0 else nl + 1
    while end > start:
        nl = text.rfind("\n", start, end)
        line_start = start if nl < 0 else nl + 1
        if text[line_start:end].strip() and not _in_contents(text, line_start, end):
            break
        end = start if nl < 0 else nl
    return start, end


def without_contents(candidates: Sequence[Candidate], trees: TreeSource) -> list[Candidate]:
    """``candidates`` without the tables of contents they start or end with; one that held
    nothing else, or no hit outside one, is left out (unless nothing else is left)."""
    kept = []
    for c in candidates:
        document = trees.tree(c.doc_id).document
        if document.format not in MARKDOWN_FORMATS:  # where such lists are written by hand
            kept.append(c)
            continue
        start, end = trim_contents(document.text, c.start, c.end)
        if (start, end) == (c.start, c.end):
            kept.append(c)
            continue
        hits = tuple(h for h in c.hits if h.start < end and start < h.end)
        if start < end and hits:
            kept.append(replace(c, start=start, end=end, hits=hits, fallback=()))
    return kept if kept else list(candidates)
