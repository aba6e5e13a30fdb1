"""Dense search over a store that searches vectors itself (PostgreSQL's pgvector HNSW index).

Below the ANN threshold it is the file store's exact search: one matrix product over every
unit vector, read once per generation, so both stores return the same hits. Above it, queries
go to the server's HNSW index (nothing is kept beside the index: there is no file).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from ..search.dense import MatrixCache
from ..search.filters import positions
from ..store.base import VectorSearchStore
from ..store.sqlite import Selection
from .settings import Settings


class ServerDense:
    """The dense search of :class:`~zoomrag.index.dense.DenseSearch` for a server store."""

    def __init__(self, store: VectorSearchStore, settings: Settings, *, threshold: int):
        self.store = store
        self.settings = settings
        self.threshold = threshold
        self._matrix = MatrixCache(lambda: store.unit_matrix(settings.dimension))
        self._unit_count: tuple[int, int] | None = None
        #: What the last :meth:`refresh` did (the server keeps its index up to date itself).
        self.last_change = ""

    def units(self, generation: int) -> int:
        """Embedded units at ``generation`` (counted once per generation)."""
        if self._unit_count is None or self._unit_count[0] != generation:
            self._unit_count = (generation, self.store.unit_count())
        return self._unit_count[1]

    def refresh(self) -> bool:
        """Whether queries now go to the server's vector index (it is updated by every write)."""
        self.last_change = ""
        if self.settings.pins is None:
            return False
        if self.units(self.store.generation()) < self.threshold:
            return False
        self.store.build_vector_index()  # pgvector's is made when the index reaches the threshold
        self._matrix.invalidate()  # the server answers from now on: free the matrix
        return True

    def search(self, query: np.ndarray, k: int, generation: int,
               selection: Selection | None = None) -> list[tuple[int, float]]:
        """The ``k`` nearest unit rows; ``selection``: only units of these documents."""
        if self.units(generation) >= self.threshold:
            return self.store.nearest(query, k, selection)
        exact = self._matrix.get(generation)
        if selection is None:
            return exact.search(query, k)
        return exact.search(query, k, within=positions(selection.first, selection.count, exact.ids))

    def search_started(self, query: np.ndarray, k: int, generation: int,
                       selection: Selection | None = None) -> Callable[[], list[tuple[int, float]]]:
        """:meth:`search` started on the server beside the caller's next reads; call the result for
        the rows."""
        if self.units(generation) >= self.threshold:
            return self.store.nearest_started(query, k, selection)
        found = self.search(query, k, generation, selection)
        return lambda: found

    def describe(self, generation: int) -> str:
        if self.settings.pins is None or self.units(generation) < self.threshold:
            return f"none (exact search below {self.threshold:,} units)"
        return self.store.describe_vectors()
