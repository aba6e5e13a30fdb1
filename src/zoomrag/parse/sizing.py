"""Size-based splitting: pieces of at most ``size`` units over a range of one document.

Units are whatever the document's :class:`~zoomrag.text.tokens.Measure` counts (characters or
tokens). Tokens are counted once per document; every size question here is an index into
that one count (one binary search per piece), never a re-tokenisation of a piece.

Both splitters share one contract: pieces are ``(start, end)`` offsets into ``text``, trimmed
of whitespace, in order, together covering every non-whitespace character of the range; with
``overlap`` a piece starts at the first word gap at most ``overlap`` units before the end of
the previous one, otherwise pieces do not overlap.

- :func:`split_range` (``fixed``) ends each piece at the best boundary among the cuts that keep
  at least ``1 - lookback`` of the window: paragraph break, sentence end, line break, word gap,
  gap between CJK characters. It never cuts inside a word, nor between the words of a Markdown
  link's text (``[Code review](…)``: the link is one word, its target often most of its
  tokens), so a single word or link longer than ``size`` is the one case of a piece bigger
  than ``size``.
- :func:`split_recursive` (``recursive``) ends each piece at the last boundary of the coarsest
  kind present anywhere in the window: paragraph, line, sentence, word, then character. That is
  the recursive-separator rule (split at the coarsest separator, merge neighbours while they
  fit) computed greedily in one pass. A word longer than ``size`` is cut between characters
  (never between a character and its combining marks).
"""

from __future__ import annotations

import re
from bisect import bisect_right

from ..errors import ConfigError
from ..load.spans import skip_space, trim_end
from ..text.markup import INLINE_LINK
from ..text.tokens import Measure
from .boundaries import (
    FIXED_ORDER,
    RECURSIVE_ORDER,
    best_cut,
    can_cut,
    first_gap,
    first_grapheme,
    last_gap,
    last_grapheme,
)

Piece = tuple[int, int]


def split_range(text: str, measure: Measure, start: int, end: int, *, size: int, overlap: int = 0,
                min_size: int = 0, lookback: float = 0.3, tokens: tuple[int, int] | None = None,
                marks: list[int] | None = None) -> list[Piece]:
    """Cut ``text[start:end]`` into pieces of at most ``size`` units.

    Each piece ends at the rightmost boundary of the best tier among the cuts that keep at least
    ``1 - lookback`` of the window; without one, at the last word gap before the window; and
    only a single word longer than ``size`` makes a piece exceed it. ``min_size`` keeps the
    last piece from being smaller: the cut before it moves back so the tail keeps at least
    ``min_size`` units (two pieces that fit together would have been one).

    ``tokens`` and ``marks`` are as in :func:`split_pieces`.
    """
    _check_sizes(size, overlap, min_size, lookback)
    return split_pieces(text, measure, start, end, size, fixed_keep(size, lookback), min_size,
                        overlap=overlap, tokens=tokens, marks=marks)


def fixed_keep(size: int, lookback: float) -> int:
    """The fewest units a ``split_range`` piece keeps when it ends at a boundary."""
    return max(1, size - int(size * lookback))


def split_recursive(text: str, measure: Measure, start: int, end: int, *, size: int,
                    overlap: int = 0) -> list[Piece]:
    """Cut ``text[start:end]`` by paragraph, line, sentence, word, then character.

    Each piece ends at the last boundary of the coarsest kind that occurs within ``size`` units
    of its start, so small paragraphs are packed together, a big one is cut at its last line
    break or sentence end that fits, and so on down to characters.
    """
    _check_sizes(size, overlap, 0, 1.0)
    return split_pieces(text, measure, start, end, size, 1, 0, overlap=overlap, order=RECURSIVE_ORDER,
                        split_words=True)


