"""A Haystack 2 retriever component over a zoomrag index (``pip install 'zoomrag[haystack]'``).

    pipe = Pipeline()
    pipe.add_component("retriever", ZoomragRetriever(".zoomrag/index.db", budget=1024))
    pipe.run({"retriever": {"query": "how do I rebuild the index?"}})["retriever"]["documents"]
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict

from . import Searcher, span_metadata


@component
class ZoomragRetriever:
    """Contexts within a token budget as Haystack Documents, best first.

    ``content`` is the context's text, ``score`` its score, ``meta`` its exact span and the rest
    (source, doc_id, start, end, section_path, hits, level, kind, rule). ``where`` is a zoomrag
    metadata filter (chromadb style, e.g. ``{"year": {"$gte": 2020}}``).
    """

    def __init__(self, index: str, budget: int = 1024, top: int = 10, mode: str = "hybrid",
                 expand: str = "auto", bm25_weight: float | None = None):
        self.index, self.budget, self.top, self.mode, self.expand = str(index), budget, top, mode, expand
        self.bm25_weight = bm25_weight
        self._searcher: Searcher | None = None

    def warm_up(self) -> None:
        """Open the index (a Pipeline calls this before the first run)."""
        if self._searcher is None:
            self._searcher = Searcher(Path(self.index), budget=self.budget, top=self.top, mode=self.mode,
                                      expand=self.expand, bm25_weight=self.bm25_weight)

    @component.output_types(documents=list[Document])
    def run(self, query: str, top_k: int | None = None, budget: int | None = None,
            where: dict[str, Any] | None = None) -> dict[str, list[Document]]:
        self.warm_up()
        assert self._searcher is not None
        contexts = self._searcher.search(query, budget=budget, top=top_k, where=where)
        return {"documents": [Document(id=f"{c.doc_id}:{c.start}-{c.end}", content=c.text, score=c.score,
                                       meta=span_metadata(c)) for c in contexts]}

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(self, index=self.index, budget=self.budget, top=self.top, mode=self.mode,
                               expand=self.expand, bm25_weight=self.bm25_weight)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ZoomragRetriever:
        return default_from_dict(cls, data)
