"""``none``: the whole document as one leaf, for source-first retrieval."""

from __future__ import annotations

from dataclasses import dataclass

from ...model import Document
from ..base import Chunker, Span


@dataclass(frozen=True)
class WholeDocument(Chunker):
    """One leaf spanning the document's text, trimmed of outer whitespace."""

    name = "none"

    def split(self, document: Document) -> list[Span]:
        text = document.text
        start, end = 0, len(text)
        while start < end and text[start].isspace():
            start += 1
        while end > start and text[end - 1].isspace():
            end -= 1
        return [Span("chunk", start, end)] if start < end else []
