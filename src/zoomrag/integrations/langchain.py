"""A LangChain retriever over a zoomrag index (``pip install 'zoomrag[langchain]'``).

    retriever = ZoomragRetriever.from_index(".zoomrag/index.db", budget=1024)
    docs = retriever.invoke("how do I rebuild the index?")
    docs[0].metadata["source"], docs[0].metadata["start"], docs[0].metadata["end"]
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from ..index import Index
from . import Searcher, span_metadata


class ZoomragRetriever(BaseRetriever):
    """Contexts within a token budget as LangChain Documents.

    ``page_content`` is the context's text; ``metadata`` has ``source``, ``doc_id``, ``start`` and
    ``end`` (its exact span in the source), ``section_path``, ``score``, ``hits``, ``level``, ``kind``
    and ``rule``.
    """

    model_config = ConfigDict(arbitrary_types_allowed=True)

    searcher: Searcher

    @classmethod
    def from_index(cls, index: Index | str | Path, *, budget: int = 1024, top: int | None = 10,
                   mode: str = "hybrid", expand: str = "auto", where: Mapping[str, Any] | None = None,
                   bm25_weight: float | None = None, **kwargs: Any) -> ZoomragRetriever:
        """``index`` is an open :class:`~zoomrag.Index` or the path of an index file;
        ``bm25_weight``: BM25's share of a hybrid score, 0 to 1 (default 0.3)."""
        return cls(searcher=Searcher(index, budget=budget, top=top, mode=mode, expand=expand, where=where,
                                     bm25_weight=bm25_weight), **kwargs)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return [Document(page_content=c.text, metadata=span_metadata(c), id=f"{c.doc_id}:{c.start}-{c.end}")
                for c in self.searcher.search(query)]
