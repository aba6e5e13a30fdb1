"""Run configurations over a dataset at several budgets: the seam between evaluation and retrieval.

A configuration is anything that satisfies :class:`Retriever`: it builds its index once and,
for one query and one token budget, returns contexts in rank order. The runner enforces the
budget with one shared token counter (so no configuration gets more text than another), times
each call, caches every result (see :mod:`.cache`) and builds an index only when some result is
missing. ``zoomrag eval/sweep/compare/recommend`` wrap their configurations in this protocol.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, Protocol, runtime_checkable

from ..errors import EvalError
from ..load.base import is_lined
from ..text.tokens import TokenCounter
from .budget import TokenBudget
from .cache import CachedResult, ResultCache, RunKey
from .dataset import Dataset, EvalQuery
from .judge import Judge, JudgeStats, Judgment, summarize
from .metrics import MetricSet, SpanLike, aggregate, as_span, score_query
from .reading import read_dataset
from .results import BuildStats, EvalRun, LatencyStats
from .shape import ShapeStats, measure_shape
from .stats import RESAMPLES, SEED


@runtime_checkable
class Retriever(Protocol):
    """One configuration under evaluation (a chunking strategy + expansion policy + embedder)."""

    #: Configuration name as reported, e.g. ``fixed-256`` or ``window``.
    name: str
    #: Embedder identity (name and version): part of the cache key.
    embedder: str
    #: Everything else that changes what it returns (strategy, policy, their parameters, search
    #: mode, reranker...), JSON-able: part of the cache key, so a changed setting is re-run.
    @property
    def settings(self) -> Mapping[str, Any]: ...

    def build(self, dataset: Dataset) -> BuildStats:
        """Index the dataset's corpus (called at most once per run, only when results are missing)."""
        ...

    def retrieve(self, query: EvalQuery, budget: int) -> Sequence[SpanLike]:
        """Contexts for one query, best first, meant to fit ``budget`` tokens.

        Search only inside ``query.doc_scope`` when it is set. Contexts are ``(doc_id, start,
        end)`` tuples or objects with those attributes (:class:`~zoomrag.model.Context`).
        """
        ...


#: ``progress(config, done, total)`` after each computed (query, budget); total counts only
#: what was not cached.
Progress = Callable[[str, int, int], None]


def run_key(dataset: Dataset, retriever: Retriever, counter: TokenCounter, budget: int) -> RunKey:
    """The cache key of one configuration's results at one budget on this dataset."""
    settings = getattr(retriever, "settings", None)
    if not isinstance(settings, Mapping):
        # A retriever written before settings existed: its class at least tells configurations apart.
        settings = {"retriever": f"{type(retriever).__module__}.{type(retriever).__qualname__}"}
    return RunKey(dataset.corpus_hash, retriever.name, retriever.embedder, counter.name, int(budget),
                  MappingProxyType(dict(settings)))


