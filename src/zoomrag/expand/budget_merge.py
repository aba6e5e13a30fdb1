"""``budget-merge``: HiChunk's budget-aware auto-merge (Lu et al. 2025, arXiv 2509.11552).

Hits are walked in rank order while ``u`` tokens of the budget ``T`` are used. After a hit is
taken, its parent ``p`` replaces the hit children taken so far when all three hold:

1. at least ``min_children`` (2) of ``p``'s children are taken;
2. their total length is at least ``len(p) / 3 · (1 + u/T)`` — a third of the parent while the
   budget is empty, two thirds when it is full, so merging gets harder as room runs out;
3. ``p`` still fits: ``u`` minus the children plus ``p`` is at most ``T``.

The rule repeats upward from the new parent, up to (not into) the document root. The walk stops when ``T`` is full. Lengths and
``u`` are in the budget's tokens. Every chosen node keeps the score of its best hit, so the rank
order of the walk is the order of the result.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from ..model import Hit, Node, Tree
from ..parse.params import check_float, check_int
from .base import Candidate, TreeSource, unit_candidate
from .measure import SpanSizer
from .merge import merged_rule
from .units import span_candidate


@dataclass
class _Chosen:
    node: Node
    hits: list[Hit]
    tokens: int
    candidate: Candidate
    merges: list[tuple[int, int]]


@dataclass(frozen=True)
class BudgetMerge:
    """HiChunk's rule: merge hit children into their parent while the budget allows it."""

    name: ClassVar[str] = "budget-merge"

    min_children: int = 2
    #: The share of the parent the children must cover on an empty budget (HiChunk: 1/3).
    share: float = 1 / 3

    def __post_init__(self) -> None:
        check_int(self.name, "min_children", self.min_children, 1)
        check_float(self.name, "share", self.share, 0.0, 1.0)

    def should_merge(self, taken: int, children_tokens: int, parent_tokens: int, used: int,
                     budget: int) -> bool:
        """The three conditions, with ``used`` counting the taken children (before the merge)."""
        return (taken >= self.min_children
                and children_tokens >= parent_tokens * self.share * (1 + used / budget)
                and used - children_tokens + parent_tokens <= budget)

    def expand(self, hits: Sequence[Hit], trees: TreeSource, budget: int) -> list[Candidate]:
        sizer = SpanSizer(trees)
        chosen: dict[tuple[str, str], _Chosen] = {}
        used = 0
        rest: list[Hit] = []
        for i, h in enumerate(hits):
            if used >= budget:
                rest.extend(hits[i:])
                break
            tree = trees.tree(h.doc_id)
            node = tree.get(h.node_id)
            if node is None:
                rest.append(h)
                continue
            cover = self._covering(tree, node, chosen)
            if cover is not None:
                chosen[cover].hits.append(h)
                continue
            size = sizer.size(h.doc_id, node.start, node.end)
            if used + size > budget:
                rest.append(h)
                continue
            key = (h.doc_id, node.id)
            chosen[key] = _Chosen(node, [h], size, unit_candidate(h, node), [])
            used += size
            used = self._merge_up(tree, key, chosen, sizer, used, budget)
        out = sorted((c.candidate for c in chosen.values()), key=lambda c: -c.score)
        out.extend(unit_candidate(h, trees.tree(h.doc_id).get(h.node_id)) for h in rest)
        return out

    @staticmethod
    def _covering(tree: Tree, node: Node, chosen: dict[tuple[str, str], _Chosen]) -> tuple[str, str] | None:
        for n in (node, *tree.ancestors(node)):
            if (node.doc_id, n.id) in chosen:
                return (node.doc_id, n.id)
        return None

    def _merge_up(self, tree: Tree, key: tuple[str, str], chosen: dict[tuple[str, str], _Chosen],
                  sizer: SpanSizer, used: int, budget: int) -> int:
        doc_id = key[0]
        node = chosen[key].node
        while node.parent_id is not None:
            parent = tree[node.parent_id]
            if parent.level < 1:  # the document root is never a merge target
                break
            kids = [chosen[(doc_id, c)] for c in parent.children if (doc_id, c) in chosen]
            kid_tokens = sum(k.tokens for k in kids)
            p_tokens = sizer.size(doc_id, parent.start, parent.end)
            if not self.should_merge(len(kids), kid_tokens, p_tokens, used, budget):
                break
            hits = [h for k in kids for h in k.hits]
            best = max(hits, key=lambda h: h.score)
            deepest = max(kids, key=lambda k: len(k.merges))
            merges = [*deepest.merges, (len(kids), len(parent.children))]
            for k in kids:
                del chosen[(doc_id, k.node.id)]
            cand = span_candidate(parent, doc_id, parent.start, parent.end, best.score,
                                  tuple(sorted(hits, key=lambda h: -h.score)),
                                  merged_rule(merges) + f" at {used}/{budget} tokens",
                                  fallback=tuple(k.candidate for k in kids))
            chosen[(doc_id, parent.id)] = _Chosen(parent, hits, p_tokens, cand, merges)
            used = used - kid_tokens + p_tokens
            node = parent
        return used


