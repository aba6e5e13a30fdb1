"""BM25 through SQLite FTS5, with queries built from terms, never from raw user text.

User text can hold FTS5 syntax (``AND``, ``NEAR``, ``*``, quotes, ``col:``), so each term is
quoted as a string and the terms are ORed (FTS5 ANDs bare terms, which would demand every
word). A single CJK character is a prefix query, because the index holds CJK bigrams. Terms
found in more than ``max_share`` of the units are dropped while other terms remain: they
add almost nothing to the ranking but make FTS5 score most of the index.
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
    return list(dict.fromkeys(fts.terms(text)))[:MAX_TERMS]


def match_expression(terms: list[str]) -> str | None:
    """``"a" OR "b" OR "c"*``; None when there is nothing to search for."""
    parts = [quote(t) + ("*" if len(t) == 1 and fts.is_cjk(t) else "") for t in terms]
    return " OR ".join(parts) if parts else None


def bm25_search(store: SqliteStore, text: str, k: int, units: int | None = None,
                max_share: float = 0.5) -> list[tuple[int, float]]:
    """``(node id, score)`` best first; score is FTS5's bm25 negated (higher is better)."""
    terms = query_terms(text)
    if units and len(terms) > 1:
        df = store.term_frequencies(terms)
        kept = [t for t in terms if df.get(t, 0) <= max_share * units]
        terms = kept or terms
    expr = match_expression(terms)
    if expr is None:
        return []
    return [(nid, -score) for nid, score in store.fts_search(expr, k)]
