"""``sentences``: chunks of N consecutive sentences, never bigger than ``max_size`` units."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...model import Document
from ...text.sentences import sentence_bounds
from ...text.tokens import Measure, TokenCounter, at_most_one_per_char, get_counter
from ..base import Chunker, Span, leaf_group_spans
from ..params import check_int, check_unit
from ..registry import register
from ..sizing import split_range


@register
@dataclass(frozen=True)
class SentenceChunks(Chunker):
    """Flat chunks of ``sentences`` consecutive sentences (depth one).

    Sentences come from :func:`zoomrag.text.sentences.sentence_spans` (abbreviations, decimals,
    quotes, CJK punctuation; a blank line always ends a sentence). A chunk takes up to
    ``sentences`` of them, fewer when the next would make it bigger than ``max_size`` units;
    neighbours share ``overlap`` sentences. A single sentence bigger than ``max_size`` is cut at
    the best boundary below the limit (clause, then word) into chunks of its own.
    """

    name = "sentences"

    sentences: int = 3
    overlap: int = 0
    max_size: int = 256
    unit: str = "tokens"

    def __post_init__(self) -> None:
        check_int(self.name, "sentences", self.sentences, 1)
        check_int(self.name, "overlap", self.overlap, 0, self.sentences - 1)
        check_int(self.name, "max_size", self.max_size, 1)
        check_unit(self.name, self.unit)

    def split(self, document: Document) -> list[Span]:
        return leaf_group_spans([self._chunks(document)], "chunk", None)

    def _chunks(self, document: Document) -> list[tuple[int, int]]:
        text = document.text
        starts, ends = sentence_bounds(text)
        if not starts:
            return []
        sizes = LazySizes(text, get_counter(self.unit), self.max_size)
        return group_bounds(starts, ends, sizes, per_chunk=self.sentences, overlap=self.overlap)


class LazySizes:
    """Is a span of one text within ``limit`` units? Tokens are counted only when needed.

    When the counter never finds more tokens than characters in the text, a span of at most
    ``limit`` characters fits without counting; the text is counted (once, as a whole) the
    first time a longer span is asked about. Short-sentence documents (chat, Chinese prose)
    are often never counted at all.
    """

    def __init__(self, text: str, counter: TokenCounter, limit: int):
        self.text = text
        self.counter = counter
        self.limit = limit
        self._free: int | None = None
        self._measure: Measure | None = None

    @property
    def free(self) -> int:
        """Spans of at most this many characters fit without counting (-1: none is known to).

        Found on first use: a text that is counted anyway never needs it (a counted span of
        at most ``limit`` characters then fits by its count as well), so a caller that asks
        about a long span first skips the check.
        """
        if self._free is None:
            self._free = self.limit if at_most_one_per_char(self.counter, self.text) else -1
        return self._free

    @property
    def measure(self) -> Measure:
        if self._measure is None:
            self._measure = Measure(self.text, self.counter)
        return self._measure

    def fits(self, start: int, end: int) -> bool:
        if self._measure is None and end - start <= self.free:
            return True
        return self.measure.size(start, end) <= self.limit

    def token_bounds(self, starts: list[int], ends: list[int]) -> tuple[list[int], list[int]]:
        """Token positions of the start and of the end of every sentence (``starts[i]``,
        ``ends[i]``: the sentences of a text in order, only whitespace between two).

        Only differences between them are meaningful (``ends[j] - starts[i]`` tokens start in
        ``[starts[i], ends[j])``, for ``i <= j``), so that ``fits(s, e)`` for a run of the
        sentences is ``ends[j] - starts[i] <= limit``: one subtraction. They are the Measure's
        token indices, found for every sentence together (one vectorised search over the
        counted text).
        """
        measure = self.measure
        if measure.spaceless:
            # No token starts in the whitespace between two sentences: each starts at the
            # token where the one before it ends, and half the lookups do. The first starts
            # where the whitespace before it does (or the text).
            offsets = [max(0, starts[0] - 1), *ends]
            text = self.text
            if ((ends[-1] == len(text) or text[ends[-1]].isspace())
                    and all(map(str.isspace, map(text.__getitem__, ends[:-1])))):
                at = measure.indices_between_runs(offsets)  # every offset at whitespace: faster
            else:
                at = measure.indices(offsets)
            return at[:-1], at[1:]
        at = measure.indices(starts + ends)
        return at[:len(starts)], at[len(starts):]

    def cut(self, start: int, end: int) -> list[tuple[int, int]]:
        """Pieces of at most ``limit`` units (a single unbreakable word may exceed it)."""
        return split_range(self.text, self.measure, start, end, size=self.limit)


def group_bounds(starts: list[int], ends: list[int], sizes: LazySizes, *, per_chunk: int,
                 overlap: int) -> list[tuple[int, int]]:
    """Runs of up to ``per_chunk`` of the sentences ``starts[i]``, ``ends[i]`` (in order) that
    fit ``sizes``, sharing ``overlap`` sentences.

    A run never consists of overlap alone: when only the shared sentences fit before an
    over-long one, the overlap is dropped. An over-long sentence is cut into pieces of its own.
    """
    # When every run is at most ``limit`` characters long, every run fits by its length if the
    # counter allows it (sizes.free), and the text need not be counted. A run that fits by its
    # length fits by its count too, so the chunks are those of the counts: at the first longer
    # run, _group_by_tokens makes them all (and sizes.free, a pass over the text, is never
    # needed: most long documents get there within a few runs).
    out: list[tuple[int, int]] = []
    n = len(starts)
    limit = sizes.limit
    i = 0
    while i < n:
        first = starts[i]
        j = i
        stop = min(n, i + per_chunk)
        while j < stop and ends[j] - first <= limit:
            j += 1
        if j < stop:
            return _group_by_tokens(starts, ends, sizes, per_chunk, overlap)
        out.append((first, ends[j - 1]))
        if j == n:
            break
        i = max(i + 1, j - overlap)  # past the previous run's start: no run is overlap alone
    return out if sizes.free >= 0 else _group_by_tokens(starts, ends, sizes, per_chunk, overlap)


def _group_by_tokens(starts: list[int], ends: list[int], sizes: LazySizes, per_chunk: int,
                     overlap: int) -> list[tuple[int, int]]:
    """group_bounds, every run measured by its token count."""
    out: list[tuple[int, int]] = []
    n = len(starts)
    runs = run_lengths(*sizes.token_bounds(starts, ends), sizes.limit, per_chunk)
    i = 0
    done = 0  # sentences [0, done) are in some chunk already
    while i < n:
        j = i + runs[i]
        if j == i:  # sentence i alone is too big: cut it
            out.extend(sizes.cut(starts[i], ends[i]))
            i = done = i + 1
            continue
        if j <= done:  # only shared sentences fit before an over-long one
            i = done
            continue
        out.append((starts[i], ends[j - 1]))
        if j == n:
            break
        done = j
        i = max(i + 1, j - overlap)
    return out


#: From this many sentences on, run_lengths uses numpy (below, its call overheads cost more).
NUMPY_MIN = 48


def run_lengths(starts: Sequence[int], ends: Sequence[int], limit: int, per_chunk: int) -> list[int]:
    """For each sentence i, how many sentences from i on make a run that fits (at most
    ``per_chunk``; 0 when sentence i alone is too big): the greedy run that starts at i.

    ``ends[j] - starts[i]`` is the size of the run of sentences i to j (see
    :meth:`LazySizes.token_bounds`).
    """
    n = len(starts)
    if n < NUMPY_MIN:
        out = []
        for i, first in enumerate(starts):
            j = i
            stop = min(n, i + per_chunk)
            while j < stop and ends[j] - first <= limit:
                j += 1
            out.append(j - i)
        return out
    # All runs at once: a run of k + 1 sentences fits when the run of k does and its size is
    # within the limit (one comparison per sentence and k; the loops above run once per step).
    import numpy as np  # a base dependency, imported late like Measure.indices does

    first = np.asarray(starts, dtype=np.int64)
    last = np.asarray(ends, dtype=np.int64)
    fits = np.ones(n, dtype=bool)
    runs = np.zeros(n, dtype=np.int64)
    for k in range(min(per_chunk, n)):
        m = n - k
        fits[:m] &= last[k:] - first[:m] <= limit
        fits[m:] = False  # runs past the last sentence
        runs += fits
    return runs.tolist()
