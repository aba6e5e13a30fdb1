"""``multilevel``: search every level of the tree at once (KohakuRAG, arXiv 2603.07612).

Upper nodes get vectors bottom-up: a parent's vector is the normalised mean of its children's
vectors (:mod:`zoomrag.embed.levels`), so no model call is needed and no text is embedded twice.
An index built with ``levels=True`` stores them beside the leaf vectors, and dense search then
ranks leaves, paragraphs and sections together. This policy walks those hits in rank order and
drops a node whose ancestor is already chosen (its hit joins the ancestor's context). A chosen
upper node that does not fit the budget falls back to the hits found inside it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from ..model import Hit, Node
from ..parse.params import check_int
from .base import Candidate, TreeSource, unit_candidate
from .units import span_candidate


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


