"""The gates: should this corpus use one chunk size, or is multi-scale retrieval worth it?

- Gate 0 (:func:`gate0`, ``zoomrag sweep``): fixed sizes 128…2048 tokens, 15 % overlap. If one
  size is the best (or statistically tied with the best) on both evidence recall and precision
  at every budget, pin it and stop. Otherwise the frontier is not flat: the best size depends on
  the budget or on the metric, and multi-scale is worth trying.
- Gate 1 (:func:`structure_hint`): choose the expansion geometry by document structure —
  headings → merge-type policies, flat prose → windows.
- Gate 2 (:func:`compare`, :func:`recommend`): each policy against the best fixed size at each
  budget, on the same queries, by a paired bootstrap of the per-query difference. A policy is
  recommended only if the whole 95 % interval of its gain lies above zero at every budget;
  otherwise the best single size is (measure or revert).

"Statistically tied" and "beats" both use the paired interval: config A beats B when the
interval of mean(A − B) lies entirely above 0.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

import numpy as np

from ..errors import EvalError
from .dataset import Dataset
from .metrics import LABELS, MetricSet
from .stats import RESAMPLES, SEED, Estimate, paired_bootstrap

FIXED_SIZES = (128, 256, 512, 1024, 2048)
#: Overlap of the Gate-0 sweep, as a share of the chunk size.
FIXED_OVERLAP = 0.15
PRIMARY = "evidence_recall"
#: A paired interval narrower than this (half-width, in recall) tells sizes apart well enough for
#: an unqualified "stop"; wider, and a tie may only mean too few queries.
DETECTABLE = 0.03

_FIXED = re.compile(r"^fixed-(\d+)$")


def fixed_name(size: int) -> str:
    return f"fixed-{size}"


def fixed_size(config: str) -> int | None:
    """The chunk size of a ``fixed-N`` configuration, else None (a policy)."""
    m = _FIXED.match(config)
    return None if m is None else int(m.group(1))


def _signed(x: float) -> str:
    return f"{x:+.3f}".replace("-", "−")


def fixed_configs(results: Sequence[MetricSet]) -> list[str]:
    """The ``fixed-N`` configurations among ``results``, smallest size first."""
    return sorted({r.config for r in results if fixed_size(r.config) is not None},
                  key=lambda c: fixed_size(c) or 0)


# -- paired differences -----------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Difference:
    """``config − baseline`` on one metric at one budget, over the same queries."""

    config: str
    baseline: str
    budget: int
    metric: str
    config_mean: float
    baseline_mean: float
    delta: Estimate
    queries: int

    @property
    def wins(self) -> bool:
        """The whole interval lies above zero: a gain larger than the noise."""
        return self.delta.low > 0

    @property
    def loses(self) -> bool:
        return self.delta.high < 0

    def describe(self) -> str:
        d = self.delta
        return (f"{self.config} vs {self.baseline} at {self.budget} tokens: {LABELS[self.metric]} "
                f"{_signed(d.mean)} [{_signed(d.low)}, {_signed(d.high)}]")

    def to_dict(self) -> dict[str, Any]:
        return {"config": self.config, "baseline": self.baseline, "budget": self.budget,
                "metric": self.metric, "config_mean": round(self.config_mean, 4),
                "baseline_mean": round(self.baseline_mean, 4), "delta": round(self.delta.mean, 4),
                "ci": self.delta.to_list(), "wins": self.wins, "loses": self.loses,
                "queries": self.queries}


def difference(a: MetricSet, b: MetricSet, metric: str, *, resamples: int = RESAMPLES,
               seed: int = SEED) -> Difference:
    """Paired bootstrap of ``a − b`` on ``metric``; both must cover the same queries."""
    if a.budget != b.budget:
        raise EvalError(f"cannot pair {a.config} at {a.budget} with {b.config} at {b.budget}: budgets differ")
    if set(a.query_ids) != set(b.query_ids):
        raise EvalError(f"{a.config} ({a.n} queries) and {b.config} ({b.n} queries) at budget {a.budget} "
                        "were not scored on the same queries; re-run both on one dataset")
    ids = a.query_ids
    delta = paired_bootstrap(a.values(metric), b.aligned(metric, ids), resamples=resamples, seed=seed)
    return Difference(a.config, b.config, a.budget, metric, a.mean(metric), b.mean(metric), delta, len(ids))


def _table(results: Sequence[MetricSet]) -> tuple[tuple[int, ...], dict[tuple[str, int], MetricSet]]:
    table = {(r.config, r.budget): r for r in results}
    budgets = tuple(sorted({r.budget for r in results}))
    return budgets, table


# -- what these queries can tell apart ------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Resolution:
    """The smallest difference these queries can detect: the half-width of the paired 95 %
    intervals between the configurations to be told apart (a gain below it is noise)."""

    metric: str
    queries: int
    half_width: float

    @property
    def fine(self) -> bool:
        return self.half_width <= DETECTABLE

    def queries_for(self, target: float = DETECTABLE) -> int:
        """About how many queries would resolve ``target`` (a half-width shrinks as 1/sqrt(n))."""
        n = self.queries * (self.half_width / target) ** 2
        return int(-(-n // 10) * 10)

    def phrase(self) -> str:
        return (f"with {self.queries} queries, differences under ±{self.half_width:.2f} in "
                f"{LABELS[self.metric]} cannot be told from noise")

    def to_dict(self) -> dict[str, Any]:
        return {"metric": self.metric, "queries": self.queries, "half_width": round(self.half_width, 4),
                "detectable": self.fine, "queries_for_0.03": self.queries_for()}


def resolution(pairs: Sequence[Difference]) -> Resolution | None:
    """From the paired differences that must be told apart: the widest decides (a verdict needs
    every budget), so one budget where both sides are perfect does not hide the noise of another."""
    if not pairs:
        return None
    return Resolution(pairs[0].metric, pairs[0].queries, float(max(d.delta.half_width for d in pairs)))


# -- Gate 0 -----------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class MetricWinner:
    metric: str
    best: str
    value: float
    #: Configurations not significantly below the best (the best included), best first.
    tied: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        return {"best": self.best, "value": round(self.value, 4), "tied": list(self.tied)}


@dataclass(frozen=True, slots=True)
class BudgetWinners:
    budget: int
    recall: MetricWinner
    precision: MetricWinner

    def to_dict(self) -> dict[str, Any]:
        return {"budget": self.budget, "evidence_recall": self.recall.to_dict(),
                "precision": self.precision.to_dict()}


@dataclass(frozen=True)
class Gate0Verdict:
    """Gate 0: is there one chunk size to pin?"""

    flat: bool
    pinned: str | None
    budgets: tuple[BudgetWinners, ...]
    sentence: str
    resolution: Resolution | None = None
    #: Sizes the queries cannot tell apart from the pinned one (empty: it is clearly best).
    rivals: tuple[str, ...] = ()

    @property
    def conclusive(self) -> bool:
        """A flat frontier the queries can vouch for: "pin and stop" needs no qualification."""
        return self.flat and (not self.rivals or (self.resolution is not None and self.resolution.fine))

    def to_dict(self) -> dict[str, Any]:
        action = ("pin" if self.conclusive else "too few queries") if self.flat else "try multi-scale"
        return {"gate": 0, "flat": self.flat, "pinned": self.pinned, "action": action,
                "conclusive": self.conclusive, "rivals": list(self.rivals),
                "resolution": None if self.resolution is None else self.resolution.to_dict(),
                "sentence": self.sentence, "budgets": [b.to_dict() for b in self.budgets]}


def _winner(cands: Sequence[MetricSet], metric: str, resamples: int, seed: int) -> MetricWinner:
    # Highest mean wins; an exact tie goes to the smaller (cheaper) size, listed first.
    order = sorted(cands, key=lambda r: (-r.mean(metric), fixed_size(r.config) or 0))
    best = order[0]
    tied = [best.config] + [r.config for r in order[1:]
                            if not difference(best, r, metric, resamples=resamples, seed=seed).wins]
    return MetricWinner(metric, best.config, best.mean(metric), tuple(tied))


def _mean_over(table: Mapping[tuple[str, int], MetricSet], config: str, budgets: Sequence[int],
               metric: str) -> float:
    return float(np.mean([table[(config, b)].mean(metric) for b in budgets]))


def gate0(results: Sequence[MetricSet], *, resamples: int = RESAMPLES, seed: int = SEED) -> Gate0Verdict:
    """Gate 0 over the ``fixed-N`` results (other configurations are ignored)."""
    budgets, table = _table([r for r in results if fixed_size(r.config) is not None])
    sizes = fixed_configs(results)
    if len(sizes) < 2:
        raise EvalError(f"Gate 0 needs at least two fixed-size configurations, got {sizes or 'none'}; "
                        f"run the sweep ({', '.join(fixed_name(s) for s in FIXED_SIZES)})")
    for c in sizes:
        for b in budgets:
            if (c, b) not in table:
                raise EvalError(f"{c} has no result at budget {b}; every size needs every budget")
    per_budget = []
    for b in budgets:
        cands = [table[(c, b)] for c in sizes]
        per_budget.append(BudgetWinners(b, _winner(cands, "evidence_recall", resamples, seed),
                                        _winner(cands, "precision", resamples, seed)))
    both = [c for c in sizes if all(c in w.recall.tied and c in w.precision.tied for w in per_budget)]
    if both:
        pinned = max(both, key=lambda c: (_mean_over(table, c, budgets, PRIMARY), -(fixed_size(c) or 0)))
        recalls = "/".join(f"{table[(pinned, b)].mean(PRIMARY):.3f}" for b in budgets)
        rivals = tuple(c for c in sizes if c != pinned and any(c in w.recall.tied for w in per_budget))
        res = resolution([difference(table[(pinned, b)], table[(c, b)], PRIMARY, resamples=resamples,
                                     seed=seed) for b in budgets for c in rivals])
        head = (f"{pinned} is best or statistically tied with the best on both recall and precision at "
                f"every budget (recall {recalls} at {'/'.join(map(str, budgets))} tokens)")
        verdict = Gate0Verdict(True, pinned, tuple(per_budget), "", res, rivals)
        if verdict.conclusive:
            return replace(verdict, sentence=f"One size wins: {head}. Pin {pinned} and stop.")
        assert res is not None
        return replace(verdict, sentence=(
            f"Too few queries to tell {pinned} from {_names(rivals)}: {head}, but {res.phrase()}. Use "
            f"{pinned} for now and measure again with more queries (about {res.queries_for()} would "
            f"resolve ±{DETECTABLE:.2f})."))
    parts = []
    for w in per_budget:
        if w.recall.best == w.precision.best:
            parts.append(f"at {w.budget} tokens {w.recall.best} leads both (recall {w.recall.value:.3f}, "
                         f"precision {w.precision.value:.3f})")
        else:
            parts.append(f"at {w.budget} tokens {w.precision.best} leads precision "
                         f"({w.precision.value:.3f}) and {w.recall.best} recall ({w.recall.value:.3f})")
    sentence = ("The frontier is not flat: no single size is best on both recall and precision at every "
                "budget — " + "; ".join(parts) + ". Multi-scale retrieval is worth trying (Gate 1).")
    return Gate0Verdict(False, None, tuple(per_budget), sentence)


def _names(names: Sequence[str]) -> str:
    names = list(names)
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


# -- Gate 1 -----------------------------------------------------------------------------

_HEADING = {
    "markdown": re.compile(r"^#{1,6}[ \t]+\S", re.MULTILINE),
    "html": re.compile(r"<h[1-6][\s>]", re.IGNORECASE),
}

Geometry = Literal["merge", "window"]


@dataclass(frozen=True, slots=True)
class StructureHint:
    """Gate 1: the share of the corpus (by characters) in documents that have headings."""

    headed_share: float
    suggests: Geometry

    @property
    def sentence(self) -> str:
        if self.suggests == "merge":
            return (f"{self.headed_share:.0%} of the text sits in documents with headings: "
                    "try merge-type policies (vertical expansion) first.")
        return (f"only {self.headed_share:.0%} of the text has headings (flat prose): "
                "try window policies (horizontal expansion) first.")

    def to_dict(self) -> dict[str, Any]:
        return {"gate": 1, "headed_share": round(self.headed_share, 3), "suggests": self.suggests,
                "sentence": self.sentence}


def _headed(d: Any) -> bool:
    if d.read:  # the reader found the headings (HTML's are rendered as "#" lines)
        return any(b.type == "heading" for b in d.blocks)
    p = _HEADING.get(d.format)
    return p is not None and p.search(d.text) is not None


def structure_hint(dataset: Dataset, *, threshold: float = 0.5) -> StructureHint:
    total = sum(len(d.text) for d in dataset.documents) or 1
    headed = sum(len(d.text) for d in dataset.documents if _headed(d))
    share = headed / total
    return StructureHint(share, "merge" if share >= threshold else "window")


# -- Gate 2 -----------------------------------------------------------------------------

@dataclass(frozen=True)
class Comparison:
    """Every policy against the best fixed size at each budget."""

    metric: str
    #: Best fixed size per budget on ``metric``.
    baselines: Mapping[int, str]
    differences: tuple[Difference, ...]
    structure: StructureHint | None = None

    @property
    def sentence(self) -> str:
        label = LABELS[self.metric]
        winners = self.winners()
        if winners:
            w = self.best(winners)
            gains = ", ".join(f"{_signed(d.delta.mean)} at {d.budget}" for d in self.for_config(w))
            return (f"{len(winners)} of {len(self.policies)} policies beat the best fixed size on {label} "
                    f"beyond the 95 % interval at every budget; the largest gain is {w} ({gains}).")
        closest = self.best()
        described = "; ".join(d.describe() for d in self.for_config(closest))
        return (f"No policy beats the best fixed size on {label} beyond the 95 % interval at every budget; "
                f"the closest is {closest}: {described}.")

    def for_config(self, config: str, metric: str | None = None) -> list[Difference]:
        m = metric or self.metric
        return [d for d in self.differences if d.config == config and d.metric == m]

    @property
    def policies(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(d.config for d in self.differences))

    def winners(self) -> list[str]:
        """Policies whose gain on the primary metric beats the noise at every budget."""
        return [p for p in self.policies if all(d.wins for d in self.for_config(p))]

    def best(self, among: Sequence[str] | None = None) -> str:
        """The policy (of ``among``, default all) with the largest gain averaged over the budgets."""
        return max(self.policies if among is None else among,
                   key=lambda p: float(np.mean([d.delta.mean for d in self.for_config(p)])))

    def to_dict(self) -> dict[str, Any]:
        return {"gate": 2, "metric": self.metric,
                "baselines": {str(b): c for b, c in self.baselines.items()},
                "differences": [d.to_dict() for d in self.differences],
                "winners": self.winners(),
                "structure": None if self.structure is None else self.structure.to_dict(),
                "sentence": self.sentence}


def compare(results: Sequence[MetricSet], *, metric: str = PRIMARY, also: Sequence[str] = ("iou",),
            structure: StructureHint | None = None, resamples: int = RESAMPLES,
            seed: int = SEED) -> Comparison:
    """Paired differences of each policy against the best fixed size, budget by budget."""
    budgets, table = _table(results)
    fixed = fixed_configs(results)
    policies = list(dict.fromkeys(r.config for r in results if fixed_size(r.config) is None))
    if not fixed:
        raise EvalError("comparison needs at least one fixed-size configuration as the baseline "
                        f"(e.g. {fixed_name(256)}); run it with the policies")
    if not policies:
        raise EvalError("comparison needs at least one policy configuration besides the fixed sizes")
    baselines: dict[int, str] = {}
    diffs: list[Difference] = []
    for b in budgets:
        cands = [table[(c, b)] for c in fixed if (c, b) in table]
        if not cands:
            raise EvalError(f"no fixed-size result at budget {b}; run the sweep at the same budgets")
        base = max(cands, key=lambda r: (r.mean(metric), -(fixed_size(r.config) or 0)))
        baselines[b] = base.config
        for p in policies:
            if (p, b) not in table:
                raise EvalError(f"{p} has no result at budget {b}; evaluate it at every budget")
            for m in (metric, *[a for a in also if a != metric]):
                diffs.append(difference(table[(p, b)], base, m, resamples=resamples, seed=seed))
    return Comparison(metric, baselines, tuple(diffs), structure)


@dataclass(frozen=True)
class Recommendation:
    """The configuration to use, and why (``zoomrag recommend``)."""

    config: str
    choice: Literal["policy", "fixed"]
    metric: str
    gate0: Gate0Verdict | None
    comparison: Comparison | None
    sentence: str
    #: Why a configuration with a higher score is not the one recommended, one line each.
    notes: tuple[str, ...] = ()
    resolution: Resolution | None = None

    def to_pin(self) -> dict[str, Any]:
        """What ``recommend --pin`` stores in the index's pinned metadata."""
        gains = [] if self.comparison is None else [
            {"budget": d.budget, "delta": round(d.delta.mean, 4), "ci": d.delta.to_list()}
            for d in self.comparison.for_config(self.config)]
        return {"config": self.config, "choice": self.choice, "metric": self.metric, "gains": gains}

    def to_dict(self) -> dict[str, Any]:
        return {"gate": 2, "recommended": self.config, "choice": self.choice, "metric": self.metric,
                "sentence": self.sentence, "notes": list(self.notes),
                "resolution": None if self.resolution is None else self.resolution.to_dict(),
                "gate0": None if self.gate0 is None else self.gate0.to_dict(),
                "comparison": None if self.comparison is None else self.comparison.to_dict()}


