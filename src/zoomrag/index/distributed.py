"""Indexing fanned out over a Ray cluster (``zoomrag index --ray``, ``Index.add(..., ray=...)``).

The driver (the process that called :meth:`zoomrag.Index.add`) lists the files, pins the
settings from the first ones as a normal run does, and hands the files out in small batches to
a pool of Ray actors, one per CPU of the cluster. Each actor opens the server store itself, with
the pinned embedder and chunking, loads the model once, and for each batch reads, parses and
embeds the files and writes each document in its own transaction, exactly as
:mod:`.ingest` does in one process (it is that code). The driver then merges the reports,
prunes, and refreshes the search structures.

Why Ray Core actors rather than Ray Data: the work has side effects (each document is one
transaction on the store) and a per-file outcome (added, unchanged, skipped with a reason)
rather than an output dataset; an actor keeps one database connection and one loaded model for
all its batches, where a task would load the model again; and a batch handed to whichever actor
is free balances files of very different sizes without Ray Data's extra dependencies (pyarrow,
pandas) or its blocks of serialized trees.

Only a store that takes many writers can be written this way: PostgreSQL. An index file (also
the one a ``milvus://`` store keeps its trees in) takes one writer at a time, and is refused.
The files are read by the workers at the paths the driver lists: every node of the cluster must
see them at the same path (one machine, or a shared file system), with zoomrag and the
embedder's package installed; nothing is downloaded onto the workers.
"""

from __future__ import annotations

import logging
import os
import socket
from collections import deque
from collections.abc import Iterable, Mapping
from math import ceil
from pathlib import Path
from typing import Any, cast

from ..embed.base import Embedder
from ..errors import ClusterError, ConfigError, ZoomragError
from ..load import FileRules
from ..load.base import MAX_FILE_BYTES
from ..model import Document
from ..store import Store, VectorSearchStore, open_store
from .ingest import Ingest, Progress, Sources
from .reports import AddReport, Counts
from .server_dense import ServerDense
from .settings import Settings

#: Batches each worker gets on average: enough to even out big and small files.
BATCHES_PER_WORKER = 4
#: Files per batch at most (a batch's report is what travels back to the driver).
MAX_BATCH = 64
#: Seconds to wait for a Ray address to answer before saying it cannot be reached.
CONNECT_TIMEOUT = 5.0


def require_many_writers(location: Store | str | Path) -> None:
    """Refuse a store that takes one writer at a time (a file), naming what to do instead."""
    from ..store.postgres import PostgresStore, is_url  # no psycopg import: that comes on connecting

    if isinstance(location, PostgresStore) or (not isinstance(location, Store) and is_url(location)):
        return
    where = location.path if isinstance(location, Store) else location
    if str(where).startswith("milvus://"):
        why = "a milvus:// store keeps its trees in one index file, which takes one writer at a time"
    else:
        why = "an index file takes one writer at a time"
    raise ConfigError(f"{where}: --ray needs a store that takes many writers, and {why}; index into "
                      "PostgreSQL with --store postgresql://USER@HOST/DB (docs/scale.md), or leave out --ray")


def add_on_ray(ingest: Ingest, items: str | Path | Document | Iterable[str | Path | Document], *,
               address: str | bool, prune: bool = False, progress: Progress | None = None,
               metadata: Mapping[str, Any] | None = None, namespace: str | None = None,
               max_file_bytes: int | None = MAX_FILE_BYTES, rules: FileRules = FileRules()) -> AddReport:
    """:meth:`zoomrag.Index.add` with the reading, parsing, embedding and writing done by Ray
    workers. ``address``: a Ray address (``ray://HOST:10001``, ``HOST:6379``) or True (the
    cluster ``RAY_ADDRESS`` or ``ray start`` on this machine names, else a new local one); when
    Ray is already initialised in this process its cluster is used and left running."""
    require_many_writers(ingest.store)
    ray = _ray()
    started = not ray.is_initialized()
    if started:
        _connect(ray, address)
    try:
        fan_out = _RayFanOut(ray, ingest)
        return ingest.add(items, prune=prune, progress=progress, metadata=metadata, namespace=namespace,
                          max_file_bytes=max_file_bytes, fan_out=fan_out, rules=rules)
    finally:
        if started:
            ray.shutdown()


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise ClusterError("--ray needs the ray extra: pip install 'zoomrag[ray]'") from None
    return ray


def _connect(ray: Any, address: str | bool) -> None:
    where = None if address is True or address == "" else str(address)
    _reachable(where or os.environ.get("RAY_ADDRESS") or "auto")
    try:
        ray.init(address=where, include_dashboard=False, logging_level=logging.ERROR, log_to_driver=False)
    except (ConnectionError, RuntimeError, ValueError, TimeoutError) as e:
        raise ClusterError(f"cannot reach the Ray cluster at {where} ({_first_line(e)}); start it (ray start "
                           "--head), or give --ray without an address to start one on this machine") from None


