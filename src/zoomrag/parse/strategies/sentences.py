"""``sentences``: chunks of N consecutive sentences, never bigger than ``max_size`` units."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...model import Document
from ...text.sentences import sentence_bounds
from ...text.tokens import Measure, get_counter
from ..base import Chunker, Span
from ..params import check_int, check_unit
from ..sizing import split_range


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
        text = document.text
        starts, ends = sentence_bounds(text)
        if not starts:
            return []
        measure = Measure(text, get_counter(self.unit))
        return [Span("chunk", s, e) for s, e in group_bounds(
            starts, ends, measure, self.max_size, per_chunk=self.sentences, overlap=self.overlap)]


def group_bounds(starts: list[int], ends: list[int], measure: Measure, limit: int, *, per_chunk: int,
                 overlap: int) -> list[tuple[int, int]]:
    """Runs of up to ``per_chunk`` of the sentences ``starts[i]``, ``ends[i]`` (in order) of at
    most ``limit`` units of ``measure``, sharing ``overlap`` sentences.

    A run never consists of overlap alone: when only the shared sentences fit before an
    over-long one, the overlap is dropped. An over-long sentence is cut into pieces of its own.
    """
    # Token indices of every bound, found together: a run of sentences i to j holds
    # ends[j] - starts[i] tokens (only whitespace lies between two sentences).
    at = measure.indices(starts + ends)
    runs = run_lengths(at[:len(starts)], at[len(starts):], limit, per_chunk)
    out: list[tuple[int, int]] = []
    n = len(starts)
    i = 0
    done = 0  # sentences [0, done) are in some chunk already
    while i < n:
        j = i + runs[i]
        if j == i:  # sentence i alone is too big: cut it
            out.extend(split_range(measure.text, measure, starts[i], ends[i], size=limit))
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


def run_lengths(starts: Sequence[int], ends: Sequence[int], limit: int, per_chunk: int) -> list[int]:
    """For each sentence i, how many sentences from i on make a run of at most ``limit``
    (``ends[j] - starts[i]`` for the run i to j), at most ``per_chunk``; 0 when sentence i
    alone is too big: the greedy run that starts at i."""
    n = len(starts)
    out = []
    for i, first in enumerate(starts):
        j = i
        stop = min(n, i + per_chunk)
        while j < stop and ends[j] - first <= limit:
            j += 1
        out.append(j - i)
    return out
