"""Partial trees (a query's hit nodes and their ancestors): the whole tree's nodes, text read lazily."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from invariants import texts
from test_index_support import ParagraphLines

import zoomrag.store.sqlite as sqlite_store
from zoomrag.model import Document
from zoomrag.parse import Span, build_tree
from zoomrag.store import SqliteStore, UnitToWrite, to_blob


@pytest.fixture
def store(tmp_path):
    s = SqliteStore(tmp_path / "s.db")
    yield s
    s.close()


def write(store, tree):
    units = [UnitToWrite(u, i + 1) for i, u in enumerate(tree.leaves())]
    store.write_document(tree, units, {u.vec_key: to_blob(np.ones(4, np.float32)) for u in units}, origin="api", parser=1)


def rows_of(store, doc_id):
    first, count = store.conn.execute("SELECT first_row, node_count FROM documents WHERE id = ?", (doc_id,)).fetchone()
    return list(range(first, first + count))  # pre-order, as tree.nodes


def sections(doc_id):
    doc = Document.from_text("# A\nintro\n## B\nrow", id=doc_id)
    return build_tree(doc, [Span("section", 0, 18, section_path=("A",), children=[
        Span("paragraph", 4, 9),
        Span("section", 10, 18, section_path=("A", "B"), children=[Span("row", 15, 18, embed_text="B: row")]),
    ])])


def test_a_partial_tree_holds_the_rows_and_their_ancestors_only(store):
    whole = sections("doc")
    write(store, whole)
    *_, row = rows_of(store, "doc")
    trees, nodes = store.ancestor_trees([row, 999_999, row])
    assert list(trees) == ["doc"] and list(nodes) == [row]  # rows not found are left out
    tree = trees["doc"]
    w = whole.nodes
    assert [n.id for n in tree] == [w[0].id, w[1].id, w[3].id, w[4].id]
    assert nodes[row] is tree.get(w[4].id)
    # every field as in the whole tree, but children only among the nodes loaded
    assert [n.to_dict() for n in tree] == [n.to_dict() for n in (w[0], w[1], w[3], w[4])]
    assert [n.children for n in tree] == [(w[1].id,), (w[3].id,), (w[4].id,), ()]
    assert tree.get(w[4].id).embed_text == "B: row" and tree.get(w[4].id).section_path == ("A", "B")
    assert store.ancestor_trees([]) == ({}, {})


def test_partial_trees_decompress_only_the_texts_that_are_read(store, monkeypatch):
    for d in ("a", "b", "c"):
        write(store, sections(d))
    decoded: list[bytes] = []
    real = sqlite_store.textblocks.decode
    monkeypatch.setattr(sqlite_store.textblocks, "decode", lambda blob: decoded.append(blob) or real(blob))
    trees, nodes = store.ancestor_trees([rows_of(store, d)[-1] for d in ("a", "b", "c")])
    assert sorted(trees) == ["a", "b", "c"] and len(nodes) == 3
    assert [(n.start, n.end, n.parent_id is not None) for n in nodes.values()] == [(15, 18, True)] * 3
    assert decoded == []
    assert trees["b"].get(nodes[rows_of(store, "b")[-1]].id).text == "row"
    assert len(decoded) == 1
    assert trees["b"].document.text == "# A\nintro\n## B\nrow" and len(decoded) == 1
    assert store.load_tree("c").document.text == "# A\nintro\n## B\nrow"  # whole trees: read at once


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=texts, data=st.data())
def test_partial_trees_are_the_whole_trees_nodes(store, text, data):
    whole = ParagraphLines().chunk(Document.from_text(text, id="p"))
    write(store, whole)
    rows = rows_of(store, "p")
    picked = data.draw(st.lists(st.sampled_from(rows), max_size=6))
    trees, nodes = store.ancestor_trees(picked)
    assert set(nodes) == set(picked)
    if not picked:
        assert trees == {}
        return
    tree = trees["p"]
    by_id = {n.id: n for n in whole}
    for r in picked:  # each picked row is the whole tree's node at that row, with its chain up to the root
        assert nodes[r].id == whole.nodes[rows.index(r)].id
        assert [a.id for a in tree.ancestors(nodes[r])] == [a.id for a in whole.ancestors(by_id[nodes[r].id])]
    for n in tree:
        assert n.to_dict() == by_id[n.id].to_dict()  # spans, parent, path, embed text and text
        assert n.text == tree.document.text[n.start:n.end]
        assert set(n.children) <= {m.id for m in tree}
    assert tree.document == whole.document
