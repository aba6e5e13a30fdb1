"""A LlamaIndex retriever over a zoomrag index (``pip install 'zoomrag[llamaindex]'``).

    documents = SimpleDirectoryReader("manuals").load_data()
    retriever = ZoomragRetriever.from_documents(documents, "index.db", budget=1024)
    engine = RetrieverQueryEngine.from_args(retriever, llm=llm)
    engine.query("how do I rebuild the index?")

As ``VectorStoreIndex.from_documents`` is used, with no node parser to choose: the documents
its readers give (a PDF a page each, put back into one document) are added, and added again
replace what changed. ``filters`` takes LlamaIndex's ``MetadataFilters``.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import (
    BaseNode,
    MetadataMode,
    NodeRelationship,
    NodeWithScore,
    QueryBundle,
    RelatedNodeInfo,
    TextNode,
)
from llama_index.core.vector_stores.types import (
    FilterCondition,
    FilterOperator,
    MetadataFilter,
    MetadataFilters,
)

from ..errors import ConfigError
from ..index import AddReport, Index
from ..model import Context
from . import Piece, Searcher, result_metadata

__all__ = ["ZoomragRetriever", "piece", "to_node", "where_of"]

#: Metadata kept out of what the LLM and the embedder see (they are for the application).
_HIDDEN = ["doc_id", "start", "end", "spans", "hits", "level", "kind", "rule", "score", "copies"]
#: LlamaIndex's comparison operators and zoomrag's.
_COMPARED = {FilterOperator.EQ: "$eq", FilterOperator.NE: "$ne", FilterOperator.GT: "$gt",
             FilterOperator.GTE: "$gte", FilterOperator.LT: "$lt", FilterOperator.LTE: "$lte",
             FilterOperator.IN: "$in", FilterOperator.NIN: "$nin", FilterOperator.ANY: "$in",
             FilterOperator.CONTAINS: "$eq"}


def to_node(ctx: Context) -> NodeWithScore:
    """A context as a TextNode: its document's metadata and its exact span in
    ``start_char_idx``/``end_char_idx`` and in the metadata, its document as the SOURCE
    relationship."""
    node = TextNode(
        id_=f"{ctx.doc_id}:{ctx.start}-{ctx.end}",
        text=ctx.text,
        metadata=result_metadata(ctx),
        start_char_idx=ctx.start,
        end_char_idx=ctx.end,
        excluded_llm_metadata_keys=list(_HIDDEN),
        excluded_embed_metadata_keys=list(_HIDDEN),
        relationships={NodeRelationship.SOURCE: RelatedNodeInfo(
            node_id=ctx.doc_id, metadata={"source": ctx.source, "start": ctx.start, "end": ctx.end})},
    )
    return NodeWithScore(node=node, score=ctx.score)


def piece(node: BaseNode) -> Piece:
    """A LlamaIndex Document (or a node a parser cut, placed by its ``start_char_idx`` in the
    document it names) as a piece of its file (``file_path``, a reader's)."""
    metadata = dict(node.metadata or {})
    start = getattr(node, "start_char_idx", None)  # a TextNode's; a Document's is None
    if start is not None and node.ref_doc_id is not None:
        metadata["start_char_idx"] = start
    return Piece(text=node.get_content(metadata_mode=MetadataMode.NONE), metadata=metadata,
                 id=node.ref_doc_id or node.id_)


def where_of(filters: MetadataFilters) -> dict[str, Any]:
    """LlamaIndex's ``MetadataFilters`` as a zoomrag filter (docs/index.md, "Filters and metadata")."""
    parts = [where_of(f) if isinstance(f, MetadataFilters) else _condition(f) for f in filters.filters]
    if filters.condition == FilterCondition.NOT:
        raise ConfigError("filters: the NOT condition has no zoomrag form; state what to keep "
                          "(!=, nin, is_empty) or pass a zoomrag filter as where=")
    if len(parts) == 1:
        return parts[0]
    return {"$or" if filters.condition == FilterCondition.OR else "$and": parts}


def _condition(f: MetadataFilter) -> dict[str, Any]:
    op = FilterOperator(f.operator)
    if op == FilterOperator.IS_EMPTY:
        return {f.key: {"$exists": False}}
    if op == FilterOperator.ALL:
        values = f.value if isinstance(f.value, list) else [f.value]
        return {"$and": [{f.key: v} for v in values]}
    if op not in _COMPARED:
        raise ConfigError(f"filters[{f.key!r}]: the operator {op.value!r} has no zoomrag form; use one of "
                          f"{', '.join(o.value for o in _COMPARED)}, is_empty or all")
    value: Any = f.value
    if op in (FilterOperator.IN, FilterOperator.NIN, FilterOperator.ANY) and not isinstance(value, list):
        value = [value]
    return {f.key: {_COMPARED[op]: value}}


class ZoomragRetriever(BaseRetriever):
    """Contexts within a token budget as ``NodeWithScore``, best first.

    ``where`` is a zoomrag filter, ``filters`` LlamaIndex's ``MetadataFilters``; given both,
    a document must pass both.
    """

    def __init__(self, index: Index | str | Path, *, budget: int = 1024, top: int | None = 10,
                 mode: str = "hybrid", expand: str = "auto", where: Mapping[str, Any] | None = None,
                 filters: MetadataFilters | None = None, bm25_weight: float | None = None,
                 create: bool = False, embedder: str | None = None, **kwargs: Any):
        if filters is not None:
            where = {"$and": [dict(where), where_of(filters)]} if where else where_of(filters)
        self.searcher = Searcher(index, budget=budget, top=top, mode=mode, expand=expand, where=where,
                                 bm25_weight=bm25_weight, create=create, embedder=embedder)
        super().__init__(**kwargs)

    @classmethod
    def from_documents(cls, documents: Iterable[BaseNode], index: Index | str | Path, **options: Any
                       ) -> ZoomragRetriever:
        """A retriever over ``index`` (a path: made if missing) after adding ``documents`` to it
        (:meth:`add_documents`); ``options`` are the retriever's, and ``embedder`` names the
        model of a new index."""
        retriever = cls(index, create=True, **options)
        retriever.add_documents(documents)
        return retriever

    def add_documents(self, documents: Iterable[BaseNode]) -> AddReport:
        """Index LlamaIndex Documents as the readers give them: the pages of one ``file_path``
        put back into one document, each document's id its file, so adding them again replaces
        what changed and skips the rest (:mod:`zoomrag.load.pieces`)."""
        return self.searcher.add(piece(d) for d in documents)

    def delete(self, sources: Sequence[str]) -> int:
        """Remove the documents of these files (``file_path``) or ids; how many there were."""
        return self.searcher.delete(sources)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return [to_node(c) for c in self.searcher.search(query_bundle.query_str)]
