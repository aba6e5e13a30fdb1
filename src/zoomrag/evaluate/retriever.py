"""Configurations over a real :class:`zoomrag.Index`: what ``zoomrag eval/sweep/compare`` measure.

A configuration name says which tree to build and which expansion policy to query it with:

- ``fixed-N`` — the ``fixed`` strategy, ``N`` tokens, 15 % overlap, no expansion (Gate 0);
- a policy name — that policy on its natural tree: ``window`` and ``density`` on sentence windows
  (the ``window`` strategy), ``parent``, ``merge``, ``budget-merge``, ``auto`` on the
  ``hierarchical`` strategy, ``multilevel`` on the hierarchical tree with parent vectors;
- a named variant of a policy — ``density-sharp`` is ``density`` with ``score_decay=1`` (it
  trusts a clear score lead of the top hits: the winner where one passage holds the answer);
- ``default`` — what ``zoomrag index`` and ``zoomrag query`` do unless told otherwise: the
  ``default`` profile (tables and code routed to their strategies) queried with ``auto``;
- :func:`index_config` — the configuration an existing index was built and is queried with
  (its strategy or profile and parameters, its pinned policy, else ``auto``).

Configurations that share a tree share one index file (built once per run, reused across runs:
:meth:`Index.add` skips unchanged documents). ``query.doc_scope`` is a document filter
(``Index.query(doc=...)``), pushed into both rankers, so a scoped question fills its budget.
"""

from __future__ import annotations

import re
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Self

from ..embed import get_embedder
from ..embed.levels import LEVELS_KEY
from ..errors import EvalError, IndexMismatchError
from ..expand import get_expander
from ..expand.auto import pinned_policy
from ..model import Context
from .dataset import Dataset, EvalQuery
from .probe import VERSION as PROBE_VERSION
from .probe import probe_expansion, search_k
from .results import BuildStats
from .verdict import FIXED_OVERLAP, FIXED_SIZES, fixed_name, fixed_size

#: Trees by name: (strategy, strategy parameters, parent vectors).
TREES: dict[str, tuple[str, dict[str, Any], bool]] = {
    "window": ("window", {"max_size": 128}, False),
    "hierarchical": ("hierarchical", {}, False),
    "hierarchical+levels": ("hierarchical", {}, True),
}

#: Trees built from a profile (``zoomrag index``'s routing), by name: profile name.
PROFILE_TREES: dict[str, str] = {"default-profile": "default"}

#: Policy configurations: name -> (tree, policy, policy parameters).
POLICIES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "window": ("window", "window", {"n": 2}),
    "density": ("window", "density", {}),
    "density-sharp": ("window", "density", {"score_decay": 1.0}),
    "parent": ("hierarchical", "parent", {}),
    "merge": ("hierarchical", "merge", {}),
    "budget-merge": ("hierarchical", "budget-merge", {}),
    "multilevel": ("hierarchical+levels", "multilevel", {}),
    "auto": ("hierarchical", "auto", {}),
    "default": ("default-profile", "auto", {}),
}

#: Gate 0 and the policies, in report order.
SWEEP = tuple(fixed_name(s) for s in FIXED_SIZES)
DEFAULT_POLICIES = ("window", "density", "density-sharp", "parent", "merge", "budget-merge", "multilevel")


@dataclass(frozen=True, slots=True)
class ConfigSpec:
    """A configuration resolved from its name."""

    name: str
    tree: str
    strategy: str
    strategy_params: Mapping[str, Any]
    levels: bool
    policy: str
    policy_params: Mapping[str, Any]
    #: ``strategy`` (``strategy`` names one) or ``profile`` (``strategy`` names a profile).
    chunking: str = "strategy"

    @property
    def settings(self) -> dict[str, Any]:
        """Everything of the configuration that changes its results (for the cache key)."""
        return {"chunking": self.chunking, "strategy": self.strategy,
                "strategy_params": dict(self.strategy_params), "levels": self.levels,
                "policy": self.policy, "policy_params": dict(self.policy_params)}

    def pin(self) -> tuple[str, dict[str, Any]]:
        """The expansion to pin into an index for this configuration (``none`` for a fixed size)."""
        return self.policy, dict(self.policy_params)


