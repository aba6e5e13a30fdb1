"""Excel workbooks made for the tests with openpyxl (the optional ``xlsx`` extra)."""

from __future__ import annotations

import io
from typing import Any


def make_xlsx(sheets: dict[str, list[list[Any]]], title: str | None = None) -> bytes:
    """A workbook of ``sheets`` (name → rows of cell values; None for an empty cell)."""
    from openpyxl import Workbook

    book = Workbook()
    book.remove(book.active)
    for name, rows in sheets.items():
        sheet = book.create_sheet(name)
        for r, row in enumerate(rows, start=1):
            for c, value in enumerate(row, start=1):
                if value is not None:
                    sheet.cell(row=r, column=c, value=value)
    if title:
        book.properties.title = title
    buf = io.BytesIO()
    book.save(buf)
    return buf.getvalue()
