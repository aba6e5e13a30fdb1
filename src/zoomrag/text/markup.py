"""Markdown as a reader reads it: links as their text, inline HTML without its tags.

A unit's span keeps its markup (spans are exact), but what it embeds and what the full-text
index holds need not. A link's target is a path or a URL that no question asks about, and it
can be most of a unit's tokens. A page of a Notion export links each child page as
``[Deploy process](Engineering%20Wiki%209f1c…/Deploy%20process%201d2e….md)``, 50 tokens of
which 2 say anything; a README's badge line is URLs with a word each. Inline links and images
become their text (``[![CI](badge.svg)](ci-url)`` is ``CI``), as LlamaIndex's Markdown reader
does by default. A unit that starts inside a link's text (a long link cut between words) loses
the target's tail too. Inline HTML (a README's ``<p align="center">``, a Notion callout's
``<aside>``) is read as a browser shows it: its tags go, an image becomes its ``alt`` text. Code
stays as written, fenced or inline; so do reference links (``[text][ref]``), autolinks and bare
URLs. Sphinx's MyST directives and roles read as the built page shows them (:mod:`.myst`,
:mod:`.roles`): a note is its text after ``Note:``, a table of contents is nothing. A unit
that would read as nothing (markup alone) is left as it is.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from . import myst, roles

__all__ = ["INLINE_LINK", "MARKDOWN_FORMATS", "as_read", "reading"]

#: Formats whose text is Markdown.
MARKDOWN_FORMATS = frozenset({"markdown", "notebook"})

#: A link's destination, bare or in angle brackets, with an optional title; a bare one may hold
#: balanced parentheses (``https://en.wikipedia.org/wiki/Python_(language)``).
_TARGET = r"\(\s*(?:<[^<>\n]*>|[^()\s<>]*(?:\([^()\s]*\)[^()\s<>]*)*)(?:\s+(?:\"[^\"\n]*\"|'[^'\n]*'|\([^()\n]*\)))?\s*\)"
#: An inline link or image: its text (wrapped over lines, never over a blank one), then its target.
INLINE_LINK = re.compile(r"!?\[((?:[^\[\]\n]|\n(?![ \t]*\n))*)\]" + _TARGET)
_LINK = re.compile(r"(`+)[^`]*?\1|" + INLINE_LINK.pattern)
#: Inline HTML outside code: a comment, an image (its ``alt`` kept), any other tag.
_HTML = re.compile(r"(`+)[^`]*?\1|<!--.*?-->|<img\b[^<>]*?\balt\s*=\s*[\"']([^\"'<>]*)[\"'][^<>]*>"
                   r"|</?[A-Za-z][A-Za-z0-9-]*(?:\s[^<>]*)?/?>", re.S)
#: A fenced code block: from a fence line to the same fence or the end.
_FENCED = re.compile(r"^[ \t]{0,3}(`{3,}|~{3,})[^\n]*\n(?:.*?\n[ \t]{0,3}\1[ \t]*(?:\n|$)|.*)", re.M | re.S)
#: The tail of a link whose ``[`` lies before the unit.
_TAIL = re.compile(r"([^\[\]\n]*)\]" + _TARGET)


def reading(fmt: str) -> Callable[[str], str]:
    """How a unit of a document of format ``fmt`` reads: Markdown by :func:`as_read`,
    reStructuredText with its roles as their text; others as written."""
    if fmt in MARKDOWN_FORMATS:
        return as_read
    return roles.as_text if fmt == "rst" else str


def as_read(text: str) -> str:
    """``text`` as a reader reads it (the module's docstring)."""
    read = _as_read(text)
    return read if read.strip() else text


def _as_read(text: str) -> str:
    if "](" not in text and "<" not in text and "`" not in text and ")=" not in text:
        return text
    t = _TAIL.sub(r"\1", text, count=1) if _TAIL.match(text) else text
    parts, at = [], 0
    for m in _FENCED.finditer(t):
        directive = myst.as_read_block(m.group())
        parts += [_prose(t[at:m.start()]), m.group() if directive is None else _prose(directive)]
        at = m.end()
    parts.append(_prose(t[at:]))
    return "".join(parts)


def _prose(text: str) -> str:
    text = roles.as_text(myst.LABEL.sub("", text)) if "`" in text or ")=" in text else text
    if "<" in text:
        text = _HTML.sub(lambda m: m.group() if m.group(1) else m.group(2) or "", text)
    for _ in range(3):  # an image inside a link: [![CI](badge.svg)](ci-url)
        t = _LINK.sub(lambda m: m.group() if m.group(1) else m.group(2), text)
        if t == text:
            break
        text = t
    return text
