"""The SQLite store: exact round trips, one transaction per document, FTS kept in step, the cache."""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from invariants import texts
from test_index_support import ParagraphLines

from zoomrag.errors import StoreError
from zoomrag.model import Document
from zoomrag.parse import Span, build_tree
from zoomrag.store import SqliteStore, StoreVectorCache, UnitToWrite, textblocks, to_blob, vector_key
from zoomrag.store.ids import hex_to_int, int_to_hex


@pytest.fixture
def store(tmp_path):
    s = SqliteStore(tmp_path / "s.db")
    yield s
    s.close()


def write(store, tree, dim=4):
    units = [UnitToWrite(u, i + 1) for i, u in enumerate(tree.leaves())]
    vectors = {u.vec_key: to_blob(np.full(dim, 0.5, np.float32)) for u in units}
    store.write_document(tree, units, vectors, origin="api", parser=1)


def test_ids_round_trip_through_signed_int64():
    for h in ("0000000000000000", "7fffffffffffffff", "8000000000000000", "ffffffffffffffff", "0123456789abcdef"):
        assert int_to_hex(hex_to_int(h)) == h
        assert -(2 ** 63) <= hex_to_int(h) < 2 ** 63


def test_section_paths_and_embed_text_round_trip(store):
    doc = Document.from_text("# A\nintro\n## B\nrow", id="doc")
    spans = [Span("section", 0, 18, section_path=("A",), children=[
        Span("paragraph", 4, 9),
        Span("section", 10, 18, section_path=("A", "B"), children=[Span("row", 15, 18, embed_text="B: row")]),
    ])]
    tree = build_tree(doc, spans)
    write(store, tree)
    back = store.load_tree("doc")
    assert [n.to_dict() for n in back.nodes] == [n.to_dict() for n in tree.nodes]
    assert back.get(tree.leaves()[-1].id).embed_text == "B: row"
    # the heading trail is stored only where it changes
    stored = [sp for (sp,) in store.conn.execute("SELECT section_path FROM nodes ORDER BY row")]
    assert stored == [None, '["A"]', None, '["A", "B"]', None]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=texts)
def test_any_text_round_trips_and_deletes_cleanly(store, text):
    tree = ParagraphLines().chunk(Document.from_text(text, id="p"))
    write(store, tree)
    write(store, tree)  # replacing a document with itself is a no-op in effect
    back = store.load_tree("p")
    assert back.document.text == tree.document.text
    assert [n.to_dict() for n in back.nodes] == [n.to_dict() for n in tree.nodes]
    assert store.problems(4) == []
    assert store.delete_document("p") is True
    assert store.conn.execute("SELECT count(*) FROM fts_vocab").fetchone()[0] == 0  # no term left
    assert store.unit_chars() == 0
    assert store.conn.execute("SELECT count(*) FROM nodes").fetchone()[0] == 0
    assert store.problems(4) == []


def test_a_failed_write_leaves_the_previous_version(store):
    old = ParagraphLines().chunk(Document.from_text("old line", id="d"))
    write(store, old)
    new = ParagraphLines().chunk(Document.from_text("new line\nsecond", id="d"))
    units = [UnitToWrite(u, 1) for u in new.leaves()]
    with pytest.raises(RuntimeError), store.transaction():
        raise RuntimeError("crash in the middle")
    bad_vectors = {1: object()}  # not bindable: the insert fails inside the document's transaction
    with pytest.raises(sqlite3.ProgrammingError):
        store.write_document(new, units, bad_vectors, origin="api", parser=1)  # type: ignore[arg-type]
    assert store.load_tree("d").document.text == "old line"
    assert store.problems(4) == []


def test_generation_counts_writes(store):
    g = store.generation()
    write(store, ParagraphLines().chunk(Document.from_text("x", id="d")))
    assert store.generation() == g + 1
    store.delete_document("d")
    assert store.generation() == g + 2


def test_unit_matrix_rows_follow_the_nodes(store):
    tree = ParagraphLines().chunk(Document.from_text("a\nb\nc", id="d"))
    units = [UnitToWrite(u, 10 + i) for i, u in enumerate(tree.leaves())]
    vecs = {10 + i: to_blob(np.array([i, 0], np.float32)) for i in range(3)}
    store.write_document(tree, units, vecs, origin="api", parser=1)
    rows, mat = store.unit_matrix(2)
    assert mat[:, 0].tolist() == [0.0, 1.0, 2.0]
    found = store.units(rows.tolist())
    assert [found[r].node_id for r in rows.tolist()] == [u.id for u in tree.leaves()]
    assert [(found[r].start, found[r].end) for r in rows.tolist()] == [(0, 1), (2, 3), (4, 5)]


