"""A table's cells laid on the columns that hold its data.

Financial statements set as HTML (a filing's, a Word document's) draw each figure in three
cells: the currency sign, the number and the closing parenthesis of a negative one, with empty
spacer columns between the years and headers spanning all of them. Read cell by cell that is
``| Net sales | $ | 1,234 | | $ | 1,102 |`` under a header one column off. Here a cell holding only
a currency sign joins the next cell with text, one holding only ``)`` or ``%`` the one before; a
column left with no text is dropped; a header spanning several columns sits over the first of
them that holds data (``2023`` over ``$1,234``); a row with no text is dropped. A statement's
header is often two or three rows with an empty first cell (``Year Ended December 31,`` spanning
the years, then ``2023``, ``2022``): such rows are read as one header row, a spanning cell's text
over each column it spans (``Year Ended December 31, 2023``), so a row returned under its header
says which figure is which.
"""

from __future__ import annotations

from collections.abc import Sequence

__all__ = ["table_rows"]

_CURRENCY = frozenset({"$", "US$", "€", "£", "¥", "₹", "CHF", "C$", "A$", "HK$", "R$", "kr"})
_CLOSERS = frozenset({")", "%", ")%", "%)"})
#: Rows at most that may head a table together.
_MAX_HEAD_ROWS = 3


def _join_signs(cells: list[list[str]]) -> None:
    """Join sign cells to the figures they belong to (in place; ``cells`` as ``[text]`` lists)."""
    texts = [c[0] for c in cells]
    for i, text in enumerate(texts):
        if text in _CURRENCY:
            j = next((k for k in range(i + 1, len(cells)) if cells[k][0]), None)
            if j is not None and cells[j][0] not in _CURRENCY and cells[j][0][:1] in "0123456789(-–.":
                cells[j][0] = text + cells[j][0]
                cells[i][0] = ""
        elif text in _CLOSERS:
            j = next((k for k in range(i - 1, -1, -1) if cells[k][0]), None)
            if j is None:
                continue
            figure = cells[j][0]
            opened = "(" in figure and ")" not in figure
            if figure[-1:].isdigit() and (opened or "(" not in text and ")" not in text) or (
                    text == ")" and opened and figure[-1:] == "%"):
                cells[j][0] += text
                cells[i][0] = ""


def table_rows(rows: Sequence[Sequence[tuple[str, int]]]) -> list[list[str]]:
    """The rows of a table, given as ``(text, columns spanned)`` cells, as rows of equal width
    over the columns that hold data."""
    laid: list[list[tuple[int, int, list[str]]]] = []  # per row: first column, span, [text]
    for row in rows:
        col, cells = 0, []
        for text, span in row:
            cells.append((col, max(span, 1), [text]))
            col += max(span, 1)
        _join_signs([c[2] for c in cells])
        if any(c[2][0] for c in cells):
            laid.append(cells)
    data = {col for cells in laid for col, span, (text,) in cells if span == 1 and text}
    # a spanning cell over no column with data of its own holds a column of its own
    data |= {col for cells in laid for col, span, (text,) in cells
             if span > 1 and text and not any(k in data for k in range(col, col + span))}
    columns = sorted(data)
    where = {col: i for i, col in enumerate(columns)}
    out: list[list[str]] = []
    heads = _header_rows(laid, columns[0]) if columns else 0
    if heads > 1:
        out.append([" ".join(dict.fromkeys(t for cells in laid[:heads] if (t := _covering(cells, col))))
                    for col in columns])
        laid = laid[heads:]
    for cells in laid:
        line = [""] * len(columns)
        for col, span, (text,) in cells:
            if text:
                line[where[next(k for k in range(col, col + span) if k in where)]] = text
        out.append(line)
    return out


def _covering(cells: list[tuple[int, int, list[str]]], col: int) -> str:
    """The text of the cell of a row that spans column ``col``."""
    return next((text for start, span, (text,) in cells if start <= col < start + span), "")


def _header_rows(laid: list[list[tuple[int, int, list[str]]]], first_column: int) -> int:
    """How many rows head the table: a statement's leading rows with nothing, or a unit such as
    ``(in millions)``, in their first column, over rows that have a label there."""
    n = 0
    while n < min(len(laid) - 1, _MAX_HEAD_ROWS):
        first = _covering(laid[n], first_column)
        if first and not (first.startswith("(") and first.endswith(")")):
            break
        n += 1
    return n if n < len(laid) else 0
