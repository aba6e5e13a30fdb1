"""The values an evaluation run produces: metrics per (configuration, budget), build and latency."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ..errors import EvalError
from .judge import JudgeStats
from .metrics import MetricSet
from .shape import ShapeStats
from .stats import percentile


@dataclass(frozen=True, slots=True)
class BuildStats:
    """What building one configuration's index cost. ``None`` fields were not measured."""

    seconds: float | None = None
    units_embedded: int | None = None
    storage_bytes: int | None = None
    #: Which index this was: configurations that share one (one tree, several policies) name
    #: the same, and a cost table counts that build once.
    index: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"seconds": None if self.seconds is None else round(self.seconds, 3),
                "units_embedded": self.units_embedded, "storage_bytes": self.storage_bytes,
                "index": self.index}

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> BuildStats:
        return cls(d.get("seconds"), d.get("units_embedded"), d.get("storage_bytes"), d.get("index"))


@dataclass(frozen=True, slots=True)
class LatencyStats:
    """Query latency of one configuration over every (query, budget) call it answered."""

    p50_ms: float
    p95_ms: float
    mean_ms: float
    calls: int

    @classmethod
    def from_seconds(cls, seconds: Sequence[float]) -> LatencyStats:
        ms = [s * 1000 for s in seconds]
        mean = sum(ms) / len(ms) if ms else float("nan")
        return cls(percentile(ms, 50), percentile(ms, 95), mean, len(ms))

    def to_dict(self) -> dict[str, Any]:
        def r(x: float) -> float | None:
            return None if x != x else round(x, 3)  # NaN (no calls) becomes null in JSON
        return {"p50_ms": r(self.p50_ms), "p95_ms": r(self.p95_ms), "mean_ms": r(self.mean_ms),
                "calls": self.calls}


class Verdict(Protocol):
    """What ``sweep``, ``compare`` and ``recommend`` conclude; see :mod:`.verdict`."""

    @property
    def sentence(self) -> str: ...

    def to_dict(self) -> dict[str, Any]: ...


@dataclass(frozen=True)
class EvalRun:
    """Everything a report shows. ``results`` holds one MetricSet per (configuration, budget)."""

    dataset: Mapping[str, Any]
    budgets: tuple[int, ...]
    results: tuple[MetricSet, ...]
    build: Mapping[str, BuildStats] = field(default_factory=dict)
    latency: Mapping[str, LatencyStats] = field(default_factory=dict)
    verdict: Verdict | None = None
    #: Judged answer quality per configuration (``--judge``), empty when not asked for.
    judged: tuple[JudgeStats, ...] = ()
    #: Context shape per (configuration, budget) (:mod:`.shape`); empty when not measured.
    shape: Mapping[tuple[str, int], ShapeStats] = field(default_factory=dict)

    @property
    def configs(self) -> tuple[str, ...]:
        """Configurations in first-seen order."""
        return tuple(dict.fromkeys(r.config for r in self.results))

    def get(self, config: str, budget: int) -> MetricSet:
        for r in self.results:
            if r.config == config and r.budget == budget:
                return r
        raise EvalError(f"no result for configuration {config!r} at budget {budget}; "
                        f"have: {', '.join(self.configs)} at {', '.join(map(str, self.budgets))}")

    def with_verdict(self, verdict: Verdict | None) -> EvalRun:
        return replace(self, verdict=verdict)


def shared_build(run: EvalRun, config: str) -> str | None:
    """The configuration listed earlier whose index ``config`` shares (its build is counted there)."""
    mine = run.build.get(config)
    if mine is None or mine.index is None:
        return None
    for c in run.configs:
        if c == config:
            return None
        other = run.build.get(c)
        if other is not None and other.index == mine.index:
            return c
    return None


def measured(x: float | None, spec: str) -> str:
    """``x`` formatted by ``spec``, or "–" where it was not measured (None, or NaN: no calls)."""
    return "–" if x is None or x != x else format(x, spec)


def cost_cells(run: EvalRun, config: str) -> tuple[list[str], list[str]]:
    """The cost table's text for ``config``: its build (seconds, units embedded, storage MB) and
    its query latency (p50, p95 ms)."""
    s, lat = run.build.get(config), run.latency.get(config)
    mb = None if s is None or s.storage_bytes is None else s.storage_bytes / 1e6
    return ([measured(None if s is None else s.seconds, ".1f"),
             measured(None if s is None else s.units_embedded, ",d"), measured(mb, ".1f")],
            [measured(None if lat is None else lat.p50_ms, ".2f"),
             measured(None if lat is None else lat.p95_ms, ".2f")])
