"""BM25 through SQLite FTS5, with queries built from terms, never from raw user text.

User text can hold FTS5 syntax (``AND``, ``NEAR``, ``*``, quotes, ``col:``), so each term is
quoted as a string and the terms are ORed (FTS5 ANDs bare terms, which would demand every
word). CJK text is indexed as single characters and searched as bigram phrases
(:mod:`zoomrag.store.fts`).

FTS5 scores every row that holds any term of the query (1.5-3 us of CPU per row at 1M units
here, and the IDF of each term costs a walk over its rows), so a question with a few common
words scores most of a large index: 0.4 s of CPU at the median at 1M units with rule 1 alone.
Which terms go into the MATCH is therefore chosen (:func:`select_terms`):

1. A term in more than :data:`MAX_SHARE` of the units is left out while another term remains:
   FTS5's IDF, ``ln((N - n + 0.5) / (n + 0.5))``, is then at most 0 and clamped to 1e-6, so
   the term changes no score; it would only add rows scored 0 at the tail.
2. The other terms are taken rarest first while the rows they are found in add up to at most
   :data:`MAX_ROWS`; the rarest term is always taken. What is left out is the question's
   terms of lowest IDF, the ones that add least to any row's score. A number of rows, not a
   share of the index, because the cost is per row (docs/index.md, "Search").

Document frequencies are counted through FTS5 itself, each count stopped at ``MAX_ROWS + 1``
(:meth:`SqliteStore.term_frequencies`), so looking up a common term costs no more than a rare
one; only a question whose every term is over the limit counts further, to find its rarest.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..errors import ConfigError
from ..store import fts
from ..store.sqlite import SqliteStore

#: Longer questions are cut to this many distinct terms.
MAX_TERMS = 64
#: Terms in more than this share of the units get FTS5's IDF floor (rule 1).
MAX_SHARE = 0.5
#: Rows FTS5 may score for one query (rule 2): BM25 search 6 / 17 ms of CPU (p50 / p95) at 1M
#: units here (docs/benchmarks.md, "BM25 at 1M units").
MAX_ROWS = 2000


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


def select_terms(terms: Sequence[str], df: Mapping[str, int], units: int | None,
                 max_rows: int = MAX_ROWS, max_share: float = MAX_SHARE) -> list[str]:
    """The terms that go into the MATCH, in query order (rules 1 and 2 of this module).

    ``df[t]`` is the number of units holding ``t``. Counts may be capped (``cap + 1`` for "more
    than ``cap``") as long as the smallest one is exact: with ``cap >= max_rows`` a capped
    term can only be taken as the rarest. Ties in ``df`` go to the earlier term. Without
    ``units`` rule 1 is not applied.
    """
    if max_rows < 0:
        raise ConfigError(f"bm25 max_rows={max_rows} must be >= 0 (the default is {MAX_ROWS})")
    if not 0 < max_share <= 1:
        raise ConfigError(f"bm25 max_share={max_share} must be in (0, 1] (the default is {MAX_SHARE})")
    position: dict[str, int] = {}
    for i, t in enumerate(terms):
        position.setdefault(t, i)
    useful = list(position)
    if units is not None:
        useful = [t for t in useful if df[t] <= max_share * units] or useful
    kept: set[str] = set()
    rows = 0
    for t in sorted(useful, key=lambda t: (df[t], position[t])):
        if kept and rows + df[t] > max_rows:
            break
        kept.add(t)
        rows += df[t]
    return [t for t in position if t in kept]


def bm25_search(store: SqliteStore, text: str, k: int, units: int | None = None,
                max_rows: int = MAX_ROWS, max_share: float = MAX_SHARE) -> list[tuple[int, float]]:
    """``(node id, score)`` best first; score is FTS5's bm25 negated (higher is better).

    ``units`` is the number of units in the index (for rule 1).
    """
    terms = query_terms(text)
    if len(terms) > 1:
        cap = max_rows
        df = store.term_frequencies(terms, cap=cap)
        while all(n > cap for n in df.values()):
            # every term is over the limit: count on, 8x further each round, until the rarest is known
            cap = 8 * cap + 8
            df = store.term_frequencies(terms, cap=cap)
        terms = select_terms(terms, df, units, max_rows, max_share)
    expr = match_expression(terms)
    if expr is None:
        return []
    return [(nid, -score) for nid, score in store.fts_search(expr, k)]