def test_vector_table_is_an_embedding_cache(store):
    cache = StoreVectorCache(store, dimension=3)
    key = "ab" * 32
    assert cache.get_many([key]) == {}
    cache.put_many({key: np.array([1, 2, 3], np.float32)})
    assert cache.get_many([key, "cd" * 32])[key].tolist() == [1.0, 2.0, 3.0]
    assert vector_key(key) == hex_to_int("abababababababab")


def test_document_text_reads_a_span_and_names_a_bad_one(store):
    write(store, ParagraphLines().chunk(Document.from_text("first line\nsecond line", id="d")))
    assert store.document_text("d") == "first line\nsecond line"
    assert store.document_text("d", 6, 15) == "line\nseco"
    with pytest.raises(StoreError, match=r"span \[5, 99\) is outside document 'd' of 22 characters"):
        store.document_text("d", 5, 99)
    with pytest.raises(StoreError, match=r"no document 'x'; list them with: zoomrag stats"):
        store.document_text("x")


def test_text_is_stored_compressed_and_nodes_by_row_range(store):
    text = "the same sentence again. " * 400
    write(store, ParagraphLines().chunk(Document.from_text(text, id="d")))
    blob, chars, first, count = store.conn.execute(
        "SELECT text, chars, first_row, node_count FROM documents").fetchone()
    assert chars == len(text) and len(blob) < len(text) / 20
    assert store.conn.execute("SELECT min(row), count(*) FROM nodes").fetchone() == (first, count)


def test_kinds_are_numbers_into_a_list_that_another_handle_extends(tmp_path):
    a, b = SqliteStore(tmp_path / "s.db"), SqliteStore(tmp_path / "s.db")
    try:
        doc = Document.from_text("x\ny", id="d")
        write(a, build_tree(doc, [Span("para", 0, 1), Span("line", 2, 3)]))
        assert a.load_tree("d").nodes[1].kind == "para"
        write(b, build_tree(Document.from_text("z", id="e"), [Span("row", 0, 1)]))
        assert json.loads(a.meta()["kinds"]) == ["document", "line", "para", "row"]
        # a's cached list lacks "row": it is read again
        assert a.units([5])[5].node_id == b.load_tree("e").nodes[1].id
        a._kind_list = ["document", "line", "para"]
        assert [n.kind for n in a.load_tree("e").nodes] == ["document", "row"]
        assert {r[0] for r in a.conn.execute("SELECT kind FROM nodes")} == {0, 1, 2, 3}
    finally:
        a.close()
        b.close()


def test_checkpoint_returns_freed_pages_to_the_file_system(store):
    for i in range(12):
        write(store, ParagraphLines().chunk(Document.from_text(f"words {i}\n" * 300, id=f"d{i}")))
    for i in range(12):
        store.delete_document(f"d{i}")
    assert store.conn.execute("PRAGMA auto_vacuum").fetchone()[0] == 2  # incremental
    assert store.conn.execute("PRAGMA freelist_count").fetchone()[0] > 0
    store.checkpoint()
    assert store.conn.execute("PRAGMA freelist_count").fetchone()[0] == 0
    assert store.problems(4) == []


@pytest.mark.parametrize(("damage", "problem"), [
    ("UPDATE documents SET node_count = node_count + 1", "1 documents have a node count that differs"),
    ("UPDATE documents SET first_row = first_row + 1",
     "1 documents have no root node at their first row"),
])
def test_check_names_broken_row_ranges(store, damage, problem):
    write(store, ParagraphLines().chunk(Document.from_text("a\nb", id="d")))
    store.conn.execute(damage)
    assert any(p.startswith(problem) for p in store.problems(4)), store.problems(4)


def test_kinds_of_a_rolled_back_write_are_not_trusted(tmp_path, monkeypatch):
    a, b = SqliteStore(tmp_path / "s.db"), SqliteStore(tmp_path / "s.db")
    try:
        write(a, build_tree(Document.from_text("x", id="d"), [Span("line", 0, 1)]))
        with monkeypatch.context() as m:
            m.setattr("zoomrag.store.sqlite.fts.body", lambda text: 1 / 0)  # fails after the nodes
            with pytest.raises(ZeroDivisionError):
                write(a, build_tree(Document.from_text("y", id="e"), [Span("para", 0, 1)]))
        write(b, build_tree(Document.from_text("z", id="f"), [Span("row", 0, 1)]))
        assert [n.kind for n in a.load_tree("f").nodes] == ["document", "row"]
        assert json.loads(a.meta()["kinds"]) == ["document", "line", "row"]
    finally:
        a.close()
        b.close()


