"""Approximate nearest neighbours (HNSW) for large indexes, persisted beside the index file.

Exact search is the reference and stays the default below :data:`ANN_THRESHOLD` units, where
one matrix product is already fast enough. Above it, an HNSW graph answers in about a
millisecond. The graph lives in ``<index>.ann`` with ``<index>.ann.json`` recording the
store generation it was built at and a checksum of each file; a stale, missing or damaged graph
is never used (queries fall back to exact search: a garbled graph would crash the process when
loaded). At the end of each write the writer updates it (new rows inserted, removed ones
marked deleted), or rebuilds it when too much of it was removed.

The usearch graph keeps its vectors in half precision (:data:`DTYPE`): it builds and searches
about twice as fast as in float32 and takes half the space. Its scores are then only close to the
cosines, so when the caller can give the float32 vectors (``rescore``), the graph returns
:data:`RESCORE_FACTOR` times more candidates and they are scored exactly and re-ranked, which
also repairs the order that rounding disturbed (docs/benchmarks.md, "Dense search alone").

A filter's units are found without the graph while they are few enough: ``<index>.ann.i8.npy``
holds an int8 copy of each vector (one byte a dimension, scaled per row, memory-mapped), scanned
with NumKong's int8 angular kernel, and the best candidates rescored in float32
(:meth:`AnnIndex.search_within`). The usearch Python binding takes no filter predicate for the
graph walk, so the graph answers only filters that keep a large share of it.

Backends are optional (the ``ann`` extra) and imported only when used; the choice between
them was made by measurement (docs/index.md).
"""

from __future__ import annotations

import json
import os
import zlib
from collections import OrderedDict
from collections.abc import Callable
from pathlib import Path
from threading import Lock
from typing import Any, Protocol

import numpy as np

from .. import defaults
from ..errors import ConfigError
from .dense import top_k
from .filters import RowRanges

#: Units from which an ANN graph is built and used (measured in docs/index.md; in defaults, as
#: the PostgreSQL store builds its HNSW index from there too).
ANN_THRESHOLD = defaults.ANN_THRESHOLD
#: HNSW parameters: graph degree, build and search beam widths. Measured on embedding-like
#: vectors (docs/benchmarks.md, "Dense search alone"): at 1M, expansion 128 at build and ef 256
#: give recall@10 0.997 in 2-3 ms of CPU; expansion 64 builds in half the time but reaches only
#: 0.85-0.93, and no ef makes up for it.
CONNECTIVITY = 16
EF_CONSTRUCTION = 128
EF_SEARCH = 256
#: Storage of the vectors inside the usearch graph (``f32``, ``f16`` or ``i8``).
DTYPE = "f16"
#: Candidates taken from the graph per result wanted, when they are rescored exactly.
RESCORE_FACTOR = 2
#: A filter's units are scanned (int8 copies, then float32 rescoring) while
#: ``units² <= SCAN_WITHIN * k * graph size``, else found through the graph. The scan costs a
#: fixed time per unit, the graph a time per candidate, and it needs ``FILTER_MARGIN * 2k / share``
#: of them, so the two meet where ``units²`` is a multiple of ``k * size``: measured between
#: 200,000 and 300,000 units at k = 100 in 1M (docs/benchmarks.md, "Filtered search").
SCAN_WITHIN = 600
#: Filtered search through the graph asks for ``margin * RESCORE_FACTOR * k / share`` candidates
#: with a beam of at least :func:`filter_ef`. Measured against exact search on the subset (10 %
#: filter, 300k units): k = 10 needs a margin of 8 for recall 0.95 (2: 0.83, 4: 0.90); k = 50
#: reaches 0.96 with 4 (8: 0.996 at twice the time). With 1.5 and the unfiltered beam, recall@10
#: was 0.68 (docs/benchmarks.md, "Filtered search").
FILTER_MARGIN = 8
FILTER_MARGIN_MIN = 4
FILTER_EF = 2 * EF_SEARCH


