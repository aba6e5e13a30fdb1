"""Copying an index from one store to another (a file into PostgreSQL, or back), vectors included.

Each document is read from the source (its tree, its units' vector keys and vectors) and written
to the target in one transaction, exactly as an indexing run writes it: nothing is parsed or
embedded again, so the target records the parser version the source's tree was made with. A copy
that is interrupted resumes where it stopped (documents already in the target with the same
content, format, parser version and metadata are skipped). The target must be empty or pinned
to the same embedder and chunking.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ..errors import IndexMismatchError, StoreError
from ..store import Pins, Store, UnitToWrite, is_server, open_store

#: Entries of ``index_meta`` that belong to one store's own bookkeeping, never copied.
_OWN = frozenset({"generation", "unit_chars", "row_hwm", "kinds"})


@dataclass(frozen=True)
class CopyReport:
    copied: int
    unchanged: int
    vectors: int
    seconds: float


def copy_into(source: Store, location: str | Path, progress: Callable[[int, int], None] | None,
              lock_timeout: float) -> CopyReport:
    """:func:`copy_index` into the store at ``location`` (a file or a server URL), under its
    write lock."""
    target = open_store(location if is_server(location) else Path(location), timeout=lock_timeout)
    try:
        with target.writer_lock(lock_timeout):
            return copy_index(source, target, progress)
    finally:
        target.close()


def copy_index(source: Store, target: Store, progress: Callable[[int, int], None] | None = None) -> CopyReport:
    """Copy every document of ``source`` (with its tree, metadata and vectors) and its pins to
    ``target``; ``progress(done, total)`` after each document."""
    t0 = time.perf_counter()
    with source.snapshot():
        meta = source.meta()
        pins = Pins.from_meta(meta)
        if pins is None:
            raise StoreError(f"{source.path}: nothing to copy, no document was ever indexed into it")
        theirs = Pins.from_meta(target.meta())
        if theirs is not None and (theirs.embedder, theirs.embedder_version, theirs.dimension, theirs.chunking,
                                   theirs.chunking_name, theirs.params) != (
                pins.embedder, pins.embedder_version, pins.dimension, pins.chunking, pins.chunking_name, pins.params):
            raise IndexMismatchError(
                f"{target.path} is pinned to {theirs.embedder} with {theirs.describe_chunking()}, "
                f"{source.path} to {pins.embedder} with {pins.describe_chunking()}; copy into an empty index")
        with target.transaction():
            target.set_meta({k: v for k, v in meta.items() if k not in _OWN})
        there = target.document_hashes()
        their_meta = target.document_metadata() if there else {}
        their_readings = target.document_readings() if there else {}
        rows = source.documents()
        readings = source.document_readings()  # a tree is copied with the parser version that made it
        copied = unchanged = vectors = 0
        for n, row in enumerate(rows, start=1):
            reading = readings[row.id]
            if (there.get(row.id) == row.content_hash and their_readings.get(row.id) == reading
                    and dict(their_meta.get(row.id, {})) == dict(row.metadata)):
                unchanged += 1
            else:
                tree = source.load_tree(row.id)
                flags = source.node_vector_keys(row.id)
                units = [UnitToWrite(node, key) for node, (unit, key) in zip(tree.nodes, flags) if unit]
                upper = {node.id: key for node, (unit, key) in zip(tree.nodes, flags) if not unit and key is not None}
                keys = {k for _, k in flags if k is not None}
                blobs = source.vectors_by_key(keys - target.vector_keys_valid(keys, pins.dimension))
                target.write_document(tree, units, blobs, row.origin, upper, parser=reading.parser)
                copied += 1
                vectors += len(blobs)
            if progress is not None:
                progress(n, len(rows))
    target.checkpoint()
    return CopyReport(copied, unchanged, vectors, time.perf_counter() - t0)
