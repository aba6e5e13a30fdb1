"""Text normalisation shared by every reader: offsets point into the normalised text."""

from __future__ import annotations


def normalize_newlines(text: str) -> str:
    """CRLF and lone CR become LF; a leading BOM is dropped."""
    text = text.removeprefix("\ufeff")
    if "\r" in text:
        text = text.replace("\r\n", "\n").replace("\r", "\n")
    return text
