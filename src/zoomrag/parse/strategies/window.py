"""``window``: sentence leaves for sentence-window retrieval (match a sentence, return its window).

Only the sentences are stored. The window, ``window`` sentences on each side of a matched one,
is computed at query time from the tree (:func:`window_span`), so changing it needs no re-index.
Sentences sit under paragraph parents by default: a paragraph is a natural unit to return
when a window is not enough, and the parents cost no vectors (only leaves are embedded).
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import ConfigError
from ...model import Document, Node, Tree
from ...text.sentences import paragraph_sentences
from ...text.tokens import Measure, TokenCounter, at_most_one_per_char, get_counter, span_sizes
from ..base import Chunker, Span
from ..params import check_int, check_unit
from ..sizing import split_range


@dataclass(frozen=True)
class SentenceWindow(Chunker):
    """Sentence leaves (kind ``sentence``), under paragraph parents unless ``paragraphs=False``.

    ``window`` is not used to build the tree: it is how many sentences on each side of a hit
    the query side returns (see :func:`window_span`). A sentence bigger than ``max_size`` units
    is cut at the best boundary below the limit into several ``sentence`` leaves, so no leaf is
    too long to embed.
    """

    name = "window"

    window: int = 2
    max_size: int = 256
    unit: str = "tokens"
    #: Paragraph parents (level 1) over the sentences (level 2); off: sentences at level 1.
    paragraphs: bool = True

    def __post_init__(self) -> None:
        check_int(self.name, "window", self.window, 0)
        check_int(self.name, "max_size", self.max_size, 1)
        check_unit(self.name, self.unit)
        if not isinstance(self.paragraphs, bool):
            raise ConfigError(f"{self.name}: paragraphs must be true or false, got {self.paragraphs!r}")

    def split(self, document: Document) -> list[Span]:
        groups = self._groups(document)
        if not self.paragraphs:
            return [Span("sentence", s, e) for group in groups for s, e in group]
        return [Span("paragraph", group[0][0], group[-1][1], [Span("sentence", s, e) for s, e in group])
                for group in groups]

    def _groups(self, document: Document) -> list[list[tuple[int, int]]]:
        """The sentence leaves of each paragraph, over-long sentences already cut."""
        text = document.text
        paragraphs = paragraph_sentences(text)
        if not paragraphs:
            return []
        counter = get_counter(self.unit)
        # When the counter never finds more tokens than characters in this text, a sentence of
        # at most max_size characters fits without counting: only the longer ones are counted
        # (a small share of most documents). Otherwise the whole text is counted, once.
        measure = None if at_most_one_per_char(counter, text) else Measure(text, counter)
        too_big = self._too_big(text, paragraphs, counter, measure)
        if not too_big:  # the common case: every sentence is a leaf as it is
            return paragraphs
        out = []
        for para in paragraphs:
            if too_big.isdisjoint(para):
                out.append(para)
                continue
            leaves = []
            for s, e in para:
                if (s, e) in too_big:
                    leaves.extend(self._cut(text, s, e, counter, measure))
                else:
                    leaves.append((s, e))
            out.append(leaves)
        return out

    def _too_big(self, text: str, paragraphs: list[list[tuple[int, int]]], counter: TokenCounter,
                 measure: Measure | None) -> set[tuple[int, int]]:
        """The sentences bigger than ``max_size`` units."""
        limit = self.max_size
        if measure is not None:
            return {(s, e) for para in paragraphs for s, e in para if measure.size(s, e) > limit}
        long = [(s, e) for para in paragraphs for s, e in para if e - s > limit]
        return {sp for sp, n in zip(long, span_sizes(counter, text, long)) if n > limit}

    def _cut(self, text: str, s: int, e: int, counter: TokenCounter,
             measure: Measure | None) -> list[tuple[int, int]]:
        if measure is not None:
            return split_range(text, measure, s, e, size=self.max_size)
        # Without a count of the whole text, this sentence is counted again to be cut: it is
        # rare (a table flattened into one line, a list without punctuation), so cheap.
        piece = text[s:e]
        cuts = split_range(piece, Measure(piece, counter), 0, len(piece), size=self.max_size)
        return [(s + a, s + b) for a, b in cuts]


def window_span(tree: Tree, leaf: Node, window: int) -> tuple[int, int]:
    """The span from ``window`` leaves before ``leaf`` to ``window`` leaves after it.

    Windows cross paragraph boundaries, as the sentences of a document are one sequence; use
    the leaf's parent to stay inside its paragraph.
    """
    first = last = leaf
    for _ in range(window):
        prev = tree.previous_leaf(first)
        if prev is None:
            break
        first = prev
    for _ in range(window):
        nxt = tree.next_leaf(last)
        if nxt is None:
            break
        last = nxt
    return first.start, last.end
