"""The expansion role: grow matched units into the spans a reader should see.

An :class:`Expander` turns ranked hits into :class:`Candidate` spans, each with the hits it
covers and, optionally, smaller fallbacks to try when it does not fit the token budget.
Assembly (:mod:`zoomrag.expand.assemble`) then fills the budget in score order and merges
overlaps, so a policy only decides *what* to propose, never how to pack it.

Policies here: ``none`` (the unit itself) and ``parent`` (the unit's parent node, falling back
to the unit). Window, auto-merge and budget-aware policies plug in through :func:`register`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Protocol, runtime_checkable

from ..errors import ConfigError
from ..model import Hit, Node, Tree


@dataclass(frozen=True, slots=True)
class Candidate:
    """A span proposed for the answer, with the hits inside it."""

    doc_id: str
    start: int
    end: int
    score: float
    hits: tuple[Hit, ...]
    section_path: tuple[str, ...] = ()
    level: int = 0
    kind: str = ""
    #: Why it was proposed, e.g. ``"parent of 2 hits"``.
    rule: str = ""
    #: Tried instead, each on its own, when this candidate does not fit the budget.
    fallback: tuple[Candidate, ...] = ()


class TreeSource(Protocol):
    """Gives the stored tree of a document (cached by the index)."""

    def tree(self, doc_id: str) -> Tree: ...


@runtime_checkable
class Expander(Protocol):
    """Turns hits (best first) into candidate spans (any order; assembly sorts by score)."""

    name: str

    def expand(self, hits: Sequence[Hit], trees: TreeSource, budget: int) -> list[Candidate]: ...


def unit_candidate(hit: Hit, node: Node | None, rule: str = "unit") -> Candidate:
    """The matched unit alone."""
    return Candidate(
        doc_id=hit.doc_id, start=hit.start, end=hit.end, score=hit.score, hits=(hit,),
        section_path=node.section_path if node else (), level=node.level if node else 0,
        kind=node.kind if node else "", rule=rule,
    )


class NoExpansion:
    """Return each matched unit as it is."""

    name = "none"

    def expand(self, hits: Sequence[Hit], trees: TreeSource, budget: int) -> list[Candidate]:
        return [unit_candidate(h, trees.tree(h.doc_id).get(h.node_id)) for h in hits]


class ParentExpansion:
    """Return the parent node of each hit; hits that share a parent share one candidate.

    The candidate scores as its best hit. When the parent does not fit the remaining budget,
    its hits are proposed on their own instead (LangChain's parent retriever, made budget-safe).
    """

    name = "parent"

    def expand(self, hits: Sequence[Hit], trees: TreeSource, budget: int) -> list[Candidate]:
        groups: dict[tuple[str, str], list[tuple[Hit, Node | None]]] = {}
        parents: dict[tuple[str, str], Node] = {}
        out: list[Candidate] = []
        for h in hits:
            tree = trees.tree(h.doc_id)
            node = tree.get(h.node_id)
            parent = tree.parent(node) if node is not None else None
            if parent is None:
                out.append(unit_candidate(h, node))
                continue
            key = (h.doc_id, parent.id)
            parents[key] = parent
            groups.setdefault(key, []).append((h, node))
        for key, members in groups.items():
            p = parents[key]
            n = len(members)
            out.append(Candidate(
                doc_id=p.doc_id, start=p.start, end=p.end, score=max(h.score for h, _ in members),
                hits=tuple(h for h, _ in members), section_path=p.section_path, level=p.level,
                kind=p.kind, rule=f"parent of {n} hit{'s' if n > 1 else ''}",
                fallback=tuple(unit_candidate(h, node) for h, node in members),
            ))
        return out


_EXPANDERS: dict[str, Callable[[], Expander]] = {"none": NoExpansion, "parent": ParentExpansion}


def register(name: str, factory: Callable[[], Expander]) -> None:
    """Make an expansion policy selectable by name (``--expand NAME``)."""
    _EXPANDERS[name] = factory


def expander_names() -> list[str]:
    return sorted(_EXPANDERS)


def get_expander(name: str | Expander) -> Expander:
    if not isinstance(name, str):
        return name
    try:
        return _EXPANDERS[name]()
    except KeyError:
        raise ConfigError(f"unknown expansion {name!r}; choose one of: {', '.join(expander_names())}") from None
