"""Indexing: read the inputs, parse each changed document, embed what is not cached, write.

Each document is written in one transaction with its tree, units and new vectors, so a crash
leaves every document either as it was or as it is now. Embedding runs in a pipeline beside
the parsing (:class:`~zoomrag.embed.EmbedPipeline`); a text already embedded, in this run or an
earlier one, is never embedded again.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np

from ..embed import (
    EmbedPipeline,
    EmbedRunner,
    MemoryCache,
    cache_key,
)
from ..embed.language import LANG_KEY, NOT_PROSE, language_of
from ..embed.levels import level_blobs
from ..errors import ConfigError, InputError, ZoomragError
from ..load import FileRules, load_path
from ..load.base import MAX_FILE_BYTES, with_metadata
from ..load.web import CrawlOptions, CrawlResult, crawl, is_url
from ..model import Document, Tree
from ..parse import PARSER_VERSION
from ..parse.changelog import CHANGELOG_KEY, is_changelog
from ..parse.testfiles import TEST_KEY, is_test_file
from ..store import Reading, Store, UnitToWrite, WriteLock, to_blob, vector_key
from .dense import DenseSearch
from .reports import PAGES_NOT_READ, AddReport, Counts
from .server_dense import ServerDense
from .settings import Settings
from .units import units_to_embed
from .walk import prune_gone, prune_pages, resolved, walk

#: ``progress(stage, done, total)``; stages are ``read``, ``parse`` and ``embed``.
Progress = Callable[[str, int, "int | None"], None]
#: Files (or Documents) to read, each with the folder its id is relative to (a web page: the
#: address of the site's part crawled).
Sources = Sequence[tuple[Path | Document, Path | str | None]]
#: Reads, parses, embeds and writes the sources somewhere else (a Ray cluster,
#: :mod:`.distributed`), filling the report: ``fan_out(sources, report, progress, metadata,
#: namespace, max_file_bytes)``.
FanOut = Callable[[Sources, "Counts", Progress, dict[str, Any], "str | None", "int | None"], None]
#: Documents read before ``auto`` picks the embedder from their language: enough to see past a
#: folder's few English READMEs to the pages in German under them.
AUTO_SAMPLE = 32


@dataclass
class _Job:
    document: Document
    tree: Tree
    origin: str
    units: list
    keys: list[int]
    missing: list[int]
    existed: bool


class Ingest:
    def __init__(self, store: Store, settings: Settings, dense: DenseSearch | ServerDense, lock: WriteLock,
                 batch_size: int, *, isolate: bool = False):
        self.store = store
        self.settings = settings
        self.dense = dense
        self.lock = lock
        self.batch_size = batch_size
        #: Report any failure to read or parse a file as that file skipped, not only zoomrag's
        #: own errors (a Ray worker: the run goes on and the driver names the file).
        self.isolate = isolate

    def add(self, items: str | Path | Document | Iterable[str | Path | Document], *, prune: bool,
            progress: Progress | None, metadata: Mapping[str, Any] | None, namespace: str | None,
            max_file_bytes: int | None = MAX_FILE_BYTES, ray: bool | str = False,
            fan_out: FanOut | None = None, rules: FileRules = FileRules(),
            web: CrawlOptions = CrawlOptions()) -> AddReport:
        """:meth:`zoomrag.Index.add`; ``fan_out``: read, parse, embed and write the documents there
        (the settings are pinned first, here, from the first documents read)."""
        if isinstance(items, (str, Path, Document)):
            items = [items]
        items = list(items)  # looked through for addresses, then read (a generator only once)
        if ray is not False:
            if any(is_url(i) for i in items):
                raise ConfigError("a web site is read on this machine: index it without --ray (its pages are "
                                  "fetched one site at a time; the cluster would only wait for them)")
            from .distributed import add_on_ray  # Ray loads only when asked for

            return add_on_ray(self, items, address=ray, prune=prune, progress=progress, metadata=metadata,
                              namespace=namespace, max_file_bytes=max_file_bytes, rules=rules)
        if namespace is not None and (not namespace.strip("/") or namespace != namespace.strip("/")):
            raise ConfigError(f"namespace {namespace!r}: give a non-empty name without leading or trailing '/'")
        t0 = time.perf_counter()
        report = Counts()
        tick = progress or (lambda stage, done, total: None)
        with self.lock:
            sites = [self._crawl(i, report, tick, rules, max_file_bytes, web) for i in items if is_url(i)]
            sources: list[tuple[Path | Document, Path | str | None]] = [
                *walk(self.store.path, [i for i in items if not is_url(i)], report, rules),
                *((d, site.scope.url) for site in sites for d in site.documents)]
            roots = [i if is_url(i) else str(resolved(Path(i))) for i in items if not isinstance(i, Document)]
            tick("read", 0, len(sources))
            given = dict(metadata or {})
            if fan_out is not None:
                if self.settings.pins is None or self.settings.reindex:
                    # read apart from the run (the workers read these files again)
                    first = self._read(sources, Counts(), lambda *_: None, given, namespace, max_file_bytes)
                    report.embedder = self.settings.pin([d.text[:4000] for d, _ in islice(first, AUTO_SAMPLE)],
                                                        roots)
                fan_out(sources, report, tick, given, namespace, max_file_bytes)
            else:
                loaded = self._read(sources, report, tick, given, namespace, max_file_bytes)
                sample: list[tuple[Document, str]] = []
                if self.settings.pins is None or self.settings.reindex:
                    for pair in loaded:
                        sample.append(pair)
                        if len(sample) >= AUTO_SAMPLE:
                            break
                    report.embedder = self.settings.pin([d.text[:4000] for d, _ in sample], roots)
                self._index_documents([*sample, *loaded], report, tick)
            if prune and roots:
                files = [r for r in roots if not is_url(r)]
                if files:
                    report.removed += prune_gone(self.store, files, seen=report.seen, report=report,
                                                 namespace=namespace)
                for site in sites:
                    report.removed += prune_pages(self.store, site, seen=report.seen, report=report,
                                                  namespace=namespace)
                self.store.drop_unused_vectors()
            if roots:
                with self.store.transaction():
                    self.store.set_meta({"roots": json.dumps(roots)})
            self.dense.refresh()
            report.ann = self.dense.last_change
            self.store.checkpoint()
        report.seconds = time.perf_counter() - t0
        return report.freeze()

    def _crawl(self, start: str, report: Counts, tick: Progress, rules: FileRules, max_bytes: int | None,
               web: CrawlOptions) -> CrawlResult:
        """The pages of the site at ``start``; what was not read goes to the report."""
        site = crawl(start, rules=rules, max_pages=web.max_pages, max_bytes=max_bytes, within=web.within,
                     headers=web.headers, progress=lambda done, total: tick("fetch", done, total))
        report.skipped.extend(site.skipped)
        report.failed |= site.failed
        report.crawled.append((site.scope.url, len(site.documents), site.stopped))
        return site

    def index_sources(self, sources: Sources, report: Counts, tick: Progress, metadata: dict[str, Any],
                      namespace: str | None, max_bytes: int | None) -> None:
        """Read, parse, embed and write a part of a run (a Ray worker's batch), comparing with the
        stored versions of these documents only; the caller holds the writer lock."""
        prefix = f"{namespace}/" if namespace else ""
        ids = [prefix + s.id if isinstance(s, Document) else file_id(s, _folder(root), prefix) for s, root in sources]
        docs = self._read(sources, report, tick, metadata, namespace, max_bytes, only=ids)
        self._index_documents(docs, report, tick)

    def _read(self, sources: Sources, report: Counts, tick: Progress, metadata: dict[str, Any],
              namespace: str | None, max_bytes: int | None,
              only: Sequence[str] | None = None) -> Iterator[tuple[Document, str]]:
        """Documents to (re)index, with their origin; unchanged and unreadable ones are counted,
        and a changed metadata alone is written here. ``only``: the ids of the sources, to look up
        instead of every stored document."""
        if self.settings.reindex:
            hashes: dict[str, str] = {}
        else:
            hashes = self.store.document_hashes() if only is None else self.store.content_hashes(only)
        stored = ({} if not hashes else self.store.document_metadata() if only is None
                  else self.store.metadata_by_id(hashes))
        # A file now read as another format (a reader added for its extension), or by readers and
        # chunkers of another version, is read again: its text is the same, its tree is not.
        readings = {} if not hashes else self.store.document_readings(None if only is None else list(hashes))
        report.existing = hashes
        prefix = f"{namespace}/" if namespace else ""
        for n, (src, root) in enumerate(sources, start=1):
            if isinstance(src, Document):
                doc, origin = src, "web" if isinstance(root, str) else "api"
                if prefix:
                    doc = replace(doc, id=prefix + doc.id)
                doc = with_metadata(doc, metadata)
            else:
                doc_id = file_id(src, _folder(root), prefix)
                try:
                    doc = load_path(src, id=doc_id, source=str(resolved(src)), metadata=metadata,
                                    max_bytes=max_bytes)
                except Exception as e:
                    if isinstance(e, (InputError, OSError)):
                        reason = str(e) or type(e).__name__
                    elif self.isolate:
                        reason = f"{src}: {type(e).__name__}: {e}"
                    else:
                        raise
                    report.skipped.append((str(src), reason))
                    report.failed.add(doc_id)
                    tick("read", n, len(sources))
                    continue
                origin = "file"
            doc = with_test(doc)
            report.seen.add(doc.id)
            tick("read", n, len(sources))
            same_text, reading = hashes.get(doc.id) == doc.content_hash, readings.get(doc.id)
            if same_text and reading == Reading(doc.format, PARSER_VERSION):
                given = json.loads(json.dumps(dict(doc.metadata), ensure_ascii=False, default=str))
                before = dict(stored.get(doc.id, {}))
                if LANG_KEY in before and LANG_KEY not in given:
                    # The same text is in the language stored (told again it costs a re-run 40 %).
                    # When the rest of the metadata changed, a language the user stated before
                    # and leaves out now goes with it: told again.
                    if given == {k: v for k, v in before.items() if k != LANG_KEY}:
                        given[LANG_KEY] = before[LANG_KEY]
                    elif (told := with_language(doc).metadata.get(LANG_KEY)) is not None:
                        given[LANG_KEY] = told
                if CHANGELOG_KEY in before and CHANGELOG_KEY not in given:  # the same text: still one
                    given[CHANGELOG_KEY] = before[CHANGELOG_KEY]
                if given == before:
                    report.unchanged += 1
                    continue
                # units embed the title in their trail: a new title is a new text to embed
                if not (self.settings.headings and given.get("title") != before.get("title")):
                    self.store.set_metadata(doc.id, given)
                    report.updated += 1
                    continue
            elif same_text and reading is not None and reading.format == doc.format:
                report.rereading.add(doc.id)  # the same text and format: only the parser changed
            if isinstance(src, Path) and not doc.text.strip() and _has_bytes(src):
                report.empty.append(str(src))  # a scanned PDF: its pages hold no text to search
            elif isinstance(src, Path) and (scanned := _scanned_pages(doc)):
                report.scanned.append((str(src), *scanned))
            if isinstance(src, Path) and (ocr := doc.metadata.get("pages_ocr")):
                report.ocr.append((str(src), int(ocr), int(doc.metadata.get("pages", ocr))))
            if isinstance(src, Path) and (failed := doc.metadata.get("pages_ocr_failed")):
                report.skipped.append((f"{src}, page(s) {', '.join(map(str, failed))}", PAGES_NOT_READ))
            yield with_changelog(with_language(doc)), origin

    def _index_documents(self, docs: Iterable[tuple[Document, str]], report: Counts, tick: Progress) -> None:
        emb = self.settings.embedder
        _, _, chunker = self.settings.chunking()
        runner = EmbedRunner(emb, cache=MemoryCache(max_items=None), batch_size=self.batch_size)
        jobs: dict[int, _Job] = {}
        parsed = embed_total = embed_done = 0

        def write(job_id: Any, vectors: np.ndarray) -> None:
            nonlocal embed_done
            job = jobs.pop(job_id)
            blobs = {job.keys[i]: to_blob(v) for i, v in zip(job.missing, vectors)}
            upper: dict[str, int] = {}
            if self.settings.levels:
                new, upper = level_blobs(job.tree, {u.id: k for u, k in zip(job.units, job.keys)}, blobs,
                                         self.store.vectors_by_key)
                blobs.update(new)
            self.store.write_document(job.tree, [UnitToWrite(u, k) for u, k in zip(job.units, job.keys)],
                                      blobs, job.origin, upper, parser=PARSER_VERSION)
            report.units += len(job.units)
            report.characters += len(job.document.text)
            if job.existed:
                report.updated += 1
                report.reread += job.document.id in report.rereading
            else:
                report.added += 1
            embed_done += len(job.missing)
            tick("embed", embed_done, embed_total)

        tick("parse", 0, None)  # both stages' clocks start with the first document, not its end
        tick("embed", 0, None)
        with EmbedPipeline(runner, max_pending=4) as pipe:
            for job_id, (doc, origin) in enumerate(docs):
                try:
                    tree, texts = units_to_embed(chunker.chunk(doc), emb, doc, headings=self.settings.headings)
                except ZoomragError as e:
                    report.skipped.append((doc.source, str(e)))
                    continue
                except Exception as e:
                    if not self.isolate:
                        raise
                    report.skipped.append((doc.source, f"{doc.source}: {type(e).__name__}: {e}"))
                    continue
                parsed += 1
                tick("parse", parsed, None)
                keys = [vector_key(cache_key(emb, t)) for t in texts]
                # A cached vector is reused only when sound (size, finite, unit length): a damaged
                # one is embedded again and replaced.
                present = self.store.vector_keys_valid(keys, emb.dimension)
                first: dict[int, int] = {}
                for i, k in enumerate(keys):
                    if k not in present:
                        first.setdefault(k, i)
                missing = sorted(first.values())
                jobs[job_id] = _Job(doc, tree, origin, tree.leaves(), keys, missing, doc.id in report.existing)
                embed_total += len(missing)
                tick("embed", embed_done, embed_total)
                pipe.submit(job_id, [texts[i] for i in missing])
                for done_id, vectors in pipe.ready():
                    write(done_id, vectors)
            for done_id, vectors in pipe.finish():
                write(done_id, vectors)
        report.embedded += runner.stats.embedded


def _scanned_pages(doc: Document) -> tuple[int, int] | None:
    """``(pages without text, pages)`` of a document whose reader counts its pages (a PDF), when
    at least two of them, and a tenth, hold no text: pages scanned as images. A book's few blank
    pages between chapters are not."""
    blank, pages = doc.metadata.get("pages_without_text"), doc.metadata.get("pages")
    if not isinstance(blank, int) or not isinstance(pages, int) or blank < 2 or 10 * blank < pages:
        return None
    return blank, pages


def with_test(doc: Document) -> Document:
    """``doc`` marked ``test: true`` when it is a source file of tests (parse/testfiles.py),
    unless it says whether it is one."""
    if TEST_KEY in doc.metadata or doc.format != "code" or not is_test_file(doc.id):
        return doc
    return with_metadata(doc, {TEST_KEY: True})


def with_changelog(doc: Document) -> Document:
    """``doc`` marked ``changelog: true`` when its sections are releases (parse/changelog.py),
    unless it says whether it is one."""
    if CHANGELOG_KEY in doc.metadata or doc.format in NOT_PROSE or not is_changelog(doc):
        return doc
    return with_metadata(doc, {CHANGELOG_KEY: True})


def with_language(doc: Document) -> Document:
    """``doc`` with the language its text is written in as ``lang`` metadata, unless it states
    one, is code or configuration, or is too short to tell."""
    if LANG_KEY in doc.metadata or doc.format in NOT_PROSE:
        return doc
    code = language_of(doc.text)
    return doc if code is None else with_metadata(doc, {LANG_KEY: code})


def _has_bytes(path: Path) -> bool:
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


def _folder(root: Path | str | None) -> Path | None:
    return root if isinstance(root, Path) else None


def file_id(path: Path, root: Path | None, prefix: str) -> str:
    """A file's document id: its path relative to the folder given (a file given by name: its name)."""
    return prefix + (path.relative_to(root).as_posix() if root is not None else path.name)
