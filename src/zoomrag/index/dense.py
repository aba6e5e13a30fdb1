"""Dense search over an index: the exact matrix below the ANN threshold, the HNSW graph above.

The graph is updated (or rebuilt) at the end of a write, except after one that only added a
few units (:data:`DEFER_SHARE`). Until the writer has saved it,
readers search the graph as last saved and score the units added since exactly (read from the
file in one range scan: rows are never reused, so they are the rows above the graph's last);
units removed since are dropped when the hits are looked up in the reader's snapshot. A reader
therefore never loads the whole matrix because a write is under way (1.5 GB and seconds at 1M
units, per reader). The matrix answers only below the threshold, or when the graph is missing
or the units added since it are more than :data:`STALE_DELTA`.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np

from ..search.ann import AnnIndex, available_backend
from ..search.dense import ExactSearch, MatrixCache
from ..search.filters import RowRanges, positions, row_ranges
from ..store import SqliteStore
from ..store.sqlite import Selection
from .settings import Settings

#: Units added since the saved graph that readers score exactly beside it; more: exact search.
STALE_DELTA = 50_000
#: A write that only added units, no more than this share of the saved graph (and at most
#: STALE_DELTA), leaves the graph as it is: readers score the new units exactly beside it, and the
#: write that passes the share updates it. At 1M units an update rewrites 1.3 GB of files (tens
#: of seconds), which one small document a write would otherwise pay each time.
DEFER_SHARE = 0.02
#: Seconds a reader keeps searching a stale graph (and the units added since) before it looks
#: again for a fresh one: looking reads the graph's description file.
RECHECK_STALE_S = 1.0


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
        #: ``(generation, graph's last row)`` -> the units above it, scored exactly beside a stale graph.
        self._delta: tuple[tuple[int, int], ExactSearch | None] | None = None
        #: ``(generation, when, saved graph, units added since)`` while the graph is not fresh.
        self._stale: tuple[int, float, AnnIndex | None, ExactSearch | None] | None = None
        #: The last selection (kept per generation by the caller) and the graph rows it keeps.
        self._rows: tuple[Selection, AnnIndex, RowRanges] | None = None

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
            rows = self.store.unit_rows()
            added = AnnIndex.added_only(self.store.path, backend, rows)
            if added is not None and 0 < added <= min(STALE_DELTA, DEFER_SHARE * (len(rows) - added)):
                self.graph = None
                self.last_change = f"deferred: {added:,} units added since the graph, searched exactly beside it"
                return True
            fresh = self._updated(backend, generation, rows)
        if fresh is None:
            exact = self._matrix.get(generation)
            fresh = AnnIndex.build(backend, exact.ids, exact.matrix, generation, rescore=self._vectors)
            self._matrix.invalidate()
            fresh.save(self.store.path)
            self.last_change = f"built over {len(fresh):,} units"
        self.graph = fresh
        return True

    def _updated(self, backend: str, generation: int, rows: np.ndarray) -> AnnIndex | None:
        """The saved graph brought up to the unit ``rows`` at ``generation`` by inserting and
        removing what changed; None when there is none to update or it must be rebuilt."""
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
        """The ``k`` nearest unit rows; ``selection``: only units of these documents (a filter's).
        Asked for as many as there are, the answer is every unit: scored exactly, as a graph walk
        may miss a few (more so after removals)."""
        if self._graph_applies(generation) and k < self.units(generation):
            graph, delta = self._graph_at(generation)
            if graph is not None:
                if selection is None:
                    found = graph.search(query, k)
                    if delta is not None:
                        found += delta.search(query, k)
                else:
                    found = graph.search_within(query, k, self._graph_rows(selection, graph))
                    if delta is not None:
                        found += delta.search(query, k, within=positions(selection.first, selection.count,
                                                                         delta.ids))
                if delta is None:
                    return found
                found.sort(key=lambda f: (-f[1], f[0]))
                return found[:k]
        exact = self._matrix.get(generation)
        if selection is None:
            return exact.search(query, k)
        return exact.search(query, k, within=positions(selection.first, selection.count, exact.ids))

    def _graph_rows(self, selection: Selection, graph: AnnIndex) -> RowRanges:
        """The graph rows of a selection; the same objects give the same ranges, reused."""
        kept = self._rows
        if kept is not None and kept[0] is selection and kept[1] is graph:
            return kept[2]
        rows = row_ranges(selection.first, selection.count, graph.ids)
        self._rows = (selection, graph, rows)
        return rows

    def _graph_at(self, generation: int) -> tuple[AnnIndex | None, ExactSearch | None]:
        """The graph to search at ``generation``: the fresh one; else, while a writer has not yet
        saved it (or left it, having added only a few units), the one last saved with the units
        added since (exactly); else none."""
        if self.graph is not None and self.graph.generation == generation:
            return self.graph, None
        kept = self._stale
        now = time.monotonic()
        if kept is not None and kept[0] == generation and now - kept[1] < RECHECK_STALE_S:
            return kept[2], kept[3]
        self.graph = AnnIndex.load_if_fresh(self.store.path, generation, self.settings.dimension,
                                            self._vectors)
        if self.graph is not None:
            self._stale = None
            return self.graph, None
        saved = AnnIndex.load_saved(self.store.path, self.settings.dimension, self._vectors)
        found: tuple[AnnIndex | None, ExactSearch | None] = (None, None)
        if saved is not None:
            top = int(saved.ids[-1]) if len(saved) else -1
            if self._delta is None or self._delta[0] != (generation, top):
                after = self.store.unit_matrix_after(top, self.settings.dimension, STALE_DELTA)
                self._delta = ((generation, top), None if after is None else ExactSearch(*after))
            if self._delta[1] is not None:
                found = (saved, self._delta[1])
        # kept for this generation (a graph saved meanwhile is picked up within RECHECK_STALE_S):
        # the same objects query after query, so their per-filter memos hold
        self._stale = (generation, now, *found)
        return found

    def search_started(self, query: np.ndarray, k: int, generation: int,
                       selection: Selection | None = None) -> Callable[[], list[tuple[int, float]]]:
        """:meth:`search`, done now (a server store's search runs beside the caller's next reads)."""
        found = self.search(query, k, generation, selection)
        return lambda: found

    def describe(self, generation: int) -> str:
        """The graph's state for ``zoomrag stats``."""
        if self.settings.pins is None or self.units(generation) < self.threshold:
            return "none"
        if self.backend() is None:
            return "not installed (pip install 'zoomrag[ann]')"
        fresh = AnnIndex.load_if_fresh(self.store.path, generation, self.settings.dimension)
        if fresh:
            return f"{fresh.backend.name}, fresh"
        added = AnnIndex.added_only(self.store.path, self.backend() or "", self.store.unit_rows())
        if added is not None:
            return f"{added:,} units added since the graph, searched exactly beside it"
        return "stale (updated by the next write)"
