"""The Store protocol: what the index, search, expansion and evaluation need from storage.

Derived from what they call; :class:`~zoomrag.store.sqlite.SqliteStore` (one file, the default)
and :class:`~zoomrag.store.postgres.PostgresStore` (a PostgreSQL server with pgvector) implement
it, and ``tests/store_conformance.py`` holds both to the same behaviour.

What every implementation keeps:

- **documents**: the text stored once, its content hash, its metadata (also as typed rows,
  :mod:`.docmeta`, that filters search) and how it was read (format and parser version);
- **nodes as spans**: offsets into the text under a node *row*, an integer that is the unit's
  key everywhere (FTS, vectors, ANN labels). A document's nodes are the consecutive rows
  ``first .. first + count - 1`` in pre-order, and a row is never given out twice;
- **vectors keyed by the hash of the embedded text**: the vector table is also the embedding
  cache;
- **full-text search** over the units: which units hold a term (each term once per unit), the
  term counts BM25's IDF needs, and the units' text for re-scoring (:mod:`zoomrag.search.bm25`);
- **the pinned settings** (``meta``), including a ``generation`` counter bumped by every write;
- **one transaction per document**: a process killed at any moment leaves every document either
  as it was or as it is now, and a re-run resumes;
- **snapshots**: every read inside :meth:`Store.snapshot` sees one committed version;
- **filters** pushed into the store's SQL: :meth:`Store.select_documents` takes the condition
  :func:`zoomrag.search.filters.to_sql` writes, over ``documents d`` and ``doc_meta``.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from contextlib import AbstractContextManager
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from ..model import Node, Tree

if TYPE_CHECKING:
    from .rows import DocumentRow, Reading, Selection, TermCount, UnitRow, UnitToWrite


class WriteLock(Protocol):
    """Held by an indexing run from start to end (re-entrant within one object)."""

    def acquire(self) -> None: ...

    def release(self) -> None: ...

    def __enter__(self) -> WriteLock: ...

    def __exit__(self, *exc: object) -> None: ...


@runtime_checkable
class Store(Protocol):
    """Storage of one index. Not thread-safe: one store object per thread."""

    @property
    def path(self) -> Path | str:
        """Where the index lives as messages name it: the file, or the server URL (no password)."""
        ...

    def close(self) -> None: ...

    def writer_lock(self, timeout: float) -> WriteLock:
        """The lock an indexing run holds: the file store's one writer at a time, or a server
        store's shared lock (many writers; each document's transaction locks that document)."""
        ...

    def checkpoint(self) -> None:
        """After a run of writes: give space back (best effort)."""
        ...

    def disk_bytes(self) -> int:
        """Bytes the index takes on disk (file and log, or the server's tables)."""
        ...

    # -- transactions and snapshots
    def transaction(self) -> AbstractContextManager[object]:
        """One write transaction (bumps ``generation``); rolled back on any exception."""
        ...

    def snapshot(self) -> AbstractContextManager[None]:
        """Every read inside sees one committed version; nested snapshots share the outer one."""
        ...

    # -- meta
    def meta(self) -> dict[str, str]: ...

    def set_meta(self, values: Mapping[str, str]) -> None:
        """Write pins (inside the caller's transaction when there is one)."""
        ...

    def generation(self) -> int: ...

    # -- documents
    def document_hashes(self) -> dict[str, str]: ...

    def documents(self) -> list[DocumentRow]: ...

    def document_metadata(self) -> dict[str, Mapping[str, object]]: ...

    def metadata_by_id(self, doc_ids: Iterable[str]) -> dict[str, Mapping[str, object]]: ...

    def document_metadata_of(self, doc_id: str) -> Mapping[str, object]: ...

    def set_metadata(self, doc_id: str, metadata: Mapping[str, object]) -> bool: ...

    def find_document(self, ref: str) -> str | None: ...

    def document_text(self, doc_id: str, start: int = 0, end: int | None = None) -> str: ...

    def content_hashes(self, doc_ids: Sequence[str]) -> dict[str, str]: ...

    def document_readings(self, doc_ids: Sequence[str] | None = None) -> dict[str, Reading]:
        """How each of these documents was read (every document's when ``doc_ids`` is None; ids
        not stored are left out): its format and the parser version its tree was made with."""
        ...

    def load_tree(self, doc_id: str) -> Tree: ...

    def load_trees(self, doc_ids: Sequence[str]) -> dict[str, Tree]: ...

    def ancestor_trees(self, rows: Iterable[int]) -> tuple[dict[str, Tree], dict[int, Node]]: ...

    def write_document(self, tree: Tree, units: Sequence[UnitToWrite], vectors: Mapping[int, bytes],
                       origin: str, node_vectors: Mapping[str, int] | None = None, *, parser: int) -> None:
        """Replace (or add) one document with its nodes, full-text rows and new vectors: one
        transaction. ``parser``: the parser version the tree was made with (kept with the
        document, :meth:`document_readings`)."""
        ...

    def delete_document(self, doc_id: str) -> bool: ...

    def clear(self, *, keep_vectors: bool) -> None: ...

    # -- filters
    def select_documents(self, condition: str, args: Sequence[object]) -> Selection: ...

    def metadata_keys_present(self, keys: Iterable[str]) -> set[str]: ...

    def selected_units(self, selection: Selection) -> list[int]: ...

    # -- vectors
    def vector_keys_present(self, keys: Iterable[int]) -> set[int]: ...

    def vector_keys_valid(self, keys: Iterable[int], dimension: int) -> set[int]: ...

    def vectors_by_key(self, keys: Iterable[int]) -> dict[int, bytes]: ...

    def put_vectors(self, items: Mapping[int, bytes]) -> None: ...

    def unit_vectors(self, rows: Iterable[int]) -> dict[int, bytes]: ...

    def document_vectors(self, doc_id: str) -> list[bytes | None]: ...

    def node_vector_keys(self, doc_id: str) -> list[tuple[bool, int | None]]:
        """For each node of one document in the tree's order: is it a unit, and its vector key."""
        ...

    def selection_vectors(self, selection: Selection, dimension: int) -> tuple[np.ndarray, np.ndarray]: ...

    def unit_matrix(self, dimension: int) -> tuple[np.ndarray, np.ndarray]: ...

    def unit_rows(self) -> np.ndarray: ...

    def drop_unused_vectors(self) -> int: ...

    # -- units and full text
    def units(self, rows: Iterable[int]) -> dict[int, UnitRow]: ...

    def text_keys(self, rows: Iterable[int]) -> dict[int, int | None]: ...

    def unit_count(self) -> int: ...

    def unit_chars(self) -> int: ...

    def unit_texts(self, rows: Iterable[int]) -> dict[int, str]: ...

    def fts_search(self, weights: Mapping[str, float], limit: int, avg_chars: float,
                   within: Iterable[int] | None = None, k1: float = 1.2, b: float = 0.75,
                   docs: Iterable[int] | None = None) -> list[tuple[int, float]]:
        """``(node row, BM25)`` best first of the units matching any of the terms in ``weights``
        (keyed by :func:`zoomrag.store.fts.expression`), each term counted once per unit."""
        ...

    def term_counts(self, terms: Iterable[str], cap: int | None = None) -> dict[str, TermCount]: ...

    def term_frequencies(self, terms: Iterable[str], cap: int | None = None) -> dict[str, int]: ...

    # -- sizes and consistency
    def table_bytes(self) -> dict[str, int]: ...

    def counts(self) -> dict[str, int]: ...

    def metadata_keys(self, limit: int) -> list[tuple[str, int]]:
        """``(key, documents holding it)`` of the metadata, the most held first, at most ``limit``."""
        ...

    def problems(self, dimension: int | None) -> list[str]: ...


@runtime_checkable
class VectorSearchStore(Store, Protocol):
    """A store that answers nearest-neighbour queries itself (pgvector's HNSW index), instead of a
    graph file kept beside the index."""

    def nearest(self, query: np.ndarray, k: int, selection: Selection | None = None) -> list[tuple[int, float]]:
        """``(node row, cosine)`` of the ``k`` nearest units, best first; ``selection``: only
        units of these documents."""
        ...

    def nearest_started(self, query: np.ndarray, k: int,
                        selection: Selection | None = None) -> Callable[[], list[tuple[int, float]]]:
        """:meth:`nearest`, started beside the caller's next reads where the store can (inside a
        snapshot, the same version); call the result for the rows."""
        ...

    def describe_vectors(self) -> str:
        """The vector index's state for ``zoomrag stats``."""
        ...

    def build_vector_index(self) -> bool:
        """Make the vector index if it is not there yet (the index reached the ANN threshold);
        whether it is there now."""
        ...

    def search_exactly(self) -> None:
        """Build no vector index of its own (``ann="off"``), where the store can do without."""
        ...
