"""Opening an index: its store (a file or a server URL), its settings and its dense search."""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ..defaults import DEFAULT_PATH
from ..embed.base import Embedder
from ..errors import StoreError, ZoomragError
from ..parse import Chunker
from ..search.ann import available_backend
from ..store import SqliteStore, Store, VectorSearchStore, is_server, open_store
from ..text.tokens import TokenCounter
from .dense import DenseSearch
from .server_dense import ServerDense
from .settings import Settings, drop_if_other_schema, requested_chunking


def open_parts(path: str | Path | None, *, embedder: str | Embedder | None, strategy: str | Chunker | None,
               profile: str | None, params: Mapping[str, Any] | None, reindex: bool, create: bool,
               lock_timeout: float, counter: TokenCounter | None, ann: str, levels: bool,
               headings: bool | None = None) -> tuple[Store, Settings]:
    """The store at ``path`` and its settings, checked against what was asked (see
    :meth:`zoomrag.Index.open`); the store is closed again when they do not agree."""
    chunking, given = requested_chunking(strategy, profile, params)
    if ann not in ("auto", "off"):
        available_backend(ann)  # validates the name
    p: Path | str = (path if is_server(path) else Path(path)) if path is not None else DEFAULT_PATH
    if reindex and isinstance(p, Path):
        drop_if_other_schema(p)
    store = open_store(p, create=create, timeout=lock_timeout)
    try:
        return store, Settings(store, embedder=embedder, chunking=chunking, params=params, reindex=reindex,
                               counter=counter, chunker=given, levels=levels,
                               headings=headings)
    except ZoomragError:
        store.close()
        raise
    except (sqlite3.DatabaseError, ValueError, TypeError, KeyError) as e:
        store.close()  # the settings in index_meta could not be read: the file is damaged
        where = f"--store {store.path}" if is_server(p) else f"--index {p}"
        raise StoreError(f"{store.path}: damaged, its settings cannot be read ({e}); move it away and rebuild "
                         f"with zoomrag index --reindex PATH... {where}") from None
    except BaseException:
        store.close()
        raise


def dense_for(store: Store, settings: Settings, *, ann: str, threshold: int) -> DenseSearch | ServerDense:
    """The dense search of a store: the file's (exact, then its HNSW graph beside it), or the
    server's own index (Milvus for every size, PostgreSQL from the threshold)."""
    if isinstance(store, SqliteStore):
        return DenseSearch(store, settings, ann=ann, threshold=threshold)
    if isinstance(store, VectorSearchStore):
        own = getattr(store, "searches_all_sizes", False)
        if ann == "off" and not own:
            store.search_exactly()  # exact search at every size, as the file store's "off"
            threshold = sys.maxsize
        return ServerDense(store, settings, threshold=0 if own else threshold)
    raise TypeError(f"{type(store).__name__}: a store must be a file store or search vectors itself")
