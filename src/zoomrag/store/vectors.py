"""Stored vectors as arrays: each a blob of ``dimension`` float32 values, little-endian, of unit
length (or all zero), as the SQLite and PostgreSQL stores both hand them out."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np


def valid_rows(m: np.ndarray) -> np.ndarray:
    """Rows that are finite and of unit length, or all zero (what the embedders give)."""
    finite = np.isfinite(m).all(axis=1)
    with np.errstate(over="ignore", invalid="ignore"):  # damaged values may overflow the square
        norms = np.linalg.norm(np.where(np.isfinite(m), m, 0).astype(np.float64), axis=1)
    return finite & ((np.abs(norms - 1.0) <= 1e-3) | ~m.any(axis=1))


def blob_matrix(blobs: Sequence[bytes], dimension: int) -> np.ndarray:
    """The blobs as the rows of one matrix (ValueError when they are not ``dimension`` values each)."""
    return np.frombuffer(b"".join(blobs), "<f4").reshape(len(blobs), dimension)


def row_matrix(rows: Sequence[tuple[int, bytes]], dimension: int) -> tuple[np.ndarray, np.ndarray]:
    """``(node rows int64, float32 matrix)`` of ``(row, vector)`` rows (ValueError when a vector
    is not ``dimension`` values)."""
    ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    if not rows:
        return ids, np.zeros((0, dimension), dtype=np.float32)
    return ids, blob_matrix([r[1] for r in rows], dimension).astype(np.float32, copy=False)


def valid_keys(found: Iterable[tuple[int, object]], dimension: int) -> set[int]:
    """The keys of the ``(key, vector)`` rows whose vector is sound: ``dimension`` float32 values,
    finite, of unit length (or all zero)."""
    size = int(dimension) * 4
    rows = [(k, v) for k, v in found if isinstance(v, bytes) and len(v) == size]
    if not rows:
        return set()
    ok = valid_rows(blob_matrix([v for _, v in rows], dimension))
    return {k for (k, _), good in zip(rows, ok) if good}
