"""Tables as exact cell spans: GFM pipe tables and delimited (CSV/TSV) text.

Shared by the readers (to find tables) and the ``table`` strategy (to cut them into rows,
columns and cells). A cell keeps two things: its source span (trimmed of padding, without
pipes, delimiters or enclosing quotes) and its value (backslash escapes and CSV quoting undone).
The first row of every table is its header: GFM requires one, and CSV files almost always
have one; a reader that renders a header-less table (HTML) puts its first row there.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from dataclasses import dataclass

from .spans import line_spans, trim


@dataclass(frozen=True, slots=True)
class Cell:
    start: int
    end: int
    #: The cell's content as data: backslash escapes undone (``\\|`` is ``|``), CSV quotes
    #: removed. CSV values are not trimmed (csv keeps their spaces).
    value: str


@dataclass(frozen=True, slots=True)
class Row:
    start: int
    end: int
    cells: tuple[Cell, ...]


@dataclass(frozen=True, slots=True)
class Table:
    start: int
    end: int
    header: Row
    rows: tuple[Row, ...]


# -- pipe tables ---------------------------------------------------------------------------

_DELIMITER_CELL = re.compile(r":?-+:?")
#: A rule drawn with ``+`` where columns meet, as Org mode and Emacs' table editors draw it:
#: ``|------+-----|`` under a header, and between groups of rows.
_JOINED_RULE = re.compile(r"-+(?:\+-+)*")
# CommonMark backslash escapes: a backslash before ASCII punctuation stands for that character.
_ESCAPE = re.compile(r"\\([!-/:-@\[-`{-~])")


def split_pipe_row(text: str, start: int, end: int) -> Row:
    """One pipe-table line as cells. A backslash escapes the next character (so ``\\|`` is
    content); one leading and one trailing pipe are dropped; a line without pipes is one cell."""
    s, e = trim(text, start, end)
    row_start, row_end = s, e
    if s < e and text[s] == "|":
        s += 1
    seps = []
    i = s
    while i < e:
        c = text[i]
        if c == "\\":
            i += 2
            continue
        if c == "|":
            seps.append(i)
        i += 1
    if seps and seps[-1] == e - 1:
        seps.pop()
        e -= 1
    bounds = [s, *(p for sep in seps for p in (sep, sep + 1)), e]
    cells = []
    for a, b in zip(bounds[::2], bounds[1::2]):
        cs, ce = trim(text, a, b)
        cells.append(Cell(cs, ce, _ESCAPE.sub(r"\1", text[cs:ce])))
    return Row(row_start, row_end, tuple(cells))


def _fenced(text: str, row: Row) -> bool:
    return row.end - row.start >= 2 and text[row.start] == "|" and text[row.end - 1] == "|"


def is_table_head(text: str, header: Row, delim: Row) -> bool:
    """A header line and the delimiter row under it. One column needs pipes on both sides of
    both lines: Python's ``help()`` output starts every line with `` |`` and draws
    ``|  -----`` rules under its section titles, which is not a table."""
    # The delimiter row (``| --- | :-: |``): every cell dashes with optional alignment colons;
    # or one rule joined by a ``+`` between each two columns, between pipes (``|---+---|``).
    if (len(delim.cells) == 1 < len(header.cells) and _fenced(text, delim)
            and _JOINED_RULE.fullmatch(delim.cells[0].value) and delim.cells[0].value.count("+") == len(header.cells) - 1):
        return True
    if len(delim.cells) != len(header.cells) or not all(_DELIMITER_CELL.fullmatch(c.value) for c in delim.cells):
        return False
    return len(header.cells) > 1 or (_fenced(text, header) and _fenced(text, delim))


def _is_rule(row: Row) -> bool:
    """A joined rule between groups of rows: no content, so no row."""
    return len(row.cells) == 1 and _JOINED_RULE.fullmatch(row.cells[0].value) is not None and "+" in row.cells[0].value


def parse_pipe_table(text: str, start: int, end: int) -> Table | None:
    """The pipe table filling ``text[start:end]`` (a reader's table block), or None when the
    range does not start with a header and a matching delimiter row. Every later non-blank
    line is a row, as in GFM."""
    lines = [(s, e) for s, e in line_spans(text, start, end) if trim(text, s, e)[0] < e]
    if len(lines) < 2:
        return None
    header = split_pipe_row(text, *lines[0])
    delim = split_pipe_row(text, *lines[1])
    if not is_table_head(text, header, delim):
        return None
    rows = tuple(row for row in (split_pipe_row(text, s, e) for s, e in lines[2:]) if not _is_rule(row))
    last = rows[-1] if rows else delim
    return Table(header.start, last.end, header, rows)


def find_pipe_tables(text: str, start: int = 0, end: int | None = None) -> list[Table]:
    """Pipe tables in plain text: a line with a pipe, then a delimiter row with the same number
    of cells; rows follow while lines are non-blank and hold a pipe."""
    end = len(text) if end is None else end
    lines = line_spans(text, start, end)
    tables = []
    i = 0
    while i + 1 < len(lines):
        (hs, he), (ds, de) = lines[i], lines[i + 1]
        if "|" not in text[hs:he] or "|" not in text[ds:de]:
            i += 1
            continue
        header = split_pipe_row(text, hs, he)
        delim = split_pipe_row(text, ds, de)
        if not is_table_head(text, header, delim):
            i += 1
            continue
        rows = []
        j = i + 2
        while j < len(lines):
            s, e = lines[j]
            if "|" not in text[s:e] or trim(text, s, e)[0] == e:
                break
            row = split_pipe_row(text, s, e)
            if not _is_rule(row):
                rows.append(row)
            j += 1
        last = rows[-1] if rows else delim
        tables.append(Table(header.start, last.end, header, tuple(rows)))
        i = j
    return tables


# -- delimited text (CSV/TSV) ---------------------------------------------------------------

def parse_delimited(text: str, start: int, end: int, delimiter: str = ",") -> Table | None:
    """The CSV/TSV records of ``text[start:end]`` with exact cell spans.

    The stdlib csv module (excel dialect, not strict) decides records and values; it does not
    report offsets, so :func:`delimited_records` finds each record's lines and
    :func:`scan_fields`, which follows the same state machine, the fields inside them. Should
    the two ever disagree on a record, that record becomes one cell spanning it (spans stay
    exact). Returns None for text with no records, or that the csv module refuses.
    """
    rows: list[Row] = []
    try:
        for rs, re_, values in delimited_records(text, start, end, delimiter):
            row = _record(text, rs, re_, delimiter, values)
            if any(c.start < c.end for c in row.cells):
                rows.append(row)
    except csv.Error:
        return None
    if not rows:
        return None
    return Table(rows[0].start, rows[-1].end, rows[0], tuple(rows[1:]))


def delimited_records(text: str, start: int, end: int,
                      delimiter: str) -> Iterator[tuple[int, int, list[str]]]:
    """Non-empty csv records of ``text[start:end]`` as ``(start, end, values)``; the span runs
    from the record's first line to its terminating newline (excluded). Raises csv.Error."""
    lines = line_spans(text, start, end)
    # csv wants each line with its newline, so quoted newlines are seen as content.
    feed = (text[s:e + 1] if e < end else text[s:e] for s, e in lines)
    reader = csv.reader(feed, delimiter=delimiter, quotechar='"', strict=False)
    first = 0
    for values in reader:
        last = reader.line_num
        rs, re_ = lines[first][0], lines[last - 1][1]
        first = last
        if not values:
            continue
        # Input that ends inside a quoted field: its final newline is content, not a record
        # terminator (csv keeps it in the value).
        if last == len(lines) and re_ < end and [v for *_, v in scan_fields(text, rs, re_, delimiter)] != values:
            re_ = end
        yield rs, re_, values


def _record(text: str, start: int, end: int, delimiter: str, values: list[str]) -> Row:
    fields = list(scan_fields(text, start, end, delimiter))
    rs, re_ = trim(text, start, end)
    if [v for *_, v in fields] != values:
        return Row(rs, re_, (Cell(rs, re_, delimiter.join(values)),))
    cells = []
    for s, e, v in fields:
        cs, ce = trim(text, s, e)
        if cs == ce:  # an empty cell sits inside its row, even at a blank edge of the line
            cs = ce = min(max(s, rs), re_)
        cells.append(Cell(cs, ce, v))
    return Row(rs, re_, tuple(cells))


def scan_fields(text: str, start: int, end: int, delimiter: str,
                quote: str = '"') -> Iterator[tuple[int, int, str]]:
    """Fields of one record as ``(start, end, value)``, mirroring csv's non-strict excel rules:
    a field that starts with a quote is quoted (``""`` inside is one quote) up to its closing
    quote; anything after that quote, up to the delimiter, is kept as content, quotes and all.

    The span of a quoted field is its content inside the quotes; when other text than spaces
    follows the closing quote, the span runs on to the end of the field.
    """
    find = text.find
    i = start
    while True:
        if i < end and text[i] == quote:
            s = i = i + 1
            parts: list[str] = []
            close = -1
            while True:
                q = find(quote, i, end)
                if q < 0:  # never closed: the field runs to the end of the record
                    parts.append(text[i:end])
                    i = end
                    break
                parts.append(text[i:q])
                if q + 1 < end and text[q + 1] == quote:
                    parts.append(quote)
                    i = q + 2
                    continue
                close, i = q, q + 1
                break
            e = i
            if close >= 0:
                d = find(delimiter, i, end)
                i = end if d < 0 else d
                tail = text[close + 1:i]
                parts.append(tail)
                # Spaces after the closing quote are kept in the value but are not content.
                e = close if not tail or tail.isspace() else i
            yield s, e, "".join(parts)
        else:
            s = i
            d = find(delimiter, i, end)
            i = end if d < 0 else d
            yield s, i, text[s:i]
        if i >= end:
            return
        i += 1  # past the delimiter
