"""The query side's view of stored documents: their trees and token measures, cached.

:class:`TreeCache` keeps whole trees of recently hit documents (and their measures) across
queries, checked against the index's generation; :class:`AncestorTrees` serves one query's
partial trees (hit nodes and their ancestors) to the policies that read nothing else.
Both are the expanders' ``TreeSource``.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Iterable, Mapping

from ..expand.measure import SpanMeasure
from ..model import Document, Tree
from ..store import Reading, Store
from ..store.meta import ROUTES_KEY
from ..text.tokens import TokenCounter

#: The ``index_meta`` entries that say how documents are chunked.
_CHUNKING_KEYS = ("chunking", "chunking_name", "chunking_params", ROUTES_KEY)


class TreeCache:
    """Stored trees of recently hit documents (the expanders' TreeSource).

    Trees are kept across writes: after the store's generation changes, each cached tree is
    checked once against its document's current content hash, format and parser version before
    it is used again, so an indexing run elsewhere only evicts the documents it changed. Bounded
    by total nodes.

    A document's tree is kept from its second query on; the first time, it serves that query
    only (:meth:`sync` starts the next). Once the cache is full, a tree comes in only if its
    document was asked for more often than each tree it would push out (asks are halved every
    ``halve_after`` asks, so old popularity fades). Queries over many documents asked for once or
    twice would otherwise turn the whole cache over, and every tree of it is thousands of
    objects that Python's garbage collector walks while they are young: at 1M units, a cache
    turning over made passes of 10-20 ms every few queries and of ~70 ms over the whole cache,
    which set the p95 of ``auto`` queries.
    """

    def __init__(self, store: Store, counter: Callable[[], TokenCounter], max_nodes: int = 200_000):
        self.store = store
        self.counter = counter
        self.max_nodes = max_nodes
        self.generation: int | None = None
        #: The pinned chunking the cached trees were built with (a rebuild may change it).
        self._chunking: tuple[str | None, ...] | None = None
        self._trees: OrderedDict[str, Tree] = OrderedDict()
        #: How each cached tree's document was read (None: no longer stored when looked up).
        self._readings: dict[str, Reading | None] = {}
        self._measures: dict[str, SpanMeasure] = {}
        self._verified: set[str] = set()
        self._nodes = 0
        #: Measures of documents read through partial trees, by id and content hash.
        self._recent: OrderedDict[tuple[str, str], SpanMeasure] = OrderedDict()
        self._recent_chars = 0
        self.max_recent_chars = 20_000_000
        #: How often each document was asked for lately (halved every ``halve_after`` asks).
        self._asks: dict[str, int] = {}
        self._asks_since = 0
        self.halve_after = 100_000
        #: Trees of documents seen for the first time, for the current query only.
        self._passing: dict[str, Tree] = {}
        self._passing_nodes = 0

    def sync(self, generation: int) -> None:
        """Start a query at ``generation`` (the trees of the last query's new documents go)."""
        self._passing.clear()
        self._passing_nodes = 0
        if generation != self.generation:
            self._verified.clear()
            self.generation = generation
            # a text's tree is the same after any rewrite but one with another chunking
            meta = self.store.meta()
            chunking = tuple(meta.get(k) for k in _CHUNKING_KEYS)
            if chunking != self._chunking:
                for doc_id in list(self._trees):
                    self._drop(doc_id)
                self._chunking = chunking

    def prefetch(self, doc_ids: Iterable[str]) -> None:
        """Check and load the trees of these documents with a few queries instead of one each."""
        wanted = list(dict.fromkeys(doc_ids))
        self._count_asks(wanted)
        unverified = [d for d in wanted if d in self._trees and d not in self._verified]
        if unverified:
            current = self.store.content_hashes(unverified)
            # the same text read again as another format, or by another parser, has another tree
            readings = self.store.document_readings(unverified)
            for d in unverified:
                if current.get(d) == self._trees[d].document.content_hash and readings.get(d) == self._readings[d]:
                    self._verified.add(d)
                else:
                    self._drop(d)
        missing = [d for d in wanted if d not in self._trees and d not in self._passing]
        # Looked up before the trees, and only for those that may be kept (asked for before): a
        # tree rewritten in between is then checked again and dropped, never kept as current.
        readings = self.store.document_readings([d for d in missing if self._asked_before(d)])
        for doc_id, tree in self.store.load_trees(missing).items():
            if self._admits(doc_id, tree):
                self._put(doc_id, tree, readings.get(doc_id))
            else:
                self._pass(doc_id, tree)

    def tree(self, doc_id: str) -> Tree:
        passing = self._passing.get(doc_id)
        if passing is not None:
            return passing
        if doc_id not in self._trees or doc_id not in self._verified:
            self.prefetch([doc_id])
        t = self._trees.get(doc_id)
        if t is None:
            t = self._passing.get(doc_id)
            return t if t is not None else self.store.load_tree(doc_id)  # raises StoreError naming it
        self._trees.move_to_end(doc_id)
        return t

    def measure(self, doc_id: str) -> SpanMeasure:
        """Token sizes of a document's spans in the index's counter, kept as long as its tree.

        Budget-aware policies and assembly size spans with it (:mod:`zoomrag.expand.measure`);
        it tokenizes only the lines of the spans asked about, since tokenizing every hit
        document whole dominated the time of a query that hits documents not seen before.
        """
        tree = self.tree(doc_id)  # checks that the cached tree, and so its measure, is current
        if doc_id in self._passing:
            return self.text_measure(tree.document)
        m = self._measures.get(doc_id)
        if m is None:
            m = SpanMeasure(tree.document.text, self.counter())
            if doc_id in self._trees:
                self._measures[doc_id] = m
        return m

    def text_measure(self, document: Document) -> SpanMeasure:
        """A measure of this document's text, kept for the most recent documents asked about."""
        key = (document.id, document.content_hash)
        m = self._recent.get(key)
        if m is None:
            m = SpanMeasure(document.text, self.counter())
            self._recent[key] = m
            self._recent_chars += len(document.text)
            while self._recent_chars > self.max_recent_chars and len(self._recent) > 1:
                _, old = self._recent.popitem(last=False)
                self._recent_chars -= len(old.text)
        else:
            self._recent.move_to_end(key)
        return m

    def _count_asks(self, doc_ids: list[str]) -> None:
        asks = self._asks
        for d in doc_ids:
            asks[d] = asks.get(d, 0) + 1
        self._asks_since += len(doc_ids)
        if self._asks_since > self.halve_after:
            self._asks = {d: n // 2 for d, n in asks.items() if n > 1}
            self._asks_since = 0

    def _asked_before(self, doc_id: str) -> bool:
        """Asked for in an earlier query too: its tree may be kept."""
        return self._asks.get(doc_id, 0) >= 2

    def _admits(self, doc_id: str, tree: Tree) -> bool:
        """True when ``tree`` is worth keeping: asked for before, and either there is room or its
        document was asked for more often than each least recently used tree it would push out."""
        if not self._asked_before(doc_id):
            return False
        asks = self._asks[doc_id]
        room = self.max_nodes - self._nodes
        for old, t in self._trees.items():  # least recently used first
            if room >= len(tree):
                break
            if self._asks.get(old, 0) >= asks:
                return False
            room += len(t)
        return True

    def _pass(self, doc_id: str, tree: Tree) -> None:
        """Serve ``tree`` to this query only."""
        if self._passing_nodes > self.max_nodes:  # a caller that never syncs: stay bounded
            self._passing.clear()
            self._passing_nodes = 0
        self._passing[doc_id] = tree
        self._passing_nodes += len(tree)

    def _put(self, doc_id: str, tree: Tree, reading: Reading | None) -> None:
        self._trees[doc_id] = tree
        self._readings[doc_id] = reading
        self._verified.add(doc_id)
        self._nodes += len(tree)
        while self._nodes > self.max_nodes and len(self._trees) > 1:
            old, _ = next(iter(self._trees.items()))
            self._drop(old)

    def _drop(self, doc_id: str) -> None:
        t = self._trees.pop(doc_id)
        self._readings.pop(doc_id, None)
        self._nodes -= len(t)
        self._verified.discard(doc_id)
        self._measures.pop(doc_id, None)


class AncestorTrees:
    """One query's partial trees (hit nodes and their ancestors): the TreeSource of policies
    that read nothing else (:func:`zoomrag.expand.base.reads_ancestors_only`).

    Token measures are shared with the whole-tree cache's store of recent measures, checked
    against the document's content hash, so a document's lines are tokenized once across queries.
    """

    def __init__(self, trees: Mapping[str, Tree], cache: TreeCache):
        self._trees = trees
        self._cache = cache

    def tree(self, doc_id: str) -> Tree:
        t = self._trees.get(doc_id)
        return t if t is not None else self._cache.tree(doc_id)

    def measure(self, doc_id: str) -> SpanMeasure:
        t = self._trees.get(doc_id)
        if t is None:
            return self._cache.measure(doc_id)
        return self._cache.text_measure(t.document)
