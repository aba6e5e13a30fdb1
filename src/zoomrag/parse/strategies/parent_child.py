"""``parent-child``: large parents (top sections) returned, small overlapping children matched."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ...load.spans import trim
from ...model import Document
from ..base import Chunker, Span
from ..headings import section_spans
from ..params import check_float, check_int, check_unit
from ..regions import Delegates
from ..sizing import split_range
from .builder import Builder

#: Children in characters when ``unit="chars"`` and no child size is given.
CHARS_CHILD_SIZE = 600
TOKENS_CHILD_SIZE = 128
#: Overlap of neighbouring children, as a share of the child size.
CHILD_OVERLAP = 0.15


@dataclass(frozen=True)
class ParentChild(Chunker):
    """Two levels: parents from the two outermost heading levels, children of a small size.

    Parents are the sections of the two outermost heading levels (H1 and H2 in most documents),
    plus the text before the first heading. A deeper section becomes its own parent only when
    its enclosing one exceeds ``parent_size``; a parent still too big, or a document without
    headings, is cut into pieces of ``parent_size`` units. Children are pieces of
    ``child_size`` units (128 tokens, or 600 characters with ``unit=chars``) sharing
    ``child_overlap`` units (15 % by default) with their neighbours, inside their parent.
    Build it with :func:`~zoomrag.parse.make_chunker` (or :meth:`from_params`), which fills in
    those defaults.
    """

    name = "parent-child"

    parent_size: int = 1024
    child_size: int | None = None
    child_overlap: int | None = None
    unit: str = "tokens"
    min_size: int = 0
    lookback: float = 0.3
    #: Use headings for parents; off: parents are size pieces only.
    structure: bool = True

    @classmethod
    def from_params(cls, params: Mapping[str, Any]) -> ParentChild:
        """The defaults of ``child_size`` and ``child_overlap`` resolved into the fields (so that
        equal settings describe, and pin, alike); a value that is not a whole number is left for
        ``__post_init__`` to report."""
        p = dict(params)
        parent = p.get("parent_size", cls.parent_size)
        if p.get("child_size") is None and _whole(parent):
            p["child_size"] = min(CHARS_CHILD_SIZE if p.get("unit") == "chars" else TOKENS_CHILD_SIZE, parent)
        if p.get("child_overlap") is None and _whole(p.get("child_size")):
            p["child_overlap"] = int(p["child_size"] * CHILD_OVERLAP)
        return cls(**p)

    def __post_init__(self) -> None:
        check_unit(self.name, self.unit)
        check_int(self.name, "parent_size", self.parent_size, 1)
        check_int(self.name, "child_size", self.child_size, 1, self.parent_size)
        child: int = self.child_size  # type: ignore[assignment]  # checked above
        check_int(self.name, "child_overlap", self.child_overlap, 0, child - 1)
        check_int(self.name, "min_size", self.min_size, 0, child)
        check_float(self.name, "lookback", self.lookback, 0.0, 1.0)

    def split(self, document: Document) -> list[Span]:
        return self.split_routed(document, {})

    def split_routed(self, document: Document, delegates: Delegates) -> list[Span]:
        """Like :meth:`split`, with blocks of the delegated types split by their chunkers."""
        b = _Builder(self, document, self.unit, delegates)
        n = len(document.text)
        spans = section_spans(document) if self.structure else []
        return b.parents(spans, 0, n, (), depth=1)


class _Builder(Builder[ParentChild]):
    def parents(self, spans: list[Span], start: int, end: int, path: tuple[str, ...],
                depth: int) -> list[Span]:
        """Parents for the section drafts ``spans`` of one level, and the text around them."""
        out: list[Span] = []
        pos = start
        for sp in spans:
            if sp.start > pos:
                out.extend(self.parent(pos, sp.start, "chunk", path))
            big = self.measure.size(sp.start, sp.end) > self.s.parent_size
            if sp.kind == "section" and sp.children and (depth < 2 or big):
                out.extend(self.parents(sp.children, sp.start, sp.end, sp.section_path, depth + 1))
            else:
                kind = "section" if sp.kind in ("section", "intro") else "chunk"
                out.extend(self.parent(sp.start, sp.end, kind, sp.section_path or path))
            pos = max(pos, sp.end)
        if pos < end:
            out.extend(self.parent(pos, end, "chunk", path))
        return out

    def parent(self, start: int, end: int, kind: str, path: tuple[str, ...]) -> list[Span]:
        """One parent over [start, end), or size pieces of it when it is too big."""
        s, e = trim(self.text, start, end)
        if s >= e:
            return []
        if self.measure.size(s, e) <= self.s.parent_size:
            return [Span(kind, s, e, children=self.regions.split(s, e, self.children),
                         section_path=path)]
        out = self.regions.split(s, e, self._pieces)
        for sp in out:  # pieces and delegated blocks sit at the top: give them the path
            if not sp.section_path:
                sp.section_path = path
        return out

    def _pieces(self, start: int, end: int) -> list[Span]:
        pieces = split_range(self.text, self.measure, start, end, size=self.s.parent_size,
                             lookback=self.s.lookback)
        return [Span("chunk", a, b, children=self.children(a, b)) for a, b in pieces]

    def children(self, start: int, end: int) -> list[Span]:
        s = self.s
        assert s.child_size is not None and s.child_overlap is not None  # checked in __post_init__
        pieces = split_range(self.text, self.measure, start, end, size=s.child_size,
                             overlap=s.child_overlap, min_size=s.min_size, lookback=s.lookback)
        return [Span("chunk", a, b) for a, b in pieces]


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1
