"""Reciprocal rank fusion (Cormack, Clarke & Buettcher, SIGIR 2009).

``score(d) = sum_r w_r / (k + rank_r(d))`` over the rankers that returned ``d``, rank from 1.
Scores of different rankers are not comparable (cosine vs. BM25), ranks are; ``k = 60`` is
the paper's value. Every fused result keeps each ranker's own score and rank.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass

from ..errors import ConfigError


@dataclass(frozen=True, slots=True)
class Fused:
    key: Hashable
    score: float
    #: ``{ranker: (its score, its rank from 1)}`` for the rankers that returned the key.
    ranks: Mapping[str, tuple[float, int]]


def reciprocal_rank_fusion(rankings: Mapping[str, Sequence[tuple[Hashable, float]]], k: float = 60.0,
                           weights: Mapping[str, float] | None = None) -> list[Fused]:
    """Fuse ranked lists (best first); ties broken by the best single rank, then first seen."""
    if k < 0:
        raise ConfigError(f"rrf k={k} must be >= 0 (60 is the usual value)")
    weights = dict(weights or {})
    unknown = sorted(set(weights) - set(rankings))
    if unknown:
        raise ConfigError(f"weights for unknown rankers {unknown}; rankers here: {sorted(rankings)}")
    total: dict[Hashable, float] = {}
    ranks: dict[Hashable, dict[str, tuple[float, int]]] = {}
    for name, ranked in rankings.items():
        w = weights.get(name, 1.0)
        for rank, (key, score) in enumerate(ranked, start=1):
            total[key] = total.get(key, 0.0) + w / (k + rank)
            ranks.setdefault(key, {})[name] = (float(score), rank)
    order = sorted(total, key=lambda key: (-total[key], min(r for _, r in ranks[key].values())))
    return [Fused(key, total[key], ranks[key]) for key in order]


def single_ranking(name: str, ranked: Sequence[tuple[Hashable, float]]) -> list[Fused]:
    """One ranker's list in the same shape (its own score is the score)."""
    return [Fused(key, float(score), {name: (float(score), rank)})
            for rank, (key, score) in enumerate(ranked, start=1)]
