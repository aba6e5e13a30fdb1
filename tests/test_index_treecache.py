"""The query side's tree cache: a document's tree is kept from its second query on."""

from __future__ import annotations

from test_index_support import CountingEmbedder

from zoomrag.index import Index
from zoomrag.model import Document


def _loads(ix: Index, monkeypatch) -> list[list[str]]:
    calls: list[list[str]] = []
    real = ix.store.load_trees

    def counted(doc_ids):
        doc_ids = list(doc_ids)
        calls.append(doc_ids)
        return real(doc_ids)

    monkeypatch.setattr(ix.store, "load_trees", counted)
    return calls


def test_a_tree_is_kept_from_its_second_query_on_and_one_off_documents_pass_through(tmp_path, monkeypatch):
    docs = [Document.from_text(f"Topic {i} lives here.\n\nIt has a second paragraph about topic {i}.",
                               id=f"d{i}") for i in range(6)]
    with Index.open(tmp_path / "i.db", embedder=CountingEmbedder()) as ix:
        ix.add(docs)
        loads = _loads(ix, monkeypatch)
        first = ix.query("topic 3", mode="bm25", expand="auto", where={"$doc": "d3"})
        assert first and first[0].doc_id == "d3"
        assert any("d3" in c for c in loads)  # read for that query
        loads.clear()
        again = ix.query("topic 3", mode="bm25", expand="auto", where={"$doc": "d3"})
        assert any("d3" in c for c in loads)  # read again: now kept
        loads.clear()
        third = ix.query("topic 3", mode="bm25", expand="auto", where={"$doc": "d3"})
        assert not any("d3" in c for c in loads)  # served from the cache
        assert first == again == third  # the same contexts whichever way the tree came
