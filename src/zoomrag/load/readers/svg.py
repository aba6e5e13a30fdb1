"""SVG drawings (``.svg``): the words a drawing shows or says of itself, not its shapes.

A repository's documentation keeps its logos, diagrams and badges as SVG. Read as plain text, a
logo was a page of path coordinates (``M420.35,117.6l-37.65,-0c-4.4…``) that questions found
and contexts returned. Here a drawing is its ``<title>`` (the document's title), its ``<desc>``,
the text it draws (``<text>``, and the HTML a diagram tool puts in ``<foreignObject>``) and the
names of its shapes (their ``<title>``), in the order written; styles, scripts and metadata are
left out. A drawing with none of these has no text to search, and the index says so; one that is
not well-formed XML likewise.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Iterator
from html import escape

from ...model import Document
from .html import html_document
from .xmldoc import local_name, parse_xml

#: Elements left out with everything in them.
_SKIP = frozenset({"style", "script", "metadata", "defs", "symbol", "clippath", "mask", "pattern"})
#: Elements whose text is a run of the drawing's words.
_TEXT = frozenset({"text", "foreignobject"})


def read_svg(text: str, *, doc_id: str, source: str) -> Document:
    root = parse_xml(text)
    if root is None or local_name(root.tag) != "svg":
        return html_document("", "svg", {}, doc_id=doc_id, source=source)
    title = next((_words(el) for el in root if local_name(el.tag) == "title"), "")
    body = [f"<h1>{escape(title)}</h1>"] if title else []
    body += [f"<p>{escape(run)}</p>" for run in _runs(root) if run]
    return html_document("".join(body), "svg", {"title": title}, doc_id=doc_id, source=source)


def _runs(element: ET.Element, top: bool = True) -> Iterator[str]:
    """The words of each ``title`` (a shape's name; not the drawing's, its heading), ``desc``,
    ``text`` and ``foreignObject`` below ``element``, in order."""
    for child in element:
        name = local_name(child.tag)
        if name in _SKIP or (name == "title" and top):
            continue
        if name in _TEXT or name in ("desc", "title"):
            yield _words(child)
        else:
            yield from _runs(child, top=False)


def _words(element: ET.Element) -> str:
    """The element's text with its white space made single spaces."""
    return " ".join("".join(element.itertext()).split())
