"""A fetched page: the links a crawl follows from it, the pages its generator derives from the
others (left out as a folder of the same site leaves them out, :mod:`..sites`), and its bytes
read into a Document by the reader its type (else its name) says."""

from __future__ import annotations

import codecs
import tempfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from urllib.parse import unquote, urlsplit

from selectolax.lexbor import LexborHTMLParser

from ...errors import InputError
from ...model import Document
from .. import sites
from ..base import FORMATS, decode, detect_format, load_path
from ..given import name_format, read_given
from ..readers.doxygen import doxygen_page
from ..readers.html import javadoc_page
from .urls import resolve

#: Media types and the format they are read as; ``text/plain`` and the rest of ``text/`` by
#: what the address's name says, else by what the text shows (:func:`..given.given_format`).
_TYPES = {"text/html": "html", "application/xhtml+xml": "html", "application/pdf": "pdf",
          "text/markdown": "markdown", "text/x-markdown": "markdown", "text/csv": "csv",
          "text/tab-separated-values": "tsv", "application/json": "json", "text/x-rst": "rst",
          "application/xml": "xml", "text/xml": "xml", "application/x-yaml": "yaml", "application/yaml": "yaml",
          "text/yaml": "yaml", "application/epub+zip": "epub",
          "application/vnd.openxmlformats-officedocument.wordprocessingml.document": "docx",
          "application/vnd.openxmlformats-officedocument.presentationml.presentation": "pptx",
          "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": "xlsx",
          "application/rtf": "rtf", "text/rtf": "rtf"}
#: Types whose bytes are text whatever the name says.
_TEXT_TYPES = frozenset({"application/json", "application/xml", "application/x-yaml", "application/yaml",
                         "application/javascript", "application/x-sh", "application/toml"})
#: Types that say nothing of what the bytes are: the address's name says.
_UNTYPED = frozenset({"", "application/octet-stream", "binary/octet-stream"})
#: Links to these are not fetched: their names say they are not documents a reader reads.
NOT_DOCUMENTS = frozenset({
    ".png", ".jpg", ".jpeg", ".gif", ".webp", ".svgz", ".ico", ".bmp", ".tif", ".tiff", ".avif",
    ".mp3", ".mp4", ".m4a", ".webm", ".ogg", ".wav", ".mov", ".avi",
    ".zip", ".gz", ".tgz", ".bz2", ".xz", ".7z", ".rar", ".tar", ".whl", ".egg", ".jar", ".dmg", ".exe", ".msi",
    ".deb", ".rpm", ".iso", ".woff", ".woff2", ".ttf", ".otf", ".eot", ".css", ".js", ".mjs", ".map", ".wasm",
    ".inv", ".pickle", ".pkl", ".npy", ".bin"})
_SPHINX_SIGNS = ("searchindex.js", "_static/documentation_options.js", 'id="documentation_options"')
_SPHINX_DERIVED = frozenset({"genindex.html", "search.html", "py-modindex.html", "genindex-all.html"})
_SPHINX_DIRS = frozenset({"_sources", "_static", "_images", "_downloads"})


@dataclass(frozen=True)
class PageLinks:
    """What a crawl takes from an HTML page besides its text."""

    #: The pages it links to, in their one spelling, each once, in the page's order.
    links: tuple[str, ...] = ()
    #: The address the page names as its own (``<link rel="canonical">``), if any.
    canonical: str | None = None
    #: ``<meta name="robots" content="noindex">`` and ``nofollow``.
    index: bool = True
    follow: bool = True
    #: The generator whose derived pages are not read: ``sphinx``, ``javadoc``, ``doxygen`` or "".
    generator: str = ""


def page_links(html: str, url: str) -> PageLinks:
    """The links, canonical address, robots directives and generator of the page at ``url``."""
    tree = LexborHTMLParser(html)
    given = tree.css_first("base[href]")
    base = (resolve(given.attributes.get("href") or "", url) or url) if given is not None else url
    links: dict[str, None] = {}
    for a in tree.css("a[href], area[href]"):
        target = resolve(a.attributes.get("href") or "", base)
        if target is not None:
            links[target] = None
    canonical = None
    for link in tree.css("link[rel][href]"):
        if "canonical" in (link.attributes.get("rel") or "").lower().split():
            canonical = resolve(link.attributes.get("href") or "", base)
            break
    index = follow = True
    for meta in tree.css("meta[name][content]"):
        if (meta.attributes.get("name") or "").lower() in ("robots", "zoomrag"):
            said = (meta.attributes.get("content") or "").lower().replace(" ", "").split(",")
            index = index and "noindex" not in said and "none" not in said
            follow = follow and "nofollow" not in said and "none" not in said
    head = html[:16384]
    generator = ("javadoc" if javadoc_page(html) else "doxygen" if doxygen_page(html)
                 else "sphinx" if any(s in head for s in _SPHINX_SIGNS) else "")
    return PageLinks(tuple(links), canonical, index, follow, generator)


