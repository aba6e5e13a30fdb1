"""A LangChain retriever over a zoomrag index (``pip install 'zoomrag[langchain]'``).

    retriever = ZoomragRetriever.from_documents(PyPDFLoader("manual.pdf").load(), "index.db")
    docs = retriever.invoke("how do I rebuild the index?")
    docs[0].metadata["source"], docs[0].metadata["start"], docs[0].metadata["end"], docs[0].metadata["pages"]

As ``ParentDocumentRetriever`` is used, with no splitter nor store to choose: ``add_documents``
takes what LangChain's loaders give (a PDF a page each, put back into one document) and
replaces what it added before from the same source.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from langchain_core.callbacks import CallbackManagerForRetrieverRun
from langchain_core.documents import Document
from langchain_core.retrievers import BaseRetriever
from pydantic import ConfigDict

from ..errors import ConfigError
from ..index import AddReport, Index
from . import Piece, Searcher, result_metadata


def piece(doc: Document) -> Piece:
    """A LangChain Document as a piece of its source (``metadata["source"]``, a loader's)."""
    return Piece(text=doc.page_content, metadata=dict(doc.metadata or {}), id=doc.id or "")


class ZoomragRetriever(BaseRetriever):
    """Contexts within a token budget as LangChain Documents.

    ``page_content`` is the context's text; ``metadata`` is its document's (as added) with
    ``source``, ``doc_id``, ``start`` and ``end`` (its exact span in the source), ``spans``,
    ``section_path``, ``score``, ``hits``, ``level``, ``kind``, ``rule``, ``copies`` and ``pages``.
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

    @classmethod
    def from_documents(cls, documents: Iterable[Document], index: Index | str | Path, *,
                       embedder: str | None = None, budget: int = 1024, top: int | None = 10, mode: str = "hybrid",
                       expand: str = "auto", where: Mapping[str, Any] | None = None,
                       bm25_weight: float | None = None, **kwargs: Any) -> ZoomragRetriever:
        """A retriever over ``index`` (a path: made if missing) after adding ``documents`` to it
        (:meth:`add_documents`); ``embedder`` names the model of a new index."""
        retriever = cls(searcher=Searcher(index, budget=budget, top=top, mode=mode, expand=expand, where=where,
                                          bm25_weight=bm25_weight, create=True, embedder=embedder), **kwargs)
        retriever.add_documents(documents)
        return retriever

    def add_documents(self, documents: Iterable[Document], ids: Sequence[str] | None = None) -> AddReport:
        """Index LangChain Documents as the loaders give them: the pages or splits of one
        ``source`` put back into one document, each document's id its source, so adding them
        again replaces what changed and skips the rest (:mod:`zoomrag.load.pieces`). ``ids``
        (as ``ParentDocumentRetriever`` takes them, one a Document) name the documents instead:
        Documents given one id are one document, which ``delete`` takes."""
        docs = list(documents)
        if ids is None:
            return self.searcher.add(piece(d) for d in docs)
        if len(ids) != len(docs):
            raise ConfigError(f"ids: {len(ids)} given for {len(docs)} documents; give one id a document")
        return self.searcher.add(replace(piece(d), doc_id=str(i)) for d, i in zip(docs, ids, strict=True))

    async def aadd_documents(self, documents: Iterable[Document], ids: Sequence[str] | None = None) -> AddReport:
        """:meth:`add_documents` in a worker thread, for an application's event loop (reading and
        embedding take seconds)."""
        return await asyncio.to_thread(self.add_documents, list(documents), ids)

    def delete(self, sources: Sequence[str]) -> int:
        """Remove the documents of these sources (or the ids they were given); how many there were."""
        return self.searcher.delete(sources)

    def _get_relevant_documents(self, query: str, *, run_manager: CallbackManagerForRetrieverRun) -> list[Document]:
        return [Document(page_content=c.text, metadata=result_metadata(c), id=f"{c.doc_id}:{c.start}-{c.end}")
                for c in self.searcher.search(query)]
