"""``sentences``: chunks of N consecutive sentences, never bigger than ``max_size`` units."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ...model import Document, Tree
from ...text.sentences import sentence_spans
from ...text.tokens import Measure, TokenCounter, at_most_one_per_char, get_counter
from ..base import Chunker, Span, build_leaf_groups, leaf_group_spans
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

    def chunk(self, document: Document) -> Tree:
        # The base's tree, built from the offsets without a draft per chunk.
        return build_leaf_groups(document, [self._chunks(document)], "chunk", None,
                                 strategy=self.describe())

    def _chunks(self, document: Document) -> list[tuple[int, int]]:
        text = document.text
        spans = sentence_spans(text)
        if not spans:
            return []
        sizes = LazySizes(text, get_counter(self.unit), self.max_size)
        return group_sentences(spans, sizes, per_chunk=self.sentences, overlap=self.overlap)


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

    def token_bounds(self, spans: Sequence[tuple[int, int]]) -> tuple[list[int], list[int]]:
        """Token positions of every span's start and of every span's end.

        Only differences between them are meaningful (``ends[j] - starts[i]`` tokens start in
        ``[spans[i][0], spans[j][1])``, for ``i <= j``), so that ``fits(s, e)`` for spans of
        the list is ``e - s <= free`` or ``ends[j] - starts[i] <= limit``: one subtraction.
        They are the Measure's token indices, found for every span together (one vectorised
        search over the counted text).
        """
        at = self.measure.indices([x for span in spans for x in span])
        return at[0::2], at[1::2]

    def cut(self, start: int, end: int) -> list[tuple[int, int]]:
        """Pieces of at most ``limit`` units (a single unbreakable word may exceed it)."""
        return split_range(self.text, self.measure, start, end, size=self.limit)


def group_sentences(spans: list[tuple[int, int]], sizes: LazySizes, *, per_chunk: int,
                    overlap: int) -> list[tuple[int, int]]:
    """Runs of up to ``per_chunk`` sentences that fit ``sizes``, sharing ``overlap`` sentences.

    A run never consists of overlap alone: when only the shared sentences fit before an
    over-long one, the overlap is dropped. An over-long sentence is cut into pieces of its own.
    """
    out: list[tuple[int, int]] = []
    n = len(spans)
    limit = sizes.limit
    # sizes.fits inlined (this loop runs once per sentence): until the text is counted, a run
    # of at most ``limit`` characters fits when the counter allows it (sizes.free); once it
    # is counted, every run compares token indices, looked up for every sentence together.
    # (A run that fits by its length fits by its count too, so both give the same answer.)
    tok_start: list[int] = []
    tok_end: list[int] = []
    counted = False
    i = 0
    done = 0  # sentences [0, done) are in some chunk already
    while i < n:
        first = spans[i][0]
        j = i
        stop = min(n, i + per_chunk)
        while j < stop:
            if not counted:
                if spans[j][1] - first <= limit and sizes.free >= 0:
                    j += 1
                    continue
                tok_start, tok_end = sizes.token_bounds(spans)
                counted = True
            if tok_end[j] - tok_start[i] > limit:
                break
            j += 1
        if j == i:  # sentence i alone is too big: cut it
            out.extend(sizes.cut(*spans[i]))
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
