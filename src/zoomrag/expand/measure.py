"""Token sizes of spans for the budget-aware policies and assembly, counted once per document.

A policy that weighs a parent against the budget needs its size in the budget's unit. A
document's :class:`SpanMeasure` tokenizes only the lines that the spans asked about touch (a
query looks at a few paragraphs of each document it hits) and remembers them; once half of the
document is tokenized it tokenizes the rest and answers by binary search over all the token
starts (a document asked about query after query, or through large spans, then costs a
look-up per span instead of a walk over its lines). A tree source may provide its own ``measure(doc_id)`` (an index with a
non-default counter); otherwise the default counter is used, which is also the index's default.

For the budget no token covers more than :data:`MAX_TOKEN_CHARS` characters: WordPiece counts a
longer word as one ``[UNK]``, so a megabyte of letters would otherwise be one token, and a
context of "10 tokens" a megabyte long. Such a word counts one token per ``MAX_TOKEN_CHARS``.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import OrderedDict
from operator import sub
from threading import Lock

from ..model import Tree
from ..text.tokens import ApproxCounter, Measure, TokenCounter, default_counter
from ..text.wordpiece import WordPieceCounter
from .base import TreeSource

#: Counters whose tokens never cross a line break and whose tokens inside a line do not depend
#: on the text around it (both split at whitespace first), so counting a span's own lines gives
#: the same number as counting the whole document. Other counters measure whole documents.
LINE_LOCAL: tuple[type, ...] = (ApproxCounter, WordPieceCounter)
#: The most characters one token of the budget covers (WordPiece's longest word).
MAX_TOKEN_CHARS = 100
#: Once this share of a document's characters is tokenized, the rest is too (at most doubling
#: the work) and every size is a binary search.
WHOLE_SHARE = 0.5
#: Span sizes a measure remembers before it starts again.
MEMO_SPANS = 65_536
#: Characters on each side of a span whose lines are tokenized with it.
NEAR = 512
_SPACE = re.compile(r"\s")


class SpanMeasure:
    """``size(start, end)`` of one text as a :class:`Measure` of it would answer, lazily.

    The lines a span touches are tokenized (each line once, neighbouring new lines in one call)
    and their token starts kept, so no character is tokenized twice and the lines no span
    touches never are. A counter not known to be line-local measures the whole text at once.
    """

    __slots__ = ("_all", "_done", "_full", "_lines", "_sizes", "counter", "text")

    def __init__(self, text: str, counter: TokenCounter):
        self.text = text
        self.counter = counter
        self._full: Measure | None = None if type(counter) in LINE_LOCAL else Measure(text, counter)
        #: Start of a tokenized line -> the token starts in it (offsets into the text).
        #: (Tuples: the garbage collector stops tracking them, and a server keeps thousands.)
        self._lines: dict[int, tuple[int, ...]] = {}
        #: Characters tokenized so far.
        self._done = 0
        #: Every token start of the text, once all of it is tokenized.
        self._all: list[int] | None = None
        #: Sizes already given: a policy asks for the same leaves again and again (every hit
        #: near one spreads over it), and assembly for the spans the policy sized.
        self._sizes: dict[tuple[int, int], int] = {}

    def size(self, start: int, end: int) -> int:
        """Tokens that start inside [start, end)."""
        key = (start, end)
        n = self._sizes.get(key)
        if n is None:
            if len(self._sizes) >= MEMO_SPANS:  # a long-lived server must not grow it forever
                self._sizes.clear()
            n = self._sizes[key] = self._size(start, end)
        return n

    def _size(self, start: int, end: int) -> int:
        if self._full is not None:
            return self._full.size(start, end)
        text = self.text
        lo, hi = max(0, min(start, end, len(text))), max(0, min(max(start, end), len(text)))
        if lo == hi:
            return 0
        everything = self._all
        if everything is None and self._done >= WHOLE_SHARE * len(text):
            everything = self._all = [s for starts in self._tokenized(0, len(text)) for s in starts]
        if everything is not None:
            n = bisect_left(everything, hi) - bisect_left(everything, lo)
            return n if start <= end else -n
        lines = self._tokenized(text.rfind("\n", 0, lo) + 1, hi)
        n = 0
        last = len(lines) - 1
        for i, starts in enumerate(lines):
            if i == 0 or i == last:
                n += bisect_left(starts, hi) - bisect_left(starts, lo)
            else:
                n += len(starts)
        return n if start <= end else -n

    def _tokenized(self, a: int, hi: int) -> list[tuple[int, ...]]:
        """Token starts of each line from the one starting at ``a`` to the one holding ``hi - 1``."""
        text, known = self.text, self._lines
        bounds = _line_bounds(text, a, hi)
        if any(p not in known for p, _ in bounds):
            # the lines around too (up to NEAR characters each side, whole lines): a policy sizes
            # a hit's neighbours next, and one counter call costs about as much as a few lines
            lo = text.rfind("\n", 0, max(0, a - NEAR)) + 1
            q = text.find("\n", min(len(text), hi + NEAR))
            self._tokenize_lines(lo, len(text) if q < 0 else q)
        return [known[p] for p, _ in bounds]

    def _tokenize_lines(self, a: int, hi: int) -> None:
        """Tokenizes the lines not yet known from the one starting at ``a`` to the one ending at ``hi``."""
        known = self._lines
        missing = [(p, q) for p, q in _line_bounds(self.text, a, hi) if p not in known]
        if missing:
            run: list[tuple[int, int]] = []
            for line in missing:
                if run and line[0] != run[-1][1] + 1:
                    self._tokenize(run)
                    run = []
                run.append(line)
            self._tokenize(run)

    def _tokenize(self, run: list[tuple[int, int]]) -> None:
        """One counter call for consecutive lines; their starts are shared out line by line."""
        a, b = run[0][0], run[-1][1]
        self._done += b - a + 1
        starts = _bounded(self.text, [a + s for s in self.counter.token_starts(self.text[a:b])], b)
        for p, q in run:
            self._lines[p] = tuple(starts[bisect_left(starts, p):bisect_left(starts, q)])


def _line_bounds(text: str, a: int, hi: int) -> list[tuple[int, int]]:
    """``(start, end)`` of each line from the one starting at ``a`` to the one holding ``hi - 1``."""
    bounds: list[tuple[int, int]] = []
    p = a
    while True:
        q = text.find("\n", p)
        q = len(text) if q < 0 else q
        bounds.append((p, q))
        if q >= hi or q == len(text):
            return bounds
        p = q + 1


def _bounded(text: str, starts: list[int], end: int) -> list[int]:
    """``starts`` with one more start every :data:`MAX_TOKEN_CHARS` characters inside any token
    longer than that (a token ends at the next start, or at whitespace)."""
    if not starts:
        return starts
    nxt = starts[1:] + [end]
    if max(map(sub, nxt, starts)) <= MAX_TOKEN_CHARS:
        return starts  # the usual case: nothing to add
    out: list[int] = []
    for a, b in zip(starts, nxt):
        out.append(a)
        if b - a > MAX_TOKEN_CHARS:
            m = _SPACE.search(text, a, b)
            out.extend(range(a + MAX_TOKEN_CHARS, m.start() if m else b, MAX_TOKEN_CHARS))
    return out


#: Documents whose measures are kept (a measure holds one int per token).
_KEEP = 64
_cache: OrderedDict[tuple[str, str, int], SpanMeasure] = OrderedDict()
_lock = Lock()


def measure_of(tree: Tree, counter: TokenCounter | None = None) -> SpanMeasure:
    """The token measure of a tree's document (cached by counter and content hash)."""
    counter = counter or default_counter()
    doc = tree.document
    key = (counter.name, doc.content_hash, len(doc.text))
    with _lock:
        m = _cache.get(key)
        if m is not None:
            _cache.move_to_end(key)
            return m
    m = SpanMeasure(doc.text, counter)
    with _lock:
        _cache[key] = m
        while len(_cache) > _KEEP:
            _cache.popitem(last=False)
    return m


class SpanSizer:
    """``size(doc_id, start, end)`` in tokens, through the tree source's measure when it has one.

    One sizer serves one expansion or one assembly, during which the trees do not change: each
    document's measure is looked up once (assembly sizes hundreds of spans per query).
    """

    def __init__(self, trees: TreeSource, counter: TokenCounter | None = None):
        self.trees = trees
        self.counter = counter
        self._own = getattr(trees, "measure", None)
        self._measures: dict[str, SpanMeasure] = {}

    def measure(self, doc_id: str) -> SpanMeasure:
        m = self._measures.get(doc_id)
        if m is None:
            m = self._own(doc_id) if self._own is not None else measure_of(self.trees.tree(doc_id), self.counter)
            self._measures[doc_id] = m
        return m

    def size(self, doc_id: str, start: int, end: int) -> int:
        m = self._measures.get(doc_id)
        return (m if m is not None else self.measure(doc_id)).size(start, end)
