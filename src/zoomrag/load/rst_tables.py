"""reStructuredText's tables as exact cell spans: simple tables (columns of ``=`` over and under
the header) and grid tables (``+---+`` borders, ``|`` between cells).

A simple table's columns are where its first border's runs of ``=`` are, the last one running
to the end of the line; a line whose first column is blank goes on the row above it. A grid
table's rows are the lines between two borders, its columns where the first border has ``+``.
The rows over the header's border (``===`` in a simple table, ``+===+`` in a grid) are the
header; a table without one takes its first row as its header, as every :class:`Table` has one.
A cell's span is its text on the row's first line that has any; its value is all of its text.
"""

from __future__ import annotations

import re

from .spans import indent_width, line_spans, trim
from .tables import Cell, Row, Table

SIMPLE_BORDER = re.compile(r"[ \t]*=+(?:[ \t]+=+)+[ \t]*")
GRID_BORDER = re.compile(r"[ \t]*\+(?:[-=]+\+)+[ \t]*")
#: Dashes under the cells a spanning one spans (``-----  -----``, between a simple table's rows).
_SPAN_RULE = re.compile(r"[ \t]*-+(?:[ \t]+-+)*[ \t]*")


def parse_rst_table(text: str, start: int, end: int) -> Table | None:
    """The simple or grid table filling ``text[start:end]``, or None when it is neither."""
    lines = [(s, e) for s, e in line_spans(text, start, end) if trim(text, s, e)[0] < e]
    if len(lines) < 2:
        return None
    first = text[lines[0][0]:lines[0][1]]
    border = GRID_BORDER if GRID_BORDER.fullmatch(first) else SIMPLE_BORDER if SIMPLE_BORDER.fullmatch(first) else None
    if border is None:
        return None
    # Columns count from the table's left edge, which each line has at its border's indent: a
    # block handed over on its own starts at its first border, the lines under it keep theirs.
    indent = min((indent_width(text[s:e]) for s, e in lines[1:] if border.fullmatch(text[s:e])),
                 default=indent_width(first))
    edged = [(lines[0][0] + indent_width(first), lines[0][1])] + [(min(s + indent, e), e) for s, e in lines[1:]]
    return _grid(text, edged) if border is GRID_BORDER else _simple(text, edged)


def _simple(text: str, lines: list[tuple[int, int]]) -> Table | None:
    s0, e0 = lines[0]
    columns = [(m.start(), m.end()) for m in re.finditer(r"=+", text[s0:e0])]
    groups: list[list[tuple[int, int]]] = []  # the lines of each row
    header_rows = 0
    for s, e in lines[1:]:
        line = text[s:e]
        if SIMPLE_BORDER.fullmatch(line):
            if not header_rows and groups:
                header_rows = len(groups)
            continue
        if _SPAN_RULE.fullmatch(line):
            continue
        lead = line[:columns[1][0]] if len(columns) > 1 else line
        if groups and not lead.strip():
            groups[-1].append((s, e))  # the first column blank: the row above goes on
        else:
            groups.append([(s, e)])
    rows = [_row(text, group, _cut(columns)) for group in groups]
    return _table(rows, header_rows or 1)


def _grid(text: str, lines: list[tuple[int, int]]) -> Table | None:
    s0, e0 = lines[0]
    plus = [i for i, c in enumerate(text[s0:e0]) if c == "+"]
    spans = [(a + 1, b) for a, b in zip(plus, plus[1:])]
    groups: list[list[tuple[int, int]]] = []
    header_rows = 0
    open_row = False
    for s, e in lines[1:]:
        line = text[s:e]
        if GRID_BORDER.fullmatch(line):
            if "=" in line and not header_rows:
                header_rows = len(groups)
            open_row = False
            continue
        if not open_row:
            groups.append([])
            open_row = True
        groups[-1].append((s, e))
    rows = [_row(text, group, spans) for group in groups if group]
    return _table(rows, header_rows or 1)


def _cut(columns: list[tuple[int, int]]) -> list[tuple[int, int | None]]:
    """A simple table's columns as the ranges of a line they take: each to the next one's start,
    the last to the end of the line."""
    return [(a, columns[k + 1][0] if k + 1 < len(columns) else None) for k, (a, _) in enumerate(columns)]


def _row(text: str, group: list[tuple[int, int]], columns: list[tuple[int, int]] | list[tuple[int, int | None]]
         ) -> Row:
    cells = []
    for a, b in columns:
        span: tuple[int, int] | None = None
        words: list[str] = []
        for s, e in group:
            lo = min(s + a, e)
            hi = e if b is None else min(s + b, e)
            cs, ce = trim(text, lo, hi)
            if cs < ce:
                span = span or (cs, ce)
                words.append(text[cs:ce])
        if span is not None:
            cells.append(Cell(span[0], span[1], " ".join(words)))
        else:
            cells.append(Cell(group[0][0], group[0][0], ""))
    return Row(group[0][0], group[-1][1], tuple(cells))


def _table(rows: list[Row], header_rows: int) -> Table | None:
    if not rows:
        return None
    head = rows[:header_rows]
    # a header of several lines: each column named by all of them, its span on the first
    header = head[0] if len(head) == 1 else Row(head[0].start, head[-1].end, tuple(
        Cell(cell.start, cell.end, " ".join(r.cells[k].value for r in head if k < len(r.cells) and r.cells[k].value))
        for k, cell in enumerate(head[0].cells)))
    body = tuple(rows[header_rows:])
    return Table(header.start, body[-1].end if body else header.end, header, body)
