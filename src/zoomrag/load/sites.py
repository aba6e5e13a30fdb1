"""Documentation sites a generator built, read as a search engine reads them: their pages, not
their theme, scripts and search index, nor the pages the generator derives from the others.

- Sphinx (a folder holding ``searchindex.js``): the copies of the sources in ``_sources/``, each
  beside the page built from it, and the theme in ``_static/``;
- javadoc (``element-list`` or ``package-list`` beside its tree, index or list of classes): its
  scripts, stylesheets, images and search indexes, and the pages it builds from the class pages
  (the index, trees, "Uses of" pages, the deprecated list) and its help page;
- Doxygen (its logo and stylesheet, ``doxygen.svg`` or ``doxygen.png`` beside ``doxygen.css`` or
  its tabs): its scripts, stylesheets, diagrams and search index, and the pages it builds from
  the others (the lists of classes, files, modules, pages and members, the class hierarchy, a
  class's list of all its members, the directories' pages, the deprecated and to-do lists, the
  pages of its own ``.dox`` and ``.md`` sources, which say nothing the pages they build do not).

- any web site a generator built — MkDocs, Docusaurus, Hugo, Jekyll, VitePress — (a sitemap
  beside its ``index.html`` and not-found page): its scripts, stylesheets and source maps (its
  theme's; Docusaurus's bundles hold every page's text again), its feeds (RSS, Atom: the posts
  again), search indexes (MkDocs' ``search/search_index.json``: every page's text again, its
  HTML as text), sitemap, not-found page, API inventory and GitHub Pages' domain name; the
  other files an author put beside the pages (an example script, a PDF) are read.

Each file left out goes to the folder walker's ``left_out`` with the reason.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

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
#: Why a page javadoc (or Doxygen) derives is not read; a folder's walk adds how to read it anyway.
JAVADOC_DERIVED_WHY = ("a page javadoc built from the class pages (an index, a tree, the uses or deprecated "
                       "members of classes) or its help page: the class pages say it and are read")
JAVADOC_INDEX = JAVADOC_DERIVED_WHY + " (name this file to read it)"

#: The files of a site Doxygen built: its logo (SVG from 1.8.15, PNG before) beside its
#: stylesheet, tabs or scripts (a project may replace the stylesheet: Opus's is its own).
DOXYGEN_LOGOS = frozenset({"doxygen.svg", "doxygen.png"})
DOXYGEN_FILES = frozenset({"doxygen.css", "tabs.css", "dynsections.js"})
#: Pages Doxygen builds from the others: lists and indexes of what the site documents, a
#: class's list of all its members, directories, the lists of deprecated members and to-dos,
#: and the pages of the site's own ``.dox``/``.md`` sources (a file's reference of nothing).
DOXYGEN_DERIVED = re.compile(
    r"(?:.+-members|annotated|classes|hierarchy|inherits|namespaces|files|modules|pages|examples|graph_legend"
    r"|deprecated|todo|bug|test|(?:functions|globals|namespacemembers)(?:_[^.]*)?|dir_[0-9a-f]{32}"
    r"|.+_8(?:dox|md|markdown|txt))\.html")
#: The files a built web site holds at its root: a sitemap beside its home and not-found pages.
WEB_SITEMAPS = frozenset({"sitemap.xml", "sitemap.xml.gz"})
WEB_PAGES = frozenset({"index.html", "404.html"})
#: What of a built web site is not a page's content: scripts, stylesheets and their maps (by
#: extension, anywhere in it); feeds and their stylesheets, search indexes, the sitemap, the
#: not-found page, an API inventory (mkdocstrings'), GitHub Pages' domain name (by name).
WEB_THEME = frozenset({".js", ".mjs", ".cjs", ".css", ".map", ".xsl"})
WEB_FILES = frozenset({"sitemap.xml", "sitemap.xml.gz", "404.html", "objects.inv", "CNAME", "robots.txt",
                       "rss.xml", "atom.xml", "feed.xml", "index.xml", "search_index.json", "search-index.json",
                       "searchindex.json", "lunr-index.json", "hashmap.json"})
WEB_ASSET = ("a script, stylesheet, feed, search index or sitemap of a web site a generator built, not its "
             "pages' content (its pages are read; name this file to read it)")
DOXYGEN_ASSET = ("a script, stylesheet, diagram or search index of a site Doxygen built, not its content "
                 "(its pages are read; name this file to read it)")
DOXYGEN_DERIVED_WHY = ("a page Doxygen built from the others (a list of classes, files or members, a hierarchy, "
                       "a directory, the deprecated list) or of its own sources: the pages it lists say it and are "
                       "read")
DOXYGEN_INDEX = DOXYGEN_DERIVED_WHY + " (name this file to read it)"


class Sites:
    """The built sites a folder walk met, and why a file in one is not read."""

    def __init__(self) -> None:
        self.sphinx: list[Path] = []
        self.javadoc: list[Path] = []
        self.doxygen: list[Path] = []
        self.web: list[Path] = []

    def __bool__(self) -> bool:
        return bool(self.sphinx or self.javadoc or self.doxygen or self.web)

    def look(self, folder: Path, filenames: list[str]) -> None:
        """Note ``folder`` if it is the root of a site (its ``filenames`` say)."""
        names = set(filenames)
        if SPHINX_MARK in names:
            self.sphinx.append(folder)
        if not JAVADOC_LISTS.isdisjoint(names) and not JAVADOC_PAGES.isdisjoint(names):
            self.javadoc.append(folder)
        if not DOXYGEN_LOGOS.isdisjoint(names) and not DOXYGEN_FILES.isdisjoint(names):
            self.doxygen.append(folder)
        if not WEB_SITEMAPS.isdisjoint(names) and WEB_PAGES <= names:
            self.web.append(folder)

    def left_out(self, f: Path) -> str | None:
        """Why ``f`` is not read with the site it lies in, or None."""
        return (_sphinx_copy(f, self.sphinx) or _javadoc_left_out(f, self.javadoc)
                or _doxygen_left_out(f, self.doxygen) or _web_left_out(f, self.web))


def _web_left_out(f: Path, sites: list[Path]) -> str | None:
    for site in sites:
        if f.is_relative_to(site) and (f.suffix.lower() in WEB_THEME or f.name in WEB_FILES):
            return WEB_ASSET
    return None


def _sphinx_copy(f: Path, builds: list[Path]) -> str | None:
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


def _javadoc_left_out(f: Path, sites: list[Path]) -> str | None:
    return _built(f, sites, JAVADOC_ASSET, JAVADOC_INDEX, lambda inside, name: name in JAVADOC_DERIVED
                  or not JAVADOC_DERIVED_DIRS.isdisjoint(inside))


def _doxygen_left_out(f: Path, sites: list[Path]) -> str | None:
    # the search box's pages (search/) are built from the others too
    return _built(f, sites, DOXYGEN_ASSET, DOXYGEN_INDEX, lambda inside, name: inside[:1] == ("search",)
                  or (not inside and DOXYGEN_DERIVED.fullmatch(name) is not None))


def _built(f: Path, sites: list[Path], asset: str, index: str,
           derived: Callable[[tuple[str, ...], str], bool]) -> str | None:
    """Why ``f`` is not read with the site it lies in: not a page (``asset``), or a page the
    generator ``derived`` from the others (``index``; by the folders it lies in, inside the
    site, and its name); None when it is read."""
    for site in sites:
        if not f.is_relative_to(site):
            continue
        if f.suffix.lower() not in (".html", ".htm"):
            return asset
        if derived(f.relative_to(site).parts[:-1], f.name):
            return index
    return None
