"""Small span helpers shared by readers and strategies: trimming, lines, paragraphs.

All functions take absolute offsets into one text and return absolute offsets, so callers
never slice and re-offset strings.
"""

from __future__ import annotations

import re

# A blank line is one holding only whitespace; a run of them separates paragraphs.
_BLANK_LINES = re.compile(r"\n(?:[^\S\n]*\n)+")
_NON_SPACE = re.compile(r"\S")


def trim(text: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` without leading and trailing whitespace (a blank span collapses to its end)."""
    start = skip_space(text, start, end)
    return start, trim_end(text, start, end)


def skip_space(text: str, pos: int, end: int) -> int:
    """First offset in [pos, end) that is not whitespace (``end`` if none)."""
    # Fast paths: a cut usually sits on a word or on one space before it.
    if pos >= end or not text[pos].isspace():
        return min(pos, end)
    if pos + 1 < end and not text[pos + 1].isspace():
        return pos + 1
    m = _NON_SPACE.search(text, pos, end)
    return end if m is None else m.start()


def trim_end(text: str, start: int, end: int) -> int:
    """``end`` moved back over trailing whitespace, not before ``start``."""
    while end > start:
        if not text[end - 1].isspace():
            return end
        # Long runs of spaces (padded tables, logs): strip a bounded slice at C speed.
        lo = max(start, end - 64)
        kept = len(text[lo:end].rstrip())
        if kept:
            return lo + kept
        end = lo
    return end


def indent_width(line: str) -> int:
    """How many spaces and tabs open ``line``."""
    return len(line) - len(line.lstrip(" \t"))


def line_end(text: str, pos: int) -> int:
    """Where the line holding ``pos`` ends: its newline, or the text's end."""
    e = text.find("\n", pos)
    return len(text) if e < 0 else e


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
