"""The paragraph, sentence and line cuts of one text, found once and kept in token positions.

:func:`~zoomrag.parse.sizing.split_range` ends a piece at the best cut of a window that runs
from ``keep`` to ``size`` tokens past the piece's start. Asked window by window, that is a
backward regex match per tier (:func:`~zoomrag.parse.boundaries.best_cut`) and three
conversions between offsets and token positions per piece. A text cut into many pieces
(``hierarchical``'s three levels, ``fixed``) asks it thousands of times, so a :class:`CutIndex`
finds every cut of the three tiers that need no word-level look once, with the token position
of each, and answers a window given in token positions by one binary search per tier.

The answers are exactly :func:`best_cut`'s. A cut ``c`` lies in the window ``[lo, hi]`` of
offsets ``lo = start_of(i + keep - 1) + 1`` and ``hi = start_of(i + size)`` exactly when the
number of tokens that start before it, ``t(c)``, is in ``[i + keep, i + size]``; a paragraph
cut also needs the line feed that ends its blank line before ``hi``. Cuts the window search
would pass over (one that splits a character from its marks) are left out. The few cuts whose
match depends on where the window ends (a CJK stop before closing quotes, which a window may
end between; punctuation longer than the window search looks back) are marked, and a window
whose best cut is one of them is left to the window search.

The cuts are found by a few numpy passes over the text's code points (``_find_*``); the
stops that closing quotes follow are placed by their patterns (``_STOPS``).
tests/test_cutindex.py holds the finders to a reference of one regex match per cut.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..text.codes import code_points
from ..text.tokens import Measure
from .boundaries import REACH, SENTENCE_STOPS, WIDE_SENTENCE_STOPS, ZWJ, closers_after, is_glued

# One pattern per stop character: a search for a literal runs at C speed, a search for a
# character class tests every offset (about ten times slower on prose).
_STOPS = {
    **{ch: re.compile(re.escape(ch) + closers_after(r"(?=\s)")) for ch in SENTENCE_STOPS},
    **{ch: re.compile(re.escape(ch) + closers_after(r"(?=[\s\S])")) for ch in WIDE_SENTENCE_STOPS},
}


@dataclass(frozen=True, slots=True)
class TierCuts:
    """The cuts of one tier, ascending, with the token positions that place them in a window."""

    #: Offset of each cut.
    cuts: list[int]
    #: Tokens that start before each cut: the window must start at or before this many.
    low: list[int]
    #: The fewest tokens a window must span to hold the cut (ascending).
    high: list[int]
    #: False where the window search must decide (see the module's doc).
    exact: list[bool]


# Finding every cut of a text costs about as much as searching a few windows for theirs (on
# bench/chunk_speed.py's text), so a text of fewer pieces than this is searched window by window.
_MIN_PIECES = 16
# Text counted by word runs of more tokens than this on average (CJK, written without spaces)
# has its cuts inside the runs, where each token position is a search of its own in Python;
# its windows are short and cheap to search, so it is searched window by window.
_MAX_TOKENS_PER_RUN = 4


def index_for(measure: Measure, size: int) -> CutIndex | None:
    """A CutIndex for splitting ``measure``'s text into pieces of ``size`` units, when it holds
    enough of them to pay for finding every cut (None: let each window be searched)."""
    if measure.total < _MIN_PIECES * size:
        return None
    runs = measure.runs
    if runs is not None and measure.total > _MAX_TOKENS_PER_RUN * runs:
        return None
    return CutIndex(measure)


class CutIndex:
    """Paragraph, sentence and line cuts of ``measure.text`` in token positions.

    Each tier is found the first time a window asks for it: most windows end at a paragraph
    or a sentence, so the line tier of prose is often never needed.
    """

    __slots__ = ("_measure", "_scan", "spaceless", "tiers")

    def __init__(self, measure: Measure):
        self._measure = measure
        self._scan = _Scan(measure.text)
        self.tiers: dict[str, TierCuts | None] = {}  # None: a tier not indexed
        #: No token starts at a space, so the piece after a cut starts at token ``t(cut)``.
        self.spaceless = measure.spaceless

    def tier(self, name: str) -> TierCuts | None:
        """The cuts of tier ``name`` (None for a tier not indexed)."""
        if name not in self.tiers:
            find = _FINDERS.get(name)
            self.tiers[name] = None if find is None else self._placed(*find(self._scan))
        return self.tiers[name]

    def _placed(self, cuts: np.ndarray, ends: np.ndarray | None, exact: list[bool] | None,
                spaced: bool) -> TierCuts:
        """A tier's cuts with their token positions (``ends`` None: the cuts themselves);
        ``spaced``: every offset is at a whitespace character or the text's end."""
        m = self._measure
        place = m.indices_between_runs if spaced else m.indices
        n = len(cuts)
        offsets = cuts
        if ends is not None:
            # Only the ends that differ from their cuts are looked up (a text's word runs are
            # searched once per offset inside a run, which is every offset of CJK text), in the
            # same call as the cuts.
            other = np.flatnonzero(cuts != ends)
            if len(other):
                offsets = np.concatenate((cuts, ends[other]))
        # A measure that counts by word runs reads the offsets with numpy, from the array as it
        # is (a list costs more to convert than to search); one counted token by token reads
        # each offset as an int.
        low = place(offsets if m.spaceless else offsets.tolist()) if len(offsets) else []
        cut_list = cuts.tolist()
        exact = exact or [True] * n
        if len(offsets) == n:
            return TierCuts(cut_list, low, low, exact)
        high = low[:n]
        for k, t in zip(other.tolist(), low[n:]):
            high[k] = t
        return TierCuts(cut_list, low[:n], high, exact)

    def best(self, lo_tok: int, hi_tok: int, names: Sequence[str]) -> tuple[int, int, int]:
        """The best cut of a window: ``(cut, t(cut), -1)`` from the first tier of ``names`` that
        has one, or ``(-1, -1, k)`` when the window search must go on from ``names[k]`` (a tier
        not indexed, or a cut only it can place; ``k == len(names)``: no tier has a cut)."""
        tiers = self.tiers
        k = 0
        for name in names:  # runs once per piece: the tier search is written out here
            tier = tiers[name] if name in tiers else self.tier(name)
            if tier is None:
                return -1, -1, k
            j = bisect_right(tier.high, hi_tok) - 1
            if j >= 0 and tier.low[j] >= lo_tok:
                return (tier.cuts[j], tier.low[j], -1) if tier.exact[j] else (-1, -1, k)
            k += 1
        return -1, -1, k


