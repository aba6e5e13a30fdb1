"""Excel workbooks (``.xlsx``, ``.xlsm``) through openpyxl (the optional ``xlsx`` extra, imported
only when one is read). Each sheet is written as the HTML it means and read as any page is
(:mod:`.html`): its name as a heading, then its tables, a table's first row as its header, so
each row reaches the table strategy with the names of its columns. A blank row ends a table (a
sheet often holds several); single cells above a table (a report's title row) are paragraphs.
Cells show the values Excel last computed, not formulas; empty rows, empty sheets and columns
empty in every row of a table (spacers) are left out. The title is the workbook's own (its core properties), if any.
"""

from __future__ import annotations

import datetime as dt
from html import escape
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ...errors import InputError
from ...model import Document
from ..base import reader_module
from .html import render_pages
from .zipped import office_file

#: Cells read from one workbook, counting the empty ones a row holds before its last filled one:
#: a sheet with one cell at XFD1048576 would otherwise be read cell by cell for hours.
MAX_CELLS = 20_000_000


class CellBudget:
    """Cells left to read from one file; spent row by row."""

    def __init__(self, source: str) -> None:
        self.source = source
        self.left = MAX_CELLS

    def spend(self, cells: int) -> None:
        self.left -= cells
        if self.left < 0:
            raise InputError(f"{self.source}: this file holds over {MAX_CELLS:,} cells (counting the empty ones "
                             "between filled ones); save the sheets you need as CSV and index those")


def cell_text(value: Any) -> str:
    """A cell (or a chart's value) as Excel shows it, roughly: whole numbers without ``.0``, dates
    without midnight."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    if isinstance(value, dt.datetime) and value.time() == dt.time():
        return value.date().isoformat()
    if isinstance(value, (dt.date, dt.time)):
        return value.isoformat()
    return " ".join(str(value).split())


def _runs(rows: list[list[str]]) -> list[list[list[str]]]:
    """The sheet's rows in runs apart by blank rows."""
    runs: list[list[list[str]]] = [[]]
    for row in rows:
        if any(row):
            runs[-1].append(row)
        elif runs[-1]:
            runs.append([])
    return [r for r in runs if r]


def sheet_html(name: str, rows: list[list[str]]) -> str:
    """A sheet's rows as HTML: its name as a heading over its tables (shared with OpenDocument)."""
    parts = [f"<h1>{escape(name)}</h1>"]
    for run in _runs(rows):
        # this table's columns: a column empty in all its rows is a spacer, not a column
        filled = sorted({i for row in run for i, v in enumerate(row) if v})
        run = [[row[i] if i < len(row) else "" for i in filled] for row in run]
        lead = 0
        while lead < len(run) - 1 and sum(1 for v in run[lead] if v) == 1:
            parts.append(f"<p>{escape(next(v for v in run[lead] if v))}</p>")  # a title row
            lead += 1
        table = run[lead:]
        if len(table) == 1 and sum(1 for v in table[0] if v) == 1:
            parts.append(f"<p>{escape(next(v for v in table[0] if v))}</p>")
            continue
        cells = [f"<tr>{''.join(f'<th>{escape(v)}</th>' for v in table[0])}</tr>"]
        cells += [f"<tr>{''.join(f'<td>{escape(v)}</td>' for v in row)}</tr>" for row in table[1:]]
        parts.append(f"<table>{''.join(cells)}</table>")
    return f"<html><body>{''.join(parts)}</body></html>"


def _sheet_rows(ws: Any, budget: CellBudget) -> list[list[str]]:
    """A sheet's rows as cell texts, each as long as its last filled cell; the sheet's recorded
    size is not used, as a stray format at the sheet's last cell stretches it to millions of rows."""
    ws.reset_dimensions()
    rows = []
    for row in ws.iter_rows(values_only=True):
        budget.spend(max(len(row), 1))
        rows.append([cell_text(v) for v in row])
    return rows


def read_xlsx(path: Path, doc_id: str) -> Document:
    source = str(path)
    openpyxl = reader_module("openpyxl", source, "Excel workbooks", "xlsx")
    with office_file(path, "Excel workbook", "xlsx"):
        book = openpyxl.load_workbook(str(path), read_only=True, data_only=True)
        budget = CellBudget(source)
        try:
            sheets = [(ws.title, _sheet_rows(ws, budget)) for ws in book.worksheets]
            title = " ".join((book.properties.title or "").split())
        finally:
            book.close()
    # an empty sheet says nothing
    pages = (sheet_html(name, rows) for name, rows in sheets if any(any(row) for row in rows))
    text, blocks, _ = render_pages(pages, "\n\n")
    return Document(id=doc_id, source=source, text=text, format="xlsx",
                    metadata=MappingProxyType({"title": title or None}), blocks=tuple(blocks))
