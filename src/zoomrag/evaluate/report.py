"""The machine-readable report, one shape for ``eval``, ``sweep``, ``compare`` and ``recommend``::

    {"dataset": {...}, "budgets": [512, ...],
     "results": [{"config", "budget", "evidence_recall", "precision", "iou",
                  "full_evidence_rate", "mrr", "ci": {metric: [low, high]}}],
     "build": {config: {...}}, "latency": {config: {...}}, "verdict": {...},
     "shape": [{"config", "budget", "fragment_rate", "mid_start_rate", "mid_end_rate",
                "leaning_start_rate", "contexts_per_query", "contexts"}]}

``verdict`` is ``{}`` for a plain ``eval`` run. The terminal table is :mod:`.terminal`, the HTML
page :mod:`.html`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from .dataset import atomic_write_text
from .results import EvalRun
from .shape import shape_rows

REPORT_KEYS = ("dataset", "budgets", "results", "build", "latency", "judge", "verdict", "shape")
RESULT_KEYS = ("config", "budget", "evidence_recall", "precision", "iou", "full_evidence_rate", "mrr", "ci")


def to_json_dict(run: EvalRun) -> dict[str, Any]:
    return {
        "dataset": dict(run.dataset),
        "budgets": list(run.budgets),
        "results": [r.to_row() for r in run.results],
        "build": {c: s.to_dict() for c, s in run.build.items()},
        "latency": {c: s.to_dict() for c, s in run.latency.items()},
        "judge": [j.to_dict() for j in run.judged],
        "verdict": {} if run.verdict is None else run.verdict.to_dict(),
        "shape": shape_rows(run.shape),
    }


def to_json(run: EvalRun, *, indent: int | None = 2) -> str:
    return json.dumps(to_json_dict(run), ensure_ascii=False, indent=indent, allow_nan=False)


def write_json(run: EvalRun, path: str | os.PathLike[str]) -> Path:
    return atomic_write_text(path, to_json(run) + "\n")
