"""BM25 over SQLite FTS5, with queries built from terms, never from raw user text.

User text can hold FTS5 syntax (``AND``, ``NEAR``, ``*``, quotes, ``col:``), so each term is
quoted as a string (:func:`zoomrag.store.fts.expression`). CJK text is indexed as single
characters and searched as pairs of adjacent characters (:mod:`zoomrag.store.fts`).

The full-text index keeps which units hold each term and nothing more (``detail=none``, less
than half the size of a positional index), so zoomrag ranks in two steps, with Okapi BM25 as
FTS5's bm25() defines it (k1 = 1.2, b = 0.75, IDF ``ln((N - n + 0.5) / (n + 0.5))`` floored at
1e-6) and a unit's length in characters against the average (``index_meta['unit_chars']``):

- :meth:`SqliteStore.fts_search` scores the units that hold the chosen terms (a CJK pair: both
  characters anywhere in the unit) with each term counted once, in SQL;
- :func:`rescore` scores the first :data:`RESCORE` of them again from their text, with each
  term's real frequency and a CJK pair only where its characters are adjacent (a unit that
  held a pair's characters apart, and no other term, is dropped).

Without the second step, long units lose to short ones that hold a term once (evidence recall
of 512-token chunks on wikitext_md -0.05) and Chinese pairs match characters far apart (hit@3
0.879 against 0.901); with it the ranking is FTS5's again (docs/benchmarks.md).

Every row that holds any term of the query is scored (1.5-3 us of CPU per row at 1M units
here), so a question with a few common words scores most of a large index: 0.4 s of CPU at
the median at 1M units with rule 1 alone.
Which terms go into the MATCH is therefore chosen (:func:`choose_terms`, :func:`select_terms`):

1. A term in more than :data:`MAX_SHARE` of the units is left out while another term remains:
   its IDF, ``ln((N - n + 0.5) / (n + 0.5))``, is then at most 0 and clamped to 1e-6, so
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
   only re-scores the ``within`` rows for that term, with its IDF from the estimate (one term,
   so the order among them is the one an unrestricted search gives). FTS5 still walks the
   term's rows once, ~0.15 us each against 1.5-3 us to score one. When even that term is
   estimated in more than :data:`MAX_SHARE` of the units, its IDF is at the floor (rule 1) and
   BM25 ranks nothing: fusion keeps the dense ranking.

A question with a term under the limit is searched as in ``bm25`` mode, ``within`` or not.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field

from ..errors import ConfigError
from ..store import fts
from ..store.base import Store
from ..store.sqlite import Selection

#: Longer questions are cut to this many distinct terms.
MAX_TERMS = 64
#: Terms in more than this share of the units get FTS5's IDF floor (rule 1).
MAX_SHARE = 0.5
#: Rows FTS5 may score for one query (rule 2): BM25 search 6 / 17 ms of CPU (p50 / p95) at 1M
#: units here (docs/benchmarks.md, "BM25 at 1M units").
MAX_ROWS = 2000
#: Okapi BM25's parameters, FTS5's defaults.
K1 = 1.2
B = 0.75
#: FTS5's floor for an IDF at or below 0 (a term in half of the units or more).
IDF_FLOOR = 1e-6
#: A filter's documents holding at most this many nodes are searched with every term (rows
#: scored are bounded by the filter, not by the terms' frequencies).
SMALL_SCOPE = 20_000
#: The first this many units found (or ``k`` when more) are re-scored from their text, with
#: each term's real frequency and CJK pairs as adjacent characters only.
RESCORE = 50


def idf(n: float, units: int) -> float:
    """BM25's inverse document frequency of a term held by ``n`` of ``units`` units (``n`` is
    taken as at most ``units``: counts read at two moments of a changing index may disagree)."""
    n = min(max(n, 0.0), float(units))
    return max(IDF_FLOOR, math.log((units - n + 0.5) / (n + 0.5)))


def query_terms(text: str) -> list[str]:
    """Distinct terms of a query, in order, at most :data:`MAX_TERMS`."""
    return list(dict.fromkeys(fts.query_terms(text)))[:MAX_TERMS]


def match_expression(terms: list[str]) -> str | None:
    """``"a" OR "b" OR ("c" AND "d")``; None when there is nothing to search for."""
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
    # A term in no unit matches nothing and scores nothing: it must not change which others are
    # searched (kept, it would be "the other term" of rule 1 and drop a real one).
    useful = [t for t in position if df[t] > 0]
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
    #: Units holding each chosen term (exact, except rule 3's estimate), for its IDF.
    df: tuple[float, ...] = field(default=(), compare=False)


def choose_terms(store: Store, terms: Sequence[str], units: int | None = None,
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
        return TermChoice((rarest,), True, estimate[rarest], (estimate[rarest],))
    cap = max_rows
    while len(df) > 1 and all(n > cap for n in df.values()):
        cap = 8 * cap + 8
        df = store.term_frequencies(terms, cap=cap)
    kept = select_terms(terms, df, units, max_rows, max_share)
    return TermChoice(tuple(kept), common, sum(df[t] for t in kept), tuple(df[t] for t in kept))


def bm25_search(store: Store, text: str, k: int, units: int | None = None,
                max_rows: int = MAX_ROWS, max_share: float = MAX_SHARE,
                within: Collection[int] | Callable[[], Collection[int]] | None = None,
                selection: Selection | None = None) -> list[tuple[int, float]]:
    """``(node id, score)`` best first, higher is better (this module's BM25).

    ``units`` is the number of units in the index (for the IDF and rules 1 and 3; counted when
    not given). ``within``: the rows to re-score instead when every term of the question is in
    more than ``max_rows`` units (rule 3; hybrid search passes dense search's candidates), or a
    function called for them only then (dense search may still be running beside this one).
    Without it, a single term is searched as it is, counted but not chosen.

    ``selection``: only units of these documents (a filter's, pushed into the SQL). When they
    hold few rows (:data:`SMALL_SCOPE` nodes), every term of the question is searched among
    them alone, as the rows scored are bounded by the filter; IDFs stay the whole index's.
    """
    terms = query_terms(text)
    if not terms:
        return []
    if units is None:
        units = store.unit_count()
    if selection is not None:
        if len(selection) == 0:
            return []
        if int(selection.count.sum()) <= SMALL_SCOPE:
            return _search_scope(store, terms, k, units, max_share, store.selected_units(selection))
    if within is None and len(terms) == 1:
        n = store.term_frequencies(terms)[terms[0]]  # nothing to choose; counted for its IDF
        choice = TermChoice((terms[0],), False, n, (n,))
    else:
        choice = choose_terms(store, terms, units, max_rows, max_share, count_on=within is None)
    idfs = {t: idf(n, units) for t, n in zip(choice.terms, choice.df) if n > 0}
    if not idfs:
        return []
    weights = {fts.expression(t): w for t, w in idfs.items()}
    avg_chars = store.unit_chars() / max(units, 1)
    docs = None if selection is None else selection.keys.tolist()
    if within is None or not choice.common:
        found = store.fts_search(weights, max(k, RESCORE), avg_chars, k1=K1, b=B, docs=docs)
    elif choice.rows > max_share * units:
        return []  # rule 3: even the rarest term is at the IDF floor
    else:
        rows = within() if callable(within) else within
        found = store.fts_search(weights, max(k, RESCORE), avg_chars, within=rows, k1=K1, b=B, docs=docs)
    return rescore(found, store.unit_texts(r for r, _ in found), idfs, avg_chars)[:k]


def _search_scope(store: Store, terms: Sequence[str], k: int, units: int, max_share: float,
                  rows: Sequence[int]) -> list[tuple[int, float]]:
    """BM25 among a filter's few units, with every term but those of rule 1."""
    if not rows:
        return []
    # Capped counts, a common term's estimated from how far its first rows reach (choose_terms)
    df = {t: c.units / c.reach for t, c in store.term_counts(terms, cap=MAX_ROWS).items()}
    useful = [t for t in terms if 0 < df[t] <= max_share * units] or [t for t in terms if df[t] > 0]
    idfs = {t: idf(df[t], units) for t in useful}
    if not idfs:
        return []
    avg_chars = store.unit_chars() / max(units, 1)
    found = store.fts_search({fts.expression(t): w for t, w in idfs.items()}, max(k, RESCORE), avg_chars,
                             within=rows, k1=K1, b=B)
    return rescore(found, store.unit_texts(r for r, _ in found), idfs, avg_chars)[:k]


def rescore(found: Sequence[tuple[int, float]], texts: Mapping[int, str], idfs: Mapping[str, float],
            avg_chars: float) -> list[tuple[int, float]]:
    """Okapi BM25 of each found unit from its text (``idfs``: query term -> IDF), best first.

    The index only says which units hold a term; here each term's frequency in the unit is
    counted, a CJK pair as the two characters next to each other. A unit where no term occurs
    (it held a pair's characters apart) is dropped, as a phrase search would not have found it;
    a unit whose text is missing keeps its score. Ties keep the order found.
    """
    out = []
    for pos, (row, score) in enumerate(found):
        text = texts.get(row)
        if text is not None:
            tf = fts.frequencies(text, idfs)
            if not tf:
                continue
            norm = K1 * (1 - B + B * len(text) / max(avg_chars, 1.0))
            score = sum(idfs[t] * f * (K1 + 1) / (f + norm) for t, f in tf.items())
        out.append((-score, pos, row))
    out.sort()
    return [(row, -neg) for neg, _, row in out]