# -- every tier's cuts at once, by array operations over the text's code points --------------
# The functions above find each cut with a regex match or a str.find, a step of the Python
# loop per cut (about 15,000 per MB of English); those below find the same cuts with a few
# numpy passes over the code points, and leave to the functions' patterns only the stops that
# closing quotes follow (whose end the pattern decides). They return exactly what the
# functions above return (tests/test_cutindex.py holds them to it).

class _Scan:
    """A text with its code points and line feeds, each found once for the tiers that read it."""

    __slots__ = ("_codes", "_feeds", "text")

    def __init__(self, text: str):
        self.text = text
        self._codes: np.ndarray | None = None
        self._feeds: np.ndarray | None = None

    @property
    def codes(self) -> np.ndarray:
        if self._codes is None:
            self._codes = code_points(self.text)
        return self._codes

    @property
    def feeds(self) -> np.ndarray:
        """Offset of every line feed (int64)."""
        if self._feeds is None:
            self._feeds = np.flatnonzero(self.codes == 10) if "\n" in self.text else _NONE
        return self._feeds


_NONE = np.zeros(0, dtype=np.int64)
# What each code point is to the tiers, as bits: looked up for the few characters that follow a
# line feed or a stop, never for the whole text (a lookup costs ten comparisons' time).
_SPACE, _CLOSER, _STOP, _WIDE = 1, 2, 4, 8
_KIND = np.zeros(0x10000, dtype=np.uint8)  # code points past it read its last entry, 0 (clip)
_KIND[[c for c in range(0x3001) if chr(c).isspace()]] |= _SPACE  # what \s matches
_KIND[[ord(ch) for ch in closers_after("") if re.fullmatch(closers_after(""), ch)]] |= _CLOSER
_KIND[[ord(ch) for ch in SENTENCE_STOPS]] |= _STOP
_KIND[[ord(ch) for ch in WIDE_SENTENCE_STOPS]] |= _STOP | _WIDE
_ASCII_STOP_CODES = [ord(ch) for ch in SENTENCE_STOPS if ch.isascii()]
# Every other stop is at or above this code point: the characters below it are not looked up.
_FIRST_OTHER_STOP = min(ord(ch) for ch in SENTENCE_STOPS + WIDE_SENTENCE_STOPS if not ch.isascii())
_ZWJ_CODE = ord(ZWJ)
# The first code point that may be glued to the character before it (see boundaries.joins).
_FIRST_GLUED = 0x300


