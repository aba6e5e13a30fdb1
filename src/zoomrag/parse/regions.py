"""Hand typed blocks (tables, code) inside a range of text to the strategy routed for them.

A structure strategy (``hierarchical``, ``parent-child``) builds sections itself and fills them
with its own size pieces. When the router gives it ``delegates`` (block type -> chunker), every
block of such a type inside a section is split by that chunker instead, through
:meth:`Chunker.split_range`, so a table stays inside its section and inherits its section path.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Mapping
from typing import Protocol, runtime_checkable

from ..model import Block, Document
from .base import Chunker, Span

#: Block type -> the chunker that splits blocks of that type.
Delegates = Mapping[str, Chunker]
#: Splits a range of the strategy's own text into spans.
OwnSplit = Callable[[int, int], list[Span]]


@runtime_checkable
class RoutedChunker(Protocol):
    """A strategy that builds structure itself and accepts delegates for typed blocks."""

    def split_routed(self, document: Document, delegates: Delegates) -> list[Span]: ...


class Regions:
    """The delegated blocks of one document, for splitting many ranges of it."""

    def __init__(self, document: Document, delegates: Delegates):
        self.document = document
        self.delegates = delegates
        # (No delegates, nothing to look at: the usual case, once per document.)
        self.blocks: list[Block] = sorted(
            (b for b in document.blocks if b.type in delegates and b.start < b.end),
            key=lambda b: (b.start, -b.end),
        ) if delegates else []
        self._starts = [b.start for b in self.blocks]

    def split(self, start: int, end: int, own: OwnSplit) -> list[Span]:
        """Spans for [start, end): ``own`` for the text between delegated blocks."""
        if not self.blocks:
            return own(start, end)
        out: list[Span] = []
        pos = start
        i = max(0, bisect_right(self._starts, start) - 1)
        while i < len(self.blocks) and self.blocks[i].start < end:
            b = self.blocks[i]
            i += 1
            a, z = max(b.start, start), min(b.end, end)
            if z <= a or a < pos:  # outside the range, or nested in a block already handed out
                continue
            if a > pos:
                out.extend(own(pos, a))
            out.extend(self.delegates[b.type].split_range(self.document, a, z))
            pos = z
        if pos < end:
            out.extend(own(pos, end))
        return out
