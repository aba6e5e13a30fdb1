"""The filter language: parsing, its one-line errors, the CLI's short form, and the documents
each operator keeps in a real store."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zoomrag.errors import ConfigError
from zoomrag.model import Document
from zoomrag.parse import Span, build_tree
from zoomrag.search import filters
from zoomrag.store import SqliteStore

DOCS = {
    "a": {"year": 2019, "lang": "en", "tags": ["x", "y"], "published": "2019-06-01", "draft": True},
    "b": {"year": 2021, "lang": "de", "tags": ["y"], "published": "2021-01-15T10:00:00Z"},
    "c": {"year": 2023.5, "lang": "en", "author": {"name": "Ana"}},
    "d": {},
}


@pytest.fixture(scope="module")
def store(tmp_path_factory):
    s = SqliteStore(tmp_path_factory.mktemp("f") / "s.db")
    for doc_id, meta in DOCS.items():
        doc = Document(id=doc_id, source=f"docs/{doc_id}.md", text="some text", metadata=meta)
        s.write_document(build_tree(doc, [Span("chunk", 0, 9)]), [], {}, origin="api", parser=1)
    yield s
    s.close()


def kept(store, where=None, doc=None):
    f = filters.parse(where, doc)
    sql, args = filters.to_sql(f)
    return sorted(store.select_documents(sql, args).ids)


@pytest.mark.parametrize("where, expected", [
    ({"lang": "en"}, ["a", "c"]),
    ({"lang": {"$ne": "en"}}, ["b", "d"]),
    ({"year": {"$gte": 2020}}, ["b", "c"]),
    ({"year": {"$gt": 2019, "$lt": 2022}}, ["b"]),
    ({"year": 2023.5}, ["c"]),
    ({"lang": ["de", "fr"]}, ["b"]),
    ({"lang": {"$nin": ["de"]}}, ["a", "c", "d"]),
    ({"tags": "y"}, ["a", "b"]),
    ({"tags": {"$in": ["x"]}}, ["a"]),
    ({"published": {"$gte": "2020-01-01"}}, ["b"]),
    ({"published": {"$lt": "2021-01-15T11:00:00+00:00"}}, ["a", "b"]),
    ({"published": "2021-01-15T10:00:00+00:00"}, ["b"]),
    ({"author.name": "Ana"}, ["c"]),
    ({"draft": True}, ["a"]),
    ({"author": {"$exists": False}}, ["a", "b", "d"]),
    ({"author.name": {"$exists": True}}, ["c"]),
    ({"tags": {"$exists": True}}, ["a", "b"]),
    ({"$or": [{"lang": "de"}, {"year": {"$lt": 2020}}]}, ["a", "b"]),
    ({"$and": [{"lang": "en"}, {"year": {"$gt": 2020}}]}, ["c"]),
    ({"lang": "en", "$doc": "docs/a.*"}, ["a"]),
    ({"nobody": "x"}, []),
    ({"year": "2021"}, []),  # a string never equals a number
])
def test_each_operator_keeps_the_right_documents(store, where, expected):
    assert kept(store, where) == expected


def test_by_document_id_source_and_glob(store):
    assert kept(store, doc="b") == ["b"]
    assert kept(store, doc="docs/c.md") == ["c"]
    assert kept(store, doc=["a", "docs/[cd].md"]) == ["a", "c", "d"]
    assert kept(store, {"lang": "en"}, doc="docs/*") == ["a", "c"]


def test_unknown_keys_are_reported(store):
    assert store.metadata_keys_present(["lang", "nobody"]) == {"lang"}
    assert filters.keys(filters.parse({"$or": [{"a": 1}, {"b": {"$gt": 2}}]}, doc="x")) == {"a", "b"}


@pytest.mark.parametrize("where, message", [
    ({"year": {"$gtee": 1}}, r'where\["year"\]: unknown operator \'\$gtee\''),
    ({"$or": {"a": 1}}, r'where\["\$or"\]: expected a non-empty list'),
    ({"$or": [{"a": 1}, 3]}, r'where\["\$or"\]\[1\]: expected a filter dict'),
    ({"a": None}, r'where\["a"\]: null is not a value.*\$exists'),
    ({"a": {"$in": []}}, r'\$in takes a non-empty list'),
    ({"a": {"$exists": "yes"}}, r'\$exists takes true or false'),
    ({"a": {"$gt": True}}, r'compares numbers, dates or strings'),
    ({"$nope": 1}, r"unknown operator '\$nope' at the top"),
    ({"a": {"b": 1}}, r"dotted key"),
    ({"a": {}}, r"an empty condition"),
])
def test_malformed_filters_name_the_bad_part(where, message):
    with pytest.raises(ConfigError, match=message) as e:
        filters.parse(where)
    assert "\n" not in str(e.value)


def test_short_form():
    assert filters.parse_condition("year>=2020") == {"year": {"$gte": 2020}}
    assert filters.parse_condition("lang=en") == {"lang": {"$eq": "en"}}
    assert filters.parse_condition("lang != en") == {"lang": {"$ne": "en"}}
    assert filters.parse_condition("score<0.5") == {"score": {"$lt": 0.5}}
    assert filters.parse_condition('code="007"') == {"code": {"$eq": "007"}}
    assert filters.parse_condition("draft=true") == {"draft": {"$eq": True}}
    assert filters.parse_condition("lang in en, de") == {"lang": {"$in": ["en", "de"]}}
    assert filters.parse_condition("lang not in en") == {"lang": {"$nin": ["en"]}}
    assert filters.parse_condition("author exists") == {"author": {"$exists": True}}
    assert filters.parse_condition("author missing") == {"author": {"$exists": False}}
    assert filters.combine([{"a": 1}, {"b": 2}]) == {"$and": [{"a": 1}, {"b": 2}]}
    for bad in ("year", "year>=", "=x"):
        with pytest.raises(ConfigError, match="--where"):
            filters.parse_condition(bad)
    with pytest.raises(ConfigError, match="a filter dict as JSON goes in --where-json"):
        filters.parse_condition('{"year": {"$gte": 2020}}')


def test_describe():
    f = filters.parse({"year": {"$gte": 2020}, "$or": [{"lang": "en"}, {"tags": {"$in": ["x", "y"]}}]}, doc="a")
    assert filters.describe(f) == '(year>=2020 and (lang="en" or tags in "x","y") and document a)'


@settings(max_examples=200, deadline=None)
@given(ids=st.lists(st.integers(0, 300), unique=True, max_size=120),
       docs=st.lists(st.tuples(st.integers(0, 300), st.integers(0, 40)), max_size=12))
def test_row_ranges_hold_exactly_the_rows_of_the_kept_documents(ids, docs):
    # a filter's documents as row ranges of the graph: the scan reads them in place and the
    # graph walk tests its candidates against their mask, so both must be exact
    ids_a = np.array(sorted(ids), dtype=np.int64)
    docs = sorted({first: count for first, count in docs}.items())  # disjoint documents, in order
    kept_docs, end = [], -1
    for first, count in docs:
        if first > end:
            kept_docs.append((first, count))
            end = first + count - 1
    first = np.array([f for f, _ in kept_docs], dtype=np.int64)
    count = np.array([c for _, c in kept_docs], dtype=np.int64)
    inside = [i for i, row in enumerate(ids_a.tolist()) if any(f <= row < f + c for f, c in kept_docs)]
    ranges = filters.row_ranges(first, count, ids_a)
    assert ranges.positions().tolist() == inside
    assert ranges.count == len(inside)
    assert np.flatnonzero(ranges.mask(len(ids_a))).tolist() == inside
    assert all(a < b for a, b in zip(ranges.lo.tolist(), ranges.hi.tolist()))
    assert all(b < a for a, b in zip(ranges.lo[1:].tolist(), ranges.hi[:-1].tolist()))  # joined when touching
    assert filters.positions(first, count, ids_a).tolist() == inside
