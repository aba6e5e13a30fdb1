"""``hierarchical``: sections from headings first, then nested size levels inside them."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

from ...errors import ConfigError
from ...load.spans import skip_space, trim, trim_end
from ...model import Document
from ..base import Chunker, Span
from ..headings import section_spans
from ..params import check_float, check_int, check_unit
from ..regions import Delegates
from ..sizing import fixed_keep, split_pieces
from .builder import Builder


@dataclass(frozen=True)
class Hierarchical(Chunker):
    """A tree of N size levels under the document's heading sections.

    Headings make ``section`` nodes (nested by level, each with its ``section_path``); the text
    of a section outside its subsections is split into ``chunk`` nodes of at most ``sizes[0]``
    units, each of those into chunks of at most ``sizes[1]``, and so on. A chunk is always split
    from its parent and never crosses it. A level whose size would not split a span is skipped
    (no child identical to its parent), so the leaves are the pieces of at most ``sizes[-1]``
    units, or sections that small.
    """

    name = "hierarchical"

    #: Leaves of 64 tokens match more sharply than 128 and ``auto`` grows them back to the
    #: evidence; looking back over 60 % of a window lets a small piece end at a sentence end
    #: (at 30 %, 45 % of 64-token leaves ended mid-sentence). Against (2048, 512, 128), ``auto``'s
    #: recall at 512 tokens: +3.5 to +11 % on the English sets, +0.4 % on the Chinese one.
    sizes: tuple[int, ...] = (2048, 512, 64)
    unit: str = "tokens"
    min_size: int = 0
    lookback: float = 0.6
    #: Use headings to build sections; off: size levels only.
    structure: bool = True

    def __post_init__(self) -> None:
        sizes = self.sizes  # a tuple: make_chunker turns a list into one
        if not isinstance(sizes, tuple) or not sizes:
            raise ConfigError(
                f"hierarchical: sizes={self.sizes!r} must be a list of sizes, e.g. 2048,512,64")
        for s in sizes:
            check_int(self.name, "sizes", s, 1)
        if any(a <= b for a, b in zip(sizes, sizes[1:])):
            raise ConfigError(
                f"hierarchical: sizes={','.join(map(str, sizes))} must be strictly decreasing, "
                "largest first, e.g. 2048,512,64")
        check_unit(self.name, self.unit)
        check_int(self.name, "min_size", self.min_size, 0, sizes[-1])
        check_float(self.name, "lookback", self.lookback, 0.0, 1.0)

    @cached_property
    def levels(self) -> tuple[tuple[int, int, int], ...]:
        """(size, keep, min_size) of each level for split_pieces, made once per chunker: a
        short document would spend more on them than on its split."""
        return tuple((size, fixed_keep(size, self.lookback), min(self.min_size, size))
                     for size in self.sizes)

    def split(self, document: Document) -> list[Span]:
        return self.split_routed(document, {})

    def split_routed(self, document: Document, delegates: Delegates) -> list[Span]:
        """Like :meth:`split`, with blocks of the delegated types split by their chunkers."""
        build = _Builder(self, document, self.unit, delegates)
        n = len(document.text)
        if not self.structure:
            return build.body(0, n)
        return build.structure(section_spans(document), 0, n)


class _Builder(Builder[Hierarchical]):
    def structure(self, spans: list[Span], start: int, end: int) -> list[Span]:
        """Section nodes for heading sections; size pieces for the text around them."""
        out: list[Span] = []
        pos = start
        for sp in spans:
            if sp.start > pos:  # text no section covers (kept, so nothing is lost)
                out.extend(self.body(pos, sp.start))
            if sp.kind == "section":
                node = Span("section", sp.start, trim_end(self.text, sp.start, sp.end),
                            section_path=sp.section_path)
                if sp.children:
                    node.children = self.structure(sp.children, sp.start, sp.end)
                else:
                    node.children = self.body(node.start, node.end)
                    if _only_itself(node, self.text):
                        node.children = []
                out.append(node)
            else:  # preamble, intro, front matter: text regions of the enclosing node
                out.extend(self.body(sp.start, sp.end))
            pos = max(pos, sp.end)
        if pos < end:
            out.extend(self.body(pos, end))
        return out

    def body(self, start: int, end: int) -> list[Span]:
        """Chunks for a text region, with delegated blocks split by their own chunkers."""
        return self.regions.split(start, end, self._own)

    def _own(self, start: int, end: int) -> list[Span]:
        s, e = trim(self.text, start, end)
        if s >= e:
            return []
        kids = self._levels(s, e, 0)
        return kids if kids else [Span("chunk", s, e)]

    def _levels(self, start: int, end: int, level: int, first: int = -1, last: int = -1) -> list[Span]:
        """Children of [start, end) at the first size that splits it (none if it fits the last);
        ``first`` and ``last`` are the token positions of ``start`` and ``end`` when known."""
        sizes = self.s.sizes
        if first < 0:
            first, last = self.measure.index(start), self.measure.index(end)
        have = last - first
        while level < len(sizes) and have <= sizes[level]:
            level += 1
        if level == len(sizes):
            return []
        marks: list[int] = []  # the pieces' token positions, when the split knows them
        size, keep, min_tail = self.s.levels[level]
        pieces = split_pieces(self.text, self.measure, start, end, size, keep, min_tail,
                              tokens=(first, last), marks=marks)
        if level + 1 == len(sizes):
            return [Span("chunk", a, b) for a, b in pieces]
        if not marks:
            return [Span("chunk", a, b, children=self._levels(a, b, level + 1)) for a, b in pieces]
        return [Span("chunk", a, b, children=self._levels(a, b, level + 1, marks[k], marks[k + 1]))
                for k, (a, b) in enumerate(pieces)]


def _only_itself(node: Span, text: str) -> bool:
    """True when a section's only child is one chunk over the section's whole text."""
    if len(node.children) != 1:
        return False
    c = node.children[0]
    return c.kind == "chunk" and not c.children and (c.start, c.end) == (
        skip_space(text, node.start, node.end), node.end)
