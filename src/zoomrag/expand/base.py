"""The expansion role: grow matched units into the spans a reader should see.

An :class:`Expander` turns ranked hits into :class:`Candidate` spans, each with the hits it
covers and, optionally, smaller fallbacks to try when it does not fit the token budget.
Assembly (:mod:`zoomrag.expand.assemble`) then fills the budget in score order and merges
overlaps, so a policy only decides *what* to propose, never how to pack it.

Policies here: ``none`` (the unit itself) and ``parent`` (the unit's parent node, falling back
to the unit). The other built-in policies live in modules of their own; :data:`EXPANDERS` lists
them all, and :func:`register` adds one.
"""

from __future__ import annotations

import dataclasses
import functools
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol, runtime_checkable

from ..errors import ConfigError
from ..model import Hit, Node, Tree, TreeSource
from ..registry import Registry, user_fields


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
    #: Expected evidence it holds, in tokens, when the policy knows it (``density``); else
    #: assembly estimates it from the hits' ranks (:mod:`zoomrag.expand.evidence`).
    evidence: float | None = None
    #: A whole definition or entry (:mod:`zoomrag.expand.named`): complete however short, so
    #: assembly does not grow it into its neighbours.
    whole: bool = False


@runtime_checkable
class Expander(Protocol):
    """Turns hits (best first) into candidate spans (any order; assembly sorts by score).

    A policy that reads nothing of a tree but the hits' nodes, their ancestors and the
    document's text may say so with a class attribute ``reads = "ancestors"`` (see
    :data:`READS_ANCESTORS`); an index then gives it partial trees that hold just those nodes,
    which costs a fraction of loading whole trees. Without it, a policy gets whole trees.
    """

    @property
    def name(self) -> str: ...

    def expand(self, hits: Sequence[Hit], trees: TreeSource, budget: int) -> list[Candidate]: ...


def unit_candidate(hit: Hit, node: Node | None, rule: str = "unit") -> Candidate:
    """The matched unit alone."""
    return Candidate(
        doc_id=hit.doc_id, start=hit.start, end=hit.end, score=hit.score, hits=(hit,),
        section_path=node.section_path if node else (), level=node.level if node else 0,
        kind=node.kind if node else "", rule=rule,
    )


#: The ``reads`` value of a policy that only looks at hits' nodes and their ancestors.
READS_ANCESTORS = "ancestors"


def reads_ancestors_only(expander: Expander) -> bool:
    """True when the policy promises to read only hits' nodes, their ancestors and the text."""
    return getattr(expander, "reads", None) == READS_ANCESTORS


class NoExpansion:
    """Return each matched unit as it is."""

    name = "none"
    reads: ClassVar[str] = READS_ANCESTORS

    def expand(self, hits: Sequence[Hit], trees: TreeSource, budget: int) -> list[Candidate]:
        return [unit_candidate(h, trees.tree(h.doc_id).get(h.node_id)) for h in hits]


@dataclass(frozen=True)
class ParentExpansion:
    """Return an ancestor of each hit; hits that share it share one candidate.

    ``depth`` picks the ancestor: ``-1`` (default) the parent, ``-2`` the grandparent, and so
    on up to the root; ``d >= 0`` the ancestor at level ``d`` (``0``: the whole document). A hit
    already at or above that level is returned as it is.

    The candidate scores as its best hit. When the ancestor does not fit the remaining budget,
    its hits are proposed on their own instead (LangChain's parent retriever, made budget-safe).
    """

    name: ClassVar[str] = "parent"
    reads: ClassVar[str] = READS_ANCESTORS

    depth: int = -1

    def __post_init__(self) -> None:
        if isinstance(self.depth, bool) or not isinstance(self.depth, int):
            raise ConfigError(f"parent: depth must be a whole number, got {self.depth!r}")

    def _target(self, tree: Tree, node: Node) -> Node | None:
        chain = tree.ancestors(node)  # parent first, root last
        if not chain:
            return None
        if self.depth < 0:
            return chain[min(-self.depth, len(chain)) - 1]
        return next((a for a in chain if a.level == self.depth), None)

    def _rule(self, n: int) -> str:
        what = {-1: "parent", -2: "grandparent"}.get(self.depth, f"ancestor at level {self.depth}"
                                                      if self.depth >= 0 else f"ancestor {-self.depth} up")
        return f"{what} of {n} hit{'s' if n > 1 else ''}"

    def expand(self, hits: Sequence[Hit], trees: TreeSource, budget: int) -> list[Candidate]:
        groups: dict[tuple[str, str], list[tuple[Hit, Node | None]]] = {}
        parents: dict[tuple[str, str], Node] = {}
        out: list[Candidate] = []
        for h in hits:
            tree = trees.tree(h.doc_id)
            node = tree.get(h.node_id)
            parent = self._target(tree, node) if node is not None else None
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
                kind=p.kind, rule=self._rule(n),
                fallback=tuple(unit_candidate(h, node) for h, node in members),
            ))
        return out


