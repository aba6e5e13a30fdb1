"""Token sizes of spans for the budget-aware policies, counted once per document.

A policy that weighs a parent against the budget needs its size in the budget's unit. The
document is tokenized once into a :class:`~zoomrag.text.tokens.Measure` and every span is then
sized by binary search, so a policy never re-tokenizes pieces. A tree source may provide its own
``measure(doc_id)`` (an index with a non-default counter); otherwise the default counter is used,
which is also the index's default.
"""

from __future__ import annotations

from collections import OrderedDict
from threading import Lock

from ..model import Tree
from ..text.tokens import Measure, TokenCounter, default_counter
from .base import TreeSource

#: Documents whose measures are kept (a measure holds one int per token).
_KEEP = 64
_cache: OrderedDict[tuple[str, str, int], Measure] = OrderedDict()
_lock = Lock()


def measure_of(tree: Tree, counter: TokenCounter | None = None) -> Measure:
    """The token measure of a tree's document (cached by counter and content hash)."""
    counter = counter or default_counter()
    doc = tree.document
    key = (counter.name, doc.content_hash, len(doc.text))
    with _lock:
        m = _cache.get(key)
        if m is not None:
            _cache.move_to_end(key)
            return m
    m = Measure(doc.text, counter)
    with _lock:
        _cache[key] = m
        while len(_cache) > _KEEP:
            _cache.popitem(last=False)
    return m


class SpanSizer:
    """``size(doc_id, start, end)`` in tokens, through the tree source's measure when it has one."""

    def __init__(self, trees: TreeSource, counter: TokenCounter | None = None):
        self.trees = trees
        self.counter = counter
        self._own = getattr(trees, "measure", None)

    def measure(self, doc_id: str) -> Measure:
        if self._own is not None:
            return self._own(doc_id)
        return measure_of(self.trees.tree(doc_id), self.counter)

    def size(self, doc_id: str, start: int, end: int) -> int:
        return self.measure(doc_id).size(start, end)
