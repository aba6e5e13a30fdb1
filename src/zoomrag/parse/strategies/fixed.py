"""``fixed``: pieces of at most ``size`` units, cut at the best boundary near the limit."""

from __future__ import annotations

from dataclasses import dataclass

from ...model import Document
from ..base import Chunker, Span, measure_for
from ..params import check_float, check_int, check_unit
from ..sizing import split_range


@dataclass(frozen=True)
class FixedSize(Chunker):
    """Flat chunks of at most ``size`` units (depth one).

    Each chunk ends at the best boundary found by looking back at most ``lookback`` of the
    window: paragraph break, sentence end (including 。！？；), line break, then a space; never
    inside a word or a character. ``overlap`` units are shared by neighbours; a last chunk
    smaller than ``min_size`` joins the one before when both fit.
    """

    name = "fixed"

    size: int = 256
    unit: str = "tokens"
    overlap: int = 0
    min_size: int = 0
    lookback: float = 0.3

    def __post_init__(self) -> None:
        check_int(self.name, "size", self.size, 1)
        check_unit(self.name, self.unit)
        check_int(self.name, "overlap", self.overlap, 0, self.size - 1)
        check_int(self.name, "min_size", self.min_size, 0, self.size)
        check_float(self.name, "lookback", self.lookback, 0.0, 1.0)

    def split(self, document: Document) -> list[Span]:
        text = document.text
        measure = measure_for(document, self.unit)
        pieces = split_range(text, measure, 0, len(text), size=self.size, overlap=self.overlap,
                             min_size=self.min_size, lookback=self.lookback)
        return [Span("chunk", s, e) for s, e in pieces]