#: A tier's cuts, the offsets that place them where they differ from the cuts (None: the cuts
#: themselves), which are exact (None: all) and whether every offset is at a space.
_Found = tuple[np.ndarray, np.ndarray | None, list[bool] | None, bool]


def _kinds(codes: np.ndarray) -> np.ndarray:
    return _KIND.take(codes, mode="clip")


def _find_paragraphs(scan: _Scan) -> _Found:
    """:func:`_paragraphs`: a cut after each line feed whose line is blank (spaces at most)."""
    if "\n" not in scan.text:
        return _NONE, None, None, True
    feeds = scan.feeds
    first, then = feeds[:-1], feeds[1:]
    blank = then == first + 1
    # A line that starts with a space may be one of spaces: those few are read one by one.
    text = scan.text
    maybe = ~blank & (_kinds(scan.codes.take(first + 1)) & _SPACE).astype(bool)
    for k in np.flatnonzero(maybe).tolist():
        blank[k] = text[first[k] + 1:then[k]].isspace()
    return first[blank] + 1, then[blank], None, True


def _find_lines(scan: _Scan) -> _Found:
    """:func:`_lines`: a cut at each line feed but one after a zero-width joiner."""
    feeds = scan.feeds
    if len(feeds) and ZWJ in scan.text:
        feeds = feeds[(scan.codes.take(feeds - 1) != _ZWJ_CODE) | (feeds == 0)]
    return feeds, None, None, True


def _find_sentences(scan: _Scan) -> _Found:
    """:func:`_sentences`: a cut after each stop that whitespace follows (or any character, for
    a wide stop), or after the closing quotes that follow it."""
    text = scan.text
    codes = scan.codes
    n = len(codes)
    hit = codes == _ASCII_STOP_CODES[0]
    for c in _ASCII_STOP_CODES[1:]:
        hit |= codes == c
    if not text.isascii():
        # One comparison finds the few characters that may be other stops (in English text).
        other = np.flatnonzero(codes >= _FIRST_OTHER_STOP)
        hit[other[(_kinds(codes.take(other)) & _STOP).astype(bool)]] = True
    at = np.flatnonzero(hit)
    if not len(at):
        return _NONE, None, None, True
    inside = at + 1 < n
    follow = _kinds(codes.take(np.minimum(at + 1, n - 1)))
    wide = (_kinds(codes.take(at)) & _WIDE).astype(bool)
    closer = (follow & _CLOSER).astype(bool) & inside
    # A stop then whitespace, or a wide stop then any character but a closer: a cut after it.
    found = (wide | (follow & _SPACE).astype(bool)) & inside & ~closer
    ends = at + 1
    # Closing quotes after a stop: its pattern decides whether and where the sentence ends.
    for k in np.flatnonzero(closer).tolist():
        p = int(at[k])
        m = _STOPS[text[p]].match(text, p)
        if m is not None:
            found[k] = True
            ends[k] = m.end()
    starts, ends, wide = at[found], ends[found], wide[found]
    length = ends - starts
    any_wide = bool(wide.any())
    if not any_wide and not (length > REACH).any():
        return ends, None, None, True
    sure = (length <= REACH) & ~(wide & (length > 1))
    # A sure cut after a wide stop before a combining mark (or the like) is passed over.
    keep = np.ones(len(ends), dtype=bool)
    check = np.flatnonzero(sure & wide)
    check = check[codes.take(ends[check]) >= _FIRST_GLUED]
    if len(check):
        chars, which = np.unique(codes.take(ends[check]), return_inverse=True)
        glued = np.array([is_glued(chr(c)) for c in chars.tolist()], dtype=bool)
        keep[check[glued[which]]] = False
    high = np.where(sure, ends, starts + 1)
    return ends[keep], high[keep], sure[keep].tolist(), not any_wide


#: The tiers a CutIndex holds; the others (word, script) are left to the window search.
_FINDERS = {"paragraph": _find_paragraphs, "sentence": _find_sentences, "line": _find_lines}