def filter_margin(k: int, share: float = 0.0) -> float:
    """How many more candidates than needed a filtered graph search asks for: 8 for k = 10,
    falling with sqrt(k) (deeper lists need fewer spare candidates) to at least 4, and towards 1
    as the filter's ``share`` of the graph grows (a filter keeping most units barely changes
    which candidates rank first)."""
    margin = max(FILTER_MARGIN_MIN, FILTER_MARGIN * (10 / max(k, 1)) ** 0.5)
    return 1 + (margin - 1) * (1 - min(max(share, 0.0), 1.0))


def filter_ef(share: float) -> int:
    """The least beam of a filtered graph search: ``FILTER_EF`` for a selective filter, falling
    towards the unfiltered beam as the filter keeps more of the graph (its candidates then lie
    barely deeper than an unfiltered search's)."""
    return round(EF_SEARCH + (FILTER_EF - EF_SEARCH) * (1 - min(max(share, 0.0), 1.0)))


def scan_within(units: int, k: int, size: int) -> bool:
    """Whether ``units`` of a filter are scanned rather than searched through a graph of ``size``."""
    return units * units <= SCAN_WITHIN * max(k, 1) * size


def quantize(matrix: np.ndarray) -> np.ndarray:
    """Int8 copies of vectors, each row scaled so that its largest component is ±127. Compared
    by cosine (which ignores each row's scale) they rank as the float32 vectors do, to within
    rounding (half a step in 127 per component)."""
    m = np.asarray(matrix, dtype=np.float32)
    if m.ndim == 1:
        m = m[None, :]
    top = np.abs(m).max(axis=1, keepdims=True) if m.size else np.ones((m.shape[0], 1), np.float32)
    return np.rint(m * (127.0 / np.where(top > 0, top, 1.0))).astype(np.int8)


def quantize_many(matrix: np.ndarray) -> np.ndarray:
    """:func:`quantize` in slices of :data:`BUILD_BATCH` rows (bounded temporary memory)."""
    return np.concatenate([quantize(matrix[s:s + BUILD_BATCH]) for s in range(0, max(1, len(matrix)), BUILD_BATCH)])


def scan_ranges(codes: np.ndarray, ranges: RowRanges, query: np.ndarray, count: int) -> tuple[np.ndarray, np.ndarray]:
    """``(row positions, approximate cosines)`` of the ``count`` rows of an int8 matrix nearest
    to ``query`` inside ``ranges``, best first, with no graph.

    Each range is scanned in place with NumKong's int8 angular kernel (AVX-512/VNNI where the
    CPU has them; usearch's exact search took five times longer). A filter keeps whole
    documents, whose units are consecutive rows, so there are few ranges, and copying the kept
    rows out first cost more than scoring them (a 10 % filter of 1M units: 38 MB, ~10 ms).
    """
    import numkong

    matrix = np.asarray(codes)  # a plain view: slicing a np.memmap costs ~10 us a slice
    q = quantize(query)
    sizes = ranges.hi - ranges.lo
    firsts = np.cumsum(sizes) - sizes
    out = np.empty((int(sizes.sum()), 1), dtype=np.float32)
    # rows against the query, not the query against rows: NumKong's fast path (5x)
    for a, b, f in zip(ranges.lo.tolist(), ranges.hi.tolist(), firsts.tolist()):
        numkong.cdist(matrix[a:b], q, metric="angular", out=out[f:f + b - a])
    distance = out.ravel()
    best = top_k(-distance, min(count, len(distance)))
    # position j of the output lies in range r = the last whose first position is <= j
    r = np.searchsorted(firsts, best, side="right") - 1
    return ranges.lo[r] + (best - firsts[r]), 1.0 - distance[best]


#: A graph is rebuilt rather than updated once the rows removed since its build would pass this
#: share of the live ones: removed rows still take memory and slots in the search beam.
REBUILD_DEAD_SHARE = 0.25
#: Vectors added to the graph per call while building (bounds the temporary copies).
BUILD_BATCH = 100_000

#: ``rescore(ids)``: the float32 vectors of the units with these node ids, one row each, in order.
Rescore = Callable[[np.ndarray], np.ndarray]
#: Saved graphs this process has opened, kept for the next handle on the same file (see
#: :meth:`AnnIndex.load_if_fresh`); at most this many.
KEEP_OPEN = 4


