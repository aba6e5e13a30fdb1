"""Compact integer keys for the store.

Node ids are 8-byte hex digests (:func:`zoomrag.model.node_id`); stored as signed 64-bit
integers they become SQLite's rowid itself, so a node costs no separate id column, no
extra index, and the FTS and vector rows share the same key. Vector keys are the first
8 bytes of the embedding cache key (sha256 of embedder identity and text).
"""

from __future__ import annotations

_MASK = (1 << 64) - 1
_SIGN = 1 << 63


def hex_to_int(hex_id: str) -> int:
    """A 16-digit hex id as a signed int64 (SQLite's INTEGER range)."""
    v = int(hex_id[:16], 16)
    return v - (1 << 64) if v >= _SIGN else v


def int_to_hex(value: int) -> str:
    """Inverse of :func:`hex_to_int`."""
    return format(value & _MASK, "016x")
