"""What a structure strategy (``hierarchical``, ``parent-child``) holds while it splits one document.

Both walk the heading sections and fill them with size pieces, many ranges of one text; the
measure is built once per document and shared by every level, and the delegated blocks are
sorted once.
"""

from __future__ import annotations

from typing import Generic, TypeVar

from ...model import Document
from ..base import Chunker, measure_for
from ..regions import Delegates, Regions

S = TypeVar("S", bound=Chunker)


class Builder(Generic[S]):
    """One document's split by ``strategy`` (kept as ``s``, read for its settings)."""

    def __init__(self, strategy: S, document: Document, unit: str, delegates: Delegates):
        self.s = strategy
        self.text = document.text
        self.measure = measure_for(document, unit)
        self.regions = Regions(document, delegates)