def build_threads() -> int:
    """Threads for building a graph: every core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on Linux
        return max(1, os.cpu_count() or 1)


class AnnBackend(Protocol):
    """One HNSW implementation: labels are row numbers into the ids array."""

    name: str
    #: The search beam width now in use.
    ef_search: int

    def build(self, matrix: np.ndarray, threads: int) -> None: ...

    def search(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        """``(rows, cosine scores)`` best first."""
        ...

    def set_ef(self, ef_search: int) -> None:
        """The search beam width (more: better recall, slower)."""
        ...

    def add(self, labels: np.ndarray, matrix: np.ndarray, threads: int) -> None:
        """Insert these vectors under these labels (the next row numbers) into a built graph."""
        ...

    def remove(self, labels: np.ndarray) -> None:
        """Leave these labels out of every later search (removing one twice is harmless)."""
        ...

    def save(self, path: Path) -> None: ...

    def load(self, path: Path, dimension: int, writable: bool = False) -> None: ...


class UsearchBackend:
    name = "usearch"

    def __init__(self, dimension: int, ef_search: int = EF_SEARCH, dtype: str = DTYPE):
        from usearch.index import Index

        self._new = lambda: Index(ndim=dimension, metric="ip", dtype=dtype, connectivity=CONNECTIVITY,
                                  expansion_add=EF_CONSTRUCTION, expansion_search=ef_search)
        self.ef_search = ef_search
        self.dtype = dtype
        self._index: Any = None

    def build(self, matrix: np.ndarray, threads: int) -> None:
        self._index = self._new()
        self.add(np.arange(matrix.shape[0]), matrix, threads)

    def add(self, labels: np.ndarray, matrix: np.ndarray, threads: int) -> None:
        # In slices: usearch converts each call's vectors to its dtype in a temporary copy.
        for start in range(0, matrix.shape[0], BUILD_BATCH):
            end = start + BUILD_BATCH
            self._index.add(labels[start:end].astype(np.uint64), matrix[start:end], threads=threads)

    def remove(self, labels: np.ndarray) -> None:
        self._index.remove(labels.astype(np.uint64))

    def set_ef(self, ef_search: int) -> None:
        self.ef_search = ef_search
        self._index.expansion_search = ef_search

    def search(self, query: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
        m = self._index.search(query, k)
        return np.asarray(m.keys, dtype=np.int64), 1.0 - np.asarray(m.distances, dtype=np.float32)

    def save(self, path: Path) -> None:
        self._index.save(str(path))

    def load(self, path: Path, dimension: int, writable: bool = False) -> None:
        self._index = self._new()
        if writable:
            self._index.load(str(path))
        else:
            self._index.view(str(path))  # memory-mapped: opening costs nothing, pages load on demand


BACKENDS: dict[str, Callable[..., AnnBackend]] = {
    "usearch": UsearchBackend,
}
#: The backend chosen by measurement (docs/index.md); the protocol leaves room for another.
DEFAULT_BACKEND = "usearch"


def available_backend(preferred: str | None = None) -> str | None:
    """The backend to use (``preferred`` when given), or None when it is not installed."""
    name = preferred or DEFAULT_BACKEND
    if name not in BACKENDS:
        raise ConfigError(f"unknown ANN backend {name!r}; choose one of: {', '.join(BACKENDS)}")
    try:
        __import__("usearch.index")
    except ImportError:
        return None
    return name


class AnnIndex:
    """An HNSW graph over the unit matrix, with the node ids of its rows and an int8 copy of
    their vectors (:func:`quantize`, one row per label) for filtered search.

    ``rescore`` (optional) gives the float32 vectors of node ids: results are then exact cosines,
    re-ranked among :data:`RESCORE_FACTOR` times more candidates than asked for.
    """

    def __init__(self, backend: AnnBackend, ids: np.ndarray, generation: int, rescore: Rescore | None = None,
                 dead: int = 0, codes: np.ndarray | None = None):
        self.backend = backend
        #: Node row of each label, ascending; rows removed since the build keep their label.
        self.ids = ids
        self.generation = generation
        self.rescore = rescore
        #: Labels removed since the build (still in ``ids``, never returned).
        self.dead = dead
        #: int8 vector of each label (None only for a graph saved before they were kept).
        self.codes = codes
        #: The last filter's rows and their mask: a filter asked again (one tenant's or one
        #: document's questions) costs no pass over the graph's million labels.
        self._mask: tuple[RowRanges, np.ndarray] | None = None

    def __len__(self) -> int:
        return int(self.ids.shape[0])

    @classmethod
    def build(cls, backend_name: str, ids: np.ndarray, matrix: np.ndarray, generation: int,
              threads: int | None = None, rescore: Rescore | None = None) -> AnnIndex:
        """Build the graph with ``threads`` (default: every available core)."""
        backend = BACKENDS[backend_name](matrix.shape[1])
        backend.build(np.ascontiguousarray(matrix, dtype=np.float32), threads or build_threads())
        return cls(backend, ids, generation, rescore, codes=quantize_many(matrix))

    def update(self, rows: np.ndarray, vectors: Rescore, generation: int,
               threads: int | None = None) -> tuple[int, int] | None:
        """Bring the graph to the store's unit ``rows`` (ascending) at ``generation``: insert the
        rows above its last one, remove the ones gone. Returns ``(added, removed)``, or None when
        it must be rebuilt instead (unchanged then): a row below its last one that it lacks, or
        too many removed rows.

        A write then costs time in proportion to what it changed, not to the index: at 1M units a
        rebuild takes over 20 minutes. The store never reuses a row number, so new rows sort last.
        """
        top = int(self.ids[-1]) if len(self.ids) else -1
        live = np.isin(self.ids, rows, assume_unique=True)
        new = rows[rows > top]
        kept = int(live.sum())
        if len(rows) - len(new) != kept:
            return None
        dead = len(self.ids) - kept
        # fewer removed rows than before: a removed row came back, which a store that never
        # reuses row numbers cannot do, so the graph does not belong to this store
        if dead < self.dead or dead > REBUILD_DEAD_SHARE * max(1, len(rows)):
            return None
        if self.codes is None:  # saved before int8 copies were kept: made once, here
            self.codes = np.concatenate([quantize(vectors(self.ids[s:s + BUILD_BATCH]))
                                         for s in range(0, max(1, len(self.ids)), BUILD_BATCH)])
        if dead > self.dead:
            self.backend.remove(np.flatnonzero(~live))
        if len(new):
            matrix = np.ascontiguousarray(vectors(new), dtype=np.float32)
            self.backend.add(np.arange(len(self.ids), len(self.ids) + len(new)), matrix, threads or build_threads())
            self.ids = np.concatenate([self.ids, new])
            self.codes = np.concatenate([self.codes, quantize(matrix)])
        removed, self.dead, self.generation = dead - self.dead, dead, generation
        return len(new), removed

    def search(self, query: np.ndarray, k: int) -> list[tuple[int, float]]:
        if len(self) == 0 or k < 1:
            return []
        q = np.asarray(query, dtype=np.float32)
        if self.rescore is None:
            rows, scores = self.backend.search(q, min(k, len(self)))
            return [(int(self.ids[r]), float(s)) for r, s in zip(rows, scores)]
        rows, _ = self.backend.search(q, min(RESCORE_FACTOR * k, len(self)))
        ids = self.ids[rows[rows >= 0]]
        exact = self.rescore(ids) @ q
        return [(int(ids[i]), float(exact[i])) for i in top_k(exact, k)]

    def search_within(self, query: np.ndarray, k: int, within: RowRanges) -> list[tuple[int, float]]:
        """The ``k`` nearest among the rows ``within`` (a filter's units), best first.

        Few of them (:func:`scan_within`): their int8 copies are scanned and the
        ``RESCORE_FACTOR * k`` best rescored. More: the graph is searched for enough candidates
        that ``k`` of them lie inside (``k / share`` and a margin), asking for 4x more until they
        do or the graph is exhausted, and the ones inside are rescored. Either way the filter
        applies before the top ``k`` is taken: a selective filter never gives fewer results.
        """
        n = within.count
        if n == 0 or k < 1 or len(self) == 0:
            return []
        q = np.asarray(query, dtype=np.float32)
        if self.codes is not None and scan_within(n, k, len(self)):
            found, scores = scan_ranges(self.codes, within, q, RESCORE_FACTOR * k)
            return self._rescored(self.ids[found], scores, q, k)
        kept = self._mask
        if kept is not None and kept[0] is within:
            inside = kept[1]
        else:
            inside = within.mask(len(self))
            self._mask = (within, inside)
        share = n / len(self)
        want = min(len(self), int(np.ceil(filter_margin(k, share) * RESCORE_FACTOR * k / share)) + 16)
        before = self.backend.ef_search
        try:
            while True:
                # a beam at least as wide as the list asked for, and wider than unfiltered search's:
                # the candidates inside a filter lie deeper in the ranking
                self.backend.set_ef(max(filter_ef(share), want))
                rows, scores = self.backend.search(q, want)
                valid = rows >= 0
                rows, scores = rows[valid], scores[valid]
                keep = inside[rows]
                if int(keep.sum()) >= RESCORE_FACTOR * min(k, n) or want >= len(self):
                    break
                want = min(len(self), 4 * want)
        finally:
            self.backend.set_ef(before)
        if int(keep.sum()) < min(k, n) and (self.rescore is not None or self.codes is not None):
            # Even exhausted, a graph walk can miss a few nodes: the kept units it did not reach
            # are scored directly, so a filter never gives fewer results than it keeps units.
            if self.codes is not None:
                found, sc = scan_ranges(self.codes, within, q, RESCORE_FACTOR * k)
                return self._rescored(self.ids[found], sc, q, k)
            rows = within.positions()
            return self._rescored(self.ids[rows], np.zeros(n, dtype=np.float32), q, k)
        # the best RESCORE_FACTOR * k of them, as an unfiltered search rescores
        best = RESCORE_FACTOR * k
        return self._rescored(self.ids[rows[keep]][:best], scores[keep][:best], q, k)

    def _rescored(self, ids: np.ndarray, scores: np.ndarray, q: np.ndarray, k: int) -> list[tuple[int, float]]:
        """The ``k`` best of candidates ranked best first: by exact cosine when ``rescore`` is given."""
        if self.rescore is None:
            return [(int(i), float(sc)) for i, sc in zip(ids[:k], scores[:k])]
        exact = self.rescore(ids) @ q
        return [(int(ids[i]), float(exact[i])) for i in top_k(exact, k)]

    # -- files beside the index -----------------------------------------------------------
    @staticmethod
    def paths(index_path: Path) -> tuple[Path, Path, Path, Path]:
        """The graph, its ids, its description (json) and the int8 vectors."""
        base = str(index_path)
        return (Path(base + ".ann"), Path(base + ".ann.ids.npy"), Path(base + ".ann.json"),
                Path(base + ".ann.i8.npy"))

    def save(self, index_path: Path) -> None:
        """Write graph, ids and int8 vectors first and the json last, each by atomic rename."""
        graph, ids, meta, codes = self.paths(index_path)
        tmp = Path(str(graph) + ".tmp")
        self.backend.save(tmp)
        os.replace(tmp, graph)
        for path, array in ((ids, self.ids), (codes, self.codes)):
            if array is None:
                continue
            with open(str(path) + ".tmp", "wb") as f:
                np.save(f, array)
            os.replace(str(path) + ".tmp", path)
        info = {"backend": self.backend.name, "generation": self.generation, "count": len(self),
                "dtype": getattr(self.backend, "dtype", "f32"), "dead": self.dead, "rows": "never reused",
                "graph_crc32": file_crc32(graph), "ids_crc32": file_crc32(ids)}
        if self.codes is not None:
            info["codes_crc32"] = file_crc32(codes)
        Path(str(meta) + ".tmp").write_text(json.dumps(info))
        os.replace(str(meta) + ".tmp", meta)

    @classmethod
    def load_if_fresh(cls, index_path: Path, generation: int, dimension: int,
                      rescore: Rescore | None = None) -> AnnIndex | None:
        """The saved graph when it was built at ``generation``; None when stale, missing, broken
        or saved without its int8 vectors (by an older zoomrag: the next write adds them).

        A graph this process already opened (same file, same generation, the file not replaced
        since) is shared, not opened again: every handle on an index (one per thread, or one per
        request) then searches one memory map, whose pages each new map would otherwise fault
        in again over its first queries (thousands of page faults, 2-3x slower searches).
        """
        return cls._load(index_path, dimension, rescore, generation)

    @classmethod
    def load_saved(cls, index_path: Path, dimension: int, rescore: Rescore | None = None) -> AnnIndex | None:
        """The saved graph at whatever generation it was saved (shared as :meth:`load_if_fresh`
        shares it): what readers search while a writer updates it (:mod:`zoomrag.index.dense`)."""
        return cls._load(index_path, dimension, rescore, None)

    @classmethod
    def _load(cls, index_path: Path, dimension: int, rescore: Rescore | None,
              generation: int | None) -> AnnIndex | None:
        graph, _, meta, _ = cls.paths(index_path)
        try:
            info = json.loads(meta.read_text())
        except (OSError, ValueError):
            return None
        if (not isinstance(info, dict) or info.get("backend") not in BACKENDS or "codes_crc32" not in info
                or not isinstance(info.get("generation"), int)
                or (generation is not None and info["generation"] != generation)):
            return None
        saved = int(info["generation"])
        try:
            st = graph.stat()
        except OSError:
            return None
        key = (str(Path(index_path).resolve()), saved, st.st_ino, st.st_mtime_ns, st.st_size)
        with _open_lock:
            shared = _open.get(key)
            if shared is not None:
                _open.move_to_end(key)
                return cls(shared[0], shared[1], saved, rescore, dead=int(info.get("dead", 0)), codes=shared[2])
        opened = cls._open_saved(index_path, info, dimension, writable=False)
        if opened is None:
            return None
        with _open_lock:
            _open[key] = opened
            while len(_open) > KEEP_OPEN:
                _open.popitem(last=False)
        return cls(opened[0], opened[1], saved, rescore, dead=int(info.get("dead", 0)), codes=opened[2])

    @classmethod
    def load_for_update(cls, index_path: Path, dimension: int, backend: str) -> AnnIndex | None:
        """The saved graph at whatever generation, in memory to be changed by :meth:`update`;
        None when missing, damaged, of another backend, or written before rows were never reused."""
        try:
            info = json.loads(cls.paths(index_path)[2].read_text())
        except (OSError, ValueError):
            return None
        if not isinstance(info, dict) or info.get("backend") != backend or "rows" not in info:
            return None
        opened = cls._open_saved(index_path, info, dimension, writable=True)
        if opened is None:
            return None
        return cls(opened[0], opened[1], int(info["generation"]), dead=int(info.get("dead", 0)), codes=opened[2])

    @classmethod
    def added_only(cls, index_path: Path, backend: str, rows: np.ndarray) -> int | None:
        """How many of the unit ``rows`` (ascending) lie above the saved graph's last one, when
        every other live row of the graph is still there and nothing else changed; else None."""
        _, ids_path, meta, _ = cls.paths(index_path)
        try:
            info = json.loads(meta.read_text())
            ids = np.load(ids_path, allow_pickle=False, mmap_mode="r")
        except (OSError, ValueError):
            return None
        if (not isinstance(info, dict) or info.get("backend") != backend or "rows" not in info
                or "codes_crc32" not in info or ids.shape[0] != info.get("count") or not len(ids)):
            return None
        added = len(rows) - int(np.searchsorted(rows, int(ids[-1]), side="right"))
        # no row of the graph removed since: as many live rows at or below its last as it keeps
        if len(rows) - added != len(ids) - int(info.get("dead", 0)):
            return None
        return added

    @classmethod
    def restamp(cls, index_path: Path, backend: str, rows: np.ndarray, generation: int) -> bool:
        """Mark the saved graph fresh at ``generation`` when it already holds exactly the unit
        ``rows`` (a write that changed no unit: metadata, a pinned policy); False otherwise."""
        _, ids_path, meta, _ = cls.paths(index_path)
        try:
            info = json.loads(meta.read_text())
            ids = np.load(ids_path, allow_pickle=False)
        except (OSError, ValueError):
            return False
        if (not isinstance(info, dict) or info.get("backend") != backend or "rows" not in info
                or "codes_crc32" not in info):
            return False
        live = int(np.isin(ids, rows, assume_unique=True).sum())
        if live != len(rows) or len(ids) - live != info.get("dead", 0) or ids.shape[0] != info.get("count"):
            return False
        # the checksums are copied, not recomputed: a damaged file still fails them when opened
        Path(str(meta) + ".tmp").write_text(json.dumps({**info, "generation": generation}))
        os.replace(str(meta) + ".tmp", meta)
        return True

    @staticmethod
    def _open_saved(index_path: Path, info: dict, dimension: int,
                    writable: bool) -> tuple[AnnBackend, np.ndarray, np.ndarray | None] | None:
        """Backend, ids and int8 vectors (None when the json records none; memory-mapped unless
        ``writable``) of the saved files, checked against their checksums."""
        graph, ids_path, _, codes_path = AnnIndex.paths(index_path)
        if damage(index_path, info) is not None:
            return None
        try:
            backend = BACKENDS[info["backend"]](dimension, **({"dtype": info.get("dtype", "f32")}
                                                              if info["backend"] == "usearch" else {}))
            backend.load(graph, dimension, writable=writable)
            ids = np.load(ids_path, allow_pickle=False)
            codes = None
            if "codes_crc32" in info:
                codes = np.load(codes_path, allow_pickle=False, mmap_mode=None if writable else "r")
        except (ImportError, OSError, ValueError, RuntimeError, EOFError, KeyError):
            return None
        if ids.shape[0] != info.get("count"):
            return None
        if codes is not None and (codes.shape != (ids.shape[0], dimension) or codes.dtype != np.int8):
            return None
        return backend, ids, codes

    @classmethod
    def problem(cls, index_path: Path, generation: int) -> str | None:
        """What is wrong with the saved graph of a fresh index (None: sound, stale or absent)."""
        try:
            info = json.loads(cls.paths(index_path)[2].read_text())
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            return "the ANN graph's description (.ann.json) is damaged; the next zoomrag index rebuilds it"
        if not isinstance(info, dict) or info.get("generation") != generation:
            return None
        found = damage(index_path, info)
        return None if found is None else f"{found}; queries search exactly, the next zoomrag index rebuilds it"

    @classmethod
    def remove(cls, index_path: Path) -> None:
        for p in cls.paths(index_path):
            p.unlink(missing_ok=True)
        where = str(Path(index_path).resolve())
        with _open_lock:
            for key in [k for k in _open if k[0] == where]:
                del _open[key]


def file_crc32(path: Path) -> int:
    """CRC-32 of a file, read in slices (about 1 GB/s: a 200k-unit graph in a fraction of a second)."""
    crc = 0
    with open(path, "rb") as f:
        while block := f.read(1 << 24):
            crc = zlib.crc32(block, crc)
    return crc


def damage(index_path: Path, info: dict) -> str | None:
    """Which saved file does not match the checksum recorded when it was written (None: both do)."""
    graph, ids, _, codes = AnnIndex.paths(index_path)
    checked = [(graph, "graph_crc32"), (ids, "ids_crc32")] + ([(codes, "codes_crc32")] if "codes_crc32" in info else [])
    for path, key in checked:
        if key not in info:
            return f"{path.name} has no recorded checksum (written by an older zoomrag)"
        try:
            if file_crc32(path) != info[key]:
                return f"{path.name} does not match its checksum (damaged)"
        except OSError as e:
            return f"{path.name} cannot be read ({e.strerror})"
    return None


#: The graphs kept by :meth:`AnnIndex.load_if_fresh`: (index path, generation, graph file's
#: inode, mtime and size) -> (backend, ids, int8 vectors).
_open: OrderedDict[tuple[str, int, int, int, int], tuple[AnnBackend, np.ndarray, np.ndarray | None]] = OrderedDict()
_open_lock = Lock()
