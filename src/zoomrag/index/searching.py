"""Reading an index: rank units (dense, BM25, fused), then grow the hits into contexts.

Search results, trees and text of one query come from one committed version (one read
transaction): a writer replacing documents meanwhile is seen either before or after, never half.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from functools import cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import numpy as np

from ..defaults import MODES
from ..embed.base import embed_queries
from ..errors import ConfigError, IndexMismatchError
from ..expand import Expander, get_expander
from ..expand.auto import AutoChoice, AutoExpansion
from ..expand.base import reads_ancestors_only
from ..expand.pipeline import expand_hits
from ..model import Context, Hit, Tree, best_anchor, shown_metadata
from ..parse.changelog import CHANGELOG_KEY
from ..parse.testfiles import TEST_KEY
from ..search import scope
from ..search.bm25 import bm25_search
from ..search.dedupe import first_of_each_text
from ..search.filters import Filter
from ..search.fusion import check_fusion, fuse, single_ranking
from ..search.names import asked_name, asked_unqualified, definitions, definitions_first
from ..search.scope import Scopes
from ..search.secondary import asks_about_change, asks_about_tests, secondary_after
from ..search.verbatim import holding, quoted
from ..store import Store, UnitRow
from ..store.meta import Pins
from .dense import DenseSearch
from .server_dense import ServerDense
from .settings import Settings
from .treecache import AncestorTrees, TreeCache

if TYPE_CHECKING:
    from ..rerank import Reranker

#: The documents marked as changelogs when indexed (parse/changelog.py).
CHANGELOGS = scope.parse({CHANGELOG_KEY: True}, None)
#: The source files marked as tests when indexed (parse/testfiles.py).
TESTS = scope.parse({TEST_KEY: True}, None)


@contextmanager
def collector_paused() -> Iterator[None]:
    """Python's cyclic garbage collector paused for one query, when it was on (an application
    that turned it off keeps it off; with queries in several threads, the first to pause it turns
    it back on when it ends). Everything a query makes is freed by reference counting when it ends; with the
    collector on, the trees it loads (thousands of nodes) outlive collections during the query,
    are promoted to the oldest generation, and bring full collections over the whole process
    every few queries: at 1M units, 13 passes of 130-240 ms in 400 hybrid ``auto`` queries,
    2 with the collector paused."""
    if not gc.isenabled():
        yield
        return
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


class Searcher:
    def __init__(self, store: Store, settings: Settings, dense: DenseSearch | ServerDense):
        self.store = store
        self.settings = settings
        self.dense = dense
        self.trees = TreeCache(store, lambda: settings.counter)
        self.scopes = Scopes(store)
        self._embedder_checked = -1  # the generation at which the stored embedder was last read

    def auto_choice(self) -> AutoChoice:
        """What ``auto`` uses on this index: the pin and the probe's choices in ``index_meta``."""
        return AutoChoice.from_meta(self.store.meta())

    def search(self, text: str, *, mode: str, k: int, rrf_k: float, weights: Mapping[str, float] | None,
               fusion: str = "convex",
               where: Filter | None = None, vector: np.ndarray | None = None,
               partial: dict[str, Tree] | None = None) -> list[Hit]:
        """The ``k`` best units. ``partial``: also load the hits' partial trees into it
        (:meth:`Store.ancestor_trees`), which locate the hits in the same reads."""
        if mode not in MODES:
            raise ConfigError(f"unknown mode {mode!r}; choose one of: {', '.join(MODES)}")
        if k < 1:
            raise ConfigError(f"k={k} must be at least 1")
        check_fusion(fusion)
        if not text.strip():
            raise ConfigError("the query text is empty; give a question or some words to search for")
        if self.settings.pins is None:
            return []
        with self.store.snapshot():
            return self._ranked(text, mode, k, fusion, rrf_k, weights, where, vector, partial)

    def _ranked(self, text: str, mode: str, k: int, fusion: str, rrf_k: float, weights: Mapping[str, float] | None,
                where: Filter | None, vector: np.ndarray | None, partial: dict[str, Tree] | None) -> list[Hit]:
        generation = self.store.generation()
        if mode != "bm25" and generation != self._embedder_checked:
            self._check_embedder()
            self._embedder_checked = generation
        selection = self.scopes.select(where, generation)
        if selection is not None and len(selection) == 0:
            return []
        # each ranker returns 2k so that k remain after copies of one text are dropped (dedupe.py)
        rankings: dict[str, list[tuple[int, float]]] = {}
        copies: dict[int, list[int]] = {}
        floors: dict[str, float] | None = None
        if mode in ("dense", "hybrid"):
            q = vector if vector is not None else self.settings.embedder.embed_query(text)
        if mode == "dense":
            rankings["dense"] = self._one_per_text(self.dense.search(q, 2 * k, generation, selection), k, copies)
        else:
            within = None
            if mode == "hybrid":
                # BM25's look-ups go on while dense search runs (beside them, on a server store);
                # a question of common terms only re-scores dense search's candidates (bm25.py, rule 3)
                started = self.dense.search_started(q, 2 * k, generation, selection)
                dense = cache(lambda: self._one_per_text(started(), k, copies))
                within = lambda: [row for row, _ in dense()]  # noqa: E731
            found = bm25_search(self.store, text, 2 * k, self.dense.units(generation), within=within,
                                selection=selection)
            if mode == "hybrid":
                rankings["dense"] = dense()
            rankings["bm25"] = self._one_per_text(found, k, copies)
            # fewer found than asked for: every unit holding a term of the question is here, and
            # any other scores 0 (fusion.py's floors)
            floors = {"bm25": 0.0} if len(found) < 2 * k else None
        if mode == "hybrid":
            fused = fuse(rankings, fusion, weights, rrf_k, floors)
        else:
            fused = single_ranking(mode, rankings[mode])
        # a changelog's lines answer what changed, a test's how it is tested (secondary.py)
        if not asks_about_change(text):
            fused = secondary_after(fused, self.scopes.select(CHANGELOGS, generation))  # type: ignore[arg-type]
        if not asks_about_tests(text):
            fused = secondary_after(fused, self.scopes.select(TESTS, generation))  # type: ignore[arg-type]
        name = asked_name(text)
        said = quoted(text) if name is None else None
        if name is not None:  # a name asked alone: where it is defined comes first (names.py)
            texts = self.store.unit_texts(f.key for f in fused)  # type: ignore[misc]
            fused = definitions_first(fused, definitions(texts, name))  # type: ignore[arg-type]
        elif said is not None:  # pasted text: where it is written word for word (verbatim.py)
            texts = self.store.unit_texts(f.key for f in fused)  # type: ignore[misc]
            fused = definitions_first(fused, holding(texts, said), "verbatim")  # type: ignore[arg-type]
        fused = fused[:k]
        rows: list[int] = [f.key for f in fused]  # type: ignore[misc]
        if partial is None:
            units = self.store.units(rows)
        else:
            trees, nodes = self.store.ancestor_trees(rows)
            partial.update(trees)
            units = {r: UnitRow(n.id, n.doc_id, n.start, n.end) for r, n in nodes.items()}
        copied = self._copied(copies, units)
        return [Hit(node_id=u.node_id, doc_id=u.doc_id, start=u.start, end=u.end, score=f.score,
                    ranks=MappingProxyType(dict(f.ranks)), copies=copied.get(f.key, ()))  # type: ignore[call-overload]
                for f in fused if (u := units.get(f.key)) is not None]  # type: ignore[call-overload]

    def _copied(self, copies: dict[int, list[int]], units: Mapping[int, UnitRow]) -> dict[int, tuple[str, ...]]:
        """Per kept unit, the other documents whose unit of the same text a ranking left out."""
        wanted = {r: rows for r, rows in copies.items() if r in units}
        if not wanted:
            return {}
        found = self.store.units(sorted({r for rows in wanted.values() for r in rows}))
        out = {}
        for r, rows in wanted.items():
            own = units[r].doc_id
            docs = dict.fromkeys(u.doc_id for row in rows if (u := found.get(row)) is not None and u.doc_id != own)
            if docs:
                out[r] = tuple(docs)
        return out

    def _check_embedder(self) -> None:
        """Refuse a dense search when another process rebuilt the index with another embedder
        since this one opened it: its query vectors would not compare with the stored ones."""
        mine, now = self.settings.pins, Pins.from_meta(self.store.meta())
        if mine is None or now is None:
            return
        if (now.embedder, now.embedder_version, now.dimension) != (mine.embedder, mine.embedder_version,
                                                                   mine.dimension):
            raise IndexMismatchError(
                f"{self.store.path} was rebuilt with the embedder {now.embedder} ({now.dimension} dimensions) "
                f"after this process opened it with {mine.embedder} ({mine.dimension}); open it again "
                "(restart zoomrag serve), or search it with --mode bm25 meanwhile")

    def _one_per_text(self, ranking: list[tuple[int, float]], k: int,
                      copies: dict[int, list[int]]) -> list[tuple[int, float]]:
        return first_of_each_text(ranking, self.store.text_keys(row for row, _ in ranking), copies)[:k]

    def query_many(self, texts: Sequence[str], where: Filter | None, options: dict[str, Any]) -> list[list[Context]]:
        mode = options.get("mode", "hybrid")
        vectors: Sequence[np.ndarray | None] = [None] * len(texts)
        if texts and mode in ("dense", "hybrid") and self.settings.pins is not None:
            vectors = list(embed_queries(self.settings.embedder, texts))
        return [self.query(t, v, where=where, **options) for t, v in zip(texts, vectors)]

    def query(self, text: str, vector: np.ndarray | None, *, budget: int = 2048, top: int | None = 10,
              mode: str = "hybrid", expand: str | Expander = "auto", k: int | None = None, fusion: str = "convex",
              rrf_k: float = 60.0, weights: Mapping[str, float] | None = None, params: Mapping[str, Any] | None = None,
              rerank: Reranker | None = None, rerank_depth: int | None = None, fill: bool = True,
              order: str = "score", explain: bool = False, where: Filter | None = None) -> list[Context]:
        if budget < 1:
            raise ConfigError(f"budget={budget} must be at least 1 token")
        if top is not None and top < 1:
            raise ConfigError(f"top={top} must be at least 1")
        expander = get_expander(expand, params)
        if isinstance(expander, AutoExpansion):
            expander = expander.with_choice(self.auto_choice())
        k = k or max(50, 5 * (top or 10))
        # A policy that reads only the hits' nodes and their ancestors gets just those, loaded
        # with the hits themselves.
        partial: dict[str, Tree] | None = {} if reads_ancestors_only(expander) else None
        with collector_paused(), self.store.snapshot():
            hits = self.search(text, mode=mode, k=k, fusion=fusion, rrf_k=rrf_k, weights=weights, where=where,
                               vector=vector, partial=partial)
            if not hits:
                return []
            return self._grown(text, hits, partial, budget=budget, top=top, expander=expander, rerank=rerank,
                               rerank_depth=rerank_depth, fill=fill, order=order, explain=explain)

    def grow(self, text: str, hits: Sequence[Hit], *, budget: int, top: int | None, expand: str | Expander,
             params: Mapping[str, Any] | None, fill: bool = True, order: str = "score",
             explain: bool = False) -> list[Context]:
        """Contexts from hits found earlier by :meth:`search` (one search, several policies)."""
        if budget < 1:
            raise ConfigError(f"budget={budget} must be at least 1 token")
        expander = get_expander(expand, params)
        if isinstance(expander, AutoExpansion):
            expander = expander.with_choice(self.auto_choice())
        if not hits:
            return []
        with collector_paused(), self.store.snapshot():
            return self._grown(text, hits, None, budget=budget, top=top, expander=expander, rerank=None,
                               rerank_depth=None, fill=fill, order=order, explain=explain)

    def _grown(self, text: str, hits: Sequence[Hit], partial: dict[str, Tree] | None, *, budget: int,
               top: int | None, expander: Expander, rerank: Reranker | None, rerank_depth: int | None,
               fill: bool, order: str, explain: bool) -> list[Context]:
        trees: TreeCache | AncestorTrees
        if partial is not None:
            trees = AncestorTrees(partial, self.trees)
        else:
            self.trees.sync(self.store.generation())
            self.trees.prefetch(h.doc_id for h in hits)
            trees = self.trees
        out = expand_hits(list(hits), trees, budget, self.settings.count, expand=expander, top=top, query=text,
                          reranker=rerank, rerank_depth=rerank_depth, fill=fill, order=order,
                          explain=explain, counter=self.settings.counter, name=asked_unqualified(text))
        # Metadata as stored now: cached trees are kept while their text is unchanged, and
        # update_metadata changes no text.
        stored = self.store.metadata_by_id({c.doc_id for c in out})
        return [_as_stored(c, stored[c.doc_id]) if c.doc_id in stored else c for c in out]


def _as_stored(ctx: Context, metadata: Mapping[str, Any]) -> Context:
    """``ctx`` with its document's metadata as stored now, and the anchor that metadata gives."""
    shown = shown_metadata(metadata)
    anchor = best_anchor(metadata, ctx.hits, ctx.start)
    return ctx if ctx.metadata == shown and ctx.anchor == anchor else replace(ctx, metadata=shown, anchor=anchor)
