"""A file of records — JSON Lines, a JSON array, CSV or TSV — read as one document per record.

Data an application exports comes as records: tickets, products, FAQ entries, the pages a
crawler saved (``{"url": …, "markdown": …}``). Read as one document, a file of them answers with
one record's text among its neighbours' and cannot be filtered by a record's fields.
:func:`read_records` makes each record a document:

- its text is the ``text`` field's (a list of strings: its items as paragraphs), read as
  Markdown, or as the format a ``format`` field names (``html``, ``text``, …);
- its id is ``FILE#ID``: the file's id (its name, or its path under the folder given) and the
  record's ``id`` field, else its number from 1 (a line's, in JSON Lines);
- its title is its ``title`` field;
- a field may be named by its dotted path (``metadata.title``, as crawlers nest it);
- every other field is its metadata: JSON's values as they are (numbers, booleans, lists,
  objects under dotted keys), a CSV cell's as a number when it is one (ISO dates compare as
  dates either way).

A record without text in the field is listed as skipped, with why; a malformed line, or two
records with one id, is an error naming the line. ``zoomrag index tickets.jsonl --records body``.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass
from pathlib import Path, PurePath
from typing import Any

from ..errors import ConfigError, InputError
from ..model import Document
from . import compressed
from .base import FORMATS, file_text, read_text
from .readers.properties import as_number

__all__ = ["RECORD_SUFFIXES", "Records", "read_records"]

#: The files read as records, by extension (inside a compressed file: ``x.jsonl.gz``).
RECORD_SUFFIXES = (".jsonl", ".ndjson", ".json", ".csv", ".tsv")
#: The format a record's text is read as when it names none.
DEFAULT_FORMAT = "markdown"


@dataclass(frozen=True)
class Records:
    """The documents a file of records made, and ``(source, reason)`` of each record left out."""

    documents: tuple[Document, ...]
    skipped: tuple[tuple[str, str], ...] = ()


def _suffix(path: PurePath) -> str:
    return (compressed.inner_name(path) or path).suffix.lower()


def _json_records(text: str, source: str) -> list[tuple[str, Any]]:
    """``(where, record)`` of a JSON array of records, or of the one list an object holds
    (``{"data": [...]}``)."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise InputError(f"{source}: not JSON ({e.msg} at line {e.lineno}, column {e.colno}); fix the file") from None
    if isinstance(data, dict):
        lists = [v for v in data.values() if isinstance(v, list)]
        data = lists[0] if len(lists) == 1 else data
    if not isinstance(data, list):
        raise InputError(f"{source}: holds no list of records (an array of objects, or an object with one "
                         "such array); give a file of records, or index it without --records")
    return [(f"record {i}", r) for i, r in enumerate(data, start=1)]


def _jsonl_records(text: str, source: str) -> list[tuple[str, Any]]:
    out = []
    for n, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            out.append((f"line {n}", json.loads(line)))
        except json.JSONDecodeError as e:
            raise InputError(f"{source}:{n}: not JSON ({e.msg} at column {e.colno}); fix the line, "
                             "or leave it out") from None
    return out


def _csv_records(text: str, delimiter: str) -> list[tuple[str, Any]]:
    rows = csv.DictReader(io.StringIO(text), delimiter=delimiter)
    out = []
    for row in rows:
        record = {k: _cell(v) for k, v in row.items() if k is not None and v not in (None, "")}
        out.append((f"line {rows.line_num}", record))
    return out


def _cell(value: Any) -> Any:
    number = as_number(value) if isinstance(value, str) else None
    return value if number is None else number


def _field(record: dict[str, Any], name: str) -> Any:
    """``record[name]``, or a nested field by its dotted path (``metadata.title``)."""
    if name in record or "." not in name:
        return record.get(name)
    value: Any = record
    for part in name.split("."):
        value = value.get(part) if isinstance(value, dict) else None
    return value


def _without(record: dict[str, Any], name: str) -> dict[str, Any]:
    """``record`` without the field at ``name`` (a dotted path: the objects on it copied)."""
    if name in record or "." not in name:
        return {k: v for k, v in record.items() if k != name}
    head, _, rest = name.partition(".")
    inner = record.get(head)
    if not isinstance(inner, dict):
        return dict(record)
    return {**record, head: _without(inner, rest)}


def _text_of(value: Any) -> str | None:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return "\n\n".join(value)
    return None


def read_records(path: str | Path, *, text: str, id: str | None = "id", title: str | None = "title",
                 file_id: str | None = None, max_bytes: int | None = None) -> Records:
    """The records of the file at ``path`` as documents (the module's docstring). ``text``,
    ``id`` and ``title`` name the fields that hold a record's text, id and title (``id=None``:
    records are numbered); ``file_id`` is what the documents' ids start with (the file's name
    by default); ``max_bytes`` limits the file's size (None: no limit)."""
    p = Path(path)
    source = str(p)
    kind = _suffix(p)
    if kind not in RECORD_SUFFIXES:
        raise ConfigError(f"{source}: records are read from {', '.join(RECORD_SUFFIXES)} files; "
                          f"index {p.name} without --records")
    body = file_text(p, max_bytes=max_bytes)
    if kind in (".jsonl", ".ndjson"):
        found = _jsonl_records(body, source)
    elif kind == ".json":
        found = _json_records(body, source)
    else:
        found = _csv_records(body, "\t" if kind == ".tsv" else ",")
    if not found:
        return Records((), ((source, f"{source}: holds no records; nothing was read from it"),))
    base = file_id if file_id is not None else p.name
    docs: list[Document] = []
    skipped: list[tuple[str, str]] = []
    first: dict[str, str] = {}
    for number, (where, record) in enumerate(found, start=1):
        if not isinstance(record, dict):
            skipped.append((source, f"{source}: {where} is not an object of fields; it was left out"))
            continue
        body_text = _text_of(_field(record, text))
        if body_text is None or not body_text.strip():
            fields = ", ".join(list(record)[:8])
            skipped.append((source, f"{source}: {where} has no text in {text!r} (its fields: {fields}); "
                                    "it was left out"))
            continue
        rid = _field(record, id) if id is not None else None
        key = str(rid) if isinstance(rid, (str, int)) and not isinstance(rid, bool) and str(rid) else str(number)
        if key in first:
            raise InputError(f"{source}: {where} has the id {key!r} of {first[key]}; give each record its own "
                             f"id, or number them (--record-id '')")
        first[key] = where
        named_format = record.get("format")
        read_as = isinstance(named_format, str) and named_format in FORMATS and FORMATS.get(named_format).read
        fmt = str(named_format) if read_as else DEFAULT_FORMAT  # "format": "paperback" is a field like any other
        skip = {*(["format"] if read_as else []), *([id] if id else [])}
        meta = {k: v for k, v in _without(record, text).items() if k not in skip and v is not None}
        named = _field(record, title) if title is not None else None
        if title is not None:
            meta.pop(title, None)
        if named is not None:
            meta["title"] = " ".join(str(named).split())
        docs.append(read_text(body_text, format=fmt, id=f"{base}#{key}", source=source, metadata=meta))
    return Records(tuple(docs), tuple(skipped))
