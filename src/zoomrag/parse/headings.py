"""Headings and the section tree they imply.

:func:`find_headings` returns every heading of a document with its level and clean title;
:func:`section_spans` turns them into nested ``section`` drafts. Sources, in order:

1. heading blocks supplied by the document's reader (``Document.blocks``), when there are any;
2. Markdown (``format == "markdown"``): ATX (``# x``) and setext (``x`` over ``===``/``---``)
   headings, never inside fenced code, indented code, raw HTML blocks or front matter;
3. plain text: chapter and section lines (第一章, 第一节, 一、, （一）, ``1.`` / ``1.1`` /
   ``1.1.1``, ``Chapter 3``, ``Article 5``, ``Section 3.``, ``§ 12``) and wiki-style
   ``= = Title = =`` lines, kept only when the line is short and reads as a title.

A Markdown document without Markdown headings is tried with the plain-text patterns, and a plain
document without plain-text headings is tried as Markdown (people save Markdown as ``.txt``).
Code, CSV and TSV documents have no headings.

The Markdown scan does not build a syntax tree: one regular expression finds the few lines that
can matter (fences, ``#`` lines, ``=``/``-`` underlines, HTML block starts, thematic breaks) and a
short walk over those lines applies the CommonMark rules that decide whether they are headings.
It agrees with markdown-it-py on top-level headings (a property test compares them) at a
fraction of its cost, because prose lines are never visited one by one. What it does not model is
container nesting: a heading inside a block quote is not reported, one indented under a list item
is reported as if it stood at the top level, and a fence indented under a list item that is never
closed hides the rest of the document.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from dataclasses import dataclass

from ..model import Document
from .base import Span
from .titles import clean_title

__all__ = ["Heading", "find_headings", "front_matter_end", "hidden_ranges", "section_spans"]


@dataclass(frozen=True, slots=True)
class Heading:
    """One heading: the span of its line(s), its level (1 = outermost) and its clean title."""

    start: int
    end: int
    level: int
    title: str


class _LinePattern:
    """A ``^``-anchored multiline pattern, searched at line starts only.

    ``re`` tries a leading ``^`` at every offset of the text; the same pattern led by ``\n``
    instead has a literal prefix, which ``re`` finds at C speed. The first line is matched
    apart. Every pattern here ends its matches on their first line, so the two scans agree.
    """

    def __init__(self, pattern: str, flags: int = 0):
        if not pattern.startswith("^"):
            raise ValueError(f"line pattern {pattern!r} must start with ^")
        self.first = re.compile(pattern, flags | re.MULTILINE)
        self.led = re.compile("\n" + pattern[1:], flags | re.MULTILINE)

    def finditer(self, text: str, start: int = 0) -> Iterator[tuple[int, re.Match[str]]]:
        """``(line start, match)`` for every match, as ``first.finditer(text, start)`` finds them."""
        if start == 0 or text[start - 1] == "\n":
            m = self.first.match(text, start)
            if m is not None:
                yield start, m
        for m in self.led.finditer(text, start):
            yield m.start() + 1, m


# -- front matter ------------------------------------------------------------------------

_FM_OPEN = re.compile(r"(---|\+\+\+)[ \t]*\n")
_FM_CLOSE = re.compile(r"^(---|\.\.\.|\+\+\+)[ \t]*$", re.MULTILINE)
# YAML front matter starts with a key (``title: x``) or a comment; TOML with a key or a table.
_FM_YAML_FIRST = re.compile(r"[ \t]*(?:#|[^\s:#][^\n:]*:(?:[ \t]|$))")
_FM_TOML_FIRST = re.compile(r"[ \t]*(?:#|\[|[\w\"'.-]+[ \t]*=)")


def front_matter_end(text: str) -> int:
    """End of a YAML (``---``) or TOML (``+++``) front matter block at the very start, else 0.

    The block must be closed and its first line must look like a key, so a document that merely
    opens with a thematic break is not swallowed.
    """
    m = _FM_OPEN.match(text)
    if m is None:
        return 0
    yaml = m.group(1) == "---"
    first = _FM_YAML_FIRST if yaml else _FM_TOML_FIRST
    if not first.match(text, m.end()):
        return 0
    closers = ("---", "...") if yaml else ("+++",)
    for c in _FM_CLOSE.finditer(text, m.end()):
        if c.group(1) in closers:
            return c.end()
    return 0


# -- Markdown ------------------------------------------------------------------------------

# The only lines that can start or end something that matters for headings.
# Every kind starts with one of these characters: a line that starts with none of them (most
# lines of prose) fails one test instead of one per kind.
_MD_FIRST = r"[`~#=\-*_<]"
_MD_LINE = _LinePattern(
    rf"^ {{0,3}}(?={_MD_FIRST})(?:"
    r"(?P<fence>`{3,}|~{3,})"
    r"|(?P<atx>\#{1,6})(?=[ \t]|$)"
    r"|(?P<under>=+|-+)[ \t]*$"
    r"|(?P<hr>(?:\*[ \t]*){3,}$|(?:_[ \t]*){3,}$|(?:-[ \t]*){3,}$)"
    r"|(?P<html><)"
    r")",
)
_ATX_CLOSE = re.compile(r"(?:^|[ \t]+)#+[ \t]*$")
_HTML_RAW = re.compile(r"<(?:pre|script|style|textarea)(?:[ \t>]|$)", re.IGNORECASE)
_HTML_RAW_END = re.compile(r"</(?:pre|script|style|textarea)>", re.IGNORECASE)  # any of them ends it
_HTML_BLOCK_TAGS = (
    "address|article|aside|base|basefont|blockquote|body|caption|center|col|colgroup|dd|details|"
    "dialog|dir|div|dl|dt|fieldset|figcaption|figure|footer|form|frame|frameset|h[1-6]|head|"
    "header|hr|html|iframe|legend|li|link|main|menu|menuitem|nav|noframes|ol|optgroup|option|p|"
    "param|search|section|summary|table|tbody|td|tfoot|th|thead|title|tr|track|ul"
)
_HTML_BLOCK = re.compile(rf"</?(?:{_HTML_BLOCK_TAGS})(?:[ \t>]|/>|$)", re.IGNORECASE)
_HTML_MARKED = (("<!--", "-->"), ("<![CDATA[", "]]>"), ("<?", "?>"))
_HTML_ATTR = r"""(?:[ \t]+[A-Za-z_:][\w.:-]*(?:[ \t]*=[ \t]*(?:[^\s"'=<>`]+|'[^'\n]*'|"[^"\n]*"))?)"""
_HTML_TAG_LINE = re.compile(
    rf" {{0,3}}(?:<[A-Za-z][A-Za-z0-9-]*{_HTML_ATTR}*[ \t]*/?>|</[A-Za-z][A-Za-z0-9-]*[ \t]*>)[ \t]*$"
)
_BLANK_LINE = re.compile(r"\n[ \t]*(?=\n|\Z)")
_LIST_OR_QUOTE = re.compile(r" {0,3}(?:>|[-+*](?:[ \t]|$)|\d{1,9}[.)](?:[ \t]|$))")
# A list item may interrupt a paragraph only when it has content (and an ordered one starts at 1).
_INTERRUPTING_ITEM = re.compile(r" {0,3}(?:>|[-+*][ \t]+\S|0*1[.)][ \t]+\S)")


def _line_end(text: str, pos: int) -> int:
    e = text.find("\n", pos)
    return len(text) if e < 0 else e


def _indent(line: str) -> int:
    """Indentation in columns, tabs to the next multiple of 4 (as CommonMark counts them)."""
    col = 0
    for ch in line:
        if ch == " ":
            col += 1
        elif ch == "\t":
            col += 4 - col % 4
        else:
            break
    return col


def _is_blank(line: str) -> bool:
    return not line.strip(" \t")


@dataclass(slots=True)
class _Run:
    """What the lines since the last blank line or block boundary make of a setext underline."""

    end: int  # offset up to which lines have been classified
    para_start: int | None = None  # where the current paragraph starts
    blocked: bool = False  # inside a list item or block quote: an underline cannot apply
    item_column: int = 0  # after an empty list item: the column its content would need

    def feed(self, line: str, start: int) -> None:
        if self.blocked:
            m = _LIST_OR_QUOTE.match(line)
            if not (m and _is_empty_item(line, m)):
                return
            self.blocked, self.para_start = False, None  # an empty item ends the lazy paragraph
        if self.item_column:
            column, self.item_column = self.item_column, 0
            if _indent(line) >= column:
                self.blocked = True  # the empty item's content
                return
        if self.para_start is None:
            if _indent(line) >= 4:
                return  # indented code: cannot start a paragraph
            m = _LIST_OR_QUOTE.match(line)
            if m and _is_empty_item(line, m):
                self.item_column = len(m.group().rstrip(" \t")) + 1  # an empty item holds nothing yet
            elif m:
                self.blocked = True
            else:
                self.para_start = start
        elif _INTERRUPTING_ITEM.match(line):
            self.blocked = True


def _is_empty_item(line: str, m: re.Match[str]) -> bool:
    return not line[m.end():].strip() and not m.group().lstrip().startswith(">")


def _scan_markdown(text: str, start: int) -> tuple[list[Heading], list[tuple[int, int]]]:
    """Headings, and the ranges where no heading can be (code fences, raw HTML), from ``start``."""
    headings: list[Heading] = []
    hidden: list[tuple[int, int]] = []
    skip_to = start  # hits before this offset lie inside a fence or HTML block
    boundary = start  # a paragraph cannot begin before this offset
    run: _Run | None = None  # classification of the lines just above the last underline
    for ls, m in _MD_LINE.finditer(text, start):
        if ls < skip_to:
            continue
        le = _line_end(text, ls)
        kind = m.lastgroup
        if kind == "fence":
            fence = m.group("fence")
            if fence[0] == "`" and "`" in text[m.end():le]:
                kind = "para"  # a backtick fence's info string cannot hold a backtick
            else:
                close = re.compile(rf"^ {{0,3}}{re.escape(fence[0])}{{{len(fence)},}}[ \t]*$", re.MULTILINE)
                c = close.search(text, min(le + 1, len(text)))
                end = len(text) if c is None else c.end()
                hidden.append((ls, end))
                skip_to = boundary = end
                run = None
                continue
        elif kind == "html":
            block_end = _html_block_end(text, ls, le)
            if block_end is None and _HTML_TAG_LINE.match(text, ls, le):
                # A line holding one tag opens a block only where no paragraph goes on.
                run = _classify_run(text, ls, boundary, run)
                if run.para_start is None and not run.blocked:
                    b = _BLANK_LINE.search(text, le)
                    block_end = len(text) if b is None else b.start()
                else:
                    run.feed(text[ls:le], ls)
                    run.end = le
                    continue
            if block_end is not None:
                hidden.append((ls, block_end))
                skip_to = boundary = block_end
                run = None
                continue
            kind = "para"
        if kind == "atx":
            raw = text[m.end():le]
            title = _ATX_CLOSE.sub("", raw).strip(" \t")
            headings.append(Heading(ls, le, len(m.group("atx")), title))
            boundary, run = le, None
            continue
        if kind == "under":
            run = _classify_run(text, ls, boundary, run)
            if run.para_start is not None and not run.blocked:
                level = 1 if m.group("under")[0] == "=" else 2
                lines = text[run.para_start:ls].split("\n")
                title = " ".join(x.strip() for x in lines if x.strip())
                headings.append(Heading(run.para_start, le, level, title))
                boundary, run = le, None
                continue
            if m.group("under")[0] == "-" and len(m.group("under")) >= 3:
                boundary, run = le, None  # a thematic break
                continue
            run.feed(text[ls:le], ls)  # ordinary paragraph text such as "=="
            run.end = le
            continue
        if kind == "hr":
            boundary, run = le, None
        # "para": a line that looked special but is text; the next underline walk sees it.
    return headings, hidden


def _classify_run(text: str, ls: int, boundary: int, run: _Run | None) -> _Run:
    """Classify the lines between the last blank line (or boundary) and the line at ``ls``.

    Walks backwards only over lines not classified yet, so a document is walked at most once.
    """
    stop = boundary if run is None else max(boundary, run.end)
    pos = ls - 1  # the newline before the underline
    starts: list[int] = []
    blank_found = False
    while pos > stop:
        s = text.rfind("\n", stop, pos) + 1
        if s == 0 and stop > 0:
            s = stop
        if _is_blank(text[s:pos]):
            blank_found = True
            break
        starts.append(s)
        pos = s - 1
    if blank_found or run is None or stop != run.end:
        run = _Run(ls)
    for s in reversed(starts):
        run.feed(text[s:_line_end(text, s)], s)
    run.end = ls
    return run


def _html_block_end(text: str, ls: int, le: int) -> int | None:
    """End of the raw HTML block starting at ``ls`` (CommonMark kinds 1 to 6), or None."""
    line = text[ls:le].lstrip(" ")
    for opener, closer in _HTML_MARKED:
        if line.startswith(opener):
            e = text.find(closer, ls + len(opener))
            return len(text) if e < 0 else _line_end(text, e)
    if line.startswith("<!") and line[2:3].isalpha():
        e = text.find(">", ls)
        return _line_end(text, e)
    if _HTML_RAW.match(line):
        close = _HTML_RAW_END.search(text, ls)
        return len(text) if close is None else _line_end(text, close.start())
    if _HTML_BLOCK.match(line):
        b = _BLANK_LINE.search(text, le)
        return len(text) if b is None else b.start()
    return None


def _markdown_headings(text: str) -> tuple[list[Heading], list[tuple[int, int]]]:
    fm = front_matter_end(text)
    headings, hidden = _scan_markdown(text, fm)
    if fm:
        hidden.insert(0, (0, fm))
    return headings, hidden


def hidden_ranges(document: Document) -> list[tuple[int, int]]:
    """Ranges where Markdown headings cannot occur: front matter, fenced code, raw HTML blocks.

    Strategies use them to keep a code fence whole when they split at blank lines.
    """
    return _markdown_headings(document.text)[1]


# -- plain text ------------------------------------------------------------------------------

_CN_NUM = "零〇一二三四五六七八九十百千两"
_ROMAN = "IVXLC"
# One alternative per family; the marker is the group, the rest of the line is the title.
# Every family starts with one of these characters (see _MD_FIRST).
_PLAIN_FIRST = rf"[第PBCAS§{_CN_NUM}（(\d]"
_PLAIN = _LinePattern(
    rf"^[ \t\u3000]*(?={_PLAIN_FIRST})(?:"
    rf"(?P<cn_part>第[{_CN_NUM}\d]+[编篇部卷])"
    rf"|(?P<cn_chapter>第[{_CN_NUM}\d]+[章回])"
    rf"|(?P<cn_section>第[{_CN_NUM}\d]+节)"
    rf"|(?P<part>(?:Part|PART|Book|BOOK)[ \t]+(?:\d+|[{_ROMAN}]+)[.:]?)(?=[ \t]|$)"
    rf"|(?P<chapter>(?:Chapter|CHAPTER)[ \t]+(?:\d+|[{_ROMAN}]+)[.:]?)(?=[ \t]|$)"
    rf"|(?P<article>(?:Article|ARTICLE|Art\.)[ \t]*(?:\d+|[{_ROMAN}]+)[.:]?)(?=[ \t]|$)"
    r"|(?P<section>(?:Section|SECTION|Sec\.|§§?)[ \t]*\d+(?:\.\d+)*[a-z]?[.:]?)(?=[ \t]|$)"
    rf"|(?P<cn_item>[{_CN_NUM}]+、)"
    rf"|(?P<cn_sub>[（(][{_CN_NUM}]+[)）])"
    r"|(?P<numbered>\d{1,3}(?:[.．]\d{1,3})*[.．]?)(?=[ \t\u3000])"
    r")",
)
# "== Title ==" (MediaWiki) and "= = Title = =" (WikiText dumps): as many "=" on both sides.
_WIKI = _LinePattern(
    r"^[ \t]*(?P<eq>=(?: ?=)*)[ \t]+(?P<title>\S(?:[^\n]*?\S)?)[ \t]+(?P=eq)[ \t]*$"
)

# Rank of each family: a lower rank is an outer level. Numbered headings add their depth.
_RANK = {
    "cn_part": 10, "part": 10, "cn_chapter": 11, "chapter": 11, "cn_section": 12, "article": 13,
    "section": 14, "cn_item": 15, "cn_sub": 16, "numbered": 17,
}
# Families whose title must read as a title, not as a sentence or a list item.
_STRICT = {"cn_item", "cn_sub", "numbered"}
_MAX_WIDTH = 80  # display columns of a heading line; CJK characters count twice
_SENTENCE_BREAK = re.compile(r"[.!?][ \t]+\S|[。！？]\S")
_LEADERS = re.compile(r"\.{4,}|…{2,}|·{4,}")
_LIST_LINE = re.compile(r"[ \t]*(?:[-+*•][ \t]|\d{1,3}[.)．][ \t])")


def _width(s: str) -> int:
    if s.isascii():
        return len(s)  # no ASCII character is wide
    return sum(2 if unicodedata.east_asian_width(c) in "WF" else 1 for c in s)


def _too_wide(s: str) -> bool:
    """``_width(s) > _MAX_WIDTH``, reading each character's width only when the length cannot
    tell (a character is one or two columns wide; most lines tried are long paragraphs)."""
    if len(s) > _MAX_WIDTH:
        return True
    if 2 * len(s) <= _MAX_WIDTH:
        return False
    return _width(s) > _MAX_WIDTH


def _title_like(title: str, family: str) -> bool:
    if _too_wide(title) or ";" in title or "；" in title or _LEADERS.search(title):
        return False
    if family not in _STRICT:
        return not title or title[-1] not in ",，:：、"
    if not title or title[-1] in ",，;；:：、.。!！?？" or _SENTENCE_BREAK.search(title):
        return False
    if not any(c.isalpha() for c in title):
        return False
    return family != "numbered" or not title[0].islower()


def _plain_headings(text: str, hidden: list[tuple[int, int]]) -> list[Heading]:
    found: list[tuple[int, int, tuple[int, int], str]] = []  # start, end, rank key, title
    for ls, m in _PLAIN.finditer(text):
        family = m.lastgroup or ""
        le = _line_end(text, ls)
        line = text[ls:le].strip()
        rest = text[m.end():le].strip()
        if not _title_like(rest, family) or _too_wide(line):
            continue
        depth = 0
        if family == "numbered":
            marker = m.group("numbered").replace("．", ".")
            depth = marker.rstrip(".").count(".")
            if depth == 0 and not marker.endswith("."):
                continue  # "12 Monkeys" is not a heading; "1." and "1.2" are
            if depth == 0 and _in_list(text, ls, le):
                continue
        found.append((ls, le, (_RANK[family], depth), line))
    for ls, m in _WIKI.finditer(text):
        title = m.group("title")
        if _title_like(title, "wiki"):
            found.append((ls, m.end(), (0, m.group("eq").count("=")), title))
    if hidden:
        found = [f for f in found if not _inside(f[0], hidden)]
    if not found:
        return []
    found.sort()
    # Levels are dense ranks of the families present: a document whose outermost headings
    # are "一、" gets level 1 for them, whatever the family's place in the full order.
    keys = sorted({f[2] for f in found})
    level_of = {k: min(i + 1, 6) for i, k in enumerate(keys)}
    return [Heading(s, e, level_of[k], t) for s, e, k, t in found]


def _in_list(text: str, ls: int, le: int) -> bool:
    """True when the line above or below is a list item too (numbered or bulleted)."""
    if ls > 0:
        ps = text.rfind("\n", 0, ls - 1) + 1
        if _LIST_LINE.match(text, ps, ls - 1):
            return True
    if le < len(text):
        return bool(_LIST_LINE.match(text, le + 1, _line_end(text, le + 1)))
    return False


def _inside(pos: int, ranges: list[tuple[int, int]]) -> bool:
    return any(s <= pos < e for s, e in ranges)


# -- reader blocks -------------------------------------------------------------------------

_SETEXT_UNDERLINE = re.compile(r"\n[ \t]*(?:=+|-+)[ \t]*$")
_ATX_OPEN = re.compile(r"[ \t]*#{1,6}(?:[ \t]+|$)")
_WIKI_MARKS = re.compile(r"^[ \t]*=+[ \t]+|[ \t]+=+[ \t]*$")


def _block_headings(document: Document) -> list[Heading]:
    out = []
    for b in document.blocks:
        if b.type != "heading":
            continue
        raw = _SETEXT_UNDERLINE.sub("", document.text[b.start:b.end])
        if _ATX_OPEN.match(raw):
            raw = _ATX_CLOSE.sub("", _ATX_OPEN.sub("", raw, count=1))
        raw = _WIKI_MARKS.sub("", raw)
        title = " ".join(raw.split())
        out.append(Heading(b.start, b.end, min(max(b.level, 1), 6), title))
    return out


# -- public API ----------------------------------------------------------------------------

_NO_HEADINGS = {"code", "csv", "tsv", "json", "jsonl"}


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
_MAY_START_HEADING = re.compile(rf"[ \t\u3000]*(?:{_PLAIN_FIRST}|{_MD_FIRST})")


def _no_heading_line(text: str) -> bool:
    """True for a text of one line that no heading pattern matches (nor front matter, which
    needs a line feed): it has no headings."""
    if "\n" in text:
        return False
    if _MAY_START_HEADING.match(text) is None:
        return True
    return all(p.first.match(text) is None for p in (_PLAIN, _WIKI, _MD_LINE))


def _find(document: Document) -> list[Heading]:
    from_blocks = _block_headings(document)
    if from_blocks:
        return from_blocks
    fmt = document.format
    if fmt in _NO_HEADINGS or document.metadata.get("language"):
        return []
    text = document.text
    if _no_heading_line(text):
        return []
    if fmt == "markdown":
        headings, hidden = _markdown_headings(text)
        return headings or _plain_headings(text, hidden)
    headings = _plain_headings(text, [])
    if headings:
        return headings
    # Markdown in a plain file: only headings that read as titles (a stray "=" line under a
    # long paragraph is not one), and setext headings only over a single line.
    return [
        h for h in _markdown_headings(text)[0]
        if _title_like(h.title, "markdown") and text.count("\n", h.start, h.end) <= 1
    ]


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
    span.end = max(span.start, _rtrim(text, span.start, end))
    if span.children:
        intro_end = _rtrim(text, span.start, span.children[0].start)
        span.children.insert(0, Span("intro", span.start, intro_end, section_path=span.section_path))


def _rtrim(text: str, start: int, end: int) -> int:
    while end > start and text[end - 1].isspace():
        end -= 1
    return end


def _trim(text: str, start: int, end: int) -> tuple[int, int] | None:
    end = _rtrim(text, start, end)
    while start < end and text[start].isspace():
        start += 1
    return (start, end) if start < end else None