def recommend(results: Sequence[MetricSet], *, metric: str = PRIMARY, structure: StructureHint | None = None,
              resamples: int = RESAMPLES, seed: int = SEED) -> Recommendation:
    """A policy only if it beats the best fixed size beyond the interval at every budget; else a size."""
    budgets, table = _table(results)
    fixed = fixed_configs(results)
    g0 = gate0(results, resamples=resamples, seed=seed) if len(fixed) >= 2 else None
    has_policies = any(fixed_size(r.config) is None for r in results)
    comp = (compare(results, metric=metric, structure=structure, resamples=resamples, seed=seed)
            if has_policies else None)
    winners = [] if comp is None else comp.winners()
    if comp is not None and winners:
        best = comp.best(winners)
        ds = comp.for_config(best)
        sentence = (f"Use {best}: it beats the best fixed size on {LABELS[metric]} by more than the 95 % "
                    "interval at every budget (" + "; ".join(d.describe() for d in ds) + ").")
        return Recommendation(best, "policy", metric, g0, comp, sentence,
                              _notes(best, table, budgets, metric, comp), resolution(ds))
    if not fixed:
        raise EvalError("recommend needs fixed-size results to fall back on; include the sweep sizes")
    if g0 is not None and g0.flat and g0.pinned is not None:
        size = g0.pinned
    else:
        covered = [c for c in fixed if all((c, b) in table for b in budgets)]
        if not covered:
            raise EvalError("no fixed size has a result at every budget; run the sweep at the same budgets")
        size = max(covered, key=lambda c: (_mean_over(table, c, budgets, metric), -(fixed_size(c) or 0)))
    why = ("no policy was evaluated" if comp is None else
           "no policy beats the best fixed size by more than the 95 % interval at every budget"
           f" (closest: {comp.best()})")
    res = None if comp is None else resolution(comp.for_config(comp.best(), metric))
    mine = _mean_over(table, size, budgets, metric)
    higher = [] if comp is None else sorted(
        (p for p in comp.policies if _mean_over(table, p, budgets, metric) > mine),
        key=lambda p: -_mean_over(table, p, budgets, metric))
    if higher and res is not None:
        gains = ", ".join(f"{p} {_signed(_mean_over(table, p, budgets, metric) - mine)}" for p in higher[:3])
        who = _names(higher) if len(higher) <= 3 else f"{', '.join(higher[:3])} and {len(higher) - 3} more"
        sentence = (f"Too few queries to tell {size} from {who}: "
                    f"{'it scores' if len(higher) == 1 else 'they score'} higher on {LABELS[metric]} on "
                    f"average ({gains}), but not beyond the 95 % interval at every budget; {res.phrase()}. "
                    f"Keep {size} for now and measure again with more queries (about "
                    f"{res.queries_for()} would resolve ±{DETECTABLE:.2f}).")
    elif g0 is not None and g0.flat and not g0.conclusive and g0.resolution is not None:
        sentence = (f"Use {size} for now: {why}; {g0.resolution.phrase()}, so measure again with more "
                    "queries before settling.")
    else:
        sentence = f"Use {size}: {why}. Measure or revert — the single size stays."
    return Recommendation(size, "fixed", metric, g0, comp, sentence,
                          _notes(size, table, budgets, metric, comp), res)


def _notes(chosen: str, table: Mapping[tuple[str, int], MetricSet], budgets: Sequence[int], metric: str,
           comp: Comparison | None) -> tuple[str, ...]:
    """Why the configuration with the best score at a budget is not the recommended one."""
    notes = []
    for b in budgets:
        rows = [r for (c, bb), r in table.items() if bb == b]
        best = max(rows, key=lambda r: r.mean(metric))
        if best.config == chosen or best.mean(metric) <= table[(chosen, b)].mean(metric):
            continue
        label = LABELS[metric]
        if fixed_size(best.config) is None and comp is not None:
            d = next((d for d in comp.for_config(best.config, metric) if d.budget == b), None)
            if d is not None:
                notes.append(f"At {b} tokens {best.config} has the best {label} ({best.mean(metric):.3f}), "
                             f"but its gain over {d.baseline} is {_signed(d.delta.mean)} "
                             f"[{_signed(d.delta.low)}, {_signed(d.delta.high)}]: a policy is recommended "
                             "only when the whole interval lies above zero at every budget.")
                continue
        notes.append(f"At {b} tokens {best.config} has the best {label} ({best.mean(metric):.3f}); "
                     f"{chosen} is recommended as the size that is best over all budgets together.")
    return tuple(notes)
