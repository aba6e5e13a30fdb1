"""Retrievers for RAG frameworks, each a thin layer over :meth:`zoomrag.Index.query`, and the
way in for their documents (:meth:`zoomrag.Index.add`).

- :mod:`.langchain`: ``ZoomragRetriever``, a LangChain ``BaseRetriever`` (extra ``langchain``);
- :mod:`.llamaindex`: ``ZoomragRetriever``, a LlamaIndex ``BaseRetriever`` (extra ``llamaindex``);
- :mod:`.haystack`: ``ZoomragRetriever`` and ``ZoomragDocumentWriter``, Haystack components
  (extra ``haystack``).

Each returns the contexts ``zoomrag query`` returns, with their document's metadata and the
exact span of each (:func:`result_metadata`), and takes the documents its framework's loaders
give, put back into whole files (:mod:`zoomrag.load.pieces`). Import the submodule you need;
this package imports no framework.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from ..errors import StoreError
from ..index import AddReport, Index
from ..load.pieces import Piece, documents
from ..model import Context
from ..serve.query import DEFAULT_EXPAND, DEFAULT_MODE, DEFAULT_TOP, QueryRequest, run_query

__all__ = ["Piece", "Searcher", "result_metadata", "span_metadata"]

#: A retriever's default budget: a few passages for a prompt, smaller than the CLI's 2048.
DEFAULT_BUDGET = 1024


def span_metadata(ctx: Context) -> dict[str, Any]:
    """Where a context comes from, exactly: source, span (and every exact span, when it is made
    of several: a table's header row and rows, a signature and code from inside its definition, a
    footnote and the sentence citing it), section
    path, score, hits, rule, the other files whose copy of its text was left out, and its first
    and last page in a PDF."""
    return {
        "source": ctx.source,
        "link": ctx.link,
        "doc_id": ctx.doc_id,
        "start": ctx.start,
        "end": ctx.end,
        "spans": [{"start": s, "end": e} for s, e in ctx.parts()],
        "section_path": list(ctx.section_path),
        "score": ctx.score,
        "hits": [{"start": s, "end": e, "score": sc} for s, e, sc in ctx.hits],
        "level": ctx.level,
        "kind": ctx.kind,
        "rule": ctx.rule,
        "copies": list(ctx.copies),
        "pages": list(ctx.pages),
    }


def result_metadata(ctx: Context) -> dict[str, Any]:
    """A context's document's metadata (as it was added: a loader's ``author``, ``year``) with
    its span (:func:`span_metadata`, which wins on a key both hold)."""
    return {**ctx.metadata, **span_metadata(ctx)}


class Searcher:
    """An index and the query options of one retriever.

    Frameworks call retrievers from worker threads (async entry points run the sync one in an
    executor), and an Index is one connection, so calls take turns on a lock.
    ``create``: the index file is made if there is none (an adapter given documents to add);
    ``embedder`` names the model of a new index (default: chosen from its first documents).
    """

    def __init__(self, index: Index | str | Path, *, budget: int = DEFAULT_BUDGET, top: int | None = DEFAULT_TOP,
                 mode: str = DEFAULT_MODE, expand: str = DEFAULT_EXPAND, where: Mapping[str, Any] | None = None,
                 bm25_weight: float | None = None, create: bool = False, embedder: str | None = None):
        self.owned = not isinstance(index, Index)
        if not isinstance(index, Index) and not create and "://" not in str(index) and not Path(index).exists():
            raise StoreError(f"{index}: no index here; make one from your documents with the retriever's "
                             f"from_documents(documents, {str(index)!r}), or with zoomrag index PATH... --index {index}")
        self.index = index if isinstance(index, Index) else Index.open(index, create=create, embedder=embedder)
        self.budget, self.top, self.mode, self.expand, self.where = budget, top, mode, expand, where
        self.bm25_weight = bm25_weight
        self._lock = threading.Lock()

    @property
    def path(self) -> Path:
        return Path(self.index.path)

    def search(self, text: str, *, budget: int | None = None, top: int | None = None,
               where: Mapping[str, Any] | None = None) -> list[Context]:
        req = QueryRequest(text=text, budget=budget or self.budget, top=top or self.top, mode=self.mode,
                           expand=self.expand, where=where if where is not None else self.where,
                           bm25_weight=self.bm25_weight)
        with self._lock:
            return run_query(self.index, req)

    def add(self, pieces: Iterable[Piece], *, probe: bool = True) -> AddReport:
        """Add a framework's documents (whole files put back from their pieces,
        :mod:`zoomrag.load.pieces`); unchanged ones are skipped, changed ones replaced.
        ``probe``: then choose ``auto``'s policy for the documents, as ``zoomrag index`` does
        when enough of them are new."""
        docs = documents(pieces)
        with self._lock:
            report = self.index.add(docs)
            if probe:
                from ..evaluate.probe import probe_after_write  # evaluation loads only when it runs

                probe_after_write(self.index, report)
        return report

    def delete(self, refs: Iterable[str]) -> int:
        """Remove documents by id or source (a loader's ``source``); how many there were."""
        with self._lock:
            return sum(self.index.delete(ref) for ref in refs)

    def close(self) -> None:
        if self.owned:
            self.index.close()
