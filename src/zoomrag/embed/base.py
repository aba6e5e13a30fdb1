"""The embedder role: text in, float32 L2-normalised vectors out.

An embedder states its identity (``name``, ``version``: what the index pins), the size of its
vectors (``dimension``) and of its input window (``max_tokens``, counted the way the model
counts, special tokens and any prefix included). Documents and queries are embedded by separate
methods because some models (e5) need different prefixes for each.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from ..errors import EmbedError


@runtime_checkable
class Embedder(Protocol):
    """What every embedding backend provides."""

    #: Registry name, e.g. ``"minilm"``.
    name: str
    #: Changes whenever the same text would get a different vector (model file, quantisation).
    version: str
    dimension: int
    #: The model's input window in its own tokens, special tokens and prefixes included.
    max_tokens: int

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        """``(len(texts), dimension)`` float32, each row of unit length."""
        ...

    def embed_query(self, text: str) -> np.ndarray:
        """``(dimension,)`` float32 of unit length."""
        ...

    def count_tokens(self, text: str) -> int:
        """Tokens the model reads for ``text`` embedded as a document."""
        ...


def l2_normalize(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length, as float32. An all-zero row stays zero (nothing to scale)."""
    v = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(v, axis=-1, keepdims=True)
    return v / np.where(norms > 0, norms, 1.0).astype(np.float32)


def checked_vectors(embedder_name: str, vectors: np.ndarray, count: int, dimension: int) -> np.ndarray:
    """Validate a backend's output: shape, finite values, unit rows; returns float32 C-order.

    Backends differ in what they promise, so every implementation passes its raw output here:
    a wrong shape or a NaN is a clear :class:`EmbedError`, never silent garbage in the index.
    """
    v = np.ascontiguousarray(vectors, dtype=np.float32)
    if v.ndim != 2 or v.shape[0] != count:
        raise EmbedError(
            f"embedder {embedder_name!r} returned an array of shape {v.shape} for {count} texts; "
            f"expected ({count}, {dimension})"
        )
    if v.shape[1] != dimension:
        raise EmbedError(
            f"embedder {embedder_name!r} returned vectors of dimension {v.shape[1]}, expected "
            f"{dimension}; check that the model matches the one the index was built with"
        )
    if not np.isfinite(v).all():
        bad = int(np.flatnonzero(~np.isfinite(v).all(axis=1))[0])
        raise EmbedError(f"embedder {embedder_name!r} returned NaN or infinite values for text #{bad}")
    return l2_normalize(v)


def embed_queries(embedder: Embedder, texts: Sequence[str]) -> np.ndarray:
    """``(len(texts), dimension)``: the embedder's batch of questions when it has one
    (``embed_queries``), else its ``embed_query`` of each."""
    batch = getattr(embedder, "embed_queries", None)
    if callable(batch):
        return np.asarray(batch(list(texts)), dtype=np.float32)
    if not texts:
        return np.zeros((0, embedder.dimension), dtype=np.float32)
    return np.stack([embedder.embed_query(t) for t in texts]).astype(np.float32, copy=False)
