"""Which files a folder holds for reading: hidden names, caches, the folder's ``.gitignore``,
the user's include and exclude patterns (:mod:`.ignore`), what a built documentation site holds
besides its pages (:mod:`.sites`), a page's source beside it, a script's source map and a Notion
database's view beside all its rows left out."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from ..errors import InputError
from . import compressed
from .ignore import FileRules, FolderRules
from .readers.images import PICTURES
from .sites import Sites

__all__ = ["SKIPPED_DIRS", "iter_paths", "walk_folder"]

#: Folders never worth indexing besides hidden ones (.venv, .tox, ...), which are read only when asked.
SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", ".git", ".hg", ".svn", ".zoomrag"})
#: Why a folder's picture is not read: most are figures and screenshots, seconds each by OCR.
PICTURE_LEFT_OUT = "a picture, whose text is read by OCR only when asked: index with --pictures, or name the file"


def iter_paths(paths: Iterable[str | Path], rules: FileRules = FileRules()) -> Iterator[Path]:
    """Files named by ``paths``: files as given, folders walked (:func:`walk_folder` with
    ``rules``), each file once. A file named explicitly is always yielded, hidden, ignored or
    not. A missing path, or a folder that cannot be listed, is an error.
    """
    seen: set[Path] = set()
    for path in paths:
        p = Path(path)
        if not os.path.lexists(p):
            raise InputError(f"{p}: no such file or directory")
        found = [p] if not p.is_dir() else walk_folder(p, _unlistable, rules=rules)
        for f in found:
            try:
                key = f.resolve()
            except (OSError, RuntimeError):  # a symlink loop: yielded, load_path says what it is
                key = f.absolute()
            if key not in seen:
                seen.add(key)
                yield f


def _unlistable(e: OSError) -> None:
    raise InputError(f"{e.filename}: cannot list this folder ({e.strerror}); "
                     "fix its permissions or leave it out") from e


def walk_folder(root: Path, unreadable: Callable[[OSError], None] | None = None,
                left_out: Callable[[Path, str], None] | None = None,
                rules: FileRules = FileRules()) -> list[Path]:
    """The files under ``root``, sorted by their path's parts (a folder's files stay together:
    ``a/b`` before ``a-b``). Hidden files and folders (``.venv``, ``.github``) unless
    ``rules.hidden``, and :data:`SKIPPED_DIRS` always, are left out; symlinked folders are not followed (no cycles). A folder
    that cannot be listed goes to ``unreadable`` (which may raise); never silently.

    ``rules`` leave out what the ``.gitignore`` files over and in ``root`` and the include and
    exclude patterns say (a folder left out is not entered): each such file or folder goes to
    ``left_out`` with the rule. So does what a documentation site Sphinx, javadoc or Doxygen
    built holds besides its pages (:mod:`.sites`: its theme and search index, the pages it
    derives from the others), as a search engine would see the site; so does a Markdown,
    reStructuredText, AsciiDoc or JSON file beside an HTML page of the same name (``path.md``,
    ``path.json.gz`` beside ``path.html``, as Node's documentation ships), the same page in
    another form, and the CSV of a Notion database's view beside the CSV of all its rows.
    Without ``left_out`` they are returned.
    """
    files: list[Path] = []
    sites = Sites()
    ruled_out: list[tuple[Path, str]] = []
    folder_rules = FolderRules(root, rules)
    for dirpath, dirnames, filenames in os.walk(root, onerror=unreadable or _unlistable):
        rel_dir = Path(dirpath).relative_to(root).as_posix()
        rel_dir = "" if rel_dir == "." else rel_dir
        folder_rules.enter(rel_dir, Path(dirpath), filenames)
        prefix = f"{rel_dir}/" if rel_dir else ""
        kept_dirs = []
        for d in dirnames:
            if d in SKIPPED_DIRS or (d.startswith(".") and not rules.hidden):
                continue
            why = folder_rules.folder_left_out(rel_dir, prefix + d)
            if why is None:
                kept_dirs.append(d)
            else:
                ruled_out.append((Path(dirpath, d), why))
        dirnames[:] = kept_dirs
        for name in filenames:
            if name.startswith(".") and not rules.hidden:
                continue
            why = folder_rules.file_left_out(rel_dir, prefix + name)
            if why is None:
                files.append(Path(dirpath, name))
            else:
                ruled_out.append((Path(dirpath, name), why))
        if left_out is not None:
            sites.look(Path(dirpath), filenames)
    files.sort(key=lambda f: f.relative_to(root).parts)
    if left_out is not None:
        for path, why in sorted(ruled_out, key=lambda pair: pair[0].relative_to(root).parts):
            left_out(path, why)
    if sites and left_out is not None:
        files = _sift(files, sites.left_out, left_out)
    if not rules.pictures:  # after the sites: a site's pictures are its assets
        files = _sift(files, _picture, left_out or (lambda path, why: None))
    if left_out is not None:
        formats = {f: _format(f) for f in files}
        pages = {(f.parent, _page_name(f)): f for f in files if formats[f] == "html"}
        kept = []
        for f in files:
            page = pages.get((f.parent, _page_name(f))) if formats[f] in _BUILT_FROM else None
            if page is None:
                kept.append(f)
            else:
                left_out(f, f"the page {page.name} beside it in another form (the page is read instead; "
                            "name this file to read it)")
        files = kept
        whole = {f for f in files if _NOTION_ALL.fullmatch(f.name)}
        listed = set(files)
        kept = []
        for f in files:
            if f.suffix == ".csv" and f.with_name(f"{f.stem}_all.csv") in whole:
                left_out(f, f"a view of the Notion database whose rows are all in {f.stem}_all.csv beside it "
                            "(that file is read instead; name this file to read it)")
            elif f.suffix == ".map" and f.with_suffix("") in listed:
                # bundle.min.js.map: JSON of positions and the sources again, never prose
                left_out(f, f"the source map of {f.stem} beside it, generated with it (name this file to read it)")
            else:
                kept.append(f)
        files = kept
    return files


def _picture(path: Path) -> str | None:
    return PICTURE_LEFT_OUT if path.name.lower().endswith(PICTURES) else None


def _sift(files: list[Path], why: Callable[[Path], str | None], left_out: Callable[[Path, str], None]) -> list[Path]:
    """The files ``why`` has no reason to leave out; the others go to ``left_out`` with it."""
    kept = []
    for f in files:
        reason = why(f)
        if reason is None:
            kept.append(f)
        else:
            left_out(f, reason)
    return kept


#: A Notion database exported whole beside its view (``Tasks 1a2b…_all.csv`` by ``Tasks 1a2b….csv``).
_NOTION_ALL = re.compile(r".+ [0-9a-f]{32}_all\.csv")


#: Formats a page beside them is built from (``path.md``, ``path.rst``) or built with
#: (``path.json``: Node's documentation writes each page's JSON too): a copy of the page in
#: another form, where the page is what a reader sees.
_BUILT_FROM = frozenset({"markdown", "rst", "asciidoc", "json"})


def _format(f: Path) -> str:
    from .base import detect_format  # base reads the registry, which imports the readers

    return detect_format(f)


def _page_name(f: Path) -> str:
    """``f``'s name without its format's extension, or a compressed file's (``path.json.gz``)."""
    inner = compressed.inner_name(f) or f
    return inner.stem
