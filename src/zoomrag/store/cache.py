"""The index's vector table seen as an :class:`~zoomrag.embed.cache.EmbeddingCache`.

Vectors are stored by the first 8 bytes of the cache key, so the same table serves search
(units point to their vector) and caching (a text embedded once is never embedded again, even
after its document is deleted and added back). Other parts (semantic chunking) can use it
through :func:`zoomrag.embed.cache.set_shared_cache`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from .base import Store
from .ids import hex_to_int


def vector_key(cache_key: str) -> int:
    """The vector table's integer key for an embedding cache key (hex sha256)."""
    return hex_to_int(cache_key[:16])


class StoreVectorCache:
    """``get_many``/``put_many`` over the vector table of one store (single thread)."""

    def __init__(self, store: Store, dimension: int):
        self.store = store
        self.dimension = dimension

    def get_many(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        by_int = {vector_key(k): k for k in keys}
        found = self.store.vectors_by_key(by_int)
        return {by_int[i]: np.frombuffer(blob, dtype="<f4").astype(np.float32) for i, blob in found.items()
                if len(blob) == 4 * self.dimension}

    def put_many(self, items: Mapping[str, np.ndarray]) -> None:
        if items:
            self.store.put_vectors({vector_key(k): to_blob(v) for k, v in items.items()})


def to_blob(vector: np.ndarray) -> bytes:
    return np.ascontiguousarray(vector, dtype="<f4").tobytes()
