"""Vectors already computed, by a key that names the embedder and the exact text.

The key is ``sha256(name \\x1f version \\x1f text)``: a new model version never reuses old
vectors, and the same text in two documents (a repeated header, a boilerplate line) is embedded
once. Only document embeddings are cached (query vectors differ for prefixed models).

:class:`MemoryCache` keeps vectors in this process; the store implements the same
:class:`EmbeddingCache` protocol in the index file so that re-indexing reuses them.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from .base import Embedder


def cache_key(embedder: Embedder, text: str) -> str:
    """Hex sha256 of the embedder's identity and the text."""
    h = hashlib.sha256()
    h.update(f"{embedder.name}\x1f{embedder.version}\x1f".encode())
    h.update(text.encode("utf-8", "surrogatepass"))
    return h.hexdigest()


@runtime_checkable
class EmbeddingCache(Protocol):
    """Lookup and storage of document vectors by :func:`cache_key`."""

    def get_many(self, keys: Sequence[str]) -> Mapping[str, np.ndarray]:
        """The vectors found, by key; missing keys are simply absent."""
        ...

    def put_many(self, items: Mapping[str, np.ndarray]) -> None:
        """Store vectors by key (overwriting is allowed: same key, same vector)."""
        ...


class MemoryCache:
    """An in-process LRU cache of vectors; thread-safe (the embed pipeline runs in a thread)."""

    def __init__(self, max_items: int | None = 100_000):
        self.max_items = max_items
        self._items: OrderedDict[str, np.ndarray] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def __len__(self) -> int:
        return len(self._items)

    def get_many(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        with self._lock:
            for k in keys:
                v = self._items.get(k)
                if v is None:
                    self.misses += 1
                    continue
                self._items.move_to_end(k)
                out[k] = v
                self.hits += 1
        return out

    def put_many(self, items: Mapping[str, np.ndarray]) -> None:
        with self._lock:
            for k, v in items.items():
                self._items[k] = np.array(v, dtype=np.float32)  # a copy: callers may reuse buffers
                self._items.move_to_end(k)
            if self.max_items is not None:
                while len(self._items) > self.max_items:
                    self._items.popitem(last=False)

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


_shared: EmbeddingCache = MemoryCache()


def shared_cache() -> EmbeddingCache:
    """The process-wide cache used when no other is given (semantic chunking, ad-hoc calls)."""
    return _shared


def set_shared_cache(cache: EmbeddingCache) -> EmbeddingCache:
    """Make ``cache`` (e.g. the index's own) the process-wide one; returns the previous one."""
    global _shared
    previous, _shared = _shared, cache
    return previous
