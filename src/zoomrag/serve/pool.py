"""Index handles for a server: one per reader thread, one writer, one model for all.

No store is thread-safe (an SQLite connection, a PostgreSQL connection), so every reader thread
opens its own :class:`~zoomrag.Index` on first use and keeps it; the embedder (the model, loaded
once) is shared by all of them, and so is the ANN graph of a file, which each handle
memory-maps from the same file. Writes go to a single writer thread with its own handle, so at
most one runs at a time; readers keep answering while it writes (SQLite WAL, PostgreSQL's
snapshots), and notice the new generation when it commits.
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TypeVar

from ..defaults import is_server
from ..embed.base import Embedder
from ..errors import ZoomragError
from ..index import Index

T = TypeVar("T")


class RequestTimeout(ZoomragError):
    """A request ran longer than the server's limit."""


class IndexPool:
    def __init__(self, location: Path | str, *, readers: int = 4, embedder: str | Embedder | None = None,
                 lock_timeout: float = 5.0):
        #: What each handle opens: the index file, or a server store's URL (with its password).
        self.location: Path | str = location if is_server(location) else Path(location)
        self._lock_timeout = lock_timeout
        # Opened here, in the caller's thread, so a missing or foreign index fails at start-up.
        self._probe = Index.open(self.location, create=False, embedder=embedder, lock_timeout=lock_timeout)
        #: The index file, or the server store's URL without its password (for messages).
        self.path: Path | str = self._probe.path
        self.embedder: Embedder | str | None = embedder
        self._local = threading.local()
        self._handles: list[Index] = []
        self._handles_lock = threading.Lock()
        self._readers = ThreadPoolExecutor(readers, thread_name_prefix="zoomrag-read")
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="zoomrag-write")

    def load_model(self) -> None:
        """Load the pinned embedder once; every handle opened after this shares it.

        (An index still empty at start-up has none pinned: each handle then loads its own.)
        """
        if self._probe.pins is not None:
            self.embedder = self._probe.embedder
            self.embedder.embed_query("warm up")

    def _handle(self) -> Index:
        ix = getattr(self._local, "index", None)
        if ix is None:
            ix = Index.open(self.location, create=False, embedder=self.embedder, lock_timeout=self._lock_timeout)
            self._local.index = ix
            with self._handles_lock:
                self._handles.append(ix)
        return ix

    async def read(self, job: Callable[[Index], T], timeout: float) -> T:
        return await self._run(self._readers, job, timeout)

    async def write(self, job: Callable[[Index], T], timeout: float) -> T:
        return await self._run(self._writer, job, timeout)

    async def _run(self, executor: ThreadPoolExecutor, job: Callable[[Index], T], timeout: float) -> T:
        loop = asyncio.get_running_loop()
        future = loop.run_in_executor(executor, lambda: job(self._handle()))
        try:
            return await asyncio.wait_for(asyncio.shield(future), timeout)
        except TimeoutError:
            # The thread cannot be stopped; it finishes its job (a write still commits whole).
            raise RequestTimeout(f"the request took longer than {timeout:g} s; it goes on in the "
                                 "background; lower the budget or raise --timeout") from None

    def close(self) -> None:
        self._readers.shutdown(wait=True, cancel_futures=True)
        self._writer.shutdown(wait=True, cancel_futures=True)
        with self._handles_lock:
            for ix in self._handles:
                ix.close()
            self._handles.clear()
        self._probe.close()
