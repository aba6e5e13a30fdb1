"""``density``: spend every token where evidence is most likely, hit by hit and leaf by leaf.

The other policies pick one shape for every hit (a window of n, a parent, a merge). This one
estimates, for every leaf near a hit, the probability that it holds evidence, and fills the
budget with the leaves of highest probability; adjacent chosen leaves become one context. Per
hit the result is the unit with the best expected evidence per token: the leaf alone when the
budget is tight or the hit is weak, a window (not necessarily symmetric) around a strong hit,
a whole parent when its leaves are all likely, a run joining two nearby hits.

The model, for one document:

- a hit of rank r (0 = best) is relevant with probability ``q(r) = tau / (tau + r)``, times
  ``exp(-score_decay * g)`` where ``g`` is its score gap to the best hit in units of the median
  gap among the first 50 hits (``score_decay`` 0, the default, ranks by position alone; 1 trusts
  a clear lead of the top hits, which pays where one passage holds the answer and costs
  recall where evidence is spread over many weaker hits: docs/expansion.md has the figures);
- evidence continues from a relevant leaf into a neighbour with probability
  ``exp(-d / reach)``, ``d`` the tokens from the hit to the neighbour's middle; outside the
  hit's parent (a paragraph, a section) ``d`` counts ``cross`` times, as evidence rarely runs
  across such an edge, and past the edge of a code definition (a function, a method, a class)
  the probability is quartered too: the next function is another question's answer;
- a leaf near several hits is relevant unless every one of them misses (noisy-or).

A leaf's expected evidence per token is then its probability, so taking leaves in decreasing
probability until the budget is full is the greedy optimum of the expected evidence covered.
Leaves are sized in the budget's tokens; contexts score as their best hit.

Then the budget is not necessarily spent: the last leaves taken are the least likely to hold
evidence and they dilute what is returned (IoU falls whenever the text added holds less evidence
per token than the text already there). ``trim`` drops the least probable leaves of the choice
as long as they hold at most that share of its expected evidence (probability times tokens); for
the evidence given up, dropping the least probable leaves first saves the most tokens. Hits left
out below the resulting floor do not follow as units either. ``trim=0`` spends the whole budget.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import ClassVar

from ..model import Hit, Node, Tree
from ..parse.params import check_float
from ..parse.strategies.code import DEFINITIONS
from .base import Candidate, TreeSource, unit_candidate
from .measure import SpanSizer
from .units import first_leaf, last_leaf, plural, span_candidate

#: Neighbours whose continuation probability falls below this are not considered.
_FLOOR = 0.01
#: The factor on the probability of a neighbour outside the definition (:data:`DEFINITIONS`) a
#: hit lies in (another function is rarely the same answer).
_CODE_EDGE = 0.25
#: Hits whose score gaps set the unit of ``score_decay`` (a fixed head, so the budget's candidate
#: count does not change it).
_GAP_SAMPLE = 50


@dataclass(frozen=True)
class DensityExpansion:
    """Fill the budget with the leaves most likely to hold evidence (see the module docstring)."""

    name: ClassVar[str] = "density"

    #: Tokens over which the chance that evidence continues into a neighbour falls by e.
    reach: float = 64.0
    #: Rank at which a hit's relevance has halved.
    tau: float = 5.0
    #: Distance multiplier for neighbours outside the hit's parent.
    cross: float = 2.0
    #: Share of the chosen leaves' expected evidence that may be given up to save tokens: the
    #: least probable leaves holding at most this share are dropped (0: spend the whole budget).
    trim: float = 0.08
    #: How fast relevance falls with a hit's score gap to the best hit, in median gaps (0: rank only).
    score_decay: float = 0.0

    def __post_init__(self) -> None:
        check_float(self.name, "reach", self.reach, 0.0, 100_000.0)
        check_float(self.name, "tau", self.tau, 0.001, 100_000.0)
        check_float(self.name, "cross", self.cross, 1.0, 1000.0)
        check_float(self.name, "trim", self.trim, 0.0, 0.5)
        check_float(self.name, "score_decay", self.score_decay, 0.0, 100.0)

    def relevance(self, rank: int, gap: float = 0.0) -> float:
        """Probability that the hit of this rank is relevant; ``gap`` is its normalised score gap."""
        q = self.tau / (self.tau + rank)
        return q * math.exp(-self.score_decay * gap) if self.score_decay else q

    def gaps(self, hits: Sequence[Hit]) -> list[float]:
        """Each hit's score gap to the best hit, in units of the median gap of the first 50 hits
        (so that the scale of the scores, cosine, fused or BM25, does not matter)."""
        if not self.score_decay or len(hits) < 2:
            return [0.0] * len(hits)
        top = max(h.score for h in hits)
        head = sorted(top - h.score for h in hits[:_GAP_SAMPLE])
        unit = (head[(len(head) - 1) // 2] + head[len(head) // 2]) / 2
        if unit <= 0:  # at least half the head ties with the best: no lead to trust
            return [0.0] * len(hits)
        return [(top - h.score) / unit for h in hits]

    def expand(self, hits: Sequence[Hit], trees: TreeSource, budget: int) -> list[Candidate]:
        sizer = SpanSizer(trees)
        ranked, loose = self.rank(hits, trees, sizer)
        used = 0
        chosen: list[tuple[float, str, Node, int]] = []
        for p, doc_id, leaf in ranked:
            size = sizer.size(doc_id, leaf.start, leaf.end)
            if used + size <= budget:
                used += size
                chosen.append((p, doc_id, leaf, size))
        floor = self.floor(chosen)
        taken: dict[str, list[tuple[Node, float]]] = {}
        sizes = {(doc_id, leaf.id): size for _, doc_id, leaf, size in chosen}
        for p, doc_id, leaf, _ in chosen:
            if p >= floor:
                taken.setdefault(doc_id, []).append((leaf, p))
        out = [c for doc_id, kept in taken.items() for c in self._contexts(trees.tree(doc_id), kept, hits, sizes)]
        # Hits left out follow as units, so assembly can still use any room; below the floor
        # they are not worth their tokens either.
        worth = {(doc_id, leaf.id) for p, doc_id, leaf in ranked if p >= floor}
        covered = {h.node_id for c in out for h in c.hits}
        for h in hits:
            node = trees.tree(h.doc_id).get(h.node_id)
            if node is not None and h.node_id not in covered and self._worth(trees.tree(h.doc_id), node, worth):
                out.append(unit_candidate(h, node))
        return out + loose

    def floor(self, chosen: Sequence[tuple[float, str, Node, int]]) -> float:
        """The probability below which chosen leaves are dropped (0 when ``trim`` is 0).

        ``chosen`` is most probable first. The least probable leaves go while the expected
        evidence they hold (probability times tokens) stays within ``trim`` of the whole choice's:
        for the evidence given up they save the most tokens. Leaves of equal probability go
        together or not at all.
        """
        if self.trim == 0 or not chosen:
            return 0.0
        allowance = self.trim * sum(p * size for p, _, _, size in chosen)
        given_up = 0.0
        for p, _, _, size in reversed(chosen):
            given_up += p * size
            if given_up > allowance:
                return p
        return chosen[0][0]

    @staticmethod
    def _worth(tree: Tree, node: Node, worth: set[tuple[str, str]]) -> bool:
        """True when any leaf of ``node`` is at or above the floor."""
        doc_id = tree.document.id
        return any((doc_id, leaf.id) in worth for leaf in _leaves_between(tree, first_leaf(tree, node),
                                                                         last_leaf(tree, node)))

    def rank(self, hits: Sequence[Hit], trees: TreeSource,
             sizer: SpanSizer) -> tuple[list[tuple[float, str, Node]], list[Candidate]]:
        """Every leaf near a hit as ``(probability, doc_id, leaf)``, most probable first (ties in
        document order), and the hits whose node is not in its tree, as units."""
        # doc -> leaf id -> probability that the leaf is not evidence (every nearby hit misses)
        miss: dict[str, dict[str, float]] = {}
        leaves: dict[str, dict[str, Node]] = {}
        seen: set[str] = set()
        loose: list[Candidate] = []
        gaps = self.gaps(hits)
        for rank, h in enumerate(hits):
            if h.node_id in seen:
                continue
            seen.add(h.node_id)
            tree = trees.tree(h.doc_id)
            node = tree.get(h.node_id)
            if node is None:
                loose.append(unit_candidate(h, None))
                continue
            q = self.relevance(rank, gaps[rank])
            doc_miss = miss.setdefault(h.doc_id, {})
            doc_leaves = leaves.setdefault(h.doc_id, {})
            for leaf, p in self._spread(tree, node, q, sizer):
                doc_miss[leaf.id] = doc_miss.get(leaf.id, 1.0) * (1.0 - p)
                doc_leaves[leaf.id] = leaf
        ranked = sorted(((1.0 - m, doc_id, leaves[doc_id][leaf_id]) for doc_id, d in miss.items()
                         for leaf_id, m in d.items()), key=lambda t: (-t[0], t[1], t[2].start))
        return ranked, loose

    def _spread(self, tree: Tree, node: Node, q: float, sizer: SpanSizer) -> list[tuple[Node, float]]:
        """The hit's own leaves at ``q``, and neighbours on each side at decaying probability."""
        lo, hi = first_leaf(tree, node), last_leaf(tree, node)
        out = [(leaf, q) for leaf in _leaves_between(tree, lo, hi)]
        parent = tree.parent(node)
        # a definition's edge: the function before or after is another question's answer
        edge = _CODE_EDGE if parent is not None and parent.kind in DEFINITIONS else 1.0
        for step in (tree.previous_leaf, tree.next_leaf):
            cur = lo if step is tree.previous_leaf else hi
            d = 0.0
            while True:
                nxt = step(cur)
                if nxt is None:
                    break
                inside = parent is not None and parent.start <= nxt.start and nxt.end <= parent.end
                size = sizer.size(node.doc_id, nxt.start, nxt.end)
                mid = d + size / 2  # the neighbour's middle, as its tokens are all this far on average
                p = q * math.exp(-mid * (1.0 if inside else self.cross) / self.reach) if self.reach > 0 else 0.0
                if not inside:
                    p *= edge
                if p < _FLOOR:
                    break
                out.append((nxt, p))
                d += size
                cur = nxt
        return out

    def _contexts(self, tree: Tree, chosen: list[tuple[Node, float]], hits: Sequence[Hit],
                  sizes: dict[tuple[str, str], int] | None = None) -> list[Candidate]:
        """Runs of consecutive chosen leaves, one candidate each, scored by their best hit."""
        chosen.sort(key=lambda t: t[0].start)
        runs: list[list[tuple[Node, float]]] = []
        for leaf, p in chosen:
            if runs and (prev := tree.previous_leaf(leaf)) is not None and prev.id == runs[-1][-1][0].id:
                runs[-1].append((leaf, p))
            else:
                runs.append([(leaf, p)])
        doc_hits = [h for h in hits if h.doc_id == tree.document.id]
        out = []
        for run in runs:
            start, end = run[0][0].start, run[-1][0].end
            if not any(h.start < end and start < h.end for h in doc_hits):
                # neighbours only (their hit's leaf too large for the room, or two weak hits
                # around them): text beside a match reads as nothing without it; hits follow as units
                continue
            inner = [h for h in doc_hits if start <= h.start and h.end <= end]
            best_p = max(p for _, p in run)
            score = max((h.score for h in inner), default=None)
            if score is None:  # inside a hit larger than the run: ranked below every hit
                score = min((h.score for h in hits), default=0.0) * best_p
            node = tree.get(inner[0].node_id) if inner else run[0][0]
            rule = f"{len(run)} {'leaf' if len(run) == 1 else 'leaves'} at p ≥ {min(p for _, p in run):.2f} around {plural(len(inner), 'hit')}"
            cand = span_candidate(node, tree.document.id, start, end, score, tuple(inner), rule,
                                  kind="span" if len(run) > 1 else None)
            # its expected evidence (probability times tokens), which assembly's stop rule reads
            doc_id = tree.document.id
            evidence = sum(p * (sizes or {}).get((doc_id, leaf.id), 0) for leaf, p in run)
            out.append(dataclasses.replace(cand, evidence=evidence))
        return out


def _leaves_between(tree: Tree, first: Node, last: Node) -> list[Node]:
    out = [first]
    cur = first
    while cur is not last:
        nxt = tree.next_leaf(cur)
        if nxt is None:
            break
        out.append(nxt)
        cur = nxt
    return out


