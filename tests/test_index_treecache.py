"""The query side's tree cache: a document's tree is kept from its second query on, and a full
cache takes a tree only for a document asked for more often than the trees it pushes out."""

from __future__ import annotations

from dataclasses import replace

from test_index_support import CountingEmbedder, ParagraphLines

from zoomrag.index import Index
from zoomrag.model import Document
from zoomrag.parse import PARSER_VERSION


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


def _asker(tmp_path, monkeypatch, ix: Index):
    """``ask(doc_id)``: a query about one document; True when its tree was read from the store.
    The cache has room for two trees."""
    ix.add([Document.from_text(f"Topic {i} lives here.\n\nIt has a second paragraph about topic {i}.",
                               id=f"d{i}") for i in range(3)])
    ix._searcher.trees.max_nodes = 2 * len(ix.store.load_tree("d0"))
    loads = _loads(ix, monkeypatch)

    def ask(doc_id: str) -> bool:
        loads.clear()
        assert ix.query(f"topic {doc_id[1]}", mode="bm25", expand="auto", where={"$doc": doc_id})
        return any(doc_id in c for c in loads)

    return ask


def test_a_full_cache_takes_a_tree_only_when_asked_for_more_often_than_what_it_pushes_out(tmp_path, monkeypatch):
    with Index.open(tmp_path / "i.db", embedder=CountingEmbedder()) as ix:
        ask = _asker(tmp_path, monkeypatch, ix)
        for d in ("d0", "d0", "d1", "d1"):
            ask(d)
        assert not ask("d0") and not ask("d1")  # both kept: the cache is full (d0 and d1 asked 3 times)
        assert ask("d2") and ask("d2") and ask("d2")  # asked no more often than d0, the oldest: not kept
        assert ask("d2")  # asked a 4th time, more often than d0: kept, and d0 pushed out
        assert not ask("d2") and not ask("d1")
        assert ask("d0")


def test_old_asks_fade_so_a_newly_asked_document_can_come_in(tmp_path, monkeypatch):
    with Index.open(tmp_path / "i.db", embedder=CountingEmbedder()) as ix:
        ask = _asker(tmp_path, monkeypatch, ix)
        ix._searcher.trees.halve_after = 6  # asks are halved after 6
        for d in ("d0", "d0", "d1", "d1", "d0", "d1"):  # d0 and d1 kept, asked 3 times each
            ask(d)
        assert ask("d2") and ask("d2")  # the 7th ask halved d0 and d1 to 1 and forgot d2's first
        assert ask("d2")  # asked twice since, more often than d0: kept
        assert not ask("d2")


def test_a_cached_tree_goes_when_its_text_is_read_again_as_another_format(tmp_path, monkeypatch):
    from zoomrag.load import read_text

    text = "Guide\n=====\n\nIntro text here.\n\nUsage\n~~~~~\n\nRun the tool with care.\n"
    with Index.open(tmp_path / "i.db", embedder=CountingEmbedder()) as ix:
        ix.add([read_text(text, format="markdown", id="g")])
        for _ in range(2):  # kept from the second query on
            [old] = ix.query("run the tool", mode="bm25", expand="auto", top=1)
        assert old.section_path == ("Guide",)  # to Markdown, "~~~~~" opens a code fence
        with Index.open(tmp_path / "i.db", embedder=CountingEmbedder()) as writer:
            assert writer.add([read_text(text, format="rst", id="g")]).updated == 1
        loads = _loads(ix, monkeypatch)
        [new] = ix.query("run the tool", mode="bm25", expand="auto", top=1)
        assert any("g" in c for c in loads)
        assert new.section_path == ("Guide", "Usage")


def test_cached_trees_go_when_another_process_rebuilds_with_other_chunking(tmp_path):
    text = "# Guide\n\n" + "\n\n".join(f"Paragraph {i} is about topic {i} and its details." for i in range(20))
    with Index.open(tmp_path / "i.db", embedder=CountingEmbedder(), strategy="hierarchical",
                    params={"sizes": [400, 100]}) as ix:
        ix.add([Document.from_text(text, id="g", format="markdown")])
        for _ in range(2):  # the tree is kept from the second query on
            ix.query("topic 7", mode="bm25", expand="auto", top=1, budget=60)
        with Index.open(tmp_path / "i.db", embedder=CountingEmbedder(), strategy="fixed", params={"size": 12},
                        reindex=True) as rebuilt:
            rebuilt.add([Document.from_text(text, id="g", format="markdown")])
            want = rebuilt.query("topic 7", mode="bm25", expand="auto", top=1, budget=60)
        got = ix.query("topic 7", mode="bm25", expand="auto", top=1, budget=60)
        assert [(c.start, c.end, c.rule) for c in got] == [(c.start, c.end, c.rule) for c in want]


def test_a_cached_tree_goes_when_another_process_reads_its_text_again_with_a_newer_parser(tmp_path, monkeypatch):
    text = "Alpha opens the guide.\nAlpha says more.\n\nBeta explains the tool.\nBeta runs it with care."

    def ask(ix: Index) -> tuple[str, ...]:
        [context] = ix.query("runs it with care", mode="bm25", expand="auto", top=1)
        return context.section_path

    with Index.open(tmp_path / "i.db", embedder=CountingEmbedder(), strategy=ParagraphLines()) as ix:
        ix.add([Document.from_text(text, id="g")])
        for _ in range(2):  # kept from the second query on
            assert ask(ix) == ()
        # a newer chunker makes another tree of the same text with the same settings (each
        # paragraph titled by its first word), and the parser version is bumped
        split = ParagraphLines.split
        monkeypatch.setattr(ParagraphLines, "split", lambda self, doc: [
            replace(p, section_path=(doc.text[p.start:p.end].split()[0],)) for p in split(self, doc)])
        monkeypatch.setattr("zoomrag.index.ingest.PARSER_VERSION", PARSER_VERSION + 1)
        with Index.open(tmp_path / "i.db", embedder=CountingEmbedder(), strategy=ParagraphLines()) as writer:
            assert writer.add([Document.from_text(text, id="g")]).updated == 1
        loads = _loads(ix, monkeypatch)
        assert ask(ix) == ("Beta",)
        assert any("g" in c for c in loads)
