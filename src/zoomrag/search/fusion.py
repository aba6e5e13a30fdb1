"""How hybrid search joins its two rankings: a weighted sum of normalised scores, or ranks.

**Convex** (the default): each ranker's scores are scaled to [0, 1] between its top score and
its score at rank :data:`DEPTH` (lower ones clamp at 0, so the scale does not change with how
many candidates were asked for; in a shorter list, its last score, or the ranker's own floor
when the list holds every unit it scores above it: ``floors``, BM25's 0 for a unit holding
none of the query's terms, when it found fewer units than were asked for), and a unit's fused score is ``sum_r w_r * scaled_r(d)``, a
ranker that did not return it adding 0; weights :data:`WEIGHTS`, dense 0.7 and BM25 0.3. A
score keeps how far apart two units are, which a rank throws away: a question worded as its
asker would word it, sharing few words with the passage that answers it, gets BM25 hits that
hold its common words, and reciprocal ranks gave them as much say as the dense ranking's clear
first (Bruch, Gai & Ingber, "An Analysis of Fusion Functions for Hybrid Retrieval", TOIS 2023,
found the same). Measured on eight sets (docs/benchmarks.md, "Hybrid fusion"): the mean
reciprocal rank of the first unit holding evidence rises on seven of them, by up to 0.13.

**Reciprocal rank** (Cormack, Clarke & Buettcher, SIGIR 2009): ``score(d) = sum_r w_r / (k +
rank_r(d))``, rank from 1, ``k = 60``, every weight 1 unless given.

Every fused result keeps each ranker's own score and rank.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

from ..errors import ConfigError

Fusion = Literal["convex", "rrf"]
FUSIONS: tuple[Fusion, ...] = ("convex", "rrf")
#: Convex fusion's weights when none are given (given weights: a ranker not named gets 0).
WEIGHTS: Mapping[str, float] = {"dense": 0.7, "bm25": 0.3}
#: The rank whose score is a ranker's 0 in convex fusion (or its last, in a shorter list).
DEPTH = 100


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
    weights = _checked(rankings, weights or {}, default=1.0)
    total: dict[Hashable, float] = {}
    ranks: dict[Hashable, dict[str, tuple[float, int]]] = {}
    for name, ranked in rankings.items():
        w = weights.get(name, 1.0)
        for rank, (key, score) in enumerate(ranked, start=1):
            total[key] = total.get(key, 0.0) + w / (k + rank)
            ranks.setdefault(key, {})[name] = (float(score), rank)
    return _ordered(total, ranks)


def _checked(rankings: Mapping[str, object], weights: Mapping[str, float], default: float) -> dict[str, float]:
    """``weights`` for the rankers here (an unnamed one ``default``); refused when one names no
    ranker or is negative."""
    unknown = sorted(set(weights) - set(rankings))
    if unknown:
        raise ConfigError(f"weights for unknown rankers {unknown}; rankers here: {sorted(rankings)}")
    for name, w in weights.items():
        if not w >= 0:  # also NaN
            raise ConfigError(f"weight {name}={w} must be a number >= 0")
    return {name: weights.get(name, default) for name in rankings}


def _ordered(total: dict[Hashable, float], ranks: dict[Hashable, dict[str, tuple[float, int]]]) -> list[Fused]:
    order = sorted(total, key=lambda key: (-total[key], min(r for _, r in ranks[key].values())))
    return [Fused(key, total[key], ranks[key]) for key in order]


def convex_fusion(rankings: Mapping[str, Sequence[tuple[Hashable, float]]],
                  weights: Mapping[str, float] | None = None, depth: int = DEPTH,
                  floors: Mapping[str, float] | None = None) -> list[Fused]:
    """Fuse ranked lists (best first) by their scores scaled to [0, 1] (this module's first
    part); ties broken by the best single rank, then first seen. ``floors``: the score below
    which a ranker (named) returned nothing, for a list shorter than ``depth``.

    Without a floor, the last of a short list scales to 0: when BM25 finds a rare name in two
    units, the second would count as if it held none of it."""
    if depth < 1:
        raise ConfigError(f"fusion depth={depth} must be at least 1")
    if weights is None:  # the defaults for the rankers here; any other gets an equal share
        weights = {name: WEIGHTS.get(name, 1 / len(rankings)) for name in rankings}
    weights = _checked(rankings, weights, default=0.0)
    total: dict[Hashable, float] = {}
    ranks: dict[Hashable, dict[str, tuple[float, int]]] = {}
    for name, ranked in rankings.items():
        w = weights.get(name, 0.0)
        if not ranked:
            continue
        top = float(ranked[0][1])
        if len(ranked) < depth and floors is not None and name in floors:
            floor = min(float(floors[name]), float(ranked[-1][1]))
        else:
            floor = float(ranked[min(depth, len(ranked)) - 1][1])
        span = top - floor
        for rank, (key, score) in enumerate(ranked, start=1):
            scaled = 1.0 if span <= 0 else min(1.0, max(0.0, (float(score) - floor) / span))
            total[key] = total.get(key, 0.0) + w * scaled
            ranks.setdefault(key, {})[name] = (float(score), rank)
    return _ordered(total, ranks)


def bm25_weights(bm25_weight: float) -> dict[str, float]:
    """Convex fusion's weights giving BM25 ``bm25_weight`` (0 to 1) and dense search the rest."""
    if not 0 <= bm25_weight <= 1:  # also NaN
        raise ConfigError(f"bm25 weight {bm25_weight} must be between 0 and 1 (dense search gets the rest; "
                          f"the default is {WEIGHTS['bm25']})")
    return {"dense": 1.0 - bm25_weight, "bm25": float(bm25_weight)}


def check_fusion(fusion: str) -> None:
    if fusion not in FUSIONS:
        raise ConfigError(f"unknown fusion {fusion!r}; choose one of: {', '.join(FUSIONS)}")


def fuse(rankings: Mapping[str, Sequence[tuple[Hashable, float]]], fusion: str = "convex",
         weights: Mapping[str, float] | None = None, rrf_k: float = 60.0,
         floors: Mapping[str, float] | None = None) -> list[Fused]:
    """Fuse by ``fusion``: ``convex`` (:func:`convex_fusion`, with ``floors``) or ``rrf``
    (:func:`reciprocal_rank_fusion`)."""
    check_fusion(fusion)
    if fusion == "convex":
        return convex_fusion(rankings, weights, floors=floors)
    return reciprocal_rank_fusion(rankings, k=rrf_k, weights=weights)


def single_ranking(name: str, ranked: Sequence[tuple[Hashable, float]]) -> list[Fused]:
    """One ranker's list in the same shape (its own score is the score)."""
    return [Fused(key, float(score), {name: (float(score), rank)})
            for rank, (key, score) in enumerate(ranked, start=1)]
