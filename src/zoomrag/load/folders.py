"""Which files a folder holds for reading: hidden names, caches, the folder's ``.gitignore``,
the user's include and exclude patterns (:mod:`.ignore`), Sphinx's copies and a page's source
beside it left out, and a Notion database's view beside all its rows."""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path

from ..errors import InputError
from . import compressed
from .ignore import FileRules, FolderRules

__all__ = ["SKIPPED_DIRS", "iter_paths", "walk_folder"]

#: Folders never worth indexing besides hidden ones (.venv, .tox, ...), which are read only when asked.
SKIPPED_DIRS = frozenset({"__pycache__", "node_modules", ".git", ".hg", ".svn", ".zoomrag"})


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


#: The file that marks a folder as a site Sphinx built (its search index).
SPHINX_MARK = "searchindex.js"
SPHINX_SOURCE = ("the source Sphinx copied beside the page it built (the page is read instead; "
                 "index the sources folder itself to read sources)")
SPHINX_THEME = "a file of the theme or the search index of a site Sphinx built, not its content"


#: The files only a site javadoc built holds: its list of packages (``package-list`` before
#: javadoc 10), beside its class tree, index or list of classes.
JAVADOC_LISTS = frozenset({"element-list", "package-list"})
JAVADOC_PAGES = frozenset({"overview-tree.html", "index-all.html", "allclasses-index.html", "allclasses-frame.html"})
#: Pages javadoc builds from the class pages (every line in them is a class page's, most the first
#: sentence of a member's description), and its page about its own pages, the same in every site.
JAVADOC_DERIVED = frozenset({"index-all.html", "allclasses-index.html", "allclasses.html", "allclasses-frame.html",
                             "allclasses-noframe.html", "allpackages-index.html", "overview-tree.html",
                             "package-tree.html", "package-use.html", "deprecated-list.html", "overview-frame.html",
                             "package-frame.html", "search.html", "new-list.html", "preview-list.html",
                             "help-doc.html"})
#: Folders of such pages: the "Uses of" pages of a package's classes, a split index.
JAVADOC_DERIVED_DIRS = frozenset({"class-use", "index-files"})
JAVADOC_ASSET = ("a script, stylesheet or search index of a site javadoc built, not its content "
                 "(its pages are read; name this file to read it)")
JAVADOC_INDEX = ("a page javadoc built from the class pages (an index, a tree, the uses or deprecated members "
                 "of classes) or its help page: the class pages say it and are read (name this file to read it)")


def _javadoc_site(filenames: list[str]) -> bool:
    names = set(filenames)
    return not JAVADOC_LISTS.isdisjoint(names) and not JAVADOC_PAGES.isdisjoint(names)


def _javadoc_left_out(f: Path, sites: list[Path]) -> str | None:
    """Why ``f`` is not read with the javadoc site it lies in, or None."""
    for site in sites:
        if not f.is_relative_to(site):
            continue
        if f.suffix.lower() not in (".html", ".htm"):
            return JAVADOC_ASSET
        if f.name in JAVADOC_DERIVED or not JAVADOC_DERIVED_DIRS.isdisjoint(f.relative_to(site).parts[:-1]):
            return JAVADOC_INDEX
    return None


def walk_folder(root: Path, unreadable: Callable[[OSError], None] | None = None,
                left_out: Callable[[Path, str], None] | None = None,
                rules: FileRules = FileRules()) -> list[Path]:
    """The files under ``root``, sorted by their path's parts (a folder's files stay together:
    ``a/b`` before ``a-b``). Hidden files and folders (``.venv``, ``.github``) unless
    ``rules.hidden``, and :data:`SKIPPED_DIRS` always, are left out; symlinked folders are not followed (no cycles). A folder
    that cannot be listed goes to ``unreadable`` (which may raise); never silently.

    ``rules`` leave out what the ``.gitignore`` files over and in ``root`` and the include and
    exclude patterns say (a folder left out is not entered): each such file or folder goes to
    ``left_out`` with the rule. So does a site Sphinx built (a folder holding
    :data:`SPHINX_MARK`), read as its pages: the copies of their sources in ``_sources/`` (each
    beside the page built from it) and the theme in ``_static/`` go to ``left_out`` with the
    reason, as a search engine would see the site; so does a Markdown, reStructuredText,
    AsciiDoc or JSON file beside an HTML page of the same name (``path.md``, ``path.json.gz``
    beside ``path.html``, as Node's documentation ships), the same page in another form, and the
    CSV of a Notion database's view beside the CSV of all its rows. A site javadoc built is read
    as its class, package and source pages: its scripts (jQuery, the search index), stylesheets
    and images, and the pages it builds from the class pages (the index, trees, "Uses of"
    pages) go to ``left_out``.
    Without ``left_out`` they are returned.
    """
    files: list[Path] = []
    builds: list[Path] = []
    javadocs: list[Path] = []
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
        if left_out is not None and SPHINX_MARK in filenames:
            builds.append(Path(dirpath))
        if left_out is not None and _javadoc_site(filenames):
            javadocs.append(Path(dirpath))
    files.sort(key=lambda f: f.relative_to(root).parts)
    if left_out is not None:
        for path, why in sorted(ruled_out, key=lambda pair: pair[0].relative_to(root).parts):
            left_out(path, why)
    if builds and left_out is not None:
        files = _sift(files, lambda f: _sphinx_copy(f, builds), left_out)
    if javadocs and left_out is not None:
        files = _sift(files, lambda f: _javadoc_left_out(f, javadocs), left_out)
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
        kept = []
        for f in files:
            if f.suffix == ".csv" and f.with_name(f"{f.stem}_all.csv") in whole:
                left_out(f, f"a view of the Notion database whose rows are all in {f.stem}_all.csv beside it "
                            "(that file is read instead; name this file to read it)")
            else:
                kept.append(f)
        files = kept
    return files


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


def _sphinx_copy(f: Path, builds: list[Path]) -> str | None:
    """Why ``f`` is not content of the Sphinx build it lies in, or None."""
    for build in builds:
        if f.parent == build and f.name == SPHINX_MARK:
            return SPHINX_THEME
        try:
            rel = f.relative_to(build)
        except ValueError:
            continue
        if rel.parts[0] == "_static":
            return SPHINX_THEME
        if rel.parts[0] == "_sources" and f.suffix == ".txt":
            # library/json.rst.txt is the source of library/json.html
            page = build.joinpath(*rel.parts[1:]).with_suffix("").with_suffix(".html")
            if page.is_file():
                return SPHINX_SOURCE
    return None
