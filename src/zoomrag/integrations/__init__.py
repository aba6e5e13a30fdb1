"""Retrievers for RAG frameworks, each a thin layer over :meth:`zoomrag.Index.query`.

- :mod:`.langchain`: ``ZoomragRetriever``, a LangChain ``BaseRetriever`` (extra ``langchain``);
- :mod:`.llamaindex`: ``ZoomragRetriever``, a LlamaIndex ``BaseRetriever`` (extra ``llamaindex``);
- :mod:`.haystack`: ``ZoomragRetriever``, a Haystack ``@component`` (extra ``haystack``).

Each returns the contexts ``zoomrag query`` returns, with the exact span of each in its metadata
(:func:`span_metadata`). Import the submodule you need; this package imports no framework.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..index import Index
from ..model import Context
from ..serve.query import DEFAULT_EXPAND, DEFAULT_MODE, DEFAULT_TOP, QueryRequest, run_query

__all__ = ["Searcher", "span_metadata"]

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


class Searcher:
    """An index and the query options of one retriever.

    Frameworks call retrievers from worker threads (async entry points run the sync one in an
    executor), and an Index is one connection, so calls take turns on a lock.
    """

    def __init__(self, index: Index | str | Path, *, budget: int = DEFAULT_BUDGET, top: int | None = DEFAULT_TOP,
                 mode: str = DEFAULT_MODE, expand: str = DEFAULT_EXPAND, where: Mapping[str, Any] | None = None,
                 bm25_weight: float | None = None):
        self.owned = not isinstance(index, Index)
        self.index = index if isinstance(index, Index) else Index.open(index, create=False)
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

    def close(self) -> None:
        if self.owned:
            self.index.close()
