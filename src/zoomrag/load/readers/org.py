"""Emacs Org mode: headlines as heading blocks, source and example blocks as code blocks, tables
as blocks of their own, the rest as plain paragraphs (the text itself is kept as it is); the
``#+TITLE:``, ``#+AUTHOR:`` … keywords are its metadata.

A headline is a line of ``*`` marks and a space, one mark per level. Its title, as a section path
shows it, is what Org's outline shows: without the TODO keyword (``TODO``, ``DONE``, the common
``NEXT`` … and those a ``#+TODO:`` line names), the priority ``[#A]``, the trailing tags
``:work:urgent:`` and the statistics cookies ``[2/5]``, with links and emphasis reduced to their
text. Read as plain text, ``* Install`` was no heading and a ``#+BEGIN_SRC`` block was prose.

``#+BEGIN_SRC lang`` … ``#+END_SRC`` (any case) is code in its language; ``EXAMPLE`` blocks and
runs of fixed-width ``: `` lines are code without one, and ``EXPORT`` blocks raw code in their
backend's. A block never closed runs to the end of the text. The content of other blocks (quote,
center, verse, a special block) is read as blocks; nothing inside any block is a headline.

Markup belongs to no block: keyword lines (``#+OPTIONS:``, ``#+RESULTS:``), block fences,
comments (``# …`` lines, ``COMMENT`` blocks), drawers (``:PROPERTIES:`` … ``:END:``) and the
planning line under a headline (``SCHEDULED: <…>``). A table (lines starting with ``|``) is a
``table`` block when the table strategy can read it: a rule under its first row, Org's
``|---+---|`` or GFM's ``|---|---|`` (its rules above the header and under the last row are
markup; those between rows are no rows); else it stays one text block.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from types import MappingProxyType

from ...model import Block, Document
from ..spans import line_spans, trim_end
from ..tables import parse_pipe_table
from .code import language_name
from .plain import with_paragraphs

#: A headline: its stars, then the rest of the line (no indentation: `` * x`` is a list item).
_HEADLINE = re.compile(r"(\*+)[ \t]+(\S.*)")
#: TODO keywords Org ships with and the ones most configurations add.
_KEYWORDS = ("TODO", "DONE", "NEXT", "WAITING", "WAIT", "HOLD", "STARTED", "SOMEDAY",
             "CANCELLED", "CANCELED")
#: ``#+TODO: TODO(t) FEEDBACK | DONE(d!)``: a file's own keywords.
_TODO_LINE = re.compile(r"[ \t]*#\+(?:SEQ_|TYP_)?TODO:[ \t]*(.*)", re.IGNORECASE)
_PRIORITY = re.compile(r"\[#[A-Za-z0-9]+\][ \t]*")
_TAGS = re.compile(r"[ \t]+:(?:[\w@#%]+:)+$")
_COOKIE = re.compile(r"[ \t]*\[(?:\d*%|\d*/\d*)\]")
#: ``[[target][description]]`` or ``[[target]]``.
_LINK = re.compile(r"\[\[((?:[^\[\]\\]|\\.)+)\](?:\[([^\[\]]*)\])?\]")
#: ``*bold*``, ``/italic/``, ``=verbatim=``, ``~code~``, ``+strike+``, ``_underline_``, with
#: Org's rule for what may stand around the marks (so ``a/b/c`` and ``snake_case`` stay); the
#: text inside is bounded, as a long line of unclosed marks would otherwise be read in square time.
_EMPHASIS = re.compile(r"(?:(?<=[\s\-('\"{])|^)([*/_=~+])(\S|\S.{0,300}?\S)\1(?=[\s\-.,;:!?')}\"\[\\]|$)")

#: ``#+BEGIN_NAME args``, and the end of a block.
_BEGIN = re.compile(r"[ \t]*#\+begin_(\S+)(?:[ \t]+(.*))?", re.IGNORECASE)
_END = re.compile(r"[ \t]*#\+end_(\S+)[ \t]*", re.IGNORECASE)
#: Blocks whose content is kept verbatim, and the language their argument names.
_CODE_BLOCKS = frozenset({"src", "example", "export"})
_NAMED_LANGUAGE = frozenset({"src", "export"})
#: ``#+KEY: value`` (``#+CAPTION[short]: …`` too), and any other ``#+`` line.
_KEYWORD_LINE = re.compile(r"[ \t]*#\+([^\s:\[]+)(?:\[[^\]\n]*\])?:(?:[ \t]+(.*))?")
_MARKUP_LINE = re.compile(r"[ \t]*#\+\S.*")
_COMMENT_LINE = re.compile(r"[ \t]*#(?:[ \t].*)?")
_FIXED_WIDTH = re.compile(r"[ \t]*:(?:[ \t].*)?")
_DRAWER = re.compile(r"[ \t]*:([\w-]+):[ \t]*")
_DRAWER_END = re.compile(r"[ \t]*:END:[ \t]*", re.IGNORECASE)
_PLANNING = re.compile(r"[ \t]*(?:SCHEDULED|DEADLINE|CLOSED):")
_RULE = re.compile(r"[ \t]*-{5,}[ \t]*")
_TABLE_LINE = re.compile(r"[ \t]*\|.*")
_TABLE_RULE = re.compile(r"[ \t]*\|-[-+]*\|?[ \t]*")
#: Keywords that say what the document is, and the metadata key each becomes.
_FIELDS = {"title": "title", "subtitle": "subtitle", "author": "author", "email": "email",
           "date": "date", "description": "description"}
#: Org joins the lines of these keywords into one value.
_JOINED = frozenset({"title", "subtitle", "description"})


def org_text(raw: str) -> str:
    """Org inline markup reduced to what it shows: links to their description (else their
    target), emphasis to its text."""
    t = _LINK.sub(lambda m: m.group(2) if m.group(2) else m.group(1), raw)
    for _ in range(3):  # nested marks: */bold italic/*
        t2 = _EMPHASIS.sub(r"\2", t)
        if t2 == t:
            break
        t = t2
    return " ".join(t.split())


def org_title(raw: str, keywords: frozenset[str] = frozenset(_KEYWORDS)) -> str:
    """A headline's text (after its stars) as the outline shows it; the text as written when
    nothing readable would be left (``* TODO``)."""
    t = _TAGS.sub("", " ".join(raw.split()))  # one space between words: no long runs to scan
    first, _, rest = t.partition(" ")
    if first in keywords:
        t = rest.lstrip()
    t = _COOKIE.sub("", _PRIORITY.sub("", t, count=1) if t.startswith("[#") else t)
    return org_text(t) or " ".join(raw.split())


def _todo_keywords(lines: list[str]) -> frozenset[str]:
    found = set(_KEYWORDS)
    for line in lines:
        m = _TODO_LINE.fullmatch(line) if "#+" in line else None
        if m is not None:
            found.update(w.split("(")[0] for w in m.group(1).split() if w != "|")
    return frozenset(found)


class _Ends:
    """Where blocks and drawers close, found in one pass so that a text of many unclosed
    ``#+BEGIN_QUOTE`` or ``:NOTE:`` lines is not scanned again from each."""

    def __init__(self, lines: list[str]):
        self.blocks: dict[str, list[int]] = {}
        self.drawers: list[int] = []
        self.headlines: list[int] = []
        for j, line in enumerate(lines):
            if line[:1] == "*" and _HEADLINE.fullmatch(line):
                self.headlines.append(j)
            elif "#+" in line and (m := _END.fullmatch(line)) is not None:
                self.blocks.setdefault(m.group(1).lower(), []).append(j)
            elif ":" in line and _DRAWER_END.fullmatch(line):
                self.drawers.append(j)

    def block(self, i: int, name: str) -> int | None:
        """The ``#+END_name`` line of the block that begins at line ``i``, or None."""
        ends = self.blocks.get(name, [])
        k = bisect_right(ends, i)
        return ends[k] if k < len(ends) else None

    def drawer(self, i: int) -> int | None:
        """The ``:END:`` line of a drawer opening at line ``i``; None when a headline or the end
        comes first (then the line is text, as Org reads it)."""
        k = bisect_right(self.drawers, i)
        if k == len(self.drawers):
            return None
        end = self.drawers[k]
        h = bisect_right(self.headlines, i)
        return end if h == len(self.headlines) or self.headlines[h] > end else None


