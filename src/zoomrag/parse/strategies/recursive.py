"""``recursive``: split by paragraph, line, sentence, word, then character; merge up to size."""

from __future__ import annotations

from dataclasses import dataclass

from ...model import Document
from ..base import Chunker, Span, measure_for
from ..params import check_int, check_unit
from ..sizing import split_recursive


@dataclass(frozen=True)
class Recursive(Chunker):
    """Flat chunks of at most ``size`` units (depth one).

    Each chunk ends at the last separator of the coarsest kind found within ``size`` units of
    its start: blank line, then line break, sentence end, space, and finally between characters.
    That is the recursive rule (split at the coarsest separator, merge neighbours while they
    fit), computed in one pass. Unlike ``fixed``, a word longer than ``size`` is cut between
    characters (never between a character and its combining marks). ``overlap`` units are
    shared by neighbours.
    """

    name = "recursive"

    size: int = 256
    unit: str = "tokens"
    overlap: int = 0

    def __post_init__(self) -> None:
        check_int(self.name, "size", self.size, 1)
        check_unit(self.name, self.unit)
        check_int(self.name, "overlap", self.overlap, 0, self.size - 1)

    def split(self, document: Document) -> list[Span]:
        text = document.text
        measure = measure_for(document, self.unit)
        pieces = split_recursive(text, measure, 0, len(text), size=self.size, overlap=self.overlap)
        return [Span("chunk", s, e) for s, e in pieces]
