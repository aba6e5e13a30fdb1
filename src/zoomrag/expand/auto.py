"""``auto``: the policy pinned by evaluation, else the one the probe measured for the document's
kind, else one chosen by the document's structure.

Three sources, strongest first:

1. **pinned** — ``zoomrag recommend --pin`` measured labelled questions and wrote the winner
   (:data:`PIN_KEY` in ``index_meta``); it is used for every document.
2. **probed** — ``zoomrag index`` (or ``zoomrag recommend --probe``) asked questions made from
   the corpus itself and recorded, per kind of document (:data:`KINDS`), the policy that returned
   most of their evidence (:data:`PROBE_KEY`; :mod:`zoomrag.evaluate.probe`).
3. **default** — ``density``, the benchmark's winner on every kind; from 2,048 tokens with a
   lighter ``trim`` (:data:`DEFAULTS`).

``structured`` (documents with headings) and ``flat`` (the others), when the caller sets them
(``--set structured=merge``), win over all three: an explicit setting is what the user asked for.
The probe may choose per band of budgets: a record under ``KIND@N`` applies from ``N`` tokens
on, the one under ``KIND`` below that (:func:`probed_for`).

The index reads its meta and hands the result to the policy as an :class:`AutoChoice`
(:meth:`zoomrag.Index.auto_choice`); the policy itself never reads the store.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, is_dataclass, replace
from types import MappingProxyType
from typing import Any, ClassVar

from ..errors import ConfigError
from ..model import CODE_KINDS, Hit, Tree
from ..registry import INTERNAL
from .base import Candidate, Expander, TreeSource, expander_names, get_expander
from .units import by_doc

#: ``index_meta`` key of the pinned policy: JSON ``{"policy": NAME, "params": {...}}``.
PIN_KEY = "expansion"
#: ``index_meta`` key of the probe's choice: JSON ``{"kinds": {KIND: {"policy", "params", "why"}},
#: "note": ...}`` (:mod:`zoomrag.evaluate.probe`).
PROBE_KEY = "expansion_probe"
#: Kinds of document the probe chooses for, in report order.
KINDS = ("headed", "flat", "table", "code")
#: Node kinds that only a heading structure produces.
_STRUCTURE_KINDS = frozenset({"section"})
_TABLE_KINDS = frozenset({"table"})


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


@dataclass(frozen=True)
class Choice:
    """One policy with its parameters and why it was chosen."""

    policy: str
    params: Mapping[str, Any] = field(default_factory=dict)
    why: str = ""

    def __post_init__(self) -> None:
        if self.policy == "auto":
            raise ConfigError("auto cannot choose itself; name the policy, e.g. density")
        get_expander(self.policy, self.params)  # validates the name and the parameters

    @property
    def label(self) -> str:
        """``merge`` or ``window (n=1)``."""
        if not self.params:
            return self.policy
        return f"{self.policy} ({', '.join(f'{k}={v}' for k, v in sorted(self.params.items()))})"

    def to_dict(self) -> dict[str, Any]:
        return {"policy": self.policy, "params": dict(self.params), "why": self.why}


#: What ``auto`` runs where nothing else chose, by band of budgets (from N tokens on): ``density``,
#: the benchmark's winner on every kind. A large budget gives up less of the evidence to save
#: tokens (``trim``): at 2,048-4,096 tokens ``trim=0.04`` returns as much evidence as the default
#: 0.08 or more on every shared set and mode, with IoU above every fixed size's
#: (docs/expansion.md, "Stopping early").
DEFAULTS: tuple[tuple[int, str, Mapping[str, Any]], ...] = (
    (0, "density", MappingProxyType({})),
    (2048, "density", MappingProxyType({"trim": 0.04})),
)


@functools.cache
def _defaults() -> tuple[tuple[int, Choice], ...]:
    # built on first use: a Choice validates its policy through the registry, which imports this module
    return tuple((start, Choice(policy, dict(params), "default")) for start, policy, params in DEFAULTS)


@dataclass(frozen=True)
class AutoChoice:
    """What ``auto`` knows about one index: a pin from labelled questions, the probe's choice per
    kind of document, and the probe's note (why a kind has no choice, e.g. too few documents)."""

    pinned: Choice | None = None
    #: Per kind of document (``KIND``), and per band of budgets (``KIND@N``: from N tokens on).
    probed: Mapping[str, Choice] = field(default_factory=lambda: MappingProxyType({}))
    note: str = ""
    #: True once a probe has been recorded (even one that chose nothing).
    recorded: bool = False
    #: The index's documents and write generation when the probe was recorded (0: not known).
    documents: int = 0
    generation: int = 0

    @classmethod
    def from_meta(cls, meta: Mapping[str, str]) -> AutoChoice:
        """Read :data:`PIN_KEY` and :data:`PROBE_KEY`; a damaged probe record is ignored (the
        probe is advice: a default is still right), a damaged pin is an error (it was asked for)."""
        pin = pinned_policy(meta)
        pinned = Choice(pin[0], pin[1], "pinned from labelled questions") if pin is not None else None
        probed: dict[str, Choice] = {}
        note = ""
        raw = meta.get(PROBE_KEY)
        documents = generation = 0
        if raw:
            try:
                value = json.loads(raw)
                note = str(value.get("note") or "")
                documents, generation = int(value.get("documents") or 0), int(value.get("generation") or 0)
                for kind, c in (value.get("kinds") or {}).items():
                    probed[str(kind)] = Choice(str(c["policy"]), dict(c.get("params") or {}), str(c.get("why") or ""))
            except (ValueError, KeyError, TypeError, AttributeError, ConfigError):
                probed, note = {}, "the probe record in the index cannot be read; run zoomrag recommend --probe"
        return cls(pinned, MappingProxyType(probed), note, recorded=bool(raw), documents=documents,
                   generation=generation)