def run_eval(dataset: Dataset, retrievers: Sequence[Retriever], budgets: Sequence[int], *,
             cache: ResultCache | None = None, counter: TokenCounter | str = "tokens",
             enforce_budget: bool = True, progress: Progress | None = None,
             resamples: int = RESAMPLES, seed: int = SEED, judge: Judge | None = None,
             judge_budget: int | None = None) -> EvalRun:
    """Score every retriever at every budget on every query of ``dataset``.

    With a ``judge``, each query's contexts at ``judge_budget`` (default: the largest budget)
    are also answered from and the answer judged (see :mod:`.judge`); judgments are cached too.
    """
    budgets = tuple(dict.fromkeys(int(b) for b in budgets))
    if not budgets or any(b <= 0 for b in budgets):
        raise EvalError(f"budgets {list(budgets)} must be positive token counts, e.g. 512,1024,2048")
    names = [r.name for r in retrievers]
    if len(set(names)) != len(names):
        raise EvalError(f"configuration names repeat ({', '.join(names)}); give each one a distinct name")
    if not dataset.queries:
        raise EvalError(f"dataset {dataset.name!r} has no queries")
    dataset = read_dataset(dataset)  # spans are scored in the text the readers make
    if cache is None:
        cache = ResultCache(None)
    filler = TokenBudget(dataset.texts, counter)  # one counter for every configuration
    lined = {d.id for d in dataset.documents if is_lined(d.format)}  # cut by lines, measured so

    if judge is not None:
        judge_budget = max(budgets) if judge_budget is None else int(judge_budget)
        if judge_budget not in budgets:
            raise EvalError(f"the judge budget {judge_budget} is not one of the budgets "
                            f"{', '.join(map(str, budgets))}; add it to --budgets")
    judged: list[JudgeStats] = []
    results: list[MetricSet] = []
    build: dict[str, BuildStats] = {}
    latency: dict[str, LatencyStats] = {}
    shape: dict[tuple[str, int], ShapeStats] = {}
    for r in retrievers:
        keys = {b: run_key(dataset, r, filler.counter, b) for b in budgets}
        done = {b: cache.get(keys[b], dataset.queries) for b in budgets}
        missing = [(b, q) for b in budgets for q in dataset.queries if q.id not in done[b]]
        if missing:
            stats = r.build(dataset)
            cache.put_build(keys[budgets[0]], stats)
        else:
            stats = cache.get_build(keys[budgets[0]]) or BuildStats()
        build[r.name] = stats
        try:
            for k, (b, q) in enumerate(missing, 1):
                t0 = time.perf_counter()
                contexts = r.retrieve(q, b)
                seconds = time.perf_counter() - t0
                taken = filler.take_ranked(contexts, b) if enforce_budget else [
                    (as_span(c), k) for k, c in enumerate(contexts, 1)]
                res = CachedResult(tuple(span for span, _ in taken), seconds, tuple(k for _, k in taken))
                cache.put(keys[b], q, res)
                done[b][q.id] = res
                if progress is not None:
                    progress(r.name, k, len(missing))
        finally:
            cache.flush()  # keep what finished, even on Ctrl-C or a failing retriever
        for b in budgets:
            scores = [score_query(q.id, done[b][q.id].returned, q.evidence, ranks=done[b][q.id].ranks or None)
                      for q in dataset.queries]
            results.append(aggregate(r.name, b, scores, resamples=resamples, seed=seed))
            shape[(r.name, b)] = measure_shape((done[b][q.id].returned for q in dataset.queries), dataset.texts,
                                               lined)
        latency[r.name] = LatencyStats.from_seconds(
            [done[b][q.id].seconds for b in budgets for q in dataset.queries])
        if judge is not None and judge_budget is not None:
            judged.append(_judge(dataset, r.name, keys[judge_budget], done[judge_budget], judge, cache,
                                 progress, resamples, seed))

    summary = dict(dataset.summary(), token_counter=filler.counter.name)
    return EvalRun(MappingProxyType(summary), budgets, tuple(results),
                   MappingProxyType(build), MappingProxyType(latency), judged=tuple(judged),
                   shape=MappingProxyType(shape))


def _judge(dataset: Dataset, name: str, key: RunKey, done: Mapping[str, CachedResult], judge: Judge,
           cache: ResultCache, progress: Progress | None, resamples: int, seed: int) -> JudgeStats:
    texts = dataset.texts
    out: list[Judgment] = []
    todo = []
    for q in dataset.queries:
        returned = done[q.id].returned
        jkey = judge.key(returned)
        hit = cache.get_judgment(key, q, jkey)
        if hit is not None:
            out.append(Judgment.from_dict(hit))
        else:
            todo.append((q, returned, jkey))
    for k, (q, returned, jkey) in enumerate(todo, 1):
        j = judge.judge(q.query, [texts[d][s:e] for d, s, e in returned])
        if j.error is None:  # an unusable reply is tried again next run
            cache.put_judgment(key, q, jkey, j.to_dict())
        out.append(j)
        if progress is not None:
            progress(f"{name} (judge)", k, len(todo))
    return summarize(name, key.budget, out, resamples=resamples, seed=seed)
