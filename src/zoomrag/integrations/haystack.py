"""Haystack 2 components over a zoomrag index (``pip install 'zoomrag[haystack]'``).

    indexing = Pipeline()
    indexing.add_component("converter", PyPDFToDocument())
    indexing.add_component("writer", ZoomragDocumentWriter("index.db"))
    indexing.connect("converter", "writer")
    indexing.run({"converter": {"sources": ["manual.pdf"]}})

    pipe = Pipeline()
    pipe.add_component("retriever", ZoomragRetriever("index.db", budget=1024))
    pipe.run({"retriever": {"query": "how do I rebuild the index?"}})["retriever"]["documents"]

The writer takes a converter's documents (no splitter needed: zoomrag cuts its own tree; a
splitter's pieces are put back by their offsets) and the retriever takes Haystack's filters.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from haystack import Document, component, default_from_dict, default_to_dict

from ..errors import ConfigError, InputError
from . import Piece, Searcher, result_metadata

#: Haystack's comparison operators and zoomrag's.
_COMPARED = {"==": "$eq", "!=": "$ne", ">": "$gt", ">=": "$gte", "<": "$lt", "<=": "$lte",
             "in": "$in", "not in": "$nin"}


def piece(doc: Document) -> Piece:
    """A Haystack Document as a piece of its file (``meta["file_path"]``, a converter's)."""
    if not isinstance(doc.content, str):
        raise InputError(f"document {doc.id} ({doc.meta.get('file_path', 'no file_path')}) has no text content: "
                         "convert its file first (PyPDFToDocument, TextFileToDocument...)")
    return Piece(text=doc.content, metadata=dict(doc.meta), id=doc.id)


def where_of(filters: dict[str, Any]) -> dict[str, Any]:
    """Haystack's filters (``{"field": "meta.year", "operator": ">=", "value": 2020}``, joined
    by ``AND`` and ``OR``) as a zoomrag filter (docs/index.md, "Filters and metadata")."""
    if not isinstance(filters, dict) or "operator" not in filters:
        raise ConfigError(f"filters: expected Haystack's form, such as {{'field': 'meta.year', 'operator': '>=', "
                          f"'value': 2020}}, got {filters!r}")
    op = filters["operator"]
    if "conditions" in filters:
        if op not in ("AND", "OR"):
            raise ConfigError(f"filters: the {op!r} operator has no zoomrag form; use AND or OR, and state "
                              "what to keep (!=, not in)")
        return {"$and" if op == "AND" else "$or": [where_of(c) for c in filters["conditions"]]}
    field, value = filters.get("field", ""), filters.get("value")
    if field == "id" and op in ("==", "in"):
        return {"$doc": value}
    if not isinstance(field, str) or not field.startswith("meta."):
        raise ConfigError(f"filters: field {field!r} cannot be filtered on; use a metadata field, 'meta.KEY', or 'id'")
    key = field.removeprefix("meta.")
    if value is None and op in ("==", "!="):
        return {key: {"$exists": op == "!="}}
    if op not in _COMPARED:
        raise ConfigError(f"filters[{field!r}]: unknown operator {op!r}; use one of {', '.join(_COMPARED)}")
    return {key: {_COMPARED[op]: value}}


def _joined(where: dict[str, Any] | None, filters: dict[str, Any] | None) -> dict[str, Any] | None:
    if not filters:
        return where
    return {"$and": [where, where_of(filters)]} if where else where_of(filters)


@component
class ZoomragRetriever:
    """Contexts within a token budget as Haystack Documents, best first.

    ``content`` is the context's text, ``score`` its score, ``meta`` its document's metadata
    with its exact span and the rest (source, doc_id, start, end, spans, section_path, hits,
    level, kind, rule, copies, pages). ``filters`` are Haystack's, ``where`` a zoomrag filter
    (chromadb style, e.g. ``{"year": {"$gte": 2020}}``); given both, a document must pass both.
    """

    def __init__(self, index: str, budget: int = 1024, top: int = 10, mode: str = "hybrid",
                 expand: str = "auto", bm25_weight: float | None = None, filters: dict[str, Any] | None = None):
        self.index, self.budget, self.top, self.mode, self.expand = str(index), budget, top, mode, expand
        self.bm25_weight, self.filters = bm25_weight, filters
        if filters:
            where_of(filters)  # a bad filter is told when the pipeline is built, not at its first run
        self._searcher: Searcher | None = None

    def warm_up(self) -> None:
        """Open the index (a Pipeline calls this before the first run)."""
        if self._searcher is None:
            self._searcher = Searcher(Path(self.index), budget=self.budget, top=self.top, mode=self.mode,
                                      expand=self.expand, bm25_weight=self.bm25_weight)

    @component.output_types(documents=list[Document])
    def run(self, query: str, filters: dict[str, Any] | None = None, top_k: int | None = None,
            budget: int | None = None, where: dict[str, Any] | None = None) -> dict[str, list[Document]]:
        """``filters`` given here replace the component's."""
        self.warm_up()
        assert self._searcher is not None
        contexts = self._searcher.search(query, budget=budget, top=top_k,
                                         where=_joined(where, filters if filters is not None else self.filters))
        return {"documents": [Document(id=f"{c.doc_id}:{c.start}-{c.end}", content=c.text, score=c.score,
                                       meta=result_metadata(c)) for c in contexts]}

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(self, index=self.index, budget=self.budget, top=self.top, mode=self.mode,
                               expand=self.expand, bm25_weight=self.bm25_weight, filters=self.filters)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ZoomragRetriever:
        return default_from_dict(cls, data)


@component
class ZoomragDocumentWriter:
    """Writes a converter's Documents into a zoomrag index (made if missing), as Haystack's
    ``DocumentWriter`` writes into a document store.

    The pieces of one file (``file_path``; a splitter's, by ``split_idx_start``) are put back
    into one document whose id is the file, so a pipeline run again replaces what changed and
    skips the rest. ``embedder`` names the model of a new index (default: chosen from its first
    documents). ``documents_written`` counts the documents added or replaced.
    """

    def __init__(self, index: str, embedder: str | None = None):
        self.index, self.embedder = str(index), embedder
        self._searcher: Searcher | None = None

    def warm_up(self) -> None:
        if self._searcher is None:
            self._searcher = Searcher(Path(self.index), create=True, embedder=self.embedder)

    @component.output_types(documents_written=int)
    def run(self, documents: list[Document]) -> dict[str, int]:
        self.warm_up()
        assert self._searcher is not None
        report = self._searcher.add(piece(d) for d in documents)
        return {"documents_written": report.added + report.updated}

    def to_dict(self) -> dict[str, Any]:
        return default_to_dict(self, index=self.index, embedder=self.embedder)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> ZoomragDocumentWriter:
        return default_from_dict(cls, data)
