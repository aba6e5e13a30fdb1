"""Small tree helpers shared by the expansion policies: leaf runs, covered hits, candidates."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..model import Hit, Node, Tree
from .base import Candidate


def first_leaf(tree: Tree, node: Node) -> Node:
    while node.children:
        node = tree[node.children[0]]
    return node


def last_leaf(tree: Tree, node: Node) -> Node:
    while node.children:
        node = tree[node.children[-1]]
    return node


def leaf_run(tree: Tree, node: Node, before: int, after: int, within: Node | None = None) -> tuple[int, int]:
    """The span from ``before`` leaves before ``node`` to ``after`` leaves after it.

    A non-leaf node counts as the run of its own leaves. With ``within``, the run stops at that
    node's edges (e.g. to stay inside a paragraph).
    """
    first, last = first_leaf(tree, node), last_leaf(tree, node)
    lo = within.start if within is not None else None
    hi = within.end if within is not None else None
    for _ in range(before):
        prev = tree.previous_leaf(first)
        if prev is None or (lo is not None and prev.start < lo):
            break
        first = prev
    for _ in range(after):
        nxt = tree.next_leaf(last)
        if nxt is None or (hi is not None and nxt.end > hi):
            break
        last = nxt
    return min(first.start, node.start), max(last.end, node.end)


def inside(hits: Iterable[Hit], start: int, end: int) -> list[Hit]:
    """The hits whose span lies within [start, end)."""
    return [h for h in hits if start <= h.start and h.end <= end]


def by_doc(hits: Sequence[Hit]) -> dict[str, list[Hit]]:
    """Hits grouped by document, each group in rank order."""
    out: dict[str, list[Hit]] = {}
    for h in hits:
        out.setdefault(h.doc_id, []).append(h)
    return out


def ordered_hits(first: Sequence[Hit], others: Iterable[Hit]) -> tuple[Hit, ...]:
    """``first`` (the hits that produced a span), then the other hits inside it; no repeats."""
    seen = {h.node_id for h in first}
    return (*first, *(h for h in others if h.node_id not in seen))


def span_candidate(node_like: Node | None, doc_id: str, start: int, end: int, score: float,
                   hits: tuple[Hit, ...], rule: str, fallback: tuple[Candidate, ...] = (),
                   kind: str | None = None) -> Candidate:
    """A candidate over [start, end) that takes its section path, level and kind from a node."""
    return Candidate(
        doc_id=doc_id, start=start, end=end, score=score, hits=hits,
        section_path=node_like.section_path if node_like is not None else (),
        level=node_like.level if node_like is not None else 0,
        kind=kind if kind is not None else (node_like.kind if node_like is not None else ""),
        rule=rule, fallback=fallback,
    )


def plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"
