"""Span metrics for one query, and their mean over queries with bootstrap intervals.

All metrics count characters. ``E`` is the union of a query's evidence spans (overlapping
evidence counts once); the returned contexts are taken as given, in rank order, so a character
returned twice is *paid for* twice:

- evidence recall   = |E ∩ R| / |E|                  R = union of the returned spans
- precision         = |E ∩ R| / Σ|r|                 Σ|r| = returned characters with repeats
- IoU               = |E ∩ R| / (Σ|r| + |E \\ R|)     Chroma's definition (see below)
- full evidence     = 1 if E ⊆ R else 0
- reciprocal rank   = 1 / rank of the first context sharing a character with E, 0 if none

IoU follows Chroma's chunking report (Smith & Troynikov 2024, "Evaluating Chunking Strategies
for Retrieval", repository brandonstarxel/chunking_evaluation, ``base_evaluation.py``): the
numerator is the union of evidence∩chunk ranges, the denominator is the *sum* of the retrieved
chunk lengths (not their union, so overlapping or repeated chunks are counted each time) plus
the evidence characters no chunk covered. When returned spans do not overlap this is the usual
|E ∩ R| / |E ∪ R|. Two differences from Chroma's code: evidence spans are merged before the
uncovered part is measured (Chroma would count a character of two overlapping excerpts twice),
and every returned context counts (Chroma scores only as many chunks as the corpus has
evidence-bearing chunks; here the token budget sets what is returned). With nothing returned,
precision is 0.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ..errors import EvalError
from . import spans as sp
from .stats import RESAMPLES, SEED, Estimate, bootstrap, resample_indices

#: Aggregate names, in report order; each maps to the per-query field it averages.
METRICS: Mapping[str, str] = MappingProxyType({
    "evidence_recall": "evidence_recall",
    "precision": "precision",
    "iou": "iou",
    "full_evidence_rate": "full_evidence",
    "mrr": "reciprocal_rank",
})

LABELS: Mapping[str, str] = MappingProxyType({
    "evidence_recall": "recall",
    "precision": "precision",
    "iou": "IoU",
    "full_evidence_rate": "full",
    "mrr": "MRR",
})


@runtime_checkable
class HasSpan(Protocol):
    """Anything with a document span: :class:`~zoomrag.model.Context`, ``Evidence``, ``Hit``."""

    @property
    def doc_id(self) -> str: ...

    @property
    def start(self) -> int: ...

    @property
    def end(self) -> int: ...


SpanLike = HasSpan | tuple[str, int, int]


def as_span(x: SpanLike) -> sp.DocSpan:
    if isinstance(x, tuple):
        doc_id, s, e = x
        return (doc_id, s, e)
    return (x.doc_id, x.start, x.end)


@dataclass(frozen=True, slots=True)
class QueryScores:
    query_id: str
    evidence_recall: float
    precision: float
    iou: float
    full_evidence: float
    reciprocal_rank: float
    #: Σ|r|: returned characters, a repeated character counted each time.
    returned_chars: int = 0
    #: |E|: distinct evidence characters.
    evidence_chars: int = 0


def score_query(query_id: str, returned: Sequence[SpanLike], evidence: Sequence[SpanLike], *,
                ranks: Sequence[int] | None = None) -> QueryScores:
    """Every metric of one query (see the module docstring for the definitions). ``ranks``: the
    rank of the context each returned span is part of (a context of several spans, a head and
    its body, ranks once); by default each span is a context of its own."""
    ret = [as_span(r) for r in returned]
    ev = sp.by_doc(as_span(e) for e in evidence)
    e_len = sp.doc_length(ev)
    if e_len == 0:
        raise EvalError(f"query {query_id!r} has no evidence characters; it cannot be scored")
    got = sp.by_doc(ret)
    hit = sp.doc_length(sp.doc_intersect(ev, got))
    paid = sum(max(0, e - s) for _, s, e in ret)
    missed = e_len - hit
    rr = 0.0
    for i, (doc_id, s, e) in enumerate(ret):
        if any(sp.overlaps((s, e), iv) for iv in ev.get(doc_id, ())):
            rr = 1.0 / (ranks[i] if ranks is not None else i + 1)
            break
    return QueryScores(
        query_id=query_id,
        evidence_recall=hit / e_len,
        precision=hit / paid if paid else 0.0,
        iou=hit / (paid + missed),
        full_evidence=1.0 if missed == 0 else 0.0,
        reciprocal_rank=rr,
        returned_chars=paid,
        evidence_chars=e_len,
    )


@dataclass(frozen=True)
class MetricSet:
    """One configuration at one budget: per-query scores (kept for paired tests) and means with CIs."""

    config: str
    budget: int
    scores: tuple[QueryScores, ...]
    estimates: Mapping[str, Estimate] = field(default_factory=dict)

    @property
    def query_ids(self) -> tuple[str, ...]:
        return tuple(s.query_id for s in self.scores)

    @property
    def n(self) -> int:
        return len(self.scores)

    def values(self, metric: str) -> np.ndarray:
        """Per-query values of an aggregate metric, in query order."""
        try:
            attr = METRICS[metric]
        except KeyError:
            raise EvalError(f"unknown metric {metric!r}; choose one of: {', '.join(METRICS)}") from None
        return np.array([getattr(s, attr) for s in self.scores], dtype=float)

    def __getitem__(self, metric: str) -> Estimate:
        if metric not in self.estimates:
            raise EvalError(f"unknown metric {metric!r}; choose one of: {', '.join(METRICS)}")
        return self.estimates[metric]

    def mean(self, metric: str) -> float:
        return self[metric].mean

    def aligned(self, metric: str, query_ids: Sequence[str]) -> np.ndarray:
        """Values in the order of ``query_ids``; every id must be present."""
        pos = {q: i for i, q in enumerate(self.query_ids)}
        vals = self.values(metric)
        try:
            return vals[[pos[q] for q in query_ids]]
        except KeyError as e:
            raise EvalError(f"{self.config} at budget {self.budget} has no result for query {e.args[0]!r}; "
                            "compare configurations on the same queries") from None

    def to_row(self, ndigits: int = 4) -> dict[str, Any]:
        """One entry of the report's ``results`` list."""
        row: dict[str, Any] = {"config": self.config, "budget": self.budget}
        for m in METRICS:
            row[m] = round(self[m].mean, ndigits)
        row["ci"] = {m: self[m].to_list(ndigits) for m in METRICS}
        return row


def aggregate(config: str, budget: int, scores: Sequence[QueryScores], *,
              resamples: int = RESAMPLES, seed: int = SEED) -> MetricSet:
    """Means over queries with 95 % bootstrap intervals (the same resamples for every metric)."""
    scores = tuple(scores)
    idx = resample_indices(len(scores), resamples, seed)
    estimates = {}
    for m, attr in METRICS.items():
        estimates[m] = bootstrap([getattr(s, attr) for s in scores], indices=idx)
    return MetricSet(config, budget, scores, MappingProxyType(estimates))