def split_pieces(text: str, measure: Measure, start: int, end: int, size: int, keep: int,
                 min_tail: int, *, overlap: int = 0,
                 order: tuple[tuple[re.Pattern[str], bool], ...] = FIXED_ORDER,
                 split_words: bool = False, tokens: tuple[int, int] | None = None,
                 marks: list[int] | None = None) -> list[Piece]:
    """The loop of both splitters, sizes unchecked (for a caller that checked them once and
    splits many ranges): ``keep`` is the fewest units a piece keeps when a boundary is found
    (:func:`fixed_keep`); ``min_tail`` the fewest units left after a cut when the rest is about
    to end; ``order`` the boundary tiers by preference.

    ``tokens``: the token positions of ``start`` and ``end`` when the caller knows them and
    the range is trimmed. ``marks``: filled with the token position of every piece's start
    and then of the end, when a spaceless measure and no overlap make them free (piece k then
    holds ``marks[k + 1] - marks[k]`` tokens); left empty otherwise.

    Without ``overlap`` and ``min_tail``, a short piece without a letter or digit (a ``|``
    gutter left before a rule of dashes) joins the piece before it, or else the one after it,
    when the two fit ``size`` together: alone it would be a unit that says nothing.
    """
    pieces = _split(text, measure, start, end, size, keep, min_tail, overlap, order, split_words, tokens,
                    marks)
    if len(pieces) > 1 and not overlap and not min_tail:  # min_size places the last cut itself
        _fold_wordless(text, measure, pieces, size, marks if marks and len(marks) == len(pieces) + 1 else None)
    return pieces


#: Characters of the longest piece looked at for words: a longer piece of punctuation alone (a
#: rule of 70 dashes) is as many tokens and fits with no neighbour.
_WORDLESS_MAX = 24
_WORD_CHAR = re.compile(r"[^\W_]")


def _fold_wordless(text: str, measure: Measure, pieces: list[Piece], size: int, marks: list[int] | None) -> None:
    k = 0
    while k < len(pieces):
        a, b = pieces[k]
        if b - a > _WORDLESS_MAX or _WORD_CHAR.search(text, a, b) is not None:
            k += 1
            continue
        if k > 0 and (marks[k + 1] - marks[k - 1] if marks else measure.size(pieces[k - 1][0], b)) <= size:
            pieces[k - 1:k + 1] = [(pieces[k - 1][0], b)]
            if marks:
                del marks[k]
            continue
        if k + 1 < len(pieces) and (marks[k + 2] - marks[k] if marks else measure.size(a, pieces[k + 1][1])) <= size:
            pieces[k:k + 2] = [(a, pieces[k + 1][1])]
            if marks:
                del marks[k + 1]
        k += 1