def _builtin_policies() -> list[tuple[str, Callable[..., Expander]]]:
    # Read on first use: the policy modules import this one.
    from .auto import AutoExpansion
    from .budget_merge import BudgetMerge
    from .density import DensityExpansion
    from .merge import AutoMerge
    from .multilevel import MultiLevel
    from .window import WindowExpansion

    return [("none", NoExpansion), ("parent", ParentExpansion), ("window", WindowExpansion),
            ("merge", AutoMerge), ("budget-merge", BudgetMerge), ("density", DensityExpansion),
            ("multilevel", MultiLevel), ("auto", AutoExpansion)]


#: Every expansion policy by name: the built-ins and those added with :func:`register`.
EXPANDERS: Registry[Callable[..., Expander]] = Registry("expansion", _builtin_policies)


def register(name: str, factory: Callable[..., Expander]) -> None:
    """Make an expansion policy selectable by name (``--expand NAME``).

    A factory that is a dataclass takes its fields as parameters (``get_expander(name, params)``,
    ``--set key=value``); any other factory takes none.
    """
    EXPANDERS.add(name, factory)


def expander_names() -> list[str]:
    return EXPANDERS.names()


def expander_params(name: str) -> dict[str, Any]:
    """The parameters of a policy with their defaults (``{}`` for a policy without any)."""
    factory = _factory(name)
    if not dataclasses.is_dataclass(factory):
        return {}
    out: dict[str, Any] = {}
    for f in dataclasses.fields(factory):
        if f.default is not dataclasses.MISSING:
            out[f.name] = f.default
        elif f.default_factory is not dataclasses.MISSING:
            out[f.name] = f.default_factory()
    return out


@functools.cache
def _type_hints(factory: type) -> dict[str, Any]:
    # resolving the string annotations costs ~50 us; auto builds a policy per document per query
    return typing.get_type_hints(factory)


def get_expander(name: str | Expander, params: Mapping[str, Any] | None = None) -> Expander:
    """A policy by name, built with ``params`` (CLI strings are converted to the declared types).

    Unknown parameters and out-of-range values are a :class:`ConfigError` that names them.
    """
    if not isinstance(name, str):
        if params:
            raise ConfigError("params apply to a policy name; an Expander object carries its own")
        return name
    factory = _factory(name)
    params = dict(params or {})
    if not params:
        return factory()
    if not dataclasses.is_dataclass(factory):
        raise ConfigError(f"expansion {name!r} has no parameters; remove {', '.join(map(repr, sorted(params)))}")
    from ..parse.registry import coerce  # the same string-to-type rules as strategies

    allowed = {f.name for f in user_fields(factory)}
    unknown = sorted(set(params) - allowed)
    if unknown:
        raise ConfigError(f"expansion {name!r} has no parameter {', '.join(map(repr, unknown))}; "
                          f"its parameters are: {', '.join(sorted(allowed)) or 'none'}{_owners(unknown)}")
    hints = _type_hints(factory)
    return factory(**{k: coerce(name, k, v, hints.get(k, str)) for k, v in params.items()})


def _owners(params: list[str]) -> str:
    """Which other policies take these parameters (``trim`` given to ``auto``), as a hint."""
    owners = sorted(n for n in expander_names() if set(params) <= {f.name for f in user_fields(_factory(n))})
    return f"; {', '.join(map(repr, params))} belongs to {', '.join(owners)}: name that policy to set it" if owners else ""


def _factory(name: str) -> Callable[..., Expander]:
    return EXPANDERS.get(name)
