"""The innermost node holding a span, from arrays of the tree's node spans kept per tree.

Assembly asks, for the text between two contexts of one document, which node holds it (a gap
inside one paragraph or one function is filled); a scan of every node cost more than the rest
of assembling a query.
"""

from __future__ import annotations

import numpy as np

from ..model import Node, Tree
from .pertree import bounded, per_tree


class _Spans:
    """The nodes below the root of one tree, their spans and levels as arrays, in tree order."""

    def __init__(self, tree: Tree):
        self.nodes = [n for n in tree.nodes if n.level > 0]
        count = len(self.nodes)
        self.starts = np.fromiter((n.start for n in self.nodes), dtype=np.int64, count=count)
        self.ends = np.fromiter((n.end for n in self.nodes), dtype=np.int64, count=count)
        self.levels = np.fromiter((n.level for n in self.nodes), dtype=np.int64, count=count)
        #: Answers by ``(start, end)``: an evaluation asks about the same gaps with every policy.
        self.answers: dict[tuple[int, int], Node | None] = {}


def innermost(tree: Tree, start: int, end: int) -> Node | None:
    """The deepest node below the root that holds ``[start, end)`` (the first in tree order
    among equally deep ones), or None."""
    index = per_tree(tree, "spans", _Spans)
    key = (start, end)
    if key in index.answers:
        return index.answers[key]
    holds = (index.starts <= start) & (index.ends >= end)
    found = None
    if holds.any():
        # argmax gives the first of the deepest, as a scan of the nodes in order would
        found = index.nodes[int(np.where(holds, index.levels, -1).argmax())]
    bounded(index.answers)[key] = found
    return found
