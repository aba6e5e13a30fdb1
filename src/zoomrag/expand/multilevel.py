"""``multilevel``: search every level of the tree at once (KohakuRAG, arXiv 2603.07612).

Upper nodes get vectors bottom-up: a parent's vector is the normalised mean of its children's
vectors (:func:`parent_vectors`), so no model call is needed and no text is embedded twice.
An index built with ``levels=True`` stores them beside the leaf vectors, and dense search then
ranks leaves, paragraphs and sections together. This policy walks those hits in rank order and
drops a node whose ancestor is already chosen (its hit joins the ancestor's context). A chosen
upper node that does not fit the budget falls back to the hits found inside it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..model import Hit, Node, Tree
from ..parse.params import check_int
from .base import Candidate, TreeSource, register, unit_candidate
from .units import span_candidate


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


@dataclass(frozen=True)
class MultiLevel:
    """Hits of any level, best first; a node under an already chosen one is absorbed by it."""

    name: ClassVar[str] = "multilevel"

    #: Upper nodes above this level (closer to the root) are not returned as such: their hits
    #: fall back to the node's leaf-level hits. 1 keeps whole documents (level 0) out.
    min_level: int = 1

    def __post_init__(self) -> None:
        check_int(self.name, "min_level", self.min_level, 0)

    def expand(self, hits: Sequence[Hit], trees: TreeSource, budget: int) -> list[Candidate]:
        chosen: dict[tuple[str, str], tuple[Node, list[Hit]]] = {}
        order: list[tuple[str, str]] = []
        loose: list[Candidate] = []
        for h in hits:
            tree = trees.tree(h.doc_id)
            node = tree.get(h.node_id)
            if node is None:
                loose.append(unit_candidate(h, None))
                continue
            if node.level < self.min_level:
                continue
            above = next(((h.doc_id, a.id) for a in (node, *tree.ancestors(node)) if (h.doc_id, a.id) in chosen),
                         None)
            if above is not None:
                chosen[above][1].append(h)
                continue
            chosen[(h.doc_id, node.id)] = (node, [h])
            order.append((h.doc_id, node.id))
        out = []
        for key in order:
            node, node_hits = chosen[key]
            first = node_hits[0]
            if node.is_leaf and len(node_hits) == 1:
                out.append(unit_candidate(first, node, rule=f"level {node.level} {node.kind} matched"))
                continue
            inner = tuple(unit_candidate(h, trees.tree(h.doc_id).get(h.node_id)) for h in node_hits[1:])
            rule = f"level {node.level} {node.kind} matched" + (
                f", absorbs {len(node_hits) - 1} hit{'s' if len(node_hits) > 2 else ''} below it"
                if len(node_hits) > 1 else "")
            out.append(span_candidate(node, key[0], node.start, node.end, first.score, tuple(node_hits), rule,
                                      fallback=inner))
        return out + loose


register("multilevel", MultiLevel)


#: ``index_meta`` key set to ``"1"`` when an index stores upper-level vectors (``levels=True``).
LEVELS_KEY = "parent_vectors"


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
