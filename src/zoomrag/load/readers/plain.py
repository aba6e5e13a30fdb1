"""Plain text: the text as it is; paragraphs are blocks of type text."""

from __future__ import annotations

from ...model import Document
from ..base import register_reader


def read_plain(text: str, *, doc_id: str, source: str) -> Document:
    return Document(id=doc_id, source=source, text=text, format="text")


register_reader("text", (".txt", ".text", ".rst", ".log"), read_plain)
