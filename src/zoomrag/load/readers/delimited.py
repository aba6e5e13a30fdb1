"""CSV and TSV: the text verbatim; the whole table is one ``table`` block.

The block's meta carries the delimiter (how the table strategy tells CSV from a pipe table)
and the record and column counts. The stdlib csv module checks the file here, so a file it
cannot read fails at load time with its name and line, not later inside a strategy.
"""

from __future__ import annotations

import csv
from collections import Counter
from types import MappingProxyType

from ...errors import InputError
from ...model import Block, Document
from ..spans import line_spans, trim

# A .csv file from a European spreadsheet often uses ';' (',' is its decimal mark).
_CSV_CANDIDATES = (",", ";", "\t", "|")


def guess_delimiter(text: str) -> str:
    """The candidate most frequent in the first non-blank line outside quotes (',' on a tie)."""
    for s, e in line_spans(text):
        if trim(text, s, e)[0] < e:
            counts = Counter(c for c in _unquoted(text[s:e]) if c in _CSV_CANDIDATES)
            best = max(_CSV_CANDIDATES, key=lambda c: counts[c])
            return best if counts[best] > counts[","] else ","
    return ","


def _unquoted(line: str):
    inside = False
    for c in line:
        if c == '"':
            inside = not inside
        elif not inside:
            yield c


def read_delimited(text: str, *, doc_id: str, source: str, delimiter: str, fmt: str) -> Document:
    records = 0
    columns = 0
    lines = (line + "\n" for line in text.split("\n"))
    try:
        reader = csv.reader(lines, delimiter=delimiter, quotechar='"', strict=False)
        for values in reader:
            if values:
                records += 1
                columns = max(columns, len(values))
    except csv.Error as err:
        raise InputError(f"{source}: not a readable {fmt.upper()} file at line {reader.line_num} ({err}); "
                         "check its quoting, or rename it to .txt to read it as plain text") from None
    s, e = trim(text, 0, len(text))
    meta = MappingProxyType({"delimiter": delimiter, "records": records, "columns": columns})
    # From the start of the first line: leading spaces belong to the first field.
    blocks = (Block(text.rfind("\n", 0, s) + 1, e, "table", meta=meta),) if s < e else ()
    return Document(id=doc_id, source=source, text=text, format=fmt,
                    metadata=MappingProxyType({"delimiter": delimiter}), blocks=blocks)


def read_csv(text: str, *, doc_id: str, source: str) -> Document:
    return read_delimited(text, doc_id=doc_id, source=source, delimiter=guess_delimiter(text), fmt="csv")


def read_tsv(text: str, *, doc_id: str, source: str) -> Document:
    return read_delimited(text, doc_id=doc_id, source=source, delimiter="\t", fmt="tsv")


