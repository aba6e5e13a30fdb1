"""Evaluation as a product: which chunking should I use on my documents?

Layers, each usable alone:

- data: :func:`load_dataset` (normalised ``corpus.jsonl`` + ``queries.jsonl``),
  :func:`read_dataset` (documents read by the readers of ``zoomrag index``, evidence moved with
  them), :func:`read_folder` (a corpus from a folder of files), :func:`import_questions`
  (evidence given as text), :func:`generate` (LLM-written questions);
- scoring: :func:`score_query` and :func:`aggregate` (span metrics with bootstrap intervals),
  :class:`TokenBudget` (equal-budget cut);
- running: :func:`run_eval` over any :class:`Retriever`, cached in a :class:`ResultCache`;
  a :class:`Judge` answers from the contexts and scores faithfulness and relevancy;
  :func:`retrievers` makes them over real zoomrag indexes (:class:`IndexPool`);
- deciding: :func:`gate0`, :func:`structure_hint`, :func:`compare`, :func:`recommend`;
- reporting: :func:`write_json`, :func:`write_html`, :func:`print_run`.
"""

from .budget import TokenBudget
from .cache import ResultCache
from .dataset import Dataset, EvalDocument, EvalQuery, Evidence, load_dataset, write_dataset
from .folder import read_folder
from .generate import GenerateReport, GenerateResult, generate
from .html import render_html, write_html
from .importers import ImportReport, ImportResult, import_questions
from .judge import Judge, JudgeStats
from .llm import Endpoint
from .metrics import METRICS, MetricSet, QueryScores, aggregate, score_query
from .reading import read_dataset
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
    "Judge",
    "JudgeStats",
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
    "fixed_name",
    "fixed_size",
    "gate0",
    "generate",
    "import_questions",
    "load_dataset",
    "print_run",
    "read_dataset",
    "read_folder",
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
