"""``sentences``: chunks of N consecutive sentences, never bigger than ``max_size`` units."""

from __future__ import annotations

from dataclasses import dataclass

from ...model import Document
from ...text.sentences import sentence_spans
from ...text.tokens import Measure
from ..base import Chunker, Span, measure_for
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
        text = document.text
        spans = sentence_spans(text)
        if not spans:
            return []
        measure = measure_for(document, self.unit)
        return [Span("chunk", s, e) for s, e in group_sentences(
            text, measure, spans, per_chunk=self.sentences, overlap=self.overlap,
            max_size=self.max_size)]


def group_sentences(text: str, measure: Measure, spans: list[tuple[int, int]], *, per_chunk: int,
                    overlap: int, max_size: int) -> list[tuple[int, int]]:
    """Runs of up to ``per_chunk`` sentences of at most ``max_size`` units, sharing ``overlap``.

    A run never consists of overlap alone: when only the shared sentences fit before an
    over-long one, the overlap is dropped. An over-long sentence is cut by
    :func:`~zoomrag.parse.sizing.split_range` into pieces of its own.
    """
    out: list[tuple[int, int]] = []
    size = measure.size
    n = len(spans)
    i = 0
    done = 0  # sentences [0, done) are in some chunk already
    while i < n:
        first = spans[i][0]
        j = i
        while j < n and j - i < per_chunk and size(first, spans[j][1]) <= max_size:
            j += 1
        if j == i:  # sentence i alone is too big: cut it
            s, e = spans[i]
            out.extend(split_range(text, measure, s, e, size=max_size))
            i = done = i + 1
            continue
        if j <= done:  # only shared sentences fit before an over-long one
            i = done
            continue
        out.append((first, spans[j - 1][1]))
        done = j
        i = max(i + 1, j - overlap)
        if j == n:
            break
    return out