def not_a_document(url: str) -> bool:
    """Whether the address's name says a file no reader reads (a picture, an archive, a script)."""
    name = PurePosixPath(urlsplit(url).path).name.lower()
    return any(name.endswith(ext) for ext in NOT_DOCUMENTS)


def derived(url: str, generator: str) -> str | None:
    """Why the page at ``url``, linked from a page ``generator`` built, is not read: a page it
    derives from the others, or its theme (as :mod:`..sites` leaves them out of a folder)."""
    parts = urlsplit(url).path.split("/")
    name, folders = parts[-1], set(parts[:-1])
    if generator == "sphinx" and (name in _SPHINX_DERIVED or name.endswith("-modindex.html")
                                  or not _SPHINX_DIRS.isdisjoint(folders)):
        return ("a page Sphinx built from the others (an index, the search page) or a copy of a source: "
                "the pages are read")
    if generator == "javadoc" and (name in sites.JAVADOC_DERIVED or not sites.JAVADOC_DERIVED_DIRS.isdisjoint(folders)):
        return sites.JAVADOC_DERIVED_WHY
    if generator == "doxygen" and ("search" in folders or sites.DOXYGEN_DERIVED.fullmatch(name)):
        return sites.DOXYGEN_DERIVED_WHY
    return None


def media_type(content_type: str) -> str:
    return content_type.split(";", 1)[0].strip().lower()


def read_fetched(body: bytes, content_type: str, url: str, *, max_bytes: int | None = None) -> Document:
    """The Document of ``body`` fetched from ``url``: its id and source the address, read by the
    reader its media type says (else its name, else what its text shows). A type no reader
    reads (a picture, an archive) is an :class:`InputError` naming it."""
    mime = media_type(content_type)
    fmt = _TYPES.get(mime) or name_format(url)
    reader = FORMATS.get(fmt) if fmt else None
    if reader is not None and reader.read_file is not None:
        return _read_file(body, fmt, url, max_bytes)
    if not (mime.startswith("text/") or mime in _TEXT_TYPES or mime in _TYPES or (mime in _UNTYPED and fmt)):
        raise InputError(f"{url}: {mime or 'no type given'}, not a document zoomrag reads "
                         "(pages, PDFs, office files, text and data are)")
    text = page_text(body, content_type, url)
    return read_given(text, id=url, source=url, format=_TYPES.get(mime))


def page_text(body: bytes, content_type: str, url: str) -> str:
    """The text of a fetched body: in the charset its type names, else as a file's bytes are read."""
    charset = next((p.split("=", 1)[1].strip().strip('"\'') for p in content_type.split(";")[1:]
                    if p.strip().lower().startswith("charset=")), "")
    try:
        codec = codecs.lookup(charset).name if charset else ""
    except LookupError:
        codec = ""
    if codec and not codec.startswith(("utf-8", "ascii")) and not body.startswith((codecs.BOM_UTF8,)):
        try:
            return body.decode(codec).replace("\x00", "\ufffd")
        except UnicodeDecodeError:
            pass  # the header is wrong: read the bytes as a file's are
    return decode(body, url)


def _read_file(body: bytes, fmt: str, url: str, max_bytes: int | None) -> Document:
    name = unquote(PurePosixPath(urlsplit(url).path).name)
    if not name or detect_format(PurePosixPath(name)) != fmt:
        name = f"download{FORMATS.get(fmt).extensions[0]}"
    with tempfile.TemporaryDirectory(prefix="zoomrag-web-") as tmp:
        path = Path(tmp) / name
        path.write_bytes(body)
        try:
            return load_path(path, id=url, source=url, format=fmt, max_bytes=max_bytes)
        except InputError as e:
            raise InputError(str(e).replace(str(path), url)) from None
