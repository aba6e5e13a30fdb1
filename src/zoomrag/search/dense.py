"""Exact dense search: one matrix product over every unit vector (the reference).

Vectors are unit length, so the inner product is the cosine similarity. The matrix is read
from the store once and kept; :class:`MatrixCache` reloads it when the store's generation
counter says something was written since.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Indices of the ``k`` largest scores, best first (ties by index, stable)."""
    n = scores.shape[0]
    if k <= 0 or n == 0:
        return np.zeros(0, dtype=np.int64)
    if k < n:
        # argpartition picks arbitrarily among scores tied at the cut; take the lowest indices
        # there so that results are deterministic (and equal to a stable sort).
        cut = scores[np.argpartition(-scores, k - 1)[k - 1]]
        above = np.flatnonzero(scores > cut)
        part = np.concatenate([above, np.flatnonzero(scores == cut)[:k - above.size]])
    else:
        part = np.arange(n)
    order = np.lexsort((part, -scores[part]))
    return part[order]


class ExactSearch:
    """Brute-force inner product over a float32 matrix whose rows are ``ids``."""

    def __init__(self, ids: np.ndarray, matrix: np.ndarray):
        if matrix.ndim != 2 or matrix.shape[0] != ids.shape[0]:
            raise ValueError(f"matrix {matrix.shape} does not match {ids.shape[0]} ids")
        self.ids = ids
        self.matrix = np.ascontiguousarray(matrix, dtype=np.float32)

    def __len__(self) -> int:
        return int(self.ids.shape[0])

    def search(self, query: np.ndarray, k: int, within: np.ndarray | None = None) -> list[tuple[int, float]]:
        """``(id, cosine)`` of the ``k`` nearest rows, best first; ``within``: only among the rows
        at these positions (a filter's units, :func:`zoomrag.search.filters.positions`)."""
        if len(self) == 0:
            return []
        q = np.asarray(query, dtype=np.float32)
        if within is None:
            scores = self.matrix @ q
            idx = top_k(scores, k)
            return [(int(self.ids[i]), float(scores[i])) for i in idx]
        sub = self.matrix[within] @ q
        return [(int(self.ids[within[i]]), float(sub[i])) for i in top_k(sub, k)]


class MatrixCache:
    """An :class:`ExactSearch` kept between queries, rebuilt when the generation changes."""

    def __init__(self, load: Callable[[], tuple[np.ndarray, np.ndarray]]):
        self._load = load
        self._generation: int | None = None
        self._search: ExactSearch | None = None

    def get(self, generation: int) -> ExactSearch:
        if self._search is None or generation != self._generation:
            ids, matrix = self._load()
            self._search = ExactSearch(ids, matrix)
            self._generation = generation
        return self._search

    def invalidate(self) -> None:
        self._search = None
        self._generation = None
