"""Context shape: can a reader use what was returned, apart from whether it holds the evidence?

Per configuration and budget, over every context returned for every query:

- **fragment rate**: contexts under 15 words (a CJK character counts as a word), unless their
  whole document is that short;
- **mid-sentence start / end rate**: contexts that start (end) inside a sentence, by the
  boundaries assembly cuts at (:mod:`zoomrag.expand.bounds`, on the text alone: a sentence
  boundary, a blank line, a heading or table line); in code, CSV and TSV files, inside a line;
- **leaning start rate**: contexts that open with a sentence leaning on one they leave out
  ("But…", "This means…", :func:`zoomrag.text.leans.leans_back`), past their document's start;
- **contexts per query**.

Contexts are the returned spans. A span of one or two lines directly followed by a later span of
the same document is taken as the header row (and ``|---|`` line) that assembly puts before a
table context's rows, and counted with them as one context, as are rows of one table; so is a
definition's signature before a span from inside it (:mod:`zoomrag.expand.heads`) or after the
comment leading into it (a C declaration), a footnote
with the span before it that cites it, and a span with the note it cites after it
(:mod:`zoomrag.expand.footnotes`).
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..expand.bounds import MIN_WORDS, clean_end, clean_start, has_words, words_upto
from ..expand.footnotes import Footnotes, find_footnotes
from ..expand.heads import head_of
from ..load.spans import skip_space
from ..text.leans import leans_back
from .spans import DocSpan

#: Metric names in report order, and their column labels.
SHAPE_METRICS = ("fragment_rate", "mid_start_rate", "mid_end_rate", "leaning_start_rate", "contexts_per_query")
SHAPE_LABELS = {"fragment_rate": "fragments", "mid_start_rate": "mid-start", "mid_end_rate": "mid-end",
                "leaning_start_rate": "leaning", "contexts_per_query": "ctx/query"}


@dataclass(frozen=True, slots=True)
class ShapeStats:
    """Shape of the contexts one configuration returned at one budget."""

    contexts: int
    queries: int
    fragments: int
    mid_starts: int
    mid_ends: int
    leaning_starts: int

    def rate(self, n: int) -> float:
        return n / self.contexts if self.contexts else 0.0

    @property
    def fragment_rate(self) -> float:
        return self.rate(self.fragments)

    @property
    def mid_start_rate(self) -> float:
        return self.rate(self.mid_starts)

    @property
    def mid_end_rate(self) -> float:
        return self.rate(self.mid_ends)

    @property
    def leaning_start_rate(self) -> float:
        return self.rate(self.leaning_starts)

    @property
    def contexts_per_query(self) -> float:
        return self.contexts / self.queries if self.queries else 0.0

    def to_dict(self, ndigits: int = 4) -> dict[str, Any]:
        return {m: round(getattr(self, m), ndigits) for m in SHAPE_METRICS} | {"contexts": self.contexts}

    def cells(self) -> list[str]:
        """The report tables' text, in the order of :data:`SHAPE_METRICS`."""
        return [f"{self.fragment_rate:.1%}", f"{self.mid_start_rate:.1%}", f"{self.mid_end_rate:.1%}",
                f"{self.leaning_start_rate:.1%}", f"{self.contexts_per_query:.1f}"]


def _contexts(spans: Sequence[DocSpan], texts: Mapping[str, str],
              notes: dict[str, Footnotes]) -> list[list[DocSpan]]:
    """Returned spans grouped into contexts (a header row joins the span after it; a footnote
    the span citing it, or the span it holds the citation of)."""
    out: list[list[DocSpan]] = []
    i = 0
    while i < len(spans):
        group = [spans[i]]
        while i + 1 < len(spans) and _joins(group, spans[i + 1], texts, notes):
            group.append(spans[i + 1])
            i += 1
        out.append(group)
        i += 1
    return out


def _table_rows(text: str, start: int, end: int) -> bool:
    """Whether every line from the one holding ``start`` to the one holding ``end`` is a pipe
    table's line (read line by line up to the first that is not: spans may lie far apart)."""
    pos = text.rfind("\n", 0, start) + 1
    while pos < end:
        nl = text.find("\n", pos, end)
        line = text[pos:end if nl < 0 else nl].strip()
        if line and not line.startswith("|"):
            return False
        if nl < 0:
            return True
        pos = nl + 1
    return True


def _joins(group: Sequence[DocSpan], nxt: DocSpan, texts: Mapping[str, str],
           notes: dict[str, Footnotes]) -> bool:
    doc, s, e = group[-1]
    nd, ns, ne = nxt
    if nd != doc or ns <= e:
        return False
    text = texts[doc]
    if len(group) == 1 and (text[s:e].strip().count("\n") <= 1 or head_of(text, s, len(text)) in ((s, e), (ns, ne))):
        return True  # a header row, a one-line citing sentence or a signature before the rest (after a C comment)
    if _table_rows(text, s, ne):
        return True  # rows of one table are one context
    found = notes.get(doc)
    if found is None:
        found = notes[doc] = find_footnotes(text)
    if not found.notes:
        return False
    cited = {label for _, gs, ge in group for label in found.cited_in(gs, ge)}
    return any(found.notes[label][0] == ns for label in cited) or \
        any((ref := found.first_ref(label)) is not None and any(gs <= ref[0] < ge for _, gs, ge in group)
            for label in found.defined_in(ns, ne))


def measure_shape(results: Iterable[Sequence[DocSpan]], texts: Mapping[str, str],
                  lined: Collection[str] = frozenset()) -> ShapeStats:
    """Shape over the returned spans of each query (``results``: one sequence per query);
    ``lined``: the documents whose contexts start and end at line boundaries (code, CSV, TSV)."""
    contexts = queries = fragments = mid_starts = mid_ends = leaning = 0
    #: Whether each document holds MIN_WORDS words (counting stops there: documents are long).
    doc_long: dict[str, bool] = {}
    #: Each document's footnotes, found once (:func:`_joins`).
    notes: dict[str, Footnotes] = {}
    for spans in results:
        queries += 1
        for group in _contexts(list(spans), texts, notes):
            contexts += 1
            doc = group[0][0]
            text = texts[doc]
            if doc not in doc_long:
                doc_long[doc] = has_words(text, 0, len(text))
            words = 0
            for _, s, e in group:
                words += words_upto(text, s, e, MIN_WORDS - words)
            if words < MIN_WORDS and doc_long[doc]:
                fragments += 1
            lines = doc in lined
            if not clean_start(text, group[0][1], lines):
                mid_starts += 1
            elif not lines and _leaning(text, group[0][1]):
                leaning += 1
            if not clean_end(text, group[-1][2], lines):
                mid_ends += 1
    return ShapeStats(contexts, queries, fragments, mid_starts, mid_ends, leaning)


def _leaning(text: str, start: int) -> bool:
    """Whether a context starting at ``start`` (a sentence start) opens leaning on a sentence
    before it in its document."""
    first = skip_space(text, start, len(text))
    return 0 < first < len(text) and leans_back(text, first)


def shape_rows(shape: Mapping[tuple[str, int], ShapeStats]) -> list[dict[str, Any]]:
    """The report's ``shape`` list: one entry per (configuration, budget)."""
    return [{"config": c, "budget": b, **s.to_dict()} for (c, b), s in shape.items()]
