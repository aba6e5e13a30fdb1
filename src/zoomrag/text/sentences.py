"""Sentence segmentation with exact spans.

PROVISIONAL: a plain regex until the splitter is chosen by measurement (see docs/strategies.md).
The interface is fixed: ``sentence_spans(text, start, end)`` returns ordered, non-overlapping
``(start, end)`` pairs inside [start, end), trimmed of surrounding whitespace, that together
cover every non-whitespace character of the range.
"""

from __future__ import annotations

import re

_END = re.compile(r"[.!?。！？；…]+[\"'”’)\]]*(?=\s|$)|[。！？；]+[”’」』）]*")


def sentence_spans(text: str, start: int = 0, end: int | None = None) -> list[tuple[int, int]]:
    end = len(text) if end is None else end
    out: list[tuple[int, int]] = []
    pos = start
    for m in _END.finditer(text, start, end):
        _add(text, pos, m.end(), out)
        pos = m.end()
    _add(text, pos, end, out)
    return out


def _add(text: str, s: int, e: int, out: list[tuple[int, int]]) -> None:
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    if s < e:
        out.append((s, e))