def probe_value(probed: Mapping[str, Choice], note: str = "", *, documents: int = 0,
                generation: int = 0) -> dict[str, str]:
    """The ``index_meta`` entry that records the probe's choice per kind, and the index's
    documents and write generation it was made on (:func:`zoomrag.evaluate.probe.probe_due`)."""
    kinds = {k: c.to_dict() for k, c in sorted(probed.items(), key=lambda kv: _key_order(kv[0]))
             if _kind_of_key(k) in KINDS}
    return {PROBE_KEY: json.dumps({"kinds": kinds, "note": note, "documents": documents, "generation": generation},
                                  sort_keys=True, default=str)}


def default_choice(budget: int | None) -> Choice:
    """What ``auto`` runs at ``budget`` where no pin, probe or setting chose (None: the smallest)."""
    choices = _defaults()
    chosen = choices[0][1]
    for start, choice in choices:
        if budget is not None and budget >= start:
            chosen = choice
    return chosen


def probed_for(probed: Mapping[str, Choice], kind: str, budget: int | None = None) -> Choice | None:
    """The probe's choice for ``kind`` at ``budget``: the entry ``KIND@N`` with the largest
    ``N <= budget``, else ``KIND`` (budget None: ``KIND``)."""
    best, best_from = probed.get(kind), -1
    if budget is None:
        return best
    for key, c in probed.items():
        name, _, start = key.partition("@")
        if name == kind and start.isdigit() and best_from < int(start) <= budget:
            best, best_from = c, int(start)
    return best


def _kind_of_key(key: str) -> str:
    return key.partition("@")[0]


def _key_order(key: str) -> tuple[int, int]:
    kind, _, start = key.partition("@")
    return (KINDS.index(kind) if kind in KINDS else len(KINDS), int(start) if start.isdigit() else 0)


