"""Dense search over an index: the exact matrix below the ANN threshold, the HNSW graph above.

The graph is updated (or rebuilt) at the end of each write and ignored while stale (queries
then search exactly); the matrix is freed once the graph answers (1.5 GB at 1M units).
"""

from __future__ import annotations

import numpy as np

from ..search.ann import AnnIndex, available_backend
from ..search.dense import MatrixCache
from ..search.filters import positions
from ..store import SqliteStore
from ..store.sqlite import Selection
from .settings import Settings


class DenseSearch:
    def __init__(self, store: SqliteStore, settings: Settings, *, ann: str, threshold: int):
        self.store = store
        self.settings = settings
        self.threshold = threshold
        self._mode = ann
        self._matrix = MatrixCache(lambda: store.unit_matrix(settings.dimension))
        self.graph: AnnIndex | None = None
        self._unit_count: tuple[int, int] | None = None
        #: What the last :meth:`refresh` did to the graph ("" when it did nothing).
        self.last_change = ""

    def units(self, generation: int) -> int:
        """Embedded units at ``generation`` (counted once per generation)."""
        if self._unit_count is None or self._unit_count[0] != generation:
            self._unit_count = (generation, self.store.unit_count())
        return self._unit_count[1]

    def backend(self) -> str | None:
        if self._mode == "off":
            return None
        return available_backend(None if self._mode == "auto" else self._mode)

    def _graph_applies(self, generation: int) -> bool:
        return self.backend() is not None and self.units(generation) >= self.threshold

    def refresh(self) -> bool:
        """Rebuild the graph beside the index when it is stale and the index is big enough."""
        if self.settings.pins is None:
            return False
        generation = self.store.generation()
        backend = self.backend()
        self.last_change = ""
        if backend is None or self.units(generation) < self.threshold:
            AnnIndex.remove(self.store.path)
            self.graph = None
            return False
        fresh = AnnIndex.load_if_fresh(self.store.path, generation, self.settings.dimension, self._vectors)
        if fresh is None:
            fresh = self._updated(backend, generation)
        if fresh is None:
            exact = self._matrix.get(generation)
            fresh = AnnIndex.build(backend, exact.ids, exact.matrix, generation, rescore=self._vectors)
            self._matrix.invalidate()
            fresh.save(self.store.path)
            self.last_change = f"built over {len(fresh):,} units"
        self.graph = fresh
        return True

    def _updated(self, backend: str, generation: int) -> AnnIndex | None:
        """The saved graph brought up to ``generation`` by inserting and removing what changed;
        None when there is none to update or it must be rebuilt."""
        rows = self.store.unit_rows()
        if AnnIndex.restamp(self.store.path, backend, rows, generation):
            return AnnIndex.load_if_fresh(self.store.path, generation, self.settings.dimension, self._vectors)
        old = AnnIndex.load_for_update(self.store.path, self.settings.dimension, backend)
        if old is None:
            return None
        change = old.update(rows, self._vectors, generation)
        if change is None:
            return None
        old.save(self.store.path)
        self.last_change = f"updated: {change[0]:,} units added, {change[1]:,} removed"
        # searched through a memory map of the saved file, like any other reader
        return AnnIndex.load_if_fresh(self.store.path, generation, self.settings.dimension, self._vectors)

    def _vectors(self, ids: np.ndarray) -> np.ndarray:
        """The float32 vectors of these node rows, in order (the graph's exact rescoring)."""
        dim = self.settings.dimension
        found = self.store.unit_vectors(int(i) for i in ids)
        zero = bytes(4 * dim)  # defensive: every row of a fresh graph has its vector
        m = np.frombuffer(b"".join(found.get(int(i), zero) for i in ids), dtype="<f4")
        return m.reshape(len(ids), dim).astype(np.float32, copy=False)

    def search(self, query: np.ndarray, k: int, generation: int,
               selection: Selection | None = None) -> list[tuple[int, float]]:
        """The ``k`` nearest unit rows; ``selection``: only units of these documents (a filter's)."""
        if self._graph_applies(generation):
            if self.graph is None or self.graph.generation != generation:
                self.graph = AnnIndex.load_if_fresh(self.store.path, generation, self.settings.dimension,
                                                    self._vectors)
            graph = self.graph
            if graph is not None:
                if selection is None:
                    return graph.search(query, k)
                return graph.search_within(query, k, positions(selection.first, selection.count, graph.ids))
        exact = self._matrix.get(generation)
        if selection is None:
            return exact.search(query, k)
        return exact.search(query, k, within=positions(selection.first, selection.count, exact.ids))

    def describe(self, generation: int) -> str:
        """The graph's state for ``zoomrag stats``."""
        if self.settings.pins is None or self.units(generation) < self.threshold:
            return "none"
        if self.backend() is None:
            return "not installed (pip install 'zoomrag[ann]')"
        fresh = AnnIndex.load_if_fresh(self.store.path, generation, self.settings.dimension)
        return f"{fresh.backend.name}, fresh" if fresh else "stale (updated by the next write)"
