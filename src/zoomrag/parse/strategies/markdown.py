"""``markdown``: the section tree, with oversized sections split down to a size limit.

Sections come from :func:`~zoomrag.parse.headings.section_spans`. A section over ``max_size`` is
split, each step only where the previous one was not enough: into its subsections, ``paragraph``
groups, ``sentence`` groups (list items, table rows and quote lines count as sentences), and
last ``chunk`` pieces of one long sentence (:func:`~zoomrag.parse.sizing.split_recursive`).
docs/strategies.md (``markdown``) has the rules; the leaves partition the text.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ...load.spans import trim
from ...model import Document
from ...text.sentences import sentence_spans
from ...text.tokens import Measure
from ..base import Chunker, Span, measure_for, unwrap
from ..headings import hidden_ranges, section_spans
from ..params import check_int, check_unit
from ..sizing import split_recursive

_PARAGRAPH_BREAK = re.compile(r"\n(?:[ \t]*\n)+")
# Lines that start a block of their own inside a paragraph: list items, table rows, quotes.
_BLOCK_LINE = re.compile(r"\n(?=[ \t]*(?:[-+*•][ \t]|\d{1,9}[.)][ \t]|\||>))")
_LINE = re.compile(r"\n")


@dataclass(frozen=True)
class MarkdownChunker(Chunker):
    """Structure-aware chunking: sections first, then paragraphs, sentences and size cuts.

    Parameters:
        max_size: largest leaf, in ``unit`` (a single unbreakable token may exceed it).
        unit: ``tokens`` (the default embedder's tokenizer), ``chars`` or ``approx``.
        max_level: deepest heading level that opens a section; deeper headings are body text.
    """

    name = "markdown"
    max_size: int = 512
    unit: str = "tokens"
    max_level: int = 6

    def __post_init__(self) -> None:
        check_int(self.name, "max_size", self.max_size, 1)
        check_unit(self.name, self.unit)
        check_int(self.name, "max_level", self.max_level, 1, 6)

    def split(self, document: Document) -> list[Span]:
        if not document.text.strip():
            return []
        fitter = _Fitter(document.text, measure_for(document, self.unit), self.max_size,
                         _atomic_ranges(document))
        return [fitter.fit(span) for span in section_spans(document, self.max_level)]


def _atomic_ranges(document: Document) -> list[tuple[int, int]]:
    """Ranges never cut at blank lines: code and tables from the reader, else code fences."""
    if document.blocks:
        return [(b.start, b.end) for b in document.blocks if b.type in ("code", "table")]
    if document.format == "markdown":
        return hidden_ranges(document)
    return []


class _Fitter:
    """Splits spans that exceed the size limit; one per document (the measure is shared)."""

    def __init__(self, text: str, measure: Measure, max_size: int, atomic: list[tuple[int, int]]):
        self.text = text
        self.measure = measure
        self.max_size = max_size
        self.atomic = sorted(atomic)
        self._atomic_starts = [s for s, _ in self.atomic]

    def fits(self, start: int, end: int) -> bool:
        return self.measure.size(start, end) <= self.max_size

    def fit(self, span: Span) -> Span:
        """The span as a leaf if it fits, else with children that do."""
        if self.fits(span.start, span.end):
            span.children = []
        elif span.children:  # a section with subsections: intro text, then each subsection
            intro, subs = span.children[0], span.children[1:]
            span.children = self.body(intro.start, intro.end, span.section_path, heading=True)
            span.children += [self.fit(s) for s in subs]
        else:
            heading = span.kind == "section"
            span.children = unwrap(span, self.body(span.start, span.end, span.section_path, heading))
        return span

    def body(self, start: int, end: int, path: tuple[str, ...], heading: bool = False) -> list[Span]:
        """Paragraph groups for [start, end), each split further when a paragraph is too big.

        With ``heading``, the first paragraph (the heading line) is glued to the next one, so a
        heading never ends up alone in a leaf when the paragraph after it is too big to join it.
        """
        units = self.paragraphs(start, end)
        if heading and len(units) > 1:
            units[:2] = [(units[0][0], units[1][1])]
        out = []
        for s, e, single in self.pack(units):
            span = Span("paragraph", s, e, section_path=path)
            if not single or self.fits(s, e):
                out.append(span)
                continue
            units = self.lines(s, e) if self.is_atomic(s) else self.sentences(s, e)
            span.children = unwrap(span, self.group(units, "sentence", path))
            out.append(span)
        return out

    def group(self, units: list[tuple[int, int]], kind: str, path: tuple[str, ...]) -> list[Span]:
        """Pack units into ``kind`` spans; a unit alone over the limit is cut into chunks."""
        out = []
        for s, e, single in self.pack(units):
            span = Span(kind, s, e, section_path=path)
            if single and not self.fits(s, e):
                pieces = split_recursive(self.text, self.measure, s, e, size=self.max_size)
                span.children = unwrap(span, [Span("chunk", a, b, section_path=path) for a, b in pieces])
            out.append(span)
        return out

    def pack(self, units: list[tuple[int, int]]) -> list[tuple[int, int, bool]]:
        """Greedy packing of consecutive units while the group fits; ``single`` marks one unit."""
        out: list[tuple[int, int, bool]] = []
        gs = ge = -1
        count = 0
        for s, e in units:
            if count and self.fits(gs, e):
                ge, count = e, count + 1
                continue
            if count:
                out.append((gs, ge, count == 1))
            gs, ge, count = s, e, 1
        if count:
            out.append((gs, ge, count == 1))
        return out

    # -- units ---------------------------------------------------------------------------
    def paragraphs(self, start: int, end: int) -> list[tuple[int, int]]:
        """Stretches between blank lines, except blank lines inside an atomic range."""
        breaks = (m for m in _PARAGRAPH_BREAK.finditer(self.text, start, end) if not self.is_atomic(m.start()))
        return self._between(breaks, start, end, _trimmed)

    def sentences(self, start: int, end: int) -> list[tuple[int, int]]:
        return self._between(_BLOCK_LINE.finditer(self.text, start, end), start, end, sentence_spans)

    def lines(self, start: int, end: int) -> list[tuple[int, int]]:
        return self._between(_LINE.finditer(self.text, start, end), start, end, _trimmed)

    def _between(self, breaks: Iterable[re.Match[str]], start: int, end: int,
                 units: Callable[[str, int, int], list[tuple[int, int]]]) -> list[tuple[int, int]]:
        """``units`` of each stretch of [start, end) between two ``breaks``."""
        out: list[tuple[int, int]] = []
        pos = start
        for m in breaks:
            out += units(self.text, pos, m.start())
            pos = m.end()
        out += units(self.text, pos, end)
        return out

    def is_atomic(self, pos: int) -> bool:
        k = bisect_right(self._atomic_starts, pos) - 1
        return k >= 0 and self.atomic[k][0] <= pos < self.atomic[k][1]


def _trimmed(text: str, start: int, end: int) -> list[tuple[int, int]]:
    s, e = trim(text, start, end)
    return [(s, e)] if s < e else []