def org_blocks(text: str) -> tuple[list[Block], dict[str, object]]:
    """The blocks of an Org text and its metadata (see the module docstring)."""
    spans = line_spans(text)
    lines = [text[s:e] for s, e in spans]
    keywords = _todo_keywords(lines)
    ends = _Ends(lines)
    marked: list[Block] = []
    skipped: list[tuple[int, int]] = []  # markup: keyword lines, fences, drawers, comments
    fields: dict[str, object] = {}
    inside: list[str] = []  # the blocks read as blocks that the line is in, innermost last

    def line_end(j: int) -> int:
        return spans[j][0] + len(lines[j].rstrip())

    def first_char(j: int) -> int:
        return spans[j][0] + len(lines[j]) - len(lines[j].lstrip())

    i = 0
    while i < len(lines):
        line = lines[i]
        head = _HEADLINE.fullmatch(line) if not inside and line[:1] == "*" else None
        if head is not None:
            name = org_title(head.group(2), keywords)
            level = min(len(head.group(1)), 6)
            marked.append(Block(spans[i][0], line_end(i), "heading", level, MappingProxyType({"title": name})))
            i += 1
            while i < len(lines) and _PLANNING.match(lines[i]):  # only right under a headline
                skipped.append(spans[i])
                i += 1
            continue
        stripped = line.lstrip()
        if stripped.startswith("#"):
            begin = _BEGIN.fullmatch(line)
            if begin is not None:
                kind = begin.group(1).lower()
                end = ends.block(i, kind)
                if kind in _CODE_BLOCKS:
                    stop = line_end(end) if end is not None else trim_end(text, spans[i][0], len(text))
                    argument = (begin.group(2) or "").split()
                    named = language_name(argument[0]) if kind in _NAMED_LANGUAGE and argument else ""
                    meta = {"language": named} if named else {}
                    marked.append(Block(first_char(i), stop, "code", meta=MappingProxyType(meta)))
                    i = len(lines) if end is None else end + 1
                elif kind == "comment":
                    skipped.append((spans[i][0], spans[end][1] if end is not None else len(text)))
                    i = len(lines) if end is None else end + 1
                else:  # quote, center, verse, a special block: its content is read as blocks
                    if end is not None:
                        inside.append(kind)
                    skipped.append(spans[i])
                    i += 1
                continue
            close = _END.fullmatch(line)
            if close is not None and close.group(1).lower() in inside:
                del inside[len(inside) - 1 - inside[::-1].index(close.group(1).lower()):]
            entry = _KEYWORD_LINE.fullmatch(line)
            if entry is not None:
                _keep(fields, entry.group(1).lower(), entry.group(2) or "")
            if entry is not None or _MARKUP_LINE.fullmatch(line) or _COMMENT_LINE.fullmatch(line):
                skipped.append(spans[i])
                i += 1
                continue
        elif stripped.startswith(":"):
            drawer = _DRAWER.fullmatch(line)
            end = ends.drawer(i) if drawer is not None and drawer.group(1).upper() != "END" else None
            if end is not None:
                skipped.append((spans[i][0], spans[end][1]))
                i = end + 1
                continue
            if _FIXED_WIDTH.fullmatch(line):
                last = i
                while last + 1 < len(lines) and _FIXED_WIDTH.fullmatch(lines[last + 1]):
                    last += 1
                marked.append(Block(first_char(i), line_end(last), "code"))
                i = last + 1
                continue
        elif stripped.startswith("|"):
            last = i
            while last + 1 < len(lines) and _TABLE_LINE.fullmatch(lines[last + 1]):
                last += 1
            after = last + 1
            # rules above the header and under the last row draw the frame: markup
            while i < last and _TABLE_RULE.fullmatch(lines[i]):
                skipped.append(spans[i])
                i += 1
            while last > i + 1 and _TABLE_RULE.fullmatch(lines[last]):  # the rule under the header stays
                skipped.append(spans[last])
                last -= 1
            start, stop = first_char(i), line_end(last)
            # A table block only when the table strategy reads it; else it is text, whole.
            kind = "table" if parse_pipe_table(text, start, stop) is not None else "text"
            marked.append(Block(start, stop, kind))
            i = after
            continue
        elif stripped.startswith("-") and _RULE.fullmatch(line):
            skipped.append(spans[i])
        i += 1
    pieces = sorted([(b.start, b.end, b) for b in marked] + [(s, e, None) for s, e in skipped],
                    key=lambda p: (p[0], p[1]))
    return with_paragraphs(text, pieces), fields


def _keep(fields: dict[str, object], key: str, value: str) -> None:
    """A keyword's value as metadata: the document's title, author …; ``#+FILETAGS:`` as tags."""
    value = value.strip()
    if not value:
        return
    if key == "filetags":  # ``:work:notes:`` (or words, as newer Org allows)
        tags = fields.get("tags")
        if not isinstance(tags, list):
            tags = fields["tags"] = []
        tags.extend(t for t in re.split(r"[:\s]+", value) if t and t not in tags)
        return
    name = _FIELDS.get(key)
    if name is None:
        return
    shown = org_text(value)
    if name in fields and name in _JOINED:
        fields[name] = f"{fields[name]} {shown}"
    else:
        fields.setdefault(name, shown)


def read_org(text: str, *, doc_id: str, source: str) -> Document:
    """The blocks, with the document's keywords as metadata (they stay in the text)."""
    blocks, fields = org_blocks(text)
    return Document(id=doc_id, source=source, text=text, format="org",
                    metadata=MappingProxyType(fields), blocks=tuple(blocks))
