"""The reranking role: score (query, unit) pairs again, before expansion.

A reranker reads each matched unit with the query (a cross-encoder, a rerank API) and gives it a
new relevance score; :func:`rerank_hits` re-orders the hits by it. It runs on the units, not on
the expanded contexts, so what it reads is small and what the policies grow is the best match.

No reranking model ships here: every small cross-encoder found on PyPI (flashrank,
small-hybrid-reranker) downloads its weights from a model hub on first use, which an offline
install cannot do. :class:`~zoomrag.rerank.http.HTTPReranker` talks to a rerank endpoint
(Cohere, Jina, Text Embeddings Inference, vLLM, LocalAI) instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from types import MappingProxyType
from typing import Protocol, runtime_checkable

from ..errors import RerankError
from ..model import Hit, TreeSource


@runtime_checkable
class Reranker(Protocol):
    """Relevance of texts to a query; higher is more relevant."""

    name: str

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        """One score per text, in the order of ``texts``."""
        ...


def unit_texts(hits: Sequence[Hit], trees: TreeSource) -> list[str]:
    """What each hit matched: the unit's embedded text (heading prefix, header row) or its span."""
    out = []
    for h in hits:
        tree = trees.tree(h.doc_id)
        node = tree.get(h.node_id)
        if node is not None and node.embed_text is not None:
            out.append(node.embed_text)
        else:
            out.append(tree.document.text[h.start:h.end])
    return out


def rerank_hits(reranker: Reranker, query: str, hits: Sequence[Hit], trees: TreeSource,
                depth: int | None = None) -> list[Hit]:
    """The first ``depth`` hits (all by default) re-scored by ``reranker``, best first.

    Hits past ``depth`` are dropped: their order is the ranker's, not the reranker's, and mixing
    the two scales would be meaningless. Each hit keeps its earlier scores in ``ranks`` and gains
    ``ranks["rerank"] = (score, rank)``.
    """
    pool = list(hits if depth is None else hits[:depth])
    if not pool:
        return []
    scores = reranker.score(query, unit_texts(pool, trees))
    if len(scores) != len(pool):
        raise RerankError(f"reranker {reranker.name!r} returned {len(scores)} scores for {len(pool)} texts")
    order = sorted(range(len(pool)), key=lambda i: (-scores[i], i))
    out = []
    for rank, i in enumerate(order, start=1):
        h = pool[i]
        ranks = dict(h.ranks)
        ranks["rerank"] = (float(scores[i]), rank)
        out.append(replace(h, score=float(scores[i]), ranks=MappingProxyType(ranks)))
    return out
