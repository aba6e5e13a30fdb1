"""Document metadata as typed rows, so that filters are index look-ups rather than JSON scans.

A document's metadata is stored twice: as the JSON object it was given (``documents.meta``,
what is returned) and as one ``doc_meta`` row per value (what filters search). A value is
typed once, here, the same way for the rows written and for a filter's operands:

- ``n`` a number (int or float), ``b`` a boolean (0 or 1), both in ``num``;
- ``d`` a date or time: a string in ISO 8601 form (``2024-05-01``, ``2024-05-01T10:00:00Z``),
  compared as a moment (``num`` is seconds since 1970, UTC when no offset is given; ``txt``
  keeps the string);
- ``s`` any other string, in ``txt``; ``z`` a null.

A list gives one row per element (a filter matches a document when any element matches, as in
Qdrant and chromadb); a nested object gives rows under dotted keys (``{"a": {"b": 1}}`` is
``a.b = 1``).
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator, Mapping
from datetime import UTC, date, datetime
from types import MappingProxyType
from typing import Any

#: ``(type, num, txt)`` of one value.
Typed = tuple[str, "float | None", "str | None"]

_ISO = re.compile(r"\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2})?)?")

DDL = """
CREATE TABLE IF NOT EXISTS doc_meta (
    doc  INTEGER NOT NULL,   -- documents.key
    key  TEXT NOT NULL,      -- metadata key (dotted for nested objects)
    type TEXT NOT NULL,      -- n number, b boolean, d date, s string, z null
    num  REAL,               -- n, b, d: the value as a number
    txt  TEXT                -- s: the string; d: the string as given
);
CREATE INDEX IF NOT EXISTS doc_meta_num ON doc_meta(key, type, num);
CREATE INDEX IF NOT EXISTS doc_meta_txt ON doc_meta(key, txt);
CREATE INDEX IF NOT EXISTS doc_meta_doc ON doc_meta(doc);
"""


#: The metadata of most documents (stored as ``{}``), shared rather than parsed each time.
_EMPTY: Mapping[str, object] = MappingProxyType({})


def from_json(text: str) -> Mapping[str, object]:
    """A document's metadata from the JSON object stored for it."""
    return _EMPTY if text == "{}" else MappingProxyType(json.loads(text))


def to_json(metadata: Mapping[str, object]) -> str | None:
    """The JSON object stored for a document's metadata, or None when it is empty."""
    return json.dumps(dict(metadata), ensure_ascii=False, default=str) if metadata else None


def as_date(text: str) -> float | None:
    """Seconds since 1970 (UTC) of an ISO 8601 date or time string; None for any other string."""
    if not _ISO.fullmatch(text):
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.timestamp()


def typed(value: Any) -> Typed:
    """The stored form of one scalar value (see the module's docstring)."""
    if value is None:
        return ("z", None, None)
    if isinstance(value, bool):
        return ("b", float(value), None)
    if isinstance(value, (int, float)):
        if isinstance(value, float) and not math.isfinite(value):
            return ("s", None, str(value))
        return ("n", float(value), None)
    if isinstance(value, datetime):
        value = value.isoformat()
    elif isinstance(value, date):
        value = value.isoformat()
    text = value if isinstance(value, str) else str(value)
    moment = as_date(text)
    if moment is not None:
        return ("d", moment, text)
    return ("s", None, text)


def rows(metadata: Mapping[str, Any]) -> Iterator[tuple[str, str, float | None, str | None]]:
    """``(key, type, num, txt)`` for every value of a document's metadata."""
    for key, value in metadata.items():
        yield from _rows(str(key), value)


def write_rows(cursor: Any, doc: int, metadata: Mapping[str, Any], mark: str = "?") -> None:
    """Replace the ``doc_meta`` rows of the document keyed ``doc`` (inside the caller's
    transaction), through a DB-API cursor whose placeholder is ``mark`` (``?`` or ``%s``)."""
    cursor.execute(f"DELETE FROM doc_meta WHERE doc = {mark}", (doc,))
    values = [(doc, *r) for r in rows(metadata)]
    if values:
        cursor.executemany(f"INSERT INTO doc_meta(doc, key, type, num, txt) VALUES ({', '.join([mark] * 5)})", values)


def _rows(key: str, value: Any) -> Iterator[tuple[str, str, float | None, str | None]]:
    if isinstance(value, Mapping):
        for k, v in value.items():
            yield from _rows(f"{key}.{k}", v)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for v in value:
            if isinstance(v, Mapping):
                yield from _rows(key, v)
            elif not isinstance(v, (list, tuple, set, frozenset)):
                yield (key, *typed(v))
    else:
        yield (key, *typed(value))
