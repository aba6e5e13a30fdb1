"""Vectors for the upper nodes of a tree, derived from its units' vectors without a model call.

A parent's vector is the normalised mean of its children's (:func:`parent_vectors`). An index
built with ``levels=True`` stores them beside the unit vectors (:func:`level_blobs`), so dense
search ranks leaves, paragraphs and sections together (the ``multilevel`` expansion policy).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping

import numpy as np

from ..model import Tree

#: ``index_meta`` key set to ``"1"`` when an index stores upper-level vectors (``levels=True``).
LEVELS_KEY = "parent_vectors"


def parent_vectors(tree: Tree, vectors: Mapping[str, np.ndarray], min_level: int = 1) -> dict[str, np.ndarray]:
    """Vectors of the upper nodes at ``min_level`` or deeper, bottom-up from ``vectors`` (by node id).

    A node's vector is the L2-normalised mean of its children's vectors (leaf vectors as given,
    upper ones as computed here); children without a vector are left out, and a node none of
    whose children has one gets none. Level 0 (the whole document) is left out by default: a
    document-wide match cannot be returned within a budget anyway.
    """
    out: dict[str, np.ndarray] = {}
    for node in reversed(tree.nodes):  # pre-order reversed: children before their parent
        if not node.children or node.level < min_level:
            continue
        kids = [v for c in node.children if (v := out.get(c, vectors.get(c))) is not None]
        if not kids:
            continue
        mean = np.stack(kids).astype(np.float64).mean(axis=0)
        norm = float(np.linalg.norm(mean))
        if norm > 0:
            out[node.id] = (mean / norm).astype(np.float32)
    return out


def level_blobs(tree: Tree, unit_keys: Mapping[str, int], blobs: Mapping[int, bytes],
                stored: Callable[[list[int]], Mapping[int, bytes]]) -> tuple[dict[int, bytes], dict[str, int]]:
    """New vector rows and ``node id -> vector key`` for the upper nodes of one document.

    ``unit_keys`` maps each embedded unit to its vector key; its vectors are in ``blobs`` (new
    ones) or fetched with ``stored(keys)`` (already in the index). A parent's vector is keyed by
    a hash of its own bytes, so equal vectors are stored once.
    """
    missing = [k for k in unit_keys.values() if k not in blobs]
    have = {**stored(missing), **blobs} if missing else dict(blobs)
    leaf_vectors = {nid: np.frombuffer(have[k], dtype="<f4") for nid, k in unit_keys.items() if k in have}
    new: dict[int, bytes] = {}
    keys: dict[str, int] = {}
    for nid, vec in parent_vectors(tree, leaf_vectors).items():
        blob = np.ascontiguousarray(vec, dtype="<f4").tobytes()
        digest = hashlib.sha256(b"parent-mean\x1f" + blob).digest()
        key = int.from_bytes(digest[:8], "big", signed=True)
        new[key] = blob
        keys[nid] = key
    return new, keys
