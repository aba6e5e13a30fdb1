"""Small span helpers shared by readers and strategies: trimming, lines, paragraphs.

All functions take absolute offsets into one text and return absolute offsets, so callers
never slice and re-offset strings.
"""

from __future__ import annotations

import re

# A blank line is one holding only whitespace; a run of them separates paragraphs.
_BLANK_LINES = re.compile(r"\n(?:[^\S\n]*\n)+")


def trim(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` without leading and trailing whitespace (empty spans collapse to start)."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end


def line_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Each line of ``text[start:end]`` as ``(line_start, line_end)``, newline excluded.

    Lines are split on ``\\n`` only: readers normalise newlines first, and markdown-it counts
    lines the same way, so line numbers agree.
    """
    end = len(text) if end is None else end
    out = []
    pos = start
    while pos <= end:
        nl = text.find("\n", pos, end)
        if nl < 0:
            if pos < end:
                out.append((pos, end))
            break
        out.append((pos, nl))
        pos = nl + 1
    return out


def paragraph_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    """Stretches of ``text[start:end]`` separated by blank lines, trimmed; none is empty."""
    end = len(text) if end is None else end
    out = []
    pos = start
    for m in _BLANK_LINES.finditer(text, start, end):
        s, e = trim(text, pos, m.start())
        if s < e:
            out.append((s, e))
        pos = m.end()
    s, e = trim(text, pos, end)
    if s < e:
        out.append((s, e))
    return out
