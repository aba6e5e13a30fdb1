"""The filter language: which documents a query may return, by metadata and by document.

A filter is the dict shape chromadb and Qdrant users know::

    {"year": {"$gte": 2020}, "lang": "en"}                  # AND of the keys
    {"$or": [{"lang": "en"}, {"lang": {"$in": ["de", "fr"]}}]}
    {"published": {"$gte": "2024-01-01", "$lt": "2024-07-01"}}  # ISO dates compare as dates
    {"$doc": "docs/*.md"}                                   # by document: id or source, exact or glob

Operators: ``$eq`` (also a bare value), ``$ne``, ``$in`` (also a bare list), ``$nin``, ``$gt``,
``$gte``, ``$lt``, ``$lte``, ``$exists``; ``$and`` and ``$or`` take lists of filters. Values are
typed as :mod:`zoomrag.store.docmeta` stores them: a number matches numbers, a string strings,
an ISO date string dates; a document whose metadata holds a list matches when any element does.
``$ne`` and ``$nin`` also match documents that lack the key; a range matches only values of the
operand's type. A key no document has matches nothing (``--explain`` says so).

:func:`parse` turns the dict (or the CLI's short form, :func:`parse_condition`) into a tree of
frozen dataclasses, checking it with one-line errors that name the part that is wrong;
:func:`to_sql` compiles the tree into a condition over the store's ``documents d``, whose
documents' rows the rankers then search (never a top-k filtered afterwards).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..errors import ConfigError
from ..store.docmeta import typed

Scalar = str | int | float | bool

#: Comparison operators and what they mean.
OPERATORS = ("$eq", "$ne", "$in", "$nin", "$gt", "$gte", "$lt", "$lte", "$exists")
_RANGE_SQL = {"$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<="}
_GLOB = re.compile(r"[*?\[]")


@dataclass(frozen=True, slots=True)
class Field:
    """One condition on one metadata key: ``op`` is one of :data:`OPERATORS`."""

    key: str
    op: str
    #: The operand: one value, several for ``$in``/``$nin``, a bool for ``$exists``.
    values: tuple[Scalar, ...]


@dataclass(frozen=True, slots=True)
class Docs:
    """Documents by id or source path, each exact or a glob (``*``, ``?``, ``[...]``)."""

    refs: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class All:
    parts: tuple[Filter, ...]


@dataclass(frozen=True, slots=True)
class AnyOf:
    parts: tuple[Filter, ...]


Filter = Field | Docs | All | AnyOf


# -- parsing ------------------------------------------------------------------------------
def parse(where: Mapping[str, Any] | Filter | None = None,
          doc: str | Sequence[str] | None = None) -> Filter | None:
    """The filter of ``where`` (a dict, or a tree already parsed) AND ``doc``; None for no filter."""
    parts: list[Filter] = []
    if where is not None:
        if isinstance(where, (Field, Docs, All, AnyOf)):
            parts.append(where)
        elif isinstance(where, Mapping):
            got = _parse_object(where, "where")
            if got is not None:
                parts.append(got)
        else:
            raise ConfigError(f"where: expected a dict such as {{\"year\": {{\"$gte\": 2020}}}}, "
                              f"got {type(where).__name__}")
    if doc is not None:
        parts.append(_docs(doc, "doc"))
    return _all(parts)


def _all(parts: list[Filter]) -> Filter | None:
    parts = [q for p in parts for q in (p.parts if isinstance(p, All) else (p,))]
    if not parts:
        return None
    return parts[0] if len(parts) == 1 else All(tuple(parts))


def _docs(doc: Any, where: str) -> Docs:
    refs = [doc] if isinstance(doc, str) else doc
    if not isinstance(refs, (list, tuple)) or not refs:
        raise ConfigError(f"{where}: expected a document id, a source path or glob, or a non-empty list of them")
    for r in refs:
        if not isinstance(r, str) or not r:
            raise ConfigError(f"{where}: {r!r} is not a document id or path (a non-empty string)")
    return Docs(tuple(refs))


def _parse_object(obj: Mapping[str, Any], where: str) -> Filter | None:
    parts: list[Filter] = []
    for key, value in obj.items():
        at = f"{where}[{json.dumps(key, ensure_ascii=False)}]"
        if not isinstance(key, str) or not key:
            raise ConfigError(f"{where}: key {key!r} must be a non-empty string")
        if key in ("$and", "$or"):
            if not isinstance(value, (list, tuple)) or not value:
                raise ConfigError(f"{at}: expected a non-empty list of filters")
            subs = []
            for i, item in enumerate(value):
                if not isinstance(item, Mapping):
                    raise ConfigError(f"{at}[{i}]: expected a filter dict, got {json.dumps(item, default=str)}")
                sub = _parse_object(item, f"{at}[{i}]")
                if sub is not None:
                    subs.append(sub)
            if len(subs) == 1:
                parts.append(subs[0])
            elif subs:
                parts.append(All(tuple(subs)) if key == "$and" else AnyOf(tuple(subs)))
        elif key == "$doc":
            parts.append(_docs(value, at))
        elif key.startswith("$"):
            raise ConfigError(f"{at}: unknown operator {key!r} at the top of a filter; "
                              "use $and, $or, $doc or a metadata key")
        else:
            parts.extend(_conditions(key, value, at))
    return _all(parts)


def _conditions(key: str, value: Any, at: str) -> list[Filter]:
    if isinstance(value, Mapping):
        if not value:
            raise ConfigError(f"{at}: an empty condition; give a value or an operator such as {{\"$eq\": ...}}")
        out: list[Filter] = []
        for op, operand in value.items():
            if op not in OPERATORS:
                hint = "" if isinstance(op, str) and op.startswith("$") else \
                    " (a nested object is not a value; use a dotted key such as \"a.b\")"
                raise ConfigError(f"{at}: unknown operator {op!r}; use one of {', '.join(OPERATORS)}{hint}")
            out.append(_field(key, op, operand, f"{at}[{json.dumps(op)}]"))
        return out
    if isinstance(value, (list, tuple)):
        return [_field(key, "$in", value, at)]
    return [_field(key, "$eq", value, at)]


def _scalar(value: Any, at: str) -> Scalar:
    if value is None:
        raise ConfigError(f"{at}: null is not a value to compare; use {{\"$exists\": false}}")
    if not isinstance(value, (str, int, float, bool)):
        raise ConfigError(f"{at}: {json.dumps(value, default=str)} is not a string, number or boolean")
    return value


def _field(key: str, op: str, operand: Any, at: str) -> Field:
    if op == "$exists":
        if not isinstance(operand, bool):
            raise ConfigError(f"{at}: $exists takes true or false, not {json.dumps(operand, default=str)}")
        return Field(key, op, (operand,))
    if op in ("$in", "$nin"):
        if not isinstance(operand, (list, tuple)) or not operand:
            raise ConfigError(f"{at}: {op} takes a non-empty list of values")
        return Field(key, op, tuple(_scalar(v, f"{at}[{i}]") for i, v in enumerate(operand)))
    value = _scalar(operand, at)
    if op in _RANGE_SQL and isinstance(value, bool):
        raise ConfigError(f"{at}: {op} compares numbers, dates or strings, not a boolean")
    return Field(key, op, (value,))


# -- the CLI's short form -------------------------------------------------------------------
_SHORT = re.compile(r"^\s*(?P<key>[^\s=!<>]+)\s*(?P<op>>=|<=|!=|==|=|>|<)\s*(?P<value>.*?)\s*$")
_WORDS = re.compile(r"^\s*(?P<key>\S+)\s+(?P<op>not\s+in|in|exists|missing)\b\s*(?P<value>.*?)\s*$")
_SHORT_OPS = {"=": "$eq", "==": "$eq", "!=": "$ne", ">": "$gt", ">=": "$gte", "<": "$lt", "<=": "$lte"}


def short_value(text: str) -> Scalar:
    """A value as typed on the command line: a number, true/false, or a string ("quoted" stays one)."""
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        return text[1:-1]
    if text in ("true", "false"):
        return text == "true"
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def parse_condition(text: str) -> dict[str, Any]:
    """One ``--where`` condition as a filter dict: ``year>=2020``, ``lang=en``, ``lang!=en``,
    ``lang in en,de``, ``lang not in en,de``, ``author exists``, ``author missing``."""
    m = _WORDS.match(text)
    if m is not None:
        key, op, rest = m["key"], " ".join(m["op"].split()), m["value"]
        if op in ("exists", "missing"):
            if rest:
                raise ConfigError(f"--where {text!r}: nothing may follow {op!r}")
            return {key: {"$exists": op == "exists"}}
        values = [short_value(v.strip()) for v in rest.split(",") if v.strip()]
        if not values:
            raise ConfigError(f"--where {text!r}: give the values after {op!r}, separated by commas")
        return {key: {"$in" if op == "in" else "$nin": values}}
    m = _SHORT.match(text)
    if m is None or not m["value"]:
        raise ConfigError(f"--where {text!r}: expected KEY=VALUE, KEY!=VALUE, KEY>=VALUE (also >, <, <=), "
                          "'KEY in A,B', 'KEY not in A,B', 'KEY exists' or 'KEY missing'"
                          + ("; a filter dict as JSON goes in --where-json" if text.lstrip().startswith("{") else ""))
    return {m["key"]: {_SHORT_OPS[m["op"]]: short_value(m["value"])}}


def combine(conditions: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """Filter dicts joined with AND (repeated ``--where``)."""
    if not conditions:
        return None
    return dict(conditions[0]) if len(conditions) == 1 else {"$and": [dict(c) for c in conditions]}


# -- what a filter asks about ----------------------------------------------------------------
def keys(f: Filter | None) -> set[str]:
    """The metadata keys a filter reads."""
    if f is None or isinstance(f, Docs):
        return set()
    if isinstance(f, Field):
        return {f.key}
    return set().union(*(keys(p) for p in f.parts))


def describe(f: Filter) -> str:
    """The filter as one readable line (for ``--explain``)."""
    if isinstance(f, Docs):
        return "document " + " or ".join(f.refs)
    if isinstance(f, Field):
        if f.op == "$exists":
            return f"{f.key} {'exists' if f.values[0] else 'missing'}"
        sym = {"$eq": "=", "$ne": "!=", "$gt": ">", "$gte": ">=", "$lt": "<", "$lte": "<=",
               "$in": " in ", "$nin": " not in "}[f.op]
        return f"{f.key}{sym}{','.join(json.dumps(v) if isinstance(v, str) else str(v) for v in f.values)}"
    joiner = " and " if isinstance(f, All) else " or "
    return "(" + joiner.join(describe(p) for p in f.parts) + ")"


# -- SQL --------------------------------------------------------------------------------------
def to_sql(f: Filter) -> tuple[str, list[Any]]:
    """A condition over ``documents d`` (with ``doc_meta``) that holds for the documents ``f`` keeps."""
    args: list[Any] = []
    return _sql(f, args), args


def _sql(f: Filter, args: list[Any]) -> str:
    if isinstance(f, All):
        return "(" + " AND ".join(_sql(p, args) for p in f.parts) + ")"
    if isinstance(f, AnyOf):
        return "(" + " OR ".join(_sql(p, args) for p in f.parts) + ")"
    if isinstance(f, Docs):
        ors = []
        for ref in f.refs:
            if _GLOB.search(ref):
                ors.append("d.id GLOB ? OR d.source GLOB ?")
            else:
                ors.append("d.id = ? OR d.source = ?")
            args += [ref, ref]
        return "(" + " OR ".join(ors) + ")"
    if f.op == "$exists":
        # the key itself, or a nested object under it (its rows are "key.sub")
        args += [f.key, f.key + ".", f.key + "/"]
        return (f"d.key {'' if f.values[0] else 'NOT '}IN "
                "(SELECT doc FROM doc_meta WHERE key = ? OR (key >= ? AND key < ?))")
    if f.op in _RANGE_SQL:
        kind, num, txt = typed(f.values[0])
        args += [f.key, kind, num if kind != "s" else txt]
        column = "txt" if kind == "s" else "num"
        return (f"d.key IN (SELECT doc FROM doc_meta WHERE key = ? AND type = ? "
                f"AND {column} {_RANGE_SQL[f.op]} ?)")
    # $eq $ne $in $nin: one look-up for all the values
    args.append(f.key)
    ors = []
    for v in f.values:
        kind, num, txt = typed(v)
        if kind == "s":
            ors.append("(type = 's' AND txt = ?)")
            args.append(txt)
        else:
            ors.append("(type = ? AND num = ?)")
            args += [kind, num]
    negate = "NOT " if f.op in ("$ne", "$nin") else ""
    return f"d.key {negate}IN (SELECT doc FROM doc_meta WHERE key = ? AND ({' OR '.join(ors)}))"


# -- from documents to the rankers' rows -------------------------------------------------------
@dataclass(frozen=True, slots=True)
class RowRanges:
    """Rows ``lo[i] .. hi[i] - 1`` of a sorted ids array (ascending, disjoint, none empty): a
    filter's documents in a vector matrix or graph, whose units are consecutive rows."""

    lo: np.ndarray
    hi: np.ndarray

    @property
    def count(self) -> int:
        return int((self.hi - self.lo).sum())

    def positions(self) -> np.ndarray:
        """Every row inside the ranges, ascending."""
        sizes = self.hi - self.lo
        total = int(sizes.sum())
        if total == 0:
            return np.zeros(0, dtype=np.int64)
        # arange(total) shifted, range by range, to start at each lo
        starts = np.repeat(self.lo - np.concatenate(([0], np.cumsum(sizes)[:-1])), sizes)
        return np.arange(total, dtype=np.int64) + starts

    def mask(self, n: int) -> np.ndarray:
        """A boolean array of ``n`` rows, True inside the ranges (one pass, however many ranges)."""
        step = np.zeros(n + 1, dtype=np.int8)
        step[self.lo] += 1
        step[self.hi] -= 1  # where ranges touch: +1 - 1, still inside
        return np.cumsum(step[:-1], dtype=np.int8).view(bool)


def row_ranges(first: np.ndarray, count: np.ndarray, ids: np.ndarray) -> RowRanges:
    """The rows of ``ids`` (sorted node rows) inside ``first[i] .. first[i] + count[i] - 1``,
    as ranges; ranges that touch are joined (one scan call, one slice each)."""
    lo = np.searchsorted(ids, first, side="left")
    hi = np.searchsorted(ids, first + count, side="left")
    keep = hi > lo
    lo, hi = lo[keep], hi[keep]
    if len(lo) > 1:
        joined = np.flatnonzero(lo[1:] == hi[:-1])
        if len(joined):
            lo = np.delete(lo, joined + 1)
            hi = np.delete(hi, joined)
    return RowRanges(lo.astype(np.int64, copy=False), hi.astype(np.int64, copy=False))


def positions(first: np.ndarray, count: np.ndarray, ids: np.ndarray) -> np.ndarray:
    """Indices into ``ids`` (sorted node rows) of the rows inside the ranges
    ``first[i] .. first[i] + count[i] - 1``: a filter's documents in a vector matrix or graph."""
    return row_ranges(first, count, ids).positions()
