"""A LlamaIndex retriever over a zoomrag index (``pip install 'zoomrag[llamaindex]'``).

    retriever = ZoomragRetriever(".zoomrag/index.db", budget=1024)
    engine = RetrieverQueryEngine.from_args(retriever, llm=llm)
    engine.query("how do I rebuild the index?")
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from llama_index.core.retrievers import BaseRetriever
from llama_index.core.schema import NodeRelationship, NodeWithScore, QueryBundle, RelatedNodeInfo, TextNode

from ..index import Index
from ..model import Context
from . import Searcher, span_metadata

#: Metadata kept out of what the LLM and the embedder see (they are for the application).
_HIDDEN = ["doc_id", "start", "end", "spans", "hits", "level", "kind", "rule", "score", "copies"]


def to_node(ctx: Context) -> NodeWithScore:
    """A context as a TextNode: its exact span in ``start_char_idx``/``end_char_idx`` and in the
    metadata, its document as the SOURCE relationship."""
    node = TextNode(
        id_=f"{ctx.doc_id}:{ctx.start}-{ctx.end}",
        text=ctx.text,
        metadata=span_metadata(ctx),
        start_char_idx=ctx.start,
        end_char_idx=ctx.end,
        excluded_llm_metadata_keys=list(_HIDDEN),
        excluded_embed_metadata_keys=list(_HIDDEN),
        relationships={NodeRelationship.SOURCE: RelatedNodeInfo(
            node_id=ctx.doc_id, metadata={"source": ctx.source, "start": ctx.start, "end": ctx.end})},
    )
    return NodeWithScore(node=node, score=ctx.score)


class ZoomragRetriever(BaseRetriever):
    """Contexts within a token budget as ``NodeWithScore``, best first."""

    def __init__(self, index: Index | str | Path, *, budget: int = 1024, top: int | None = 10,
                 mode: str = "hybrid", expand: str = "auto", where: Mapping[str, Any] | None = None,
                 bm25_weight: float | None = None, **kwargs: Any):
        self.searcher = Searcher(index, budget=budget, top=top, mode=mode, expand=expand, where=where,
                                 bm25_weight=bm25_weight)
        super().__init__(**kwargs)

    def _retrieve(self, query_bundle: QueryBundle) -> list[NodeWithScore]:
        return [to_node(c) for c in self.searcher.search(query_bundle.query_str)]
