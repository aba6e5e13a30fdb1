"""Token sizes of spans for the budget-aware policies and assembly, counted once per document.

A policy that weighs a parent against the budget needs its size in the budget's unit. A
document's :class:`SpanMeasure` tokenizes only the lines that the spans asked about touch (a
query looks at a few paragraphs of each document it hits) and keeps their token starts in one
sorted array, so a size is two binary searches; once half of the document is tokenized it
tokenizes the rest in one call. A tree source may provide its own ``measure(doc_id)`` (an index
with a non-default counter); otherwise the default counter is used, which is also the index's
default.

For the budget no token covers more than :data:`MAX_TOKEN_CHARS` characters: WordPiece counts a
longer word as one ``[UNK]``, so a megabyte of letters would otherwise be one token, and a
context of "10 tokens" a megabyte long. Such a word counts one token per ``MAX_TOKEN_CHARS``.
"""

from __future__ import annotations

import re
from array import array
from bisect import bisect_left, bisect_right
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
#: Once this share of a document's characters is tokenized, the rest is too, in one counter call
#: (at most doubling the work): no more calls and no more gaps to look for.
WHOLE_SHARE = 0.5
#: Span sizes a measure remembers before it starts again.
MEMO_SPANS = 65_536
#: Characters on each side of a span whose lines are tokenized with it.
NEAR = 512
_SPACE = re.compile(r"\s")


class SpanMeasure:
    """``size(start, end)`` of one text as a :class:`Measure` of it would answer, lazily.

    The lines a span touches are tokenized (each line once, neighbouring new lines in one call)
    and their token starts kept in one sorted array beside the stretches of text they cover, so
    no character is tokenized twice, the lines no span touches never are, and a size is two
    binary searches. A counter not known to be line-local measures the whole text at once.
    """

    __slots__ = ("_covered", "_done", "_full", "_sizes", "_starts", "counter", "text")

    def __init__(self, text: str, counter: TokenCounter):
        self.text = text
        self.counter = counter
        self._full: Measure | None = None if type(counter) in LINE_LOCAL else Measure(text, counter)
        #: Every token start found so far, ascending. (An array: the garbage collector does not
        #: track it, and a server keeps thousands.)
        self._starts = array("q")
        #: The tokenized stretches, ``[first line's start, last line's end)``, ascending and apart.
        self._covered: list[tuple[int, int]] = []
        #: Characters tokenized so far.
        self._done = 0
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
        if not self._holds(lo, hi):
            if self._done >= WHOLE_SHARE * len(text):
                self._tokenize_gaps(0, len(text))
            else:
                # the lines around too (up to NEAR characters each side, whole lines): a policy
                # sizes a hit's neighbours next, and one counter call costs about as much as a few lines
                a = text.rfind("\n", 0, max(0, lo - NEAR)) + 1
                q = text.find("\n", min(len(text), hi + NEAR))
                self._tokenize_gaps(a, len(text) if q < 0 else q)
        starts = self._starts
        n = bisect_left(starts, hi) - bisect_left(starts, lo)
        return n if start <= end else -n

    def _holds(self, lo: int, hi: int) -> bool:
        """True when one tokenized stretch holds ``[lo, hi)``."""
        covered = self._covered
        i = bisect_right(covered, (lo, len(self.text) + 1)) - 1
        return i >= 0 and hi <= covered[i][1] + 1  # + 1: a stretch's last line break holds no token

    def _tokenize_gaps(self, a: int, b: int) -> None:
        """Tokenizes the lines between ``a`` (a line start) and ``b`` (a line end) not yet
        tokenized, one counter call for each run of consecutive ones."""
        gaps, pos = [], a
        for s, e in self._covered:
            if e + 1 <= pos or s > b:
                continue
            if s > pos:
                gaps.append((pos, s - 1))
            pos = max(pos, e + 1)
        if pos <= b:
            gaps.append((pos, b))
        for g in gaps:
            self._tokenize(*g)

    def _tokenize(self, a: int, b: int) -> None:
        """Token starts of ``text[a:b]`` (whole lines) into the kept ones, and the stretch covered."""
        text = self.text
        self._done += b - a + 1
        found = _bounded(text, [a + s for s in self.counter.token_starts(text[a:b])], b)
        i = bisect_left(self._starts, a)
        self._starts[i:i] = array("q", found)
        covered = self._covered
        j = bisect_left(covered, (a, b))
        covered.insert(j, (a, b))
        # join the stretches that touch it (one line break apart)
        if j + 1 < len(covered) and covered[j + 1][0] <= b + 1:
            covered[j:j + 2] = [(a, covered[j + 1][1])]
        if j > 0 and covered[j - 1][1] + 1 >= a:
            covered[j - 1:j + 1] = [(covered[j - 1][0], covered[j][1])]


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
