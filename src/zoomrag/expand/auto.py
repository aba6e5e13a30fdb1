"""``auto``: the policy pinned by evaluation, else one chosen by each document's structure.

Gate 1 of the protocol (docs/expansion.md): documents with headings get the ``structured``
policy, flat prose the ``flat`` one. The textbook choice is a merge-type policy for the first and
a window for the second; the defaults are instead the policy that won the benchmark for each kind
of document, ``density`` for both (it beat every merge-type policy on the headed set and the
window on flat prose), because a policy that lost there is never a default.

When evaluation has pinned a winner into the index (``zoomrag recommend --pin`` writes
:data:`PIN_KEY` in ``index_meta``), that policy is used for every document instead.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

from ..errors import ConfigError
from ..model import Hit, Tree
from .base import Candidate, Expander, TreeSource, expander_names, get_expander, register
from .units import by_doc

#: ``index_meta`` key of the pinned policy: JSON ``{"policy": NAME, "params": {...}}``.
PIN_KEY = "expansion"
#: Node kinds that only a heading structure produces.
_STRUCTURE_KINDS = frozenset({"section"})


def pin_value(policy: str, params: Mapping[str, Any] | None = None) -> dict[str, str]:
    """The ``index_meta`` entry that pins ``policy`` (validated: it must build)."""
    if policy == "auto":
        raise ConfigError("cannot pin 'auto' as the expansion; pin the policy that won, e.g. window")
    get_expander(policy, params)
    return {PIN_KEY: json.dumps({"policy": policy, "params": dict(params or {})}, sort_keys=True, default=str)}


def pinned_policy(meta: Mapping[str, str]) -> tuple[str, dict[str, Any]] | None:
    """The pinned ``(policy, params)`` of an index's meta, or None."""
    raw = meta.get(PIN_KEY)
    if not raw:
        return None
    try:
        value = json.loads(raw)
        return str(value["policy"]), dict(value.get("params") or {})
    except (ValueError, KeyError, TypeError):
        raise ConfigError(f"index_meta {PIN_KEY}={raw!r} is not a pinned policy; pin it again with "
                          "zoomrag recommend --pin") from None


def _meta(trees: TreeSource) -> Mapping[str, str]:
    """The index's meta through the tree source (the index's tree cache holds the store)."""
    meta = getattr(trees, "meta", None)
    if callable(meta):
        return meta()
    store = getattr(trees, "store", None)
    meta = getattr(store, "meta", None)
    return meta() if callable(meta) else {}


def has_structure(tree: Tree) -> bool:
    """True when the tree has heading sections."""
    return any(n.kind in _STRUCTURE_KINDS for n in tree.nodes)


@dataclass(frozen=True)
class AutoExpansion:
    """The pinned policy, else ``structured`` for documents with headings and ``flat`` for prose."""

    name: ClassVar[str] = "auto"

    structured: str = "density"
    flat: str = "density"

    def __post_init__(self) -> None:
        for key in ("structured", "flat"):
            value = getattr(self, key)
            if value == "auto" or value not in expander_names():
                choices = ", ".join(n for n in expander_names() if n != "auto")
                raise ConfigError(f"auto: {key}={value!r} is not a policy; choose one of: {choices}")

    def choose(self, trees: TreeSource, doc_id: str) -> tuple[Expander, str]:
        """The policy for one document and why it was chosen."""
        pin = pinned_policy(_meta(trees))
        if pin is not None:
            return get_expander(*pin), f"pinned {pin[0]}"
        if has_structure(trees.tree(doc_id)):
            return get_expander(self.structured), f"headings: {self.structured}"
        return get_expander(self.flat), f"flat prose: {self.flat}"

    def expand(self, hits: Sequence[Hit], trees: TreeSource, budget: int) -> list[Candidate]:
        groups: dict[str, tuple[Expander, str, list[Hit]]] = {}
        for doc_id, doc_hits in by_doc(hits).items():
            policy, why = self.choose(trees, doc_id)
            key = why
            if key not in groups:
                groups[key] = (policy, why, [])
            groups[key][2].extend(doc_hits)
        out: list[Candidate] = []
        for policy, why, group in groups.values():
            group.sort(key=lambda h: -h.score)
            out.extend(_tagged(c, why) for c in policy.expand(group, trees, budget))
        return out


def _tagged(c: Candidate, why: str) -> Candidate:
    from dataclasses import replace

    return replace(c, rule=f"auto ({why}): {c.rule}", fallback=tuple(_tagged(f, why) for f in c.fallback))


register("auto", AutoExpansion)
