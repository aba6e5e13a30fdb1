"""``table``: every table cut into table, rows, columns and cells; other text kept as chunks.

Tables come from the reader's ``table`` blocks; a document without blocks is scanned for pipe
tables, or read as one delimited table when its format is csv or tsv. The tree of one table::

    table            header line to last row
      header         the header line
        column       span: its header cell; embed_text: header name + the column's values
      row            a pipe-table line or a CSV record (a quoted field may span lines)
        cell         the cell's text without pipes, padding, delimiters or quotes

A column's cells are spread over every row and a cell cannot have two parents, so a column
cannot contain its cells: its node spans its one contiguous piece of source, the header cell.
Every tree rule holds, and a column hit grows into the header and then the whole table. Rows,
cells and columns repeat the header in ``embed_text`` (docs/strategies.md, ``table``); empty
cells get no node; text outside tables becomes ``chunk`` leaves.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import ConfigError
from ...load.rst_tables import parse_rst_table
from ...load.spans import paragraph_spans, trim
from ...load.tables import Table, find_pipe_tables, parse_delimited, parse_pipe_table
from ...model import Document
from ..base import Chunker, Span
from ..params import check_int


@dataclass(frozen=True)
class TableChunker(Chunker):
    """Tables to table → header/row → column/cell nodes with header-propagated embed_text."""

    name = "table"

    #: Emit a column node per named header cell (under the header line).
    columns: bool = True
    #: Emit a cell node per non-empty cell; when False, rows are the leaves.
    cells: bool = True
    #: At most this many values are listed in a column's embed_text.
    max_values: int = 50

    def __post_init__(self) -> None:
        for key in ("columns", "cells"):
            value = getattr(self, key)
            if not isinstance(value, bool):
                raise ConfigError(f"table: {key} must be true or false, got {value!r}")
        check_int("table", "max_values", self.max_values, 1, 100_000)

    def split(self, document: Document) -> list[Span]:
        text = document.text
        spans: list[Span] = []
        pos = 0
        for start, end, table in _regions(document):
            start = max(start, pos)
            if start >= end:
                continue
            spans.extend(Span("chunk", s, e) for s, e in paragraph_spans(text, pos, start))
            if table is None:
                s, e = trim(text, start, end)
                if s < e:
                    spans.append(Span("chunk", s, e))
            else:
                spans.append(self.table_span(table))
            pos = end
        spans.extend(Span("chunk", s, e) for s, e in paragraph_spans(text, pos, len(text)))
        return spans

    def table_span(self, table: Table) -> Span:
        """The subtree of one parsed table."""
        names = [_flat(c.value) for c in table.header.cells]
        width = max([len(names), *(len(r.cells) for r in table.rows)])
        names = [(names[j] if j < len(names) else "") or f"column {j + 1}" for j in range(width)]
        named = [(j, c) for j, c in enumerate(table.header.cells) if c.start < c.end]
        # Values per named column (the first max_values of them) and how many there are.
        listed: dict[int, list[str]] = {j: [] for j, _ in named} if self.columns else {}
        counts = dict.fromkeys(listed, 0)
        rows: list[Span] = []
        for row in table.rows:
            filled = [(j, c, _flat(c.value)) for j, c in enumerate(row.cells) if c.start < c.end]
            if not filled:
                continue
            label = filled[0][2] if filled[0][0] == 0 else ""
            cells = []
            for j, c, value in filled:
                if j in counts:
                    counts[j] += 1
                    if counts[j] <= self.max_values:
                        listed[j].append(value)
                if self.cells:
                    about = f" (row {label})" if j > 0 and label else ""
                    cells.append(Span("cell", c.start, c.end, embed_text=f"{names[j]}: {value}{about}"))
            rows.append(Span("row", row.start, row.end, cells,
                             embed_text=" | ".join(f"{names[j]}: {value}" for j, _, value in filled)))
        if not named:
            return Span("table", table.start, table.end, rows)
        columns = [Span("column", c.start, c.end, embed_text=_listing(names[j], listed[j], counts[j]))
                   for j, c in named if j in listed]
        header = Span("header", table.header.start, table.header.end, columns,
                      embed_text=" | ".join(names[j] for j, _ in named))
        return Span("table", table.start, table.end, [header, *rows])


def _regions(document: Document) -> list[tuple[int, int, Table | None]]:
    """Reader blocks in order, each with its parsed table (None for text and unparsable tables);
    without blocks, the tables found in the text."""
    text = document.text
    if document.blocks:
        out = []
        for b in document.blocks:
            table = None
            if b.type == "table":
                delimiter = b.meta.get("delimiter")
                if delimiter:
                    table = parse_delimited(text, b.start, b.end, delimiter)
                elif b.meta.get("syntax") == "rst":
                    table = parse_rst_table(text, b.start, b.end)
                else:
                    table = parse_pipe_table(text, b.start, b.end)
            out.append((b.start, b.end, table))
        return out
    if document.format in ("csv", "tsv"):
        delimiter = "\t" if document.format == "tsv" else document.metadata.get("delimiter", ",")
        table = parse_delimited(text, 0, len(text), delimiter)
        return [] if table is None else [(table.start, table.end, table)]
    return [(t.start, t.end, t) for t in find_pipe_tables(text)]


def _flat(value: str) -> str:
    """A value on one line with single spaces (CSV fields may hold newlines)."""
    return " ".join(value.split())


def _listing(name: str, values: list[str], count: int) -> str:
    if not values:
        return name
    more = f"; … (+{count - len(values)} more)" if count > len(values) else ""
    return f"{name}: {'; '.join(values)}{more}"
