"""``merge``: auto-merging (LlamaIndex ``AutoMergingRetriever`` semantics), made budget-aware.

When the hit children of a parent are more than ``ratio`` of all its children, the parent is
returned instead of them; merged parents count as hit children of their own parent, so the rule
repeats upward until nothing changes. 2 of 4 children is 0.5, which is not more than 0.5: no
merge; 3 of 4 merges.

Merging stops below the document root: the whole document is never returned by this rule.
The merged score is ``score`` of the merged children's scores: ``mean`` (LlamaIndex's rule,
the default), ``max`` or ``sum``. A merged parent that does not fit the budget falls back to
its children.

Which hits are merged: LlamaIndex merges a fixed top-k. Here ``k`` is not a knob: the hits are
taken in rank order while their own sizes fill ``pool`` times the budget (what plain retrieval
would return), those are merged, and the remaining hits follow as single units to fill any room
that merging leaves.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from statistics import fmean
from typing import ClassVar

from ..model import Hit, Node, Tree
from ..parse.params import check_choice, check_float
from .base import Candidate, TreeSource, unit_candidate
from .measure import SpanSizer
from .units import by_doc, span_candidate

#: How a merged parent is scored from its merged children.
SCORE_RULES: dict[str, Callable[[Sequence[float]], float]] = {"mean": fmean, "max": max, "sum": sum}


@dataclass
class Group:
    """A node standing for hits: a hit unit, or a parent merged from such groups."""

    node: Node
    hits: list[Hit]
    score: float
    candidate: Candidate
    #: ``(hit children, all children)`` of each merge that produced it, lowest first.
    merges: list[tuple[int, int]] = field(default_factory=list)


def budget_prefix(hits: Sequence[Hit], sizer: SpanSizer, tokens: float) -> tuple[list[Hit], list[Hit]]:
    """The rank-order prefix of ``hits`` whose sizes fit ``tokens`` (at least one), and the rest."""
    used = 0
    for i, h in enumerate(hits):
        used += sizer.size(h.doc_id, h.start, h.end)
        if used > tokens and i > 0:
            return list(hits[:i]), list(hits[i:])
    return list(hits), []


def unit_groups(tree: Tree, hits: Sequence[Hit]) -> dict[str, Group]:
    """One group per distinct hit node (a node matched twice keeps its best hit first)."""
    groups: dict[str, Group] = {}
    for h in hits:
        g = groups.get(h.node_id)
        if g is not None:
            g.hits.append(h)
            continue
        node = tree.get(h.node_id)
        if node is None:
            continue
        groups[h.node_id] = Group(node, [h], h.score, unit_candidate(h, node))
    return groups


def merged_rule(merges: Sequence[tuple[int, int]]) -> str:
    first = f"merged {merges[0][0]}/{merges[0][1]} children"
    return first + "".join(f", then {a}/{b}" for a, b in merges[1:])


@dataclass(frozen=True)
class AutoMerge:
    """Merge into the parent when more than ``ratio`` of its children are hit; repeat upward."""

    name: ClassVar[str] = "merge"

    ratio: float = 0.5
    score: str = "mean"
    pool: float = 1.0

    def __post_init__(self) -> None:
        check_float(self.name, "ratio", self.ratio, 0.0, 1.0)
        check_choice(self.name, "score", self.score, tuple(SCORE_RULES))
        check_float(self.name, "pool", self.pool, 0.0, 1000.0)

    def expand(self, hits: Sequence[Hit], trees: TreeSource, budget: int) -> list[Candidate]:
        sizer = SpanSizer(trees)
        merged, rest = budget_prefix(hits, sizer, self.pool * budget) if self.pool > 0 else (list(hits), [])
        out: list[Candidate] = []
        for doc_id, doc_hits in by_doc(merged).items():
            tree = trees.tree(doc_id)
            out.extend(g.candidate for g in self.merge(tree, unit_groups(tree, doc_hits)).values())
        out.extend(unit_candidate(h, trees.tree(h.doc_id).get(h.node_id)) for h in rest)
        return out

    def merge(self, tree: Tree, groups: dict[str, Group]) -> dict[str, Group]:
        """Apply the ratio rule until no parent qualifies."""
        rule = SCORE_RULES[self.score]
        changed = True
        while changed:
            changed = False
            by_parent: dict[str, list[Group]] = {}
            for g in groups.values():
                if g.node.parent_id is not None:
                    by_parent.setdefault(g.node.parent_id, []).append(g)
            for pid, members in by_parent.items():
                parent = tree[pid]
                if parent.level < 1 or pid in groups or len(members) / len(parent.children) <= self.ratio:
                    continue
                for m in members:
                    del groups[m.node.id]
                hits = [h for m in members for h in m.hits]
                deepest = max(members, key=lambda m: len(m.merges))
                merges = [*deepest.merges, (len(members), len(parent.children))]
                score = rule([m.score for m in members])
                cand = span_candidate(parent, parent.doc_id, parent.start, parent.end, score,
                                      tuple(sorted(hits, key=lambda h: -h.score)), merged_rule(merges),
                                      fallback=tuple(m.candidate for m in members))
                groups[pid] = Group(parent, hits, score, cand, merges)
                changed = True
        return groups