def _reachable(address: str) -> None:
    """Fail in seconds on an address nothing answers at: Ray itself retries for minutes."""
    if address in ("auto", "local"):
        return
    client = address.startswith("ray://")
    host, _, port = address.removeprefix("ray://").rstrip("/").rpartition(":")
    if not host or not port.isdigit():
        host, port = address.removeprefix("ray://").rstrip("/"), "10001" if client else "6379"
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT).close()
    except OSError as e:
        raise ClusterError(f"cannot reach the Ray cluster at {address} ({e.strerror or e}); start it (ray start "
                           "--head), or give --ray without an address to start one on this machine") from None


class _RayFanOut:
    """The ``fan_out`` of :meth:`Ingest.add`: batches of files to a pool of :class:`IndexWorker` actors."""

    def __init__(self, ray: Any, ingest: Ingest):
        self.ray = ray
        self.ingest = ingest

    def __call__(self, sources: Sources, report: Counts, tick: Progress, metadata: dict[str, Any],
                 namespace: str | None, max_bytes: int | None) -> None:
        if not sources:
            return
        ray = self.ray
        wanted = max(1, int(ray.cluster_resources().get("CPU", 1)))
        size = max(1, min(MAX_BATCH, ceil(len(sources) / (wanted * BATCHES_PER_WORKER))))
        queue = deque(list(sources[i:i + size]) for i in range(0, len(sources), size))
        store = cast(Any, self.ingest.store)
        given = self.ingest.settings.requested_embedder
        embedder = given if isinstance(given, Embedder) else None  # else the pinned name
        actor = ray.remote(num_cpus=1)(IndexWorker)
        pool = [actor.remote(store.url, embedder, self.ingest.batch_size, store.timeout)
                for _ in range(min(wanted, len(queue)))]
        running: dict[Any, tuple[Any, list]] = {}

        def hand_out(worker: Any) -> None:
            batch = queue.popleft()
            running[worker.index.remote(batch, metadata, namespace, max_bytes)] = (worker, batch)

        read = 0
        try:
            for worker in pool:
                hand_out(worker)
            while running:
                [ref], _ = ray.wait(list(running), num_returns=1)
                worker, batch = running.pop(ref)
                merge(report, self._result(ref, batch))
                read += len(batch)
                tick("read", read, len(sources))
                tick("parse", report.added + report.updated, None)
                tick("embed", report.embedded, None)
                if queue:
                    hand_out(worker)
            ray.get([w.close.remote() for w in pool])
        finally:
            for worker in pool:
                ray.kill(worker)  # after a failure: the server rolls back their open transactions

    def _result(self, ref: Any, batch: list) -> Counts:
        ray = self.ray
        first = batch[0][0]
        named = f"{first.source if isinstance(first, Document) else first}" + (
            f" and {len(batch) - 1} more" if len(batch) > 1 else "")
        try:
            return cast(Counts, ray.get(ref))
        except ray.exceptions.RayTaskError as e:
            cause = getattr(e, "cause", None)
            if isinstance(cause, ZoomragError):
                raise cause from None
            what = f"{type(cause).__name__}: {cause}" if cause is not None else _first_line(e)
            raise ClusterError(f"a Ray worker failed on {named} ({what}); the documents written before are "
                               "kept: fix the cause and run again to resume") from None
        except ray.exceptions.RayActorError as e:
            raise ClusterError(f"a Ray worker died while indexing {named} ({_first_line(e)}); the documents "
                               "written before are kept: run again to resume") from None


def _first_line(e: BaseException) -> str:
    lines = [line for line in str(e).splitlines() if line.strip()]
    return lines[0].strip() if lines else type(e).__name__


class IndexWorker:
    """A Ray actor: one connection to the store, the pinned settings and embedder (loaded once),
    and the batches it is given, each document written in its own transaction."""

    def __init__(self, url: str, embedder: Embedder | None, batch_size: int, timeout: float):
        self._failure: ZoomragError | None = None
        self._store: Store | None = None
        try:
            store = self._store = open_store(url, create=False, timeout=timeout)
            settings = Settings(store, embedder=embedder, chunking=None, params=None, reindex=False, counter=None)
            # the search structures are the driver's to refresh, once at the end
            dense = ServerDense(cast(VectorSearchStore, store), settings, threshold=0)
            self._ingest = Ingest(store, settings, dense, store.writer_lock(timeout), batch_size, isolate=True)
        except ZoomragError as e:  # raised from the first batch: a failed actor start says less
            self._failure = e

    def index(self, batch: Sources, metadata: dict[str, Any], namespace: str | None,
              max_bytes: int | None) -> Counts:
        if self._failure is not None:
            raise self._failure
        report = Counts()
        with self._ingest.lock:
            self._ingest.index_sources(batch, report, lambda *_: None, metadata, namespace, max_bytes)
        return report

    def close(self) -> None:
        if self._store is not None:
            self._store.close()


def merge(report: Counts, part: Counts) -> None:
    """Add a batch's report to the run's."""
    for name in ("added", "updated", "unchanged", "units", "embedded", "characters", "reread"):
        setattr(report, name, getattr(report, name) + getattr(part, name))
    report.skipped.extend(part.skipped)
    report.empty.extend(part.empty)
    report.scanned.extend(part.scanned)
    report.ocr.extend(part.ocr)
    report.seen |= part.seen
    report.failed |= part.failed
