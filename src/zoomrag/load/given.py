"""Text an application hands over (the HTTP API's documents, a framework loader's), read by the
reader of its format as a file's would be.

The format is the one given; else the one its source's name says (``guide.md``, a URL ending in
``.html``); else what the text shows (an HTML page, Markdown's headings or fences); else plain
text. A name whose format is read from files (``report.pdf``) says what the text was taken from,
not what it is: the text is read by what it shows. So is a name whose format the text does not
show (a web page's extracted text under its URL, a CSV row given as "key: value" lines).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from itertools import islice
from pathlib import PurePosixPath
from typing import Any
from urllib.parse import urlsplit

from ..model import Document
from .base import FORMATS, detect_format, read_text

#: What the start of a text must show to be read by the format its name says: a loader hands
#: over what it took from the file (a web page's text under its URL, a CSV row as "key: value"
#: lines, a JSON file's values), not always the file.
_SHOWS = {
    "html": re.compile(r"<(?:!doctype|html|head|body|p|div|span|h[1-6]|table|ul|ol|li|article|section|br|a)\b",
                       re.IGNORECASE),
    "xml": re.compile(r"<[A-Za-z?!]"),
    "svg": re.compile(r"<svg\b"),
    "csv": re.compile(r"\A[^\n]*,"),
    "tsv": re.compile(r"\A[^\n]*\t"),
    "json": re.compile(r"\A\s*[\[{]"),
    "jsonl": re.compile(r"\A\s*\{"),
}
_PAGE = re.compile(r"\A\s*(?:<!doctype html|<html\b)", re.IGNORECASE)
#: What shows Markdown: a heading standing apart (not a comment among lines of code, as a
#: PDF's text gives an example's ``# comment``), a fenced block, a table's rule.
_MARKDOWN = re.compile(r"(?:\A|(?<=\n\n))#{1,6}[ \t]+\S[^\n]*\n(?=\n|\Z)"
                       r"|^(?:```|~~~)[^\n]*\n(?:.*\n)*?(?:```|~~~)[ \t]*$"
                       r"|^\|[^\n]*\|[ \t]*\n\|[ \t:|-]*-{3,}", re.MULTILINE)


def name_format(source: str) -> str:
    """The format a source's name says (a path's, or a URL's path), "" when it says none."""
    path = urlsplit(source).path if "://" in source else source
    name = PurePosixPath(path.replace("\\", "/")).name
    if not name:
        return ""
    found = detect_format(PurePosixPath(name))
    return "" if found == "text" and PurePosixPath(name).suffix.lower() not in FORMATS.get("text").extensions \
        else found


def given_format(text: str, source: str = "") -> str:
    """The format to read ``text`` from ``source`` by, when none is given (see the module)."""
    named = name_format(source) if source else ""
    if named and FORMATS.get(named).read is not None:
        shows = _SHOWS.get(named)
        if shows is None or shows.search(text[:8192]):
            return named
    head = text[:65536]
    if _PAGE.match(head):
        return "html"
    # the text of a file read from its bytes (a PDF's) is Markdown where a converter wrote it so,
    # headings throughout; one "# comment" of an example between blank lines does not make it
    signs = 3 if named else 1
    if len(list(islice(_MARKDOWN.finditer(head), signs))) == signs:
        return "markdown"
    return "text"


def read_given(text: str, *, id: str, source: str, format: str | None = None,
               metadata: Mapping[str, Any] | None = None) -> Document:
    """A Document of text handed over by an application, read by its format's reader
    (:func:`given_format` when ``format`` is None)."""
    return read_text(text, format=format or given_format(text, source), id=id, source=source,
                     metadata=metadata)