def _split(text: str, measure: Measure, start: int, end: int, size: int, keep: int, min_tail: int,
           overlap: int, order: tuple[tuple[re.Pattern[str], bool], ...], split_words: bool,
           tokens: tuple[int, int] | None, marks: list[int] | None) -> list[Piece]:
    starts = measure.start_of  # token k starts at starts(k)
    index = measure.index
    pieces: list[Piece] = []
    if tokens is None:
        s = skip_space(text, start, end)
        e = trim_end(text, s, end)
        if s >= e:
            return pieces
        i, last = index(s), index(e)
    else:
        s, e = start, end
        if s >= e:
            return pieces
        i, last = tokens
    mark = marks.append if marks is not None and measure.spaceless and not overlap else None
    links: list[tuple[int, int]] | None = None  # found at the first cut: most ranges need none
    # Every cut must pass ``floor``: the first character the previous piece did not take, so
    # overlapping pieces still advance and each one brings new text.
    floor = s
    while True:
        if mark is not None:
            mark(i)
        if last - i <= size:
            pieces.append((s, e))
            if mark is not None:
                mark(last)
            return pieces
        hard = starts(i + size)  # the furthest cut: ``size`` units from s
        if hard <= floor:
            if s < floor:  # the overlap leaves no room for new text: drop it
                s = floor
                i = index(s)
                continue
            # One character of more than ``size`` units (a Hangul syllable is two word pieces):
            # the piece takes it whole (below), or the loop would never move on.
            hard = floor
        if min_tail and last - min_tail < i + size:  # leave the tail its min_size units
            hard = max(starts(max(last - min_tail, i + 1)), floor + 1)
        lo = min(max(starts(i + keep - 1) + 1, floor + 1), hard)
        c = best_cut(text, lo, hard, order)
        if c < 0 and split_words:
            c = last_grapheme(text, floor + 1, hard)
            if c < 0 and s < floor:
                # The overlap leaves no grapheme gap before the limit: drop it, not the limit.
                s = floor
                i = index(s)
                continue
            if c < 0:  # one character with more marks than ``size`` units: keep it whole
                c = first_grapheme(text, hard + 1, e - 1)
        elif c < 0:
            c = last_gap(text, floor + 1, lo - 1)
            if c < 0 and s < floor:
                # The overlap would glue the previous words to an unbreakable one: drop it.
                s = floor
                i = index(s)
                continue
            if c < 0:
                c = first_gap(text, hard + 1, e - 1)
        if c < 0:
            c = e
        while min_tail and c < e and last - index(skip_space(text, c, e)) < min_tail:
            earlier = last_gap(text, floor + 1, c - 1)  # the cap counted spaces
            if earlier < 0:
                break
            c = earlier
        if not split_words:  # a Markdown link is one word (recursive's pieces are never over size)
            if links is None:
                links = link_spans(text)
            moved = _outside_link(text, links, c, floor, e) if links else c
            if moved > c and s < floor:  # the overlap would glue the previous words to the link: drop it
                s = floor
                i = index(s)
                continue
            c = moved
        pieces.append((s, trim_end(text, s, c)))
        if c >= e:
            if mark is not None:
                mark(last)
            return pieces
        nxt = c
        if overlap:
            k = index(c) - overlap
            p = first_gap(text, starts(k) if k > i else s + 1, c - 1)
            if p >= 0:
                nxt = p
        floor = skip_space(text, c, e)
        s = floor if nxt == c else skip_space(text, nxt, e)  # the same offset without overlap
        i = index(s)


_SPACE = re.compile(r"\s")
#: The last text searched for links and what was found: the pieces of one text are cut in turn.
_FOUND: tuple[str, list[tuple[int, int]]] = ("", [])


def link_spans(text: str) -> list[tuple[int, int]]:
    """Where each Markdown link whose text holds a space lies in ``text``, in order."""
    global _FOUND
    found = _FOUND
    if found[0] is text:
        return found[1]
    spans = [m.span() for m in INLINE_LINK.finditer(text) if _SPACE.search(m.group(1))] if "](" in text else []
    _FOUND = (text, spans)
    return spans


def _outside_link(text: str, links: list[tuple[int, int]], c: int, floor: int, e: int) -> int:
    """``c``, or, when it cuts a Markdown link between the words of its text, the link's start
    (the link goes whole into the next piece), or its end when the piece brings nothing new
    before it (``floor``: the first character the previous piece did not take): a link is one
    word, as long as its target (a Notion page's path is most of its tokens), and its text cut
    in two reads ``[Code review`` and ``guidelines](…)``."""
    i = bisect_right(links, (c, 1 << 62)) - 1
    if i < 0:
        return c
    a, b = links[i]
    if not a < c < b:
        return c
    if a > floor:
        return a if can_cut(text, a) else c
    return b if b == e or can_cut(text, b) else c  # glued to a word: that word's gaps


def _check_sizes(size: int, overlap: int, min_size: int, lookback: float) -> None:
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ConfigError(f"size={size!r} must be a whole number of at least 1")
    if not 0 <= overlap < size:
        raise ConfigError(f"overlap={overlap!r} must be at least 0 and less than size={size}")
    if not 0 <= min_size <= size:
        raise ConfigError(f"min_size={min_size!r} must be between 0 and size={size}")
    if not 0.0 <= lookback <= 1.0:
        raise ConfigError(f"lookback={lookback!r} must be between 0 and 1")
