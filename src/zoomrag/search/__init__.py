"""Search: exact and approximate dense retrieval, BM25 through FTS5, and rank fusion."""

from .ann import ANN_THRESHOLD, AnnIndex, available_backend
from .bm25 import bm25_search, match_expression, query_terms
from .dense import ExactSearch, MatrixCache, top_k
from .fusion import Fused, reciprocal_rank_fusion, single_ranking

__all__ = [
    "ANN_THRESHOLD",
    "AnnIndex",
    "ExactSearch",
    "Fused",
    "MatrixCache",
    "available_backend",
    "bm25_search",
    "match_expression",
    "query_terms",
    "reciprocal_rank_fusion",
    "single_ranking",
    "top_k",
]
