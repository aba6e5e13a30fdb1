"""Plain text: the text as it is; paragraphs are blocks of type text, pipe tables of type table."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Any

from ...model import Block, Document
from ..spans import paragraph_spans
from ..tables import find_pipe_tables
from .chat import message_spans
from .edgar import is_submission, read_submission
from .vimhelp import is_vim_help, read_vim_help


def paragraph_blocks(text: str, start: int = 0, end: int | None = None,
                     meta: Mapping[str, Any] | None = None) -> list[Block]:
    """Blank-line separated paragraphs as text blocks; a pipe table inside one is a table block.

    Plain text has no syntax for tables, but exported reports often hold GFM-style ones; a
    header followed by a ``|---|`` delimiter row is specific enough to trust.
    """
    extra = MappingProxyType(dict(meta or {}))
    blocks: list[Block] = []
    for s, e in paragraph_spans(text, start, end):
        pos = s
        for t in (find_pipe_tables(text, s, e) if "|" in text[s:e] else ()):
            blocks.extend(Block(a, b, "text", meta=extra) for a, b in paragraph_spans(text, pos, t.start))
            blocks.append(Block(t.start, t.end, "table", meta=extra))
            pos = t.end
        blocks.extend(Block(a, b, "text", meta=extra) for a, b in paragraph_spans(text, pos, e))
    return blocks


def with_paragraphs(text: str, pieces: Iterable[tuple[int, int, Block | None]]) -> list[Block]:
    """``pieces`` in order, ``(start, end, block)`` (``None``: text in no block, such as a markup
    line), with the text between them as :func:`paragraph_blocks`; a piece starting inside the
    one before is passed over. How a reader that finds titles and code fills in the rest."""
    blocks: list[Block] = []
    pos = 0
    for s, e, block in pieces:
        if s < pos:
            continue
        blocks.extend(paragraph_blocks(text, pos, s))
        if block is not None:
            blocks.append(block)
        pos = e
    blocks.extend(paragraph_blocks(text, pos, len(text)))
    return blocks


def read_plain(text: str, *, doc_id: str, source: str) -> Document:
    """The text as it is, in paragraphs; a chat exported as text (WhatsApp's) in messages, as
    it has no blank lines between them; an EDGAR submission as the filing it holds; a Vim help
    file as the manual it is."""
    if is_submission(text):
        return read_submission(text, doc_id=doc_id, source=source)
    if is_vim_help(text):
        return read_vim_help(text, doc_id=doc_id, source=source)
    messages = message_spans(text)
    if messages is not None:
        blocks = [Block(s, e, "text") for s, e in messages]
        if messages[0][0] > 0:  # what comes before the first message
            blocks[:0] = paragraph_blocks(text, 0, messages[0][0])
        return Document(id=doc_id, source=source, text=text, format="text", blocks=tuple(blocks))
    return Document(id=doc_id, source=source, text=text, format="text",
                    blocks=tuple(paragraph_blocks(text)))


