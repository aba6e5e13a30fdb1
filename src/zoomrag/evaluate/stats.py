"""Bootstrap confidence intervals over queries (percentile method, fixed seed).

Queries are the unit of resampling: a 95 % interval says how much a mean would move if the
same system were scored on another draw of questions like these. Paired comparisons resample
the per-query *difference*, so the shared difficulty of a query cancels out.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import EvalError

RESAMPLES = 1000
SEED = 0
LEVEL = 0.95


@dataclass(frozen=True, slots=True)
class Estimate:
    """A mean and its bootstrap interval ``[low, high]``."""

    mean: float
    low: float
    high: float

    @property
    def half_width(self) -> float:
        return (self.high - self.low) / 2

    def to_list(self, ndigits: int = 4) -> list[float]:
        return [round(self.low, ndigits), round(self.high, ndigits)]


def resample_indices(n: int, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """``resamples x n`` query indices drawn with replacement; share them across metrics."""
    if n <= 0:
        raise EvalError("no queries to bootstrap over; the dataset or the result is empty")
    return np.random.default_rng(seed).integers(0, n, size=(resamples, n))


def bootstrap(values: Sequence[float] | np.ndarray, *, resamples: int = RESAMPLES, seed: int = SEED,
              level: float = LEVEL, indices: np.ndarray | None = None) -> Estimate:
    """Mean of ``values`` with a percentile bootstrap interval."""
    v = np.asarray(values, dtype=float)
    idx = resample_indices(len(v), resamples, seed) if indices is None else indices
    means = v[idx].mean(axis=1)
    alpha = (1 - level) / 2
    low, high = np.quantile(means, [alpha, 1 - alpha])
    mean = float(v.mean())
    # Quantiles of a resampled mean can miss the mean by a rounding hair; keep low <= mean <= high.
    return Estimate(mean, float(min(low, mean)), float(max(high, mean)))


def paired_bootstrap(a: Sequence[float] | np.ndarray, b: Sequence[float] | np.ndarray, *,
                     resamples: int = RESAMPLES, seed: int = SEED, level: float = LEVEL) -> Estimate:
    """Mean of ``a - b`` over the same queries, with its interval."""
    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.shape != y.shape:
        raise EvalError(f"paired comparison needs the same queries on both sides ({len(x)} vs {len(y)})")
    return bootstrap(x - y, resamples=resamples, seed=seed, level=level)


def percentile(values: Sequence[float], q: float) -> float:
    """Linear-interpolated percentile (``q`` in 0..100); NaN for no values."""
    return float(np.percentile(np.asarray(values, dtype=float), q)) if len(values) else float("nan")
