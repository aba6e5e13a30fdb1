"""Which files an indexing run reads, and which stored files prune may remove."""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path

from ..errors import InputError
from ..load.folders import walk_folder
from ..load.ignore import FileRules
from ..load.web import CrawlResult
from ..model import Document
from ..search.ann import AnnIndex
from ..store import SqliteStore, Store, WriterLock
from .reports import Counts


def walk(index_path: Path | str, items: Sequence[str | Path | Document], report: Counts,
         rules: FileRules = FileRules()) -> Iterator[tuple[Path | Document, Path | None]]:
    """Each file with the root its id is relative to (a folder given, or a file's folder), each
    file once however often it is named, never the index's own files; folders that cannot be
    listed, and what ``rules`` leave out of a folder, go to the report's skipped list."""
    own: set[Path] = set()
    if isinstance(index_path, Path):  # a server store has no files among the inputs
        own = {resolved(Path(str(index_path) + s)) for s in ("", *SqliteStore.SIDE_SUFFIXES)}
        own |= {resolved(p) for p in (WriterLock(index_path).path, *AnnIndex.paths(index_path))}
    seen: set[Path] = set()

    def once(f: Path) -> bool:
        key = resolved(f)
        if key in own or key in seen:
            return False
        seen.add(key)
        return True

    def unreadable(e: OSError) -> None:
        report.skipped.append((str(e.filename), f"{e.filename}: cannot list this folder "
                               f"({e.strerror}); its files were not read"))
        if e.filename:
            report.unlisted.append(str(resolved(Path(e.filename))))

    def left_out(f: Path, reason: str) -> None:
        shown = f"{f}{os.sep}" if f.is_dir() and not f.is_symlink() else str(f)
        report.skipped.append((shown, f"{shown}: {reason}"))

    for item in items:
        if isinstance(item, Document):
            yield item, None
            continue
        p = Path(item)
        if not os.path.lexists(p):
            raise InputError(f"{p}: no such file or folder")
        if p.is_dir():
            for f in walk_folder(p, unreadable, left_out, rules):
                if once(f):
                    yield f, p
        elif once(p):
            yield p, p.parent


def prune_gone(store: Store, roots: Iterable[str] | None, *, seen: set[str] = frozenset(),  # type: ignore[assignment]
               report: Counts | None = None, namespace: str | None = None) -> int:
    """Remove stored files under ``roots`` (every stored file for None) that are gone from disk.

    A file still on disk is never removed, even when it was not read this time (unreadable, not
    UTF-8, too large) or lies in a folder that could not be listed: it keeps its last good
    version and is listed in ``report.kept``. ``namespace``: only that namespace's copies.
    """
    rs = list(roots) if roots is not None else None
    removed = 0
    for row in store.documents():
        if row.origin != "file" or row.id in seen:
            continue
        if namespace and not row.id.startswith(namespace + "/"):
            continue  # another namespace's copy of the same folder
        if rs is not None and not any(under(row.source, r) for r in rs):
            continue
        failed = report is not None and (row.id in report.failed or any(under(row.source, d)
                                                                         for d in report.unlisted))
        if failed or os.path.lexists(row.source):
            if report is not None:
                report.kept.append(row.source)
            continue
        removed += store.delete_document(row.id)
    return removed


def prune_pages(store: Store, site: CrawlResult, *, seen: set[str], report: Counts,
                namespace: str | None = None) -> int:
    """Remove the stored pages of the crawled ``site`` that are gone: answered as gone (404,
    410), now read under another address, or, when the crawl read every page it found, no
    longer linked from any. A page found and not read (left out by a pattern or robots.txt, or
    not fetched this time) keeps its last good version and is listed in ``report.kept``."""
    removed = 0
    for row in store.documents():
        if row.origin != "web" or row.id in seen or not site.scope.holds(row.source):
            continue
        if namespace and not row.id.startswith(namespace + "/"):
            continue
        url = row.source
        if url in site.gone or url in site.read or (not site.stopped and url not in site.found):
            removed += store.delete_document(row.id)
        else:
            report.kept.append(url)
    return removed


def resolved(p: Path) -> Path:
    """The path with symlinks resolved; a symlink loop stays as it is (load_path names it)."""
    try:
        return p.resolve()
    except (OSError, RuntimeError):
        return p.absolute()


def under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)
