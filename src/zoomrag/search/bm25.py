"""BM25 through SQLite FTS5, with queries built from terms, never from raw user text.

User text can hold FTS5 syntax (``AND``, ``NEAR``, ``*``, quotes, ``col:``), so each term is
quoted as a string and the terms are ORed (FTS5 ANDs bare terms, which would demand every
word). CJK text is indexed as single characters and searched as bigram phrases
(:mod:`zoomrag.store.fts`). Terms found in more than ``max_share`` of the units are dropped
while other terms remain: they add almost nothing to the ranking but make FTS5 score most of
the index.
"""

from __future__ import annotations

from ..store import fts
from ..store.sqlite import SqliteStore

#: Longer questions are cut to this many distinct terms.
MAX_TERMS = 64


def quote(term: str) -> str:
    """An FTS5 string literal: double quotes doubled."""
    return '"' + term.replace('"', '""') + '"'


def query_terms(text: str) -> list[str]:
    """Distinct terms of a query, in order, at most :data:`MAX_TERMS`."""
    return list(dict.fromkeys(fts.query_terms(text)))[:MAX_TERMS]


def match_expression(terms: list[str]) -> str | None:
    """``"a" OR "b" OR "c d"``; None when there is nothing to search for."""
    parts = [fts.expression(t) for t in terms]
    return " OR ".join(parts) if parts else None


def bm25_search(store: SqliteStore, text: str, k: int, units: int | None = None,
                max_share: float = 0.5) -> list[tuple[int, float]]:
    """``(node id, score)`` best first; score is FTS5's bm25 negated (higher is better)."""
    terms = query_terms(text)
    if units and len(terms) > 1:
        limit = max_share * units
        df = store.term_frequencies(terms, above=limit)
        kept = [t for t in terms if df.get(t, 0) <= limit]
        terms = kept or terms
    expr = match_expression(terms)
    if expr is None:
        return []
    return [(nid, -score) for nid, score in store.fts_search(expr, k)]