def config_names() -> tuple[str, ...]:
    return SWEEP + tuple(POLICIES)


def resolve(name: str) -> ConfigSpec:
    """The spec of ``fixed-N`` (any N >= 16) or of a policy name; EvalError lists the choices."""
    size = fixed_size(name)
    if size is not None:
        if size < 16:
            raise EvalError(f"configuration {name!r}: a fixed size must be at least 16 tokens")
        overlap = round(FIXED_OVERLAP * size)
        return ConfigSpec(name, name, "fixed", {"size": size, "overlap": overlap}, False, "none", {})
    if name not in POLICIES:
        raise EvalError(f"unknown configuration {name!r}; choose fixed-N (e.g. {', '.join(SWEEP)}) "
                        f"or a policy: {', '.join(POLICIES)}")
    tree, policy, params = POLICIES[name]
    get_expander(policy, params)  # fails early if the policy is unknown to this build
    if tree in PROFILE_TREES:
        return ConfigSpec(name, tree, PROFILE_TREES[tree], {}, False, policy, params, chunking="profile")
    strategy, sparams, levels = TREES[tree]
    return ConfigSpec(name, tree, strategy, sparams, levels, policy, params)


#: The name of the configuration measured by ``zoomrag eval --index FILE``.
INDEX_CONFIG = "your-index"


def index_config(meta: Mapping[str, str], *, name: str = INDEX_CONFIG) -> ConfigSpec:
    """The configuration an index was built and is queried with, from its ``index_meta``.

    Chunking is the pinned strategy or profile with its parameters; expansion is the policy
    pinned by ``recommend --pin``, else ``auto`` (what ``zoomrag query`` uses by default).
    """
    from ..store.meta import Pins  # the store loads only for --index

    pins = Pins.from_meta(dict(meta))
    if pins is None:
        raise EvalError("the index has no documents yet, so no configuration to measure; "
                        "build it first with zoomrag index")
    pinned = pinned_policy(meta)
    policy, params = pinned if pinned is not None else ("auto", {})
    get_expander(policy, params)
    levels = meta.get(LEVELS_KEY) == "1"
    tree = f"index-{pins.chunking}-{pins.chunking_name}" + ("+levels" if levels else "")
    for known, profile in PROFILE_TREES.items():  # the default setup: share the sweep's index
        if (pins.chunking, pins.chunking_name, levels) == ("profile", profile, False) and \
                not pins.params:  # a profile pins only the overrides it was given
            tree = known
    return ConfigSpec(name, tree, pins.chunking_name, dict(pins.params), levels, policy, dict(params),
                      chunking=pins.chunking)


class WholeChunkEmbedder:
    """An embedder whose window guard is lifted: a chunk longer than the model's window is
    embedded as the model reads it (its first window), instead of being refused.

    Large fixed sizes are part of the sweep; refusing them would hide exactly the weakness the
    sweep should show (a 2048-token chunk is matched on its first 256 word pieces with MiniLM).
    """

    def __init__(self, inner: Any):
        self._inner = inner
        self.name = inner.name
        self.version = inner.version
        self.dimension = inner.dimension
        self.max_tokens = 10 ** 9
        self.window = inner.max_tokens
        self.multilingual = getattr(inner, "multilingual", True)

    def embed_documents(self, texts: Sequence[str]) -> Any:
        return self._inner.embed_documents(texts)

    def embed_query(self, text: str) -> Any:
        return self._inner.embed_query(text)

    def count_tokens(self, text: str) -> int:
        return self._inner.count_tokens(text)


