"""A page a reader writes: headings and paragraphs one after another, a blank line between
them, each a block whose span is its text."""

from __future__ import annotations

from ..model import Block


class PageWriter:
    def __init__(self) -> None:
        self._parts: list[str] = []
        self._blocks: list[Block] = []
        self._at = 0

    def _add(self, text: str, block_type: str, level: int) -> None:
        text = text.strip()
        if not text:
            return
        if self._parts:
            self._parts.append("\n\n")
            self._at += 2
        self._parts.append(text)
        self._blocks.append(Block(self._at, self._at + len(text), block_type, level))
        self._at += len(text)

    def heading(self, level: int, text: str) -> None:
        """A Markdown heading (``## text``), level 1 to 6."""
        self._add(f"{'#' * level} {' '.join(text.split())}", "heading", level)

    def paragraph(self, text: str) -> None:
        self._add(text, "text", 0)

    def page(self) -> tuple[str, tuple[Block, ...]]:
        return "".join(self._parts), tuple(self._blocks)
