"""``window``: each hit returns ``n`` leaves (sentences, in a sentence tree) on either side.

The window is computed from the tree at query time (``previous_leaf``/``next_leaf``), so it can
change without re-indexing. Windows of one document that overlap or touch are merged by
assembly into one context, so no text comes back twice. When a window does not fit what is left
of the budget, the same window one leaf narrower on each side is tried, down to the hit alone.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from ..model import Hit, Node, Tree
from ..parse.params import check_choice, check_int
from .base import Candidate, TreeSource, unit_candidate
from .units import by_doc, inside, leaf_run, ordered_hits, span_candidate

WITHIN = ("document", "parent")


@dataclass(frozen=True)
class WindowExpansion:
    """``n`` leaves before and after each hit; ``within="parent"`` keeps a window in its parent."""

    name: ClassVar[str] = "window"

    n: int = 2
    within: str = "document"

    def __post_init__(self) -> None:
        check_int(self.name, "n", self.n, 0, 1000)
        check_choice(self.name, "within", self.within, WITHIN)

    def expand(self, hits: Sequence[Hit], trees: TreeSource, budget: int) -> list[Candidate]:
        out: list[Candidate] = []
        for doc_id, doc_hits in by_doc(hits).items():
            tree = trees.tree(doc_id)
            for h in doc_hits:
                node = tree.get(h.node_id)
                if node is None:
                    out.append(unit_candidate(h, None))
                    continue
                out.append(self._window(tree, node, h, doc_hits, self.n))
        return out

    def _window(self, tree: Tree, node: Node, hit: Hit, doc_hits: list[Hit], n: int) -> Candidate:
        """The window of ``n``, falling back to ``n - 1`` ... down to the hit alone."""
        cand = unit_candidate(hit, node, rule="window of 0")
        within = tree.parent(node) if self.within == "parent" else None
        for width in range(1, n + 1):
            start, end = leaf_run(tree, node, width, width, within)
            if (start, end) == (cand.start, cand.end):
                break  # the tree (or the parent) ends here: wider windows are the same span
            cand = span_candidate(node, hit.doc_id, start, end, hit.score,
                                  ordered_hits([hit], inside(doc_hits, start, end)),
                                  f"window of {width}", fallback=(cand,), kind="window")
        return cand


