"""E-books (``.epub``): the pages of the book's reading order (its spine) read as HTML pages
(:mod:`.html`), one after another, apart by a blank line. An EPUB is a zip of XHTML pages and
a package file that lists them, so no library beyond the standard one is needed; spans point
into the rendering, as for a web page or a Word document. The title is the book's own
(``dc:title``); its contents page (the navigation document), pages the book marks as outside its
reading order (``linear="no"``) and pages with no text (a cover image) are left out. The book's
style sheets go with every page, so a title a converter set as a styled paragraph (calibre's
``<p class="calibre5">``) is a heading as it looks.
"""

from __future__ import annotations

import posixpath
import zipfile
import zlib
from pathlib import Path
from types import MappingProxyType
from urllib.parse import unquote
from xml.etree import ElementTree

from ...errors import InputError
from ...model import Document
from ..base import decode
from .html import render_pages
from .zipped import check_unpacked

_CONTAINER = "META-INF/container.xml"
_ENCRYPTION = "META-INF/encryption.xml"
_PAGE_TYPES = frozenset({"application/xhtml+xml", "text/html"})


_MAX_SHEET = 256 * 1024
_MAX_SHEETS = 1024 * 1024


def _local(tag: str) -> str:
    """An element's name without its namespace: packages use OPF 2 and 3 namespaces alike."""
    return tag.rsplit("}", 1)[-1]


def _package_path(z: zipfile.ZipFile) -> str:
    container = ElementTree.fromstring(z.read(_CONTAINER))
    for el in container.iter():
        if _local(el.tag) == "rootfile" and el.get("full-path"):
            return str(el.get("full-path"))
    raise ValueError("its container.xml names no package file")


def _spine(z: zipfile.ZipFile) -> tuple[list[str], str | None]:
    """The book's pages in reading order (paths in the zip) and its title."""
    opf = _package_path(z)
    package = ElementTree.fromstring(z.read(opf))
    base = posixpath.dirname(opf)
    manifest: dict[str, tuple[str, str]] = {}
    order: list[str] = []
    title = None
    for el in package.iter():
        name = _local(el.tag)
        if name == "title" and title is None and (el.text or "").strip():
            title = " ".join((el.text or "").split())
        elif name == "item" and el.get("id") and el.get("href"):
            href = unquote(str(el.get("href")).split("#", 1)[0])
            # the navigation document is the book's contents, a list of links to what follows
            kind = "" if "nav" in el.get("properties", "").split() else el.get("media-type", "")
            manifest[str(el.get("id"))] = (posixpath.normpath(posixpath.join(base, href)), kind)
        elif name == "itemref" and el.get("linear", "yes") != "no" and el.get("idref"):
            order.append(str(el.get("idref")))
    pages = [manifest[i][0] for i in order if i in manifest and manifest[i][1] in _PAGE_TYPES]
    return pages, title


def _encrypted(z: zipfile.ZipFile, pages: list[str]) -> bool:
    """Whether a page is encrypted (DRM); fonts alone may be obfuscated in a readable book."""
    if _ENCRYPTION not in z.namelist():
        return False
    listed = {unquote(el.get("URI", "")) for el in ElementTree.fromstring(z.read(_ENCRYPTION)).iter()
              if _local(el.tag) == "CipherReference"}
    return any(p in listed for p in pages)


def _style_sheets(z: zipfile.ZipFile) -> str:
    """The book's style sheets, joined (each to 256 KiB, all to 1 MiB: a sheet is rules, not a
    payload)."""
    sheets: list[str] = []
    total = 0
    for info in z.infolist():
        if info.filename.lower().endswith(".css") and info.file_size <= _MAX_SHEET and total + info.file_size <= _MAX_SHEETS:
            sheets.append(z.read(info).decode("utf-8", errors="replace"))
            total += info.file_size
    return "\n".join(sheets)


def read_epub(path: Path, doc_id: str) -> Document:
    source = str(path)
    try:
        with zipfile.ZipFile(path) as z:
            pages, title = _spine(z)
            if _encrypted(z, pages):
                raise InputError(f"{source}: this e-book's pages are encrypted (DRM); zoomrag reads only "
                                 "unencrypted EPUB files, so export or buy a DRM-free copy")
            check_unpacked(z, path, "e-book", pages)
            htmls = [decode(z.read(page), f"{source}: {page}") for page in pages]
            css = _style_sheets(z)
            if css:  # a title drawn by a class of the book's style sheets is one (html_look)
                htmls = [f"<style>{css}</style>{h}" for h in htmls]
    except InputError:
        raise
    except (zipfile.BadZipFile, KeyError, ValueError, ElementTree.ParseError, OSError, RuntimeError,
            EOFError, NotImplementedError, zlib.error) as e:
        raise InputError(f"{source}: cannot read this e-book ({type(e).__name__}: {e}); check that it is a "
                         "complete .epub file") from e
    text, blocks, first_title = render_pages(htmls, "\n\n")
    return Document(id=doc_id, source=source, text=text, format="epub",
                    metadata=MappingProxyType({"title": title or first_title}), blocks=tuple(blocks))
