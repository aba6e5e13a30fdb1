"""BM25 through SQLite FTS5, with queries built from terms, never from raw user text.

User text can hold FTS5 syntax (``AND``, ``NEAR``, ``*``, quotes, ``col:``), so each term is
quoted as a string and the terms are ORed (FTS5 ANDs bare terms, which would demand every
word). CJK text is indexed as single characters and searched as bigram phrases
(:mod:`zoomrag.store.fts`).

FTS5 scores every row that holds any term of the query (1.5-3 us of CPU per row at 1M units
here, and the IDF of each term costs a walk over its rows), so a question with a few common
words scores most of a large index: 0.4 s of CPU at the median at 1M units with rule 1 alone.
Which terms go into the MATCH is therefore chosen (:func:`choose_terms`, :func:`select_terms`):

1. A term in more than :data:`MAX_SHARE` of the units is left out while another term remains:
   FTS5's IDF, ``ln((N - n + 0.5) / (n + 0.5))``, is then at most 0 and clamped to 1e-6, so
   the term changes no score; it would only add rows scored 0 at the tail.
2. The other terms are taken rarest first while the rows they are found in add up to at most
   :data:`MAX_ROWS`; the rarest term is always taken. What is left out is the question's
   terms of lowest IDF, the ones that add least to any row's score. A number of rows, not a
   share of the index, because the cost is per row (docs/index.md, "Search").

Document frequencies are counted through FTS5 itself, each count stopped at ``MAX_ROWS + 1``
(:meth:`SqliteStore.term_counts`), so looking up a common term costs no more than a rare one.

A question whose every term is in more than ``MAX_ROWS`` units cannot be searched cheaply: its
rarest term's rows are all scored (114,504 rows for the worst of the latency bench's questions
at 1M units), after counting on to find which term is the rarest; 0.2 s of CPU together for
that question. In ``bm25`` mode that is done. Given rows to fall back on (``within``: in hybrid
search, dense search's candidates), rule 3 applies instead:

3. The question's rarest term is estimated, not counted: it is the term whose first
   ``MAX_ROWS + 1`` units reach furthest into the index (known from the counts above, at no
   extra cost; close when the units holding a term are spread evenly over the index). BM25 then
   only re-scores the ``within`` rows, with FTS5's bm25() for that term, which FTS5 computes
   over the whole table (IDF, average length), so each row's score is the one an unrestricted
   search gives it. FTS5 still walks the term's rows once, ~0.15 us each against 1.5-3 us to
   score one. When even that term is estimated in more than :data:`MAX_SHARE` of the units, its
   IDF is at FTS5's floor (rule 1) and BM25 ranks nothing: fusion keeps the dense ranking.

A question with a term under the limit is searched as in ``bm25`` mode, ``within`` or not.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass

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


def _check_limits(max_rows: int, max_share: float) -> None:
    if max_rows < 0:
        raise ConfigError(f"bm25 max_rows={max_rows} must be >= 0 (the default is {MAX_ROWS})")
    if not 0 < max_share <= 1:
        raise ConfigError(f"bm25 max_share={max_share} must be in (0, 1] (the default is {MAX_SHARE})")


def select_terms(terms: Sequence[str], df: Mapping[str, int], units: int | None,
                 max_rows: int = MAX_ROWS, max_share: float = MAX_SHARE) -> list[str]:
    """The terms that go into the MATCH, in query order (rules 1 and 2 of this module).

    ``df[t]`` is the number of units holding ``t``. Counts may be capped (``cap + 1`` for "more
    than ``cap``") as long as the smallest one is exact: with ``cap >= max_rows`` a capped
    term can only be taken as the rarest. Ties in ``df`` go to the earlier term. Without
    ``units`` rule 1 is not applied.
    """
    _check_limits(max_rows, max_share)
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


@dataclass(frozen=True, slots=True)
class TermChoice:
    """The terms that go into the MATCH, in query order."""

    terms: tuple[str, ...]
    #: Every term of the question is in more than ``max_rows`` units (rule 3 applies).
    common: bool
    #: Units holding the chosen terms, added up (for rule 3's term, the estimate).
    rows: float


def choose_terms(store: SqliteStore, terms: Sequence[str], units: int | None = None,
                 max_rows: int = MAX_ROWS, max_share: float = MAX_SHARE, *,
                 count_on: bool = True) -> TermChoice:
    """The MATCH's terms (rules 1 and 2; for a question of common terms, its rarest alone).

    When every term is over ``max_rows``, the rarest is found by counting on, 8x further each
    round (``count_on``, as ``bm25`` mode does), or estimated from how far each count reached
    (rule 3, for a caller that will only re-score some rows).
    """
    _check_limits(max_rows, max_share)
    counts = store.term_counts(terms, cap=max_rows)
    if not counts:
        return TermChoice((), False, 0)
    df = {t: c.units for t, c in counts.items()}
    common = all(n > max_rows for n in df.values())
    if common and not count_on:
        estimate = {t: c.units / c.reach for t, c in counts.items()}
        rarest = min(estimate, key=lambda t: estimate[t])  # ties: the earlier term
        return TermChoice((rarest,), True, estimate[rarest])
    cap = max_rows
    while len(df) > 1 and all(n > cap for n in df.values()):
        cap = 8 * cap + 8
        df = store.term_frequencies(terms, cap=cap)
    kept = select_terms(terms, df, units, max_rows, max_share)
    return TermChoice(tuple(kept), common, sum(df[t] for t in kept))


def bm25_search(store: SqliteStore, text: str, k: int, units: int | None = None,
                max_rows: int = MAX_ROWS, max_share: float = MAX_SHARE,
                within: Collection[int] | None = None) -> list[tuple[int, float]]:
    """``(node id, score)`` best first; score is FTS5's bm25 negated (higher is better).

    ``units`` is the number of units in the index (for rules 1 and 3). ``within``: the rows to
    re-score instead when every term of the question is in more than ``max_rows`` units (rule
    3; hybrid search passes dense search's candidates). Without it, a single term is searched
    as it is, uncounted.
    """
    terms = query_terms(text)
    if not terms:
        return []
    if within is None and len(terms) == 1:
        choice = TermChoice((terms[0],), False, 0)  # nothing to choose, so nothing counted
    else:
        choice = choose_terms(store, terms, units, max_rows, max_share, count_on=within is None)
    expr = match_expression(list(choice.terms))
    if expr is None:
        return []
    if within is None or not choice.common:
        found = store.fts_search(expr, k)
    elif units is not None and choice.rows > max_share * units:
        return []  # rule 3: even the rarest term is at FTS5's IDF floor
    else:
        found = store.fts_search_within(expr, within)[:k]
    return [(nid, -score) for nid, score in found]
