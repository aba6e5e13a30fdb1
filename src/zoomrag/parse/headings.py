"""Headings and the section tree they imply.

:func:`find_headings` returns every heading of a document with its level and clean title;
:func:`section_spans` turns them into nested ``section`` drafts. Sources, first that has any:
the reader's heading blocks; Markdown's top-level headings (markdown-it-py's) for ``markdown``;
the sections of a manual page or pydoc text (:mod:`.manpages`); plain-text chapter and section
lines otherwise (docs/strategies.md, ``markdown``). A Markdown
document without Markdown headings is tried as plain text and the reverse; code, CSV and TSV
have none. A document its reader parsed is not parsed again, and a plain text only when it has
a line that could be a kept heading.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from dataclasses import dataclass

from markdown_it import MarkdownIt

from ..load import frontmatter
from ..load.base import rendered_as
from ..load.readers.page_lines import GUESSED
from ..load.spans import trim, trim_end
from ..model import Document
from .base import Span
from .manpages import manpage_headings
from .plaintext import (
    DEFINITION,
    MAX_WIDTH,
    PLAIN,
    PLAIN_FIRST,
    WIKI,
    LinePattern,
    plain_headings,
    title_like,
)
from .titles import clean_title

__all__ = ["Heading", "find_headings", "front_matter_end", "hidden_ranges", "section_spans"]


@dataclass(frozen=True, slots=True)
class Heading:
    """One heading: the span of its line(s), its level (1 = outermost) and its clean title."""

    start: int
    end: int
    level: int
    title: str


# -- front matter ------------------------------------------------------------------------

# YAML front matter starts with a key (``title: x``) or a comment; TOML with a key or a table.
_FM_YAML_FIRST = re.compile(r"[ \t]*(?:#|[^\s:#][^\n:]*:(?:[ \t]|$))")
_FM_TOML_FIRST = re.compile(r"[ \t]*(?:#|\[|[\w\"'.-]+[ \t]*=)")


def front_matter_end(text: str) -> int:
    """End of a YAML (``---``) or TOML (``+++``) front matter block at the very start, else 0.

    The block must be closed and its first line must look like a key, so a document that merely
    opens with a thematic break is not swallowed.
    """
    found = frontmatter.find(text)
    if found is None:
        return 0
    opening, closing = found
    first = _FM_YAML_FIRST if opening.group(1) == "---" else _FM_TOML_FIRST
    return closing.end() if first.match(text, opening.end()) else 0


# -- Markdown ------------------------------------------------------------------------------

# Block structure only: titles are taken from the heading lines, so inline parsing is off.
_MD = MarkdownIt("commonmark").disable(["inline", "text_join"])
# Line breaks as markdown-it counts lines (it turns \r\n and \r into \n before parsing).
_BREAK = re.compile(r"\r\n?|\n")
_ATX_CLOSE = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
# A line without which a text has no Markdown heading: an ATX opening or a setext underline.
_MD_HEADING_LINE = LinePattern(r"^ {0,3}(?:#{1,6}(?:[ \t]|$)|(?:=+|-+)[ \t]*$)")


def _markdown_headings(text: str) -> tuple[list[Heading], list[tuple[int, int]]]:
    """markdown-it's top-level headings, and the ranges where no heading can be: front matter,
    code fences and raw HTML blocks (each from its first line's start to its last line's end)."""
    fm = front_matter_end(text)
    breaks = list(_BREAK.finditer(text))
    first = bisect_left([m.start() for m in breaks], fm)  # lines before the parsed text
    starts = [0, *(m.end() for m in breaks)]
    ends = [*(m.start() for m in breaks), len(text)]
    headings: list[Heading] = []
    hidden = [(0, fm)] if fm else []
    tokens = _MD.parse(text[fm:])
    for i, t in enumerate(tokens):
        if t.level or t.map is None:
            continue
        s, e = starts[first + t.map[0]], ends[first + t.map[1] - 1]
        if t.type == "heading_open":
            lines = tokens[i + 1].content.split("\n")
            title = " ".join(x.strip() for x in lines if x.strip())
            headings.append(Heading(s, e, int(t.tag[1:]), title))
        elif t.type in ("fence", "html_block"):
            hidden.append((s, e))
    return headings, hidden


def hidden_ranges(document: Document) -> list[tuple[int, int]]:
    """Ranges where Markdown headings cannot occur: front matter, fenced code, raw HTML blocks.

    Strategies use them to keep a code fence whole when they split at blank lines.
    """
    return _markdown_headings(document.text)[1]


# -- reader blocks -------------------------------------------------------------------------

_SETEXT_UNDERLINE = re.compile(r"\n[ \t]*(?:=+|-+)[ \t]*$")
_ATX_OPEN = re.compile(r"[ \t]*#{1,6}(?:[ \t]+|$)")
_WIKI_MARKS = re.compile(r"^[ \t]*=+[ \t]+|[ \t]+=+[ \t]*$")


def _block_headings(document: Document) -> list[Heading]:
    out = []
    for b in document.blocks:
        if b.type != "heading":
            continue
        said = b.meta.get("title")  # a reader that knows the title (RST: without its adornment)
        if isinstance(said, str):
            out.append(Heading(b.start, b.end, min(max(b.level, 1), 6), " ".join(said.split())))
            continue
        raw = _SETEXT_UNDERLINE.sub("", document.text[b.start:b.end])
        if _ATX_OPEN.match(raw):
            raw = _ATX_CLOSE.sub("", _ATX_OPEN.sub("", raw, count=1))
        raw = _WIKI_MARKS.sub("", raw)
        title = " ".join(raw.split())
        out.append(Heading(b.start, b.end, min(max(b.level, 1), 6), title))
    return out


# -- public API ----------------------------------------------------------------------------


#: Formats with no headings but their reader's heading blocks (RST's, AsciiDoc's, LaTeX's,
#: Org's and the configuration files' readers find every title).
_NO_HEADINGS = {"code", "csv", "tsv", "json", "jsonl", "rst", "asciidoc", "latex", "org", "yaml", "toml", "ini", "xmldata"}


def find_headings(document: Document) -> list[Heading]:
    """Every heading of the document in order (see the module docstring for the sources).

    A heading's span is its line(s) without surrounding whitespace.
    """
    text = document.text
    out = []
    for h in _find(document):
        span = _trim(text, h.start, h.end)
        if span is not None:
            out.append(Heading(span[0], span[1], h.level, h.title))
    return out


# A line can be a heading of some kind only if it starts (after its indentation) with one of
# these: most short documents are one line that does not, passed over with one match.
_MAY_START_HEADING = re.compile(rf"[ \t\u3000\u00a0]*(?:{PLAIN_FIRST}|[#=])")


def _no_heading_line(text: str) -> bool:
    """True for a text of one line that no heading pattern matches (nor front matter, which
    needs a line feed): it has no headings. (markdown-it breaks lines at \r as well.)"""
    if "\n" in text or "\r" in text:
        return False
    if DEFINITION.first.match(text) is not None:
        return False
    if _MAY_START_HEADING.match(text) is None:
        return True
    return all(p.first.match(text) is None for p in (PLAIN, WIKI, _MD_HEADING_LINE))


def _may_hold_markdown_headings(text: str) -> bool:
    """False when no Markdown heading of a plain text could be kept (see
    :func:`_plain_markdown_headings`), which spares markdown-it's parse of the whole text.

    A kept heading has an ATX line, or is a setext heading over one title line (a text with \r
    is always parsed: markdown-it breaks lines there, the patterns do not).
    """
    if "\r" in text:
        return True
    # A link reference definition may end on any line, and a paragraph start on the next one.
    refs = "]:" in text
    for ls, m in _MD_HEADING_LINE.finditer(text):
        if text[ls:m.end()].lstrip(" ").startswith("#") or _may_be_title(text, ls, refs):
            return True
    return False


def _may_be_title(text: str, underline: int, refs: bool) -> bool:
    """False when the line above the setext underline starting at ``underline`` cannot be the
    one title line of a kept heading: there is none, it is blank to markdown-it (spaces and
    tabs), its title would be wider than MAX_WIDTH characters, or the line above it continues a
    paragraph into it, or a block that is no paragraph.

    A line that starts with a letter does that: it is paragraph text (at the top level, or a
    lazy continuation) or inside a fence or HTML block; unless it ends an HTML block (every
    end marker holds ">") or a link reference definition (``refs``: the text holds one).
    """
    if not underline:
        return False
    ts = text.rfind("\n", 0, underline - 1) + 1
    title = text[ts:underline - 1]
    if not title.strip(" \t") or len(title.strip()) > MAX_WIDTH:
        return False
    if not ts or refs:
        return True
    above = text[text.rfind("\n", 0, ts - 1) + 1:ts - 1]
    return not above[:1].isalpha() or ">" in above


def _plain_markdown_headings(text: str) -> list[Heading]:
    """The Markdown headings kept in a plain text: only those that read as titles (a stray "="
    line under a long paragraph is not one), and setext headings only over a single line."""
    if not _may_hold_markdown_headings(text):
        return []
    return [
        h for h in _markdown_headings(text)[0]
        if title_like(h.title, "markdown") and text.count("\n", h.start, h.end) <= 1
    ]


def _reader_hidden(document: Document) -> list[tuple[int, int]]:
    """Where the reader found code, raw HTML or front matter: no heading lies there."""
    return [(b.start, b.end) for b in document.blocks
            if b.type == "code" or b.meta.get("html") or b.meta.get("front_matter")]


def _plain(text: str, hidden: list[tuple[int, int]]) -> list[Heading]:
    return [Heading(*h) for h in plain_headings(text, hidden)]


def _find(document: Document) -> list[Heading]:
    from_blocks = _block_headings(document)
    if from_blocks and all(b.meta.get(GUESSED) for b in document.blocks if b.type == "heading"):
        # headings a reader guessed from lines alone (a loader's page text) give way to the
        # numbered titles of the text, which say their depth
        plain = _plain(document.text, [])
        taken = [(h.start, h.end) for h in plain]
        return sorted([*plain, *(h for h in from_blocks
                                 if not any(s < h.end and h.start < e for s, e in taken))],
                      key=lambda h: h.start)
    if from_blocks:
        return from_blocks
    fmt = document.format
    if fmt in _NO_HEADINGS or document.metadata.get("language"):
        return []
    text = document.text
    if _no_heading_line(text):
        return []
    if fmt in ("markdown", "notebook"):  # a notebook is read as its Markdown rendering
        if document.blocks:  # the reader's markdown-it parse: none of its blocks is a heading
            return _plain(text, _reader_hidden(document))
        headings, hidden = _markdown_headings(text)
        return headings or _plain(text, hidden)
    if rendered_as(fmt) == "markdown":  # its reader wrote every Markdown heading it has as a heading block
        return _plain(text, [])
    man = manpage_headings(text)
    if man:
        return [Heading(*h) for h in man]
    return _plain(text, []) or _plain_markdown_headings(text)


def section_spans(document: Document, max_level: int = 6) -> list[Span]:
    """The section tree as drafts for the root's children.

    Top level, in order: ``front_matter`` (Markdown front matter, if any), ``preamble`` (text
    before the first heading, if any), then ``section`` spans. A section runs from its heading
    to the next heading of the same or an outer level, trimmed of trailing whitespace, and
    carries ``section_path``, the titles from the outermost heading down to its own. A section
    with subsections has them as children, preceded by an ``intro`` span: its heading line and
    the text before the first subsection. So the leaves cover every non-whitespace character.
    Headings deeper than ``max_level`` are ordinary text.
    """
    text = document.text
    n = len(text)
    headings = [h for h in find_headings(document) if h.level <= max_level]
    out: list[Span] = []
    pos = 0
    if document.format == "markdown":
        fm = front_matter_end(text)
        if fm and (not headings or headings[0].start >= fm):
            out.append(Span("front_matter", 0, fm))
            pos = fm
    first = headings[0].start if headings else n
    pre = _trim(text, pos, first)
    if pre is not None:
        out.append(Span("preamble", *pre))
    # Stack of open sections: (level, span). A heading closes every open section of the same or
    # a deeper level; sections are closed by setting their end and attaching intros.
    stack: list[tuple[int, Span]] = []
    for i, h in enumerate(headings):
        while stack and stack[-1][0] >= h.level:
            _close(text, stack.pop()[1], h.start)
        path = (stack[-1][1].section_path if stack else ()) + (clean_title(h.title),)
        span = Span("section", h.start, h.end, section_path=path)
        (stack[-1][1].children if stack else out).append(span)
        stack.append((h.level, span))
    while stack:
        _close(text, stack.pop()[1], n)
    return out


def _close(text: str, span: Span, end: int) -> None:
    """Set a section's end (trimmed) and put its own text before the subsections in an intro."""
    span.end = max(span.start, trim_end(text, span.start, end))
    if span.children:
        intro_end = trim_end(text, span.start, span.children[0].start)
        span.children.insert(0, Span("intro", span.start, intro_end, section_path=span.section_path))


def _trim(text: str, start: int, end: int) -> tuple[int, int] | None:
    start, end = trim(text, start, end)
    return (start, end) if start < end else None
