"""Where a context may start and end, and how a span is widened to get there.

A context starts and ends at a sentence boundary (:func:`zoomrag.text.sentences.sentence_bounds`,
which also ends a sentence at a blank line, a heading line and a table row), or, in tables,
lists and code (``lines=True``), at a line boundary. Spans are widened outward to the nearest
such boundary, so the matched text stays inside; when no boundary lies within ``REACH``
characters (one sentence longer than that), the span stops at a word boundary instead, which is
the one allowed exception. Sentences are found in a window around each edge only, so a cut
costs the same in a short note and in a book.

``evaluate.shape`` measures returned contexts against the same boundaries (with
``lines=False``: a metric sees only the text).
"""

from __future__ import annotations

import re

from ..text.sentences import sentence_bounds

#: Characters looked at on each side of an edge for the boundary nearest to it.
REACH = 2000
#: Characters after an edge that decide whether a sentence starts there (``. The`` vs ``. the``).
_AHEAD = 200
#: A context shorter than this many words is a fragment (unless its document is that short).
MIN_WORDS = 15


def _skip_space(text: str, pos: int) -> int:
    n = len(text)
    while pos < n and text[pos].isspace():
        pos += 1
    return pos


def _back_space(text: str, pos: int) -> int:
    while pos > 0 and text[pos - 1].isspace():
        pos -= 1
    return pos


def _window_lo(text: str, pos: int) -> int:
    """A line start about ``REACH`` before ``pos`` (0 when the text begins within it)."""
    lo = pos - REACH
    return 0 if lo <= 0 else text.rfind("\n", 0, lo) + 1


def _window_hi(text: str, pos: int) -> int:
    hi = pos + REACH
    if hi >= len(text):
        return len(text)
    nl = text.find("\n", hi)
    return len(text) if nl < 0 else nl


def _line_start(text: str, pos: int) -> bool:
    return pos == 0 or text[text.rfind("\n", 0, pos) + 1:pos].strip() == ""


def _line_end(text: str, pos: int) -> bool:
    nl = text.find("\n", pos)
    return text[pos:len(text) if nl < 0 else nl].strip() == ""


def clean_start(text: str, pos: int, lines: bool = False) -> bool:
    """True when a context starting at ``pos`` starts at a boundary (whitespace skipped)."""
    q = _skip_space(text, pos)
    if q >= len(text) or q == 0:
        return True
    if lines:
        return _line_start(text, q)
    lo = _window_lo(text, q)
    starts, _ = sentence_bounds(text, lo, min(len(text), q + _AHEAD))
    return q in starts and (q != lo or lo == 0)


def clean_end(text: str, pos: int, lines: bool = False) -> bool:
    """True when a context ending at ``pos`` ends at a boundary (whitespace skipped)."""
    q = _back_space(text, pos)
    if q == 0 or q == len(text):
        return True
    if lines:
        return _line_end(text, q)
    hi = _window_hi(text, q)
    _, ends = sentence_bounds(text, _window_lo(text, q), hi)
    return q in ends and (q != hi or hi == len(text))


def _starts_before(text: str, pos: int, lines: bool) -> list[int]:
    """Boundaries a context may start at, at or before ``pos``, nearest last."""
    lo = _window_lo(text, pos)
    out = {0} if lo == 0 else set()
    if lines:
        nl = text.find("\n", max(lo - 1, 0), pos)
        while nl >= 0:
            out.add(_skip_space(text, nl + 1))
            nl = text.find("\n", nl + 1, pos)
    else:
        starts, _ = sentence_bounds(text, lo, min(len(text), pos + _AHEAD))
        out.update(s for s in starts if s != lo or lo == 0)
    return sorted(s for s in out if s <= pos)


def _ends_after(text: str, pos: int, lines: bool) -> list[int]:
    """Boundaries a context may end at, at or after ``pos``, nearest first."""
    hi = _window_hi(text, pos)
    out = {len(text)} if hi == len(text) else set()
    if lines:
        nl = text.find("\n", pos)
        while 0 <= nl < hi:
            out.add(_back_space(text, nl))
            nl = text.find("\n", nl + 1)
    else:
        _, ends = sentence_bounds(text, _window_lo(text, pos), hi)
        out.update(e for e in ends if e != hi or hi == len(text))
    return sorted(e for e in out if e >= pos)


def _word_start(text: str, pos: int) -> int:
    while pos > 0 and not text[pos - 1].isspace():
        pos -= 1
    return pos


def _word_end(text: str, pos: int) -> int:
    n = len(text)
    while pos < n and not text[pos].isspace():
        pos += 1
    return pos


def snap(text: str, start: int, end: int, lines: bool = False) -> tuple[int, int]:
    """``[start, end)`` widened to the nearest boundaries outside it (whitespace trimmed).

    Without a boundary within ``REACH`` on a side, that side goes to the nearest word boundary.
    """
    s, e = _skip_space(text, start), _back_space(text, end)
    if s >= e:
        return start, end
    before = _starts_before(text, s, lines)
    after = _ends_after(text, e, lines)
    s2 = before[-1] if before else _word_start(text, s)
    e2 = after[0] if after else _word_end(text, e)
    return s2, e2


_CJK = re.compile("[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


#: A word holds a letter or a digit (``|`` and ``---`` are not words).
_WORD = re.compile(r"[^\W_]+(?:\S*[^\W_])?")


def word_count(text: str, start: int, end: int) -> int:
    """Words in ``text[start:end]``: runs holding a letter or digit, each CJK character one word."""
    piece = text[start:end]
    cjk = len(_CJK.findall(piece))
    if cjk:
        piece = _CJK.sub(" ", piece)
    return cjk + len(_WORD.findall(piece))


def grow(text: str, start: int, end: int, lines: bool = False, words: int = MIN_WORDS) -> tuple[int, int]:
    """``[start, end)`` (already at boundaries) grown by whole sentences or lines, after it
    first, then before it, alternately, until it holds ``words`` words or the whole text."""
    after = True
    stuck = 0
    while word_count(text, start, end) < words and stuck < 2:
        if after:
            nxt = [x for x in _ends_after(text, _skip_space(text, end + 1) if end < len(text) else end, lines)
                   if x > end]
            if nxt:
                end, stuck = nxt[0], 0
            else:
                stuck += 1
        else:
            prev = [x for x in _starts_before(text, _back_space(text, start) - 1, lines) if x < start] \
                if start > 0 else []
            if prev:
                start, stuck = prev[-1], 0
            else:
                stuck += 1
        after = not after
    return start, end