@dataclass
class IndexPool:
    """One index per tree under ``root`` for one embedder, opened once and shared by configurations.

    ``embedder`` is a name (``hash``, ``minilm``…) or an Embedder object; ``mode`` is the search
    mode of every query (``dense``, ``bm25`` or ``hybrid``).
    """

    root: Path
    embedder: Any
    mode: str = "hybrid"
    #: Open indexes and what building them cost, by tree.
    _open: dict[str, tuple[Any, BuildStats]] = field(default_factory=dict)
    _embedder_obj: Any = None
    _warm: bool = False

    def embedder_object(self) -> Any:
        if self._embedder_obj is None:
            inner = get_embedder(self.embedder) if isinstance(self.embedder, str) else self.embedder
            self._embedder_obj = WholeChunkEmbedder(inner)
        return self._embedder_obj

    @property
    def embedder_id(self) -> str:
        """``name@version``: part of the results-cache key."""
        e = self.embedder_object()
        return f"{e.name}@{e.version}"

    def get(self, dataset: Dataset, spec: ConfigSpec) -> tuple[Any, BuildStats]:
        """The index of ``spec``'s tree over ``dataset``'s corpus (built or brought up to date)."""
        if spec.tree in self._open:
            return self._open[spec.tree]
        from ..index import Index

        emb = self.embedder_object()
        folder = re.sub(r"[^\w.-]+", "_", f"{emb.name}-{emb.version}")  # versions may hold '/'
        path = self.root / dataset.corpus_hash[:16] / folder / f"{spec.tree}.db"
        t0 = time.perf_counter()
        # spec.chunking is "strategy" or "profile": the argument of Index.open that names it
        settings = dict(embedder=emb, **{spec.chunking: spec.strategy},
                        params=dict(spec.strategy_params) or None, levels=spec.levels, ann="off")
        try:
            ix = Index.open(path, **settings)
        except IndexMismatchError:
            # a cached index of an older schema: the cache is rebuilt, not reported
            ix = Index.open(path, reindex=True, **settings)
        try:
            report = ix.add(dataset.to_documents(), prune=False)
            if report.skipped:
                source, reason = report.skipped[0]
                raise EvalError(f"{spec.tree}: {len(report.skipped)} document(s) could not be indexed "
                                f"(first: {source}: {reason}); fix the corpus or choose another embedder")
            if spec.policy == "auto" and (report.added or report.updated or not ix.auto_choice().recorded):
                probe_expansion(ix, mode=self.mode)  # what zoomrag index does after adding documents
            st = ix.stats()
        except BaseException:
            ix.close()
            raise
        stats = BuildStats(seconds=time.perf_counter() - t0, units_embedded=st.vectors,
                           storage_bytes=st.file_bytes, index=spec.tree)
        self._open[spec.tree] = (ix, stats)
        return ix, stats

    def warm(self) -> None:
        """Load the model before the first timed query (an index reused whole never loaded it),
        so that the first configuration's latency does not carry the model's start-up."""
        if not self._warm:
            self.embedder_object().embed_query("warm up")
            self._warm = True

    def close(self) -> None:
        for ix, _ in self._open.values():
            ix.close()
        self._open.clear()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class IndexRetriever:
    """A :class:`~zoomrag.evaluate.Retriever`: one configuration over a pooled zoomrag index."""

    def __init__(self, spec: ConfigSpec | str, pool: IndexPool):
        self.spec = resolve(spec) if isinstance(spec, str) else spec
        self.name = self.spec.name
        self.pool = pool
        self.embedder = pool.embedder_id
        # The reranker slot is empty today; it is in the key so that adding one re-runs.
        self.settings = {**self.spec.settings, "mode": pool.mode, "reranker": None}
        if self.spec.policy == "auto":  # auto follows the probe zoomrag index runs (evaluate/probe.py)
            self.settings["probe"] = PROBE_VERSION
        self.expander = get_expander(self.spec.policy, dict(self.spec.policy_params))
        self.index: Any = None

    def build(self, dataset: Dataset) -> BuildStats:
        self.index, stats = self.pool.get(dataset, self.spec)
        self.pool.warm()
        return stats

    def retrieve(self, query: EvalQuery, budget: int) -> list[Context]:
        if self.index is None:
            raise EvalError(f"{self.name}: retrieve() before build(); run it through run_eval")
        # doc_scope is a filter pushed into the search: every ranker looks only at that document
        return self.index.query(query.query, budget=budget, top=None, mode=self.pool.mode,
                                expand=self.expander, k=search_k(budget), doc=query.doc_scope)


def retrievers(names: Sequence[str | ConfigSpec], pool: IndexPool) -> list[IndexRetriever]:
    """Retrievers for configuration names (or specs), checked before any index is built."""
    specs = [n if isinstance(n, ConfigSpec) else resolve(n) for n in names]
    specs = list({s.name: s for s in specs}.values())
    return [IndexRetriever(s, pool) for s in specs]
