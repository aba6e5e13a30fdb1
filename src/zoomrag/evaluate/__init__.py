"""Evaluation as a product: which chunking should I use on my documents?

Layers, each usable alone:

- data: :func:`load_dataset` (normalised ``corpus.jsonl`` + ``queries.jsonl``),
  :func:`import_questions` (evidence given as text), :func:`generate` (LLM-written questions);
- scoring: :func:`score_query` and :func:`aggregate` (span metrics with bootstrap intervals),
  :class:`TokenBudget` (equal-budget cut);
- running: :func:`run_eval` over any :class:`Retriever`, cached in a :class:`ResultCache`;
  :func:`retrievers` makes them over real zoomrag indexes (:class:`IndexPool`);
- deciding: :func:`gate0`, :func:`structure_hint`, :func:`compare`, :func:`recommend`;
- reporting: :func:`write_json`, :func:`write_html`, :func:`print_run`.
"""

from .budget import TokenBudget
from .cache import ResultCache, default_cache_path
from .dataset import Dataset, EvalDocument, EvalQuery, Evidence, load_dataset, write_dataset
from .generate import GenerateReport, GenerateResult, generate
from .html import render_html, write_html
from .importers import ImportReport, ImportResult, import_questions
from .llm import Endpoint
from .metrics import METRICS, MetricSet, QueryScores, aggregate, score_query
from .report import to_json, to_json_dict, write_json
from .results import BuildStats, EvalRun, LatencyStats
from .retriever import IndexPool, IndexRetriever, retrievers
from .runner import Retriever, run_eval
from .stats import Estimate
from .terminal import print_run, results_table
from .verdict import (
    FIXED_OVERLAP,
    FIXED_SIZES,
    Comparison,
    Difference,
    Gate0Verdict,
    Recommendation,
    StructureHint,
    compare,
    fixed_name,
    fixed_size,
    gate0,
    recommend,
    structure_hint,
)

__all__ = [
    "FIXED_OVERLAP",
    "FIXED_SIZES",
    "METRICS",
    "BuildStats",
    "Comparison",
    "Dataset",
    "Difference",
    "Endpoint",
    "Estimate",
    "EvalDocument",
    "EvalQuery",
    "EvalRun",
    "Evidence",
    "Gate0Verdict",
    "GenerateReport",
    "GenerateResult",
    "ImportReport",
    "ImportResult",
    "IndexPool",
    "IndexRetriever",
    "LatencyStats",
    "MetricSet",
    "QueryScores",
    "Recommendation",
    "ResultCache",
    "Retriever",
    "StructureHint",
    "TokenBudget",
    "aggregate",
    "compare",
    "default_cache_path",
    "fixed_name",
    "fixed_size",
    "gate0",
    "generate",
    "import_questions",
    "load_dataset",
    "print_run",
    "recommend",
    "render_html",
    "results_table",
    "retrievers",
    "run_eval",
    "score_query",
    "structure_hint",
    "to_json",
    "to_json_dict",
    "write_dataset",
    "write_html",
    "write_json",
]
