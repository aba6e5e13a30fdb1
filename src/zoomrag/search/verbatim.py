"""A question pasted from the text comes back where the text says it, word for word.

Users paste what they have in front of them: an error message (``Command passed to
.addCommand() must have a name``), a log line, a sentence they half remember, a FAQ's question.
Both rankings see its words, but not that they stand together in one place: BM25 counts each
word apart and a dense model reads the gist, so the unit that raises the error can come below
units that talk about it. Among the candidates either ranking returned, a unit whose indexed
text holds the whole query, word for word (case and runs of white space aside, surrounding
quotes dropped), comes first (:func:`zoomrag.search.names.definitions_first`, marked
``ranks["verbatim"]``).

A query of a few characters is not taken as a quotation: a word or two is held by many units
(and a name alone is looked up as a definition, :mod:`zoomrag.search.names`). Nor is a question
(one ending in ``?``, or opening with *how*, *what*, *why* …): its asker wants the answer, and
a page that writes the same question is more often an example of asking it (a search tool's
docs quote their sample questions) than where it is answered.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

#: A quotation is at least this many characters and words, once its white space is collapsed.
MIN_CHARS = 16
MIN_WORDS = 3
_QUOTES = "\"'`“”‘’«»"
_SPACE = re.compile(r"\s+")
_ASKING = frozenset("how what why when where which who whom whose".split())


def quoted(query: str) -> str | None:
    """The query as a quotation to look for (folded, white space collapsed), or None when it is
    too short to be one."""
    said = _SPACE.sub(" ", query).strip().strip(_QUOTES).strip()
    words = said.split(" ")
    if len(said) < MIN_CHARS or len(words) < MIN_WORDS:
        return None
    if said.endswith(("?", "？")) or words[0].casefold() in _ASKING:
        return None  # a question, not a quotation
    return said.casefold()


def holding(texts: Mapping[int, str], said: str) -> set[int]:
    """The rows among ``texts`` (row → indexed text) that hold ``said`` (:func:`quoted`)."""
    return {row for row, text in texts.items() if said in _SPACE.sub(" ", text).casefold()}
