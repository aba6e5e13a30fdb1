"""Fill: the largest piece of a candidate that fits what is left of the budget.

Whole sentences around its best hit (lines in tables, lists and code), grown one at a time,
after the hit first; when not even one fits, whole words; when not one word fits, characters.
The piece stays in the gap between spans already chosen, so no text is returned twice.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Sequence

from ..load.spans import skip_space, trim_end
from ..text.sentences import sentence_spans
from .base import Candidate
from .bounds import has_words, sentences_in

__all__ = ["cut_to_fit"]

_WORD_CUT = ", cut at words"
_NONSPACE = re.compile(r"\S+")


def _line_pieces(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """Non-blank lines of ``text[lo:hi]``, trimmed: the pieces of a table, a list or code."""
    out = []
    pos = lo
    while pos < hi:
        nl = text.find("\n", pos, hi)
        e = hi if nl < 0 else nl
        a = skip_space(text, pos, e)
        b = trim_end(text, a, e)
        if a < b:
            out.append((a, b))
        pos = e + 1
    return out


def cut_to_fit(c: Candidate, text: str, taken: Sequence[tuple[int, int]], fits: Callable[[Candidate], bool],
               lines: bool = False, words_ok: Callable[[int, int], bool] | None = None) -> Candidate | None:
    """The largest piece of ``c`` around its best hit that ``fits``: whole sentences, else words.

    The piece stays inside the gap between already chosen spans (``taken``) that holds the hit,
    so it never repeats text; it grows one sentence at a time, after the hit first, then before it.
    """
    anchor = max(c.hits, key=lambda h: h.score) if c.hits else None
    a_start, a_end = (anchor.start, anchor.end) if anchor is not None else (c.start, c.end)
    gaps, pos = [], c.start
    for t_start, t_end in sorted(taken):
        if t_start > pos:
            gaps.append((pos, min(t_start, c.end)))
        pos = max(pos, t_end)
    if pos < c.end:
        gaps.append((pos, c.end))
    gaps = [(a, b) for a, b in gaps if a < b]
    if not gaps:
        return None
    # the free gap holding the anchor, else the first one after it, else the last one before it
    lo, hi = next((g for g in gaps if g[0] <= a_start < g[1]), None) or next(
        (g for g in gaps if g[0] >= a_start), gaps[-1])
    a_start, a_end = min(max(a_start, lo), hi), max(min(a_end, hi), lo)
    sentences = _line_pieces(text, lo, hi) if lines else (sentences_in(text, lo, hi) or sentence_spans(text, lo, hi))
    if not lines:  # a piece never starts or ends on a "sentence" of no word (an AsciiDoc list's ".")
        sentences = [(s, e) for s, e in sentences if has_words(text, s, e, 1)] or sentences
    if not sentences:
        return None
    # the sentences holding the anchor, or the one after it
    core = [k for k, (s, e) in enumerate(sentences) if s < a_end and e > a_start] or \
        [next((k for k, (s, _) in enumerate(sentences) if s >= a_start), len(sentences) - 1)]
    i, j = core[0], core[-1]

    def piece(s: int, e: int) -> Candidate:
        # a piece of a hit larger than the room still holds (part of) that hit
        return Candidate(c.doc_id, s, e, c.score, tuple(h for h in c.hits if s < h.end and h.start < e),
                         c.section_path, c.level, c.kind, f"{c.rule}, cut to fit")

    best = piece(sentences[i][0], sentences[j][1])
    if not fits(best) and j > i:  # a hit larger than the room: from its first sentence on
        j = i
        best = piece(sentences[i][0], sentences[j][1])
    if not fits(best):
        if words_ok is not None and not words_ok(sentences[i][0], sentences[j][1]):
            return None
        return _words(text, sentences[i][0], sentences[j][1], fits, piece)
    grow_after = True
    while True:
        grown = None
        for after in ((True, False) if grow_after else (False, True)):
            if after and j + 1 < len(sentences):
                trial = piece(sentences[i][0], sentences[j + 1][1])
                if fits(trial):
                    grown, j = trial, j + 1
                    break
            if not after and i > 0:
                trial = piece(sentences[i - 1][0], sentences[j][1])
                if fits(trial):
                    grown, i = trial, i - 1
                    break
        if grown is None:
            return best
        best, grow_after = grown, not grow_after


def _words(text: str, start: int, end: int, fits: Callable[[Candidate], bool],
           piece: Callable[[int, int], Candidate]) -> Candidate | None:
    """The longest run of whole words from ``start`` that fits (binary search on word ends);
    when not even the first word fits (one unbreakable run), the longest run of characters."""
    ends = [m.end() for m in _NONSPACE.finditer(text, start, end)]
    found = _longest(ends, start, fits, piece)
    if found is None:
        found = _longest(range(start + 1, ends[0] if ends else end), start, fits, piece)
    return found


def _longest(ends: Sequence[int], start: int, fits: Callable[[Candidate], bool],
             piece: Callable[[int, int], Candidate]) -> Candidate | None:
    lo, hi, found = 0, len(ends) - 1, None
    while lo <= hi:
        mid = (lo + hi) // 2
        trial = piece(start, ends[mid])
        if fits(trial):
            found, lo = dataclasses.replace(trial, rule=trial.rule + _WORD_CUT), mid + 1
        else:
            hi = mid - 1
    return found
