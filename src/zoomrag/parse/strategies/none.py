"""``none``: the whole document as one leaf, for source-first retrieval."""

from __future__ import annotations

from dataclasses import dataclass

from ...load.spans import trim
from ...model import Document
from ..base import Chunker, Span


@dataclass(frozen=True)
class WholeDocument(Chunker):
    """One leaf spanning the document's text, trimmed of outer whitespace."""

    name = "none"

    def split(self, document: Document) -> list[Span]:
        start, end = trim(document.text, 0, len(document.text))
        return [Span("chunk", start, end)] if start < end else []
