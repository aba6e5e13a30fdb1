"""Reranking: re-score the matched units against the query before they are expanded."""

from .base import Reranker, rerank_hits, unit_texts
from .http import HTTPReranker

__all__ = ["HTTPReranker", "Reranker", "rerank_hits", "unit_texts"]