def document_kind(tree: Tree) -> str:
    """``table`` or ``code`` when such nodes cover most of the text, else ``headed`` when the tree
    has heading sections, else ``flat``. A page with headings whose examples are most of its
    text (a library reference) is ``headed``: its code blocks illustrate the prose around them;
    only a source file is ``code`` then."""
    present = {n.kind for n in tree.nodes}  # one cheap pass: most trees have neither kind
    headed = not present.isdisjoint(_STRUCTURE_KINDS)
    text_len = len(tree.document.text.strip()) or 1
    for kind, kinds in (("table", _TABLE_KINDS), ("code", CODE_KINDS)):
        if present.isdisjoint(kinds) or (kind == "code" and headed and tree.document.format != "code"):
            continue
        covered = 0
        end = -1
        for n in tree.nodes:  # outermost nodes of the kind; nodes come parent first, in text order
            if n.kind in kinds and n.level > 0 and n.start >= end:
                covered += n.end - n.start
                end = n.end
        if covered * 2 >= text_len:
            return kind
    return "headed" if headed else "flat"


@dataclass(frozen=True)
class AutoExpansion:
    """``structured`` (documents with headings) or ``flat`` (the others) when set, else the
    pinned policy, else the probed one for the document's kind and the budget, else ``density``."""

    name: ClassVar[str] = "auto"

    #: The policy for documents with headings, set by the caller ("": pin, probe, default).
    structured: str = ""
    #: The policy for the other documents (flat prose, tables, code), set by the caller.
    flat: str = ""
    #: Given by the index (:meth:`zoomrag.Index.auto_choice`); None: defaults only.
    choice: AutoChoice | None = field(default=None, metadata=INTERNAL)

    def __post_init__(self) -> None:
        for key in ("structured", "flat"):
            value = getattr(self, key)
            if value and (value == "auto" or value not in expander_names()):
                choices = ", ".join(n for n in expander_names() if n != "auto")
                raise ConfigError(f"auto: {key}={value!r} is not a policy; choose one of: {choices}")
        if self.choice is not None and not isinstance(self.choice, AutoChoice):
            raise ConfigError("auto: choice is given by the index, not as a parameter")

    def with_choice(self, choice: AutoChoice) -> AutoExpansion:
        """This policy with the index's pin and probe (a choice already given is kept)."""
        return self if self.choice is not None else replace(self, choice=choice)

    def choose(self, trees: TreeSource, doc_id: str, budget: int | None = None) -> tuple[Expander, str]:
        """The policy for one document (at ``budget`` tokens) and why it was chosen."""
        choice = self.choice or AutoChoice()
        if choice.pinned is not None and not self.structured and not self.flat:
            return get_expander(choice.pinned.policy, choice.pinned.params), f"pinned {choice.pinned.policy}"
        kind = document_kind(trees.tree(doc_id))
        where = "headings" if kind == "headed" else "flat prose" if kind == "flat" else kind
        asked = self.structured if kind == "headed" else self.flat
        if asked:  # set by the caller: wins over the pin and the probe
            return get_expander(asked), f"{where}: {asked}"
        if choice.pinned is not None:
            return get_expander(choice.pinned.policy, choice.pinned.params), f"pinned {choice.pinned.policy}"
        probed = probed_for(choice.probed, kind, budget)
        if probed is not None:
            return get_expander(probed.policy, probed.params), f"probed for {kind}: {probed.label}"
        default = default_choice(budget)
        return get_expander(default.policy, default.params), f"{where}: {default.label}"

    def expand(self, hits: Sequence[Hit], trees: TreeSource, budget: int) -> list[Candidate]:
        # Documents that get the same policy are expanded together (a policy ranks hits and
        # fills the budget across them); each candidate's rule names its own document's reason.
        groups: dict[str, tuple[Expander, list[Hit]]] = {}
        why_of: dict[str, str] = {}
        for doc_id, doc_hits in by_doc(hits).items():
            policy, why = self.choose(trees, doc_id, budget)
            why_of[doc_id] = why
            key = repr(policy) if is_dataclass(policy) else type(policy).__qualname__
            groups.setdefault(key, (policy, []))[1].extend(doc_hits)
        out: list[Candidate] = []
        for policy, group in groups.values():
            group.sort(key=lambda h: -h.score)
            out.extend(_tagged(c, why_of[c.doc_id]) for c in policy.expand(group, trees, budget))
        return out


def _tagged(c: Candidate, why: str) -> Candidate:
    return replace(c, rule=f"auto ({why}): {c.rule}", fallback=tuple(_tagged(f, why) for f in c.fallback))