def test_content_hash_is_stored_as_bytes_and_empty_metadata_as_null(store):
    doc = Document.from_text("a\nb", id="d")
    write(store, ParagraphLines().chunk(doc))
    raw, meta = store.conn.execute("SELECT hash, meta FROM documents").fetchone()
    assert raw == bytes.fromhex(doc.content_hash) and len(raw) == 32 and meta is None
    assert store.document_hashes() == {"d": doc.content_hash}
    assert store.load_document("d").content_hash == doc.content_hash
    assert dict(store.load_document("d").metadata) == {}
    # a hash that is not lower-case hex digits in pairs is kept as it is
    for odd in ("ABCD", "abc", "ab cd", "v1:xyz", ""):
        other = Document(id=f"o{len(odd)}{odd[:1]}", source="s", text="x", content_hash=odd or "x",
                         metadata={"k": "v"})
        write(store, ParagraphLines().chunk(other))
        assert store.content_hashes([other.id]) == {other.id: other.content_hash}
        assert dict(store.load_document(other.id).metadata) == {"k": "v"}
    assert store.problems(4) == []


def test_unit_chars_follow_writes_replacements_deletions_and_clear(store):
    write(store, ParagraphLines().chunk(Document.from_text("abc\nde", id="d")))
    assert store.unit_chars() == 5
    write(store, ParagraphLines().chunk(Document.from_text("abcdef", id="d")))
    write(store, ParagraphLines().chunk(Document.from_text("xy", id="e")))
    assert store.unit_chars() == 8
    store.delete_document("d")
    assert store.unit_chars() == 2
    store.clear(keep_vectors=True)
    assert store.unit_chars() == 0 and store.problems(4) == []


def test_check_names_a_wrong_unit_length_total_and_missing_fts_rows(store):
    write(store, ParagraphLines().chunk(Document.from_text("abc\nde", id="d")))
    store.conn.execute("UPDATE index_meta SET value = '7' WHERE key = 'unit_chars'")
    assert store.problems(4) == ["index_meta unit_chars is 7, the units hold 5 characters"]
    store.conn.execute("UPDATE index_meta SET value = '5' WHERE key = 'unit_chars'")
    row = store.conn.execute("SELECT row FROM nodes WHERE unit = 1 ORDER BY row LIMIT 1").fetchone()[0]
    store.conn.execute("INSERT INTO fts(fts, rowid, body) VALUES ('delete', ?, ?)", (row, "\ue000 abc"))
    assert store.problems(4) == ["full-text index has 1 rows for 2 units"]


def test_the_full_text_index_keeps_no_positions(store):
    sql = store.conn.execute("SELECT sql FROM sqlite_master WHERE name = 'fts'").fetchone()[0]
    assert "detail=none" in sql and "columnsize=0" in sql
    write(store, ParagraphLines().chunk(Document.from_text("red fox\nfox red", id="d")))
    with pytest.raises(sqlite3.OperationalError, match="phrase"):
        store.conn.execute("SELECT rowid FROM fts WHERE fts MATCH '\"red fox\"'").fetchall()


def test_unit_texts_are_what_was_indexed_and_each_block_is_read_once(store, monkeypatch):
    doc = Document.from_text("# A\nintro\n## B\nrow", id="doc")
    spans = [Span("section", 0, 18, section_path=("A",), children=[
        Span("paragraph", 4, 9),
        Span("section", 10, 18, section_path=("A", "B"), children=[Span("row", 15, 18, embed_text="B: row")]),
    ])]
    write(store, build_tree(doc, spans))
    write(store, ParagraphLines().chunk(Document.from_text("one\ntwo\nthree", id="e")))
    rows = [r for (r,) in store.conn.execute("SELECT row FROM nodes WHERE unit = 1 ORDER BY row")]
    seen = []
    real = textblocks.Layout.decode
    monkeypatch.setattr("zoomrag.store.textblocks.Layout.decode", lambda self, data, i: seen.append(i) or real(self, data, i))
    assert store.unit_texts(rows + [999]) == dict(zip(rows, ["intro", "B: row", "one", "two", "three"]))
    assert sorted(seen) == [0, 0]  # one block per document, read once
