"""What ``zoomrag stats`` and ``zoomrag check`` report about an index file."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from ..errors import StoreError
from ..model import ANCHORS_KEY
from ..parse import PARSER_VERSION
from ..search.ann import AnnIndex
from ..store import Pins, Store
from .dense import DenseSearch
from .reports import CheckReport, IndexStats
from .server_dense import ServerDense

#: Metadata keys ``stats`` lists, at most.
METADATA_KEYS = 40


def stats_of(store: Store, pins: Pins | None, dense: DenseSearch | ServerDense, *, headings: bool) -> IndexStats:
    counts, sizes = store.counts(), store.table_bytes()
    path = store.path
    file_bytes = store.disk_bytes()
    without = sum(size for name, size in sizes.items() if name != "vectors") if sizes else file_bytes
    generation = store.generation()
    return IndexStats(
        path=str(path), documents=counts["documents"], characters=counts["characters"],
        nodes=counts["nodes"], units=counts["units"], vectors=counts["vectors"], file_bytes=file_bytes,
        bytes_without_vectors=without,
        embedder=f"{pins.embedder} ({pins.embedder_version}, {pins.dimension}-d)" if pins else "not pinned yet",
        chunking=(pins.describe_chunking() + ("; units embed their heading trails" if headings else ""))
        if pins else "not pinned yet",
        generation=generation, ann=dense.describe(generation),
        older_readings=sum(r.parser < PARSER_VERSION for r in store.document_readings().values()),
        metadata_keys=tuple((k, n) for k, n in store.metadata_keys(METADATA_KEYS) if k != ANCHORS_KEY))


def check_of(store: Store, pins: Pins | None) -> CheckReport:
    """SQLite's integrity check, vectors, FTS agreement and the ANN graph; never raises."""
    path = str(store.path)
    problems = store.problems(pins.dimension if pins else None)
    try:
        counts = store.counts()
    except (StoreError, sqlite3.DatabaseError) as e:
        return CheckReport(path, False, (*problems, f"could not count the index: {e}"), {})
    if pins is not None and isinstance(store.path, Path):  # the ANN graph file beside an index file
        try:
            ann = AnnIndex.problem(store.path, store.generation())
        except (StoreError, sqlite3.DatabaseError):
            ann = None
        if ann is not None:
            problems.append(ann)
    if pins is None and counts["documents"]:
        problems.append("documents are stored but no embedder or strategy is pinned")
    return CheckReport(path, not problems, tuple(problems), counts)
