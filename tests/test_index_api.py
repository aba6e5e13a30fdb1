"""The Index API: add, query, delete, prune, reindex, pins, stats and check."""

from __future__ import annotations

import os
import re
import sqlite3
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_index_support import CountingEmbedder, ParagraphLines, write

from zoomrag.errors import ConfigError, IndexLockedError, IndexMismatchError, InputError, StoreError
from zoomrag.index import Index
from zoomrag.model import Document
from zoomrag.parse import PARSER_VERSION
from zoomrag.parse.router import chunker_for_profile, profile_names, routes_from_description
from zoomrag.store import Reading
from zoomrag.text.tokens import CharCounter

FRUIT = "Apples are red.\nBananas are yellow.\n\nCherries are small and dark red."
DB = "Databases store rows.\nSQLite keeps a whole database in one file.\n\nIndexes are fast."


@pytest.fixture
def corpus(tmp_path):
    write(tmp_path / "docs" / "fruit.txt", FRUIT)
    write(tmp_path / "docs" / "db.txt", DB)
    return tmp_path / "docs"


def open_index(tmp_path, emb=None, **kw):
    return Index.open(tmp_path / "ix" / "index.db", embedder=emb or CountingEmbedder(),
                      strategy=kw.pop("strategy", ParagraphLines()), counter=CharCounter(), **kw)


def test_add_then_query_returns_the_matching_line(tmp_path, corpus):
    with open_index(tmp_path) as ix:
        report = ix.add([corpus])
        assert (report.added, report.updated, report.unchanged, report.units) == (2, 0, 0, 6)
        contexts = ix.query("SQLite file", mode="bm25", budget=1000, top=1, expand="none")
    assert len(contexts) == 1
    c = contexts[0]
    assert c.text == "SQLite keeps a whole database in one file."
    assert c.source == str(corpus / "db.txt")
    assert DB[c.start:c.end] == c.text
    assert c.hits == ((c.start, c.end, c.score),)


def test_parent_expansion_returns_the_paragraph(tmp_path, corpus):
    with open_index(tmp_path) as ix:
        ix.add([corpus])
        [c] = ix.query("SQLite file", mode="bm25", budget=1000, top=1, expand="parent")
    assert c.text == "Databases store rows.\nSQLite keeps a whole database in one file."
    assert c.kind == "paragraph" and c.rule == "parent of 1 hit"
    # the hit inside is the matched line, not the parent
    (s, e, _), = c.hits
    assert DB[s:e] == "SQLite keeps a whole database in one file."


def test_parent_falls_back_to_the_unit_when_it_does_not_fit(tmp_path, corpus):
    with open_index(tmp_path) as ix:
        ix.add([corpus])
        [c] = ix.query("SQLite file", mode="bm25", budget=45, top=1, expand="parent")
    assert c.text == "SQLite keeps a whole database in one file."


@pytest.mark.parametrize("mode", ["dense", "bm25", "hybrid"])
def test_every_mode_keeps_each_rankers_score_and_rank(tmp_path, corpus, mode):
    with open_index(tmp_path) as ix:
        ix.add([corpus])
        hits = ix.search("SQLite database file", mode=mode, k=5)
    assert hits
    expected = {"dense": {"dense"}, "bm25": {"bm25"}, "hybrid": {"dense", "bm25"}}[mode]
    assert set().union(*(h.ranks for h in hits)) == expected
    top = hits[0]
    if mode == "hybrid":  # scaled scores, 0.7 dense + 0.3 bm25: each ranker's first counts 1 there
        first_in_both = all(top.ranks.get(name, (0, 0))[1] == 1 for name in ("dense", "bm25"))
        assert 0 < top.score <= 1 and (top.score == pytest.approx(1.0)) == first_in_both
    else:
        assert top.ranks[mode] == (top.score, 1)


def test_unchanged_files_are_skipped_and_a_changed_file_reembeds_only_its_units(tmp_path, corpus):
    emb = CountingEmbedder()
    with open_index(tmp_path, emb) as ix:
        ix.add([corpus])
        # fruit.txt's units embed its name ("db" says too little)
        assert sorted(emb.embedded) == sorted([f"fruit\n{line}" for line in FRUIT.replace("\n\n", "\n").split("\n")]
                                              + DB.replace("\n\n", "\n").split("\n"))
        emb.embedded.clear()
        again = ix.add([corpus])
        assert (again.added, again.updated, again.unchanged, again.embedded) == (0, 0, 2, 0)
        assert emb.embedded == []
        write(corpus / "fruit.txt", FRUIT + "\nDates are sweet.")
        changed = ix.add([corpus])
        assert (changed.added, changed.updated, changed.unchanged) == (0, 1, 1)
        # only the new line is embedded: the others are in the vector cache
        assert emb.embedded == ["fruit\nDates are sweet."]
        assert ix.check().ok
        [c] = ix.query("Dates sweet", mode="bm25", top=1, expand="none")
        # the line grown to whole sentences of at least 15 words (docs/expansion.md, "Context shape")
        assert c.text.endswith("Dates are sweet.") and len(c.text.split()) >= 15


def test_a_file_read_as_another_format_since_it_was_indexed_is_read_again(tmp_path):
    # an index written before .rst files had their own reader stored them as plain text
    write(tmp_path / "docs" / "guide.rst", "Guide\n=====\n\nIntro.\n\nUsage\n~~~~~\n\nRun it.\n")
    with open_index(tmp_path, strategy="hierarchical") as ix:
        ix.add([tmp_path / "docs"])
    with sqlite3.connect(tmp_path / "ix" / "index.db") as db:
        db.execute("UPDATE documents SET format = 'text', meta = NULL")
    emb = CountingEmbedder()
    with open_index(tmp_path, emb, strategy="hierarchical") as ix:
        again = ix.add([tmp_path / "docs"])
        assert (again.added, again.updated, again.unchanged, again.embedded) == (0, 1, 0, 0)
        [row] = ix.store.documents()
        assert (row.format, dict(row.metadata)) == ("rst", {"title": "Guide"})
        assert ix.add([tmp_path / "docs"]).unchanged == 1
        assert ix.check().ok


def test_copy_rewrites_a_document_the_target_holds_as_another_format(tmp_path):
    write(tmp_path / "docs" / "guide.rst", "Guide\n=====\n\nIntro.\n\nUsage\n~~~~~\n\nRun it.\n")
    with open_index(tmp_path, strategy="hierarchical") as ix:
        ix.add([tmp_path / "docs"])
        target = tmp_path / "copy.db"
        assert ix.copy_to(target).copied == 1
        with sqlite3.connect(target) as db:
            db.execute("UPDATE documents SET format = 'text'")
        again = ix.copy_to(target)
        assert (again.copied, again.unchanged) == (1, 0)
        assert ix.copy_to(target).unchanged == 1
    with Index.open(target, embedder=CountingEmbedder()) as copy:
        assert [r.format for r in copy.documents()] == ["rst"]


def test_files_chunked_by_an_older_parser_version_are_read_again_and_nothing_is_embedded(tmp_path, corpus,
                                                                                        monkeypatch):
    with open_index(tmp_path) as ix:
        ix.add([corpus])
    monkeypatch.setattr("zoomrag.index.ingest.PARSER_VERSION", PARSER_VERSION + 1)  # a reader improved since
    emb = CountingEmbedder()
    with open_index(tmp_path, emb) as ix:
        again = ix.add([corpus])
        assert (again.added, again.updated, again.reread, again.unchanged, again.embedded) == (0, 2, 2, 0, 0)
        assert emb.embedded == []
        assert ix.store.document_readings() == {d: Reading("text", PARSER_VERSION + 1) for d in ("db.txt", "fruit.txt")}
        assert ix.add([corpus]).unchanged == 2
        assert ix.check().ok


def _without_parser_column(path) -> None:
    """The index file as a zoomrag from before parser versions wrote it."""
    with sqlite3.connect(path) as db:
        db.execute("ALTER TABLE documents DROP COLUMN parser")


def _document_columns(path) -> list[str]:
    with sqlite3.connect(path) as db:
        return [r[1] for r in db.execute("PRAGMA table_info(documents)")]


def test_an_index_file_from_before_parser_versions_is_read_as_it_is_and_upgraded_by_indexing(tmp_path, corpus):
    path = tmp_path / "ix" / "index.db"
    with open_index(tmp_path) as ix:
        ix.add([corpus])
    _without_parser_column(path)
    with Index.open(path, create=False) as reader:
        assert reader.query("SQLite file", mode="bm25", top=1, expand="none")[0].doc_id == "db.txt"
        assert set(reader.store.document_readings().values()) == {Reading("text", 0)}
        assert reader.check().ok, reader.check().problems
    assert "parser" not in _document_columns(path)  # reading changed nothing
    emb = CountingEmbedder()
    with open_index(tmp_path, emb) as ix:
        assert "parser" in _document_columns(path)  # opening it for writing added the column
        again = ix.add([corpus])
        assert (again.updated, again.unchanged, again.embedded) == (2, 0, 0)
        assert set(ix.store.document_readings().values()) == {Reading("text", PARSER_VERSION)}
        assert ix.add([corpus]).unchanged == 2
        assert ix.check().ok, ix.check().problems


def test_a_store_opened_without_set_up_adds_the_parser_column_on_its_first_write(tmp_path, corpus):
    path = tmp_path / "ix" / "index.db"
    with open_index(tmp_path) as ix:
        ix.add([corpus])
    _without_parser_column(path)
    with Index.open(path, create=False, embedder=CountingEmbedder(), strategy=ParagraphLines(),
                    counter=CharCounter()) as ix:
        assert ix.add([corpus]).updated == 2
        assert set(ix.store.document_readings().values()) == {Reading("text", PARSER_VERSION)}


def test_copy_carries_the_parser_version_each_tree_was_made_with(tmp_path, corpus, monkeypatch):
    monkeypatch.setattr("zoomrag.index.ingest.PARSER_VERSION", PARSER_VERSION + 1)
    target = tmp_path / "copy.db"
    with open_index(tmp_path) as ix:
        ix.add([corpus])
        assert ix.copy_to(target).copied == 2
        with Index.open(target, create=False) as copy:
            assert set(copy.store.document_readings().values()) == {Reading("text", PARSER_VERSION + 1)}
        with sqlite3.connect(target) as db:
            db.execute("UPDATE documents SET parser = 0 WHERE id = 'db.txt'")
        again = ix.copy_to(target)
        assert (again.copied, again.unchanged) == (1, 1)
    with Index.open(target, create=False) as copy:
        assert set(copy.store.document_readings().values()) == {Reading("text", PARSER_VERSION + 1)}


def test_a_reader_refuses_dense_search_after_another_process_rebuilt_with_another_embedder(tmp_path, corpus):
    with open_index(tmp_path) as reader:
        reader.add([corpus])
        assert reader.query("SQLite file", mode="dense", top=1)
        with open_index(tmp_path, CountingEmbedder(dimension=48), reindex=True) as writer:
            writer.add([corpus])
        for mode in ("dense", "hybrid"):
            with pytest.raises(IndexMismatchError, match=r"rebuilt with the embedder hash \(48 dimensions\) after "
                                                         r"this process opened it with hash \(32\); open it again"):
                reader.query("SQLite file", mode=mode, top=1)
        assert reader.query("SQLite file", mode="bm25", top=1)  # full text needs no vectors
    with open_index(tmp_path, CountingEmbedder(dimension=48)) as reopened:
        assert reopened.query("SQLite file", mode="dense", top=1)


def test_the_same_text_in_two_documents_is_embedded_once(tmp_path):
    emb = CountingEmbedder()
    docs = [Document.from_text("Shared line.\nOwn line one.", id="a"),
            Document.from_text("Shared line.\nOwn line two.", id="b")]
    with open_index(tmp_path, emb) as ix:
        ix.add(docs)
    assert sorted(emb.embedded) == ["Own line one.", "Own line two.", "Shared line."]


@pytest.mark.parametrize("mode", ["dense", "bm25", "hybrid"])
def test_a_text_copied_into_many_documents_takes_one_rank(tmp_path, mode):
    # the copies score alike in each ranker; without one-per-text they fill the first ranks
    copies = [Document.from_text(f"Sizes are counted in tokens here.\nNote {i}.", id=f"copy{i}") for i in range(6)]
    answer = Document.from_text("Other text.\nSizes are counted in tokens by the tokenizer.", id="answer")
    with open_index(tmp_path) as ix:
        ix.add([*copies, answer])
        ranked = ix.search("Sizes are counted in tokens", mode=mode, k=4)
    texts = [h.doc_id for h in ranked]
    assert sum(d.startswith("copy") for d in texts) == 1
    assert "answer" in texts


def test_delete_and_prune(tmp_path, corpus):
    with open_index(tmp_path) as ix:
        ix.add([corpus])
        assert ix.delete(str(corpus / "db.txt")) is True
        assert ix.delete("no-such-doc") is False
        assert ix.query("SQLite", mode="bm25") == []
        ix.add([corpus])
        (corpus / "fruit.txt").unlink()
        report = ix.add([corpus], prune=True)
        assert report.removed == 1
        assert [d.source for d in ix.documents()] == [str(corpus / "db.txt")]
        assert ix.check().ok


def test_prune_leaves_documents_outside_the_given_folders(tmp_path, corpus):
    other = write(tmp_path / "other" / "note.txt", "A note about SQLite.")
    with open_index(tmp_path) as ix:
        ix.add([corpus, other])
        other.unlink()
        ix.add([corpus], prune=True)
        assert len(ix.documents()) == 3  # note.txt is not under docs/, so it stays
        assert ix.prune() == 1  # prune() without folders removes every file that is gone
        assert len(ix.documents()) == 2


def test_unreadable_files_are_skipped_with_the_reason_and_the_rest_indexed(tmp_path, corpus):
    (corpus / "image.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00")
    (corpus / "latin1.txt").write_bytes("caf\xe9".encode("latin-1"))
    with open_index(tmp_path) as ix:
        report = ix.add([corpus])
    reasons = dict(report.skipped)
    assert report.added == 2
    assert "a picture, whose text is read by OCR only when asked" in reasons[str(corpus / "image.png")]
    assert "not valid UTF-8" in reasons[str(corpus / "latin1.txt")]


def test_missing_path_is_an_input_error(tmp_path):
    with open_index(tmp_path) as ix, pytest.raises(InputError, match="nope: no such file or folder"):
        ix.add([tmp_path / "nope"])


def test_reopening_with_another_embedder_names_the_pin_and_the_rebuild_command(tmp_path, corpus):
    with open_index(tmp_path) as ix:
        ix.add([corpus])
    path = tmp_path / "ix" / "index.db"
    with pytest.raises(IndexMismatchError) as err:
        Index.open(path, embedder=CountingEmbedder(dimension=64))
    msg = str(err.value)
    assert "was built with embedder 'hash' (version 'hash-v1-d32', dimension 32)" in msg
    assert f"zoomrag index --reindex --index {path} --embedder hash {corpus}" in msg
    with pytest.raises(IndexMismatchError, match="not embedder 'minilm'"):
        Index.open(path, embedder="minilm")


def test_reopening_with_another_strategy_is_a_mismatch(tmp_path, corpus):
    with open_index(tmp_path) as ix:
        ix.add([corpus])
    with pytest.raises(IndexMismatchError, match=r"built with strategy test-paragraph-lines, not strategy "
                                                   r"fixed \(.*size=99.*--strategy fixed --set size=99"):
        Index.open(tmp_path / "ix" / "index.db", strategy="fixed", params={"size": 99})


def test_the_tokenizer_behind_tokens_is_pinned_and_a_change_is_refused(tmp_path, corpus, monkeypatch):
    from zoomrag.text.tokens import ApproxCounter, default_counter

    with open_index(tmp_path) as ix:
        ix.add([corpus])
    path = tmp_path / "ix" / "index.db"
    built_with = default_counter().name
    # as if the model's extra had been removed since: 'tokens' now means the approximation
    monkeypatch.setattr("zoomrag.index.settings.default_counter", ApproxCounter)
    with pytest.raises(IndexMismatchError) as err:
        open_index(tmp_path)
    msg = str(err.value)
    assert f"sizes its chunks with the {built_with!r} tokenizer, but 'tokens' means 'approx'" in msg
    assert f"zoomrag index --reindex --index {path} {corpus}" in msg
    with open_index(tmp_path, reindex=True) as ix:  # a rebuild pins the tokenizer now installed
        ix.add([corpus])
    with open_index(tmp_path) as ix:
        assert ix.documents()


def test_reindex_rebuilds_with_another_embedder(tmp_path, corpus):
    with open_index(tmp_path) as ix:
        ix.add([corpus])
    emb = CountingEmbedder(dimension=64)
    with open_index(tmp_path, emb, reindex=True) as ix:
        report = ix.add([corpus])
        assert report.added == 2 and report.embedded == 6
        assert ix.pins.dimension == 64
        assert ix.check().ok
    with Index.open(tmp_path / "ix" / "index.db") as ix:  # pins are read back from the file
        assert (ix.pins.embedder_version, ix.pins.chunking_name) == ("hash-v1-d64", "test-paragraph-lines")


def test_an_old_schema_is_a_mismatch_and_reindex_replaces_it(tmp_path, corpus):
    with open_index(tmp_path) as ix:
        ix.add([corpus])
    path = tmp_path / "ix" / "index.db"
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE index_meta SET value = '0' WHERE key = 'schema_version'")
    with pytest.raises(IndexMismatchError, match=r"uses index schema 0, this zoomrag reads schema 5; "
                                                   r"rebuild it with: zoomrag index --reindex"):
        open_index(tmp_path)
    with open_index(tmp_path, reindex=True) as ix:
        assert ix.add([corpus]).added == 2
        assert ix.check().ok


def test_a_file_that_is_not_an_index_is_refused(tmp_path):
    path = tmp_path / "other.db"
    with sqlite3.connect(path) as conn:
        conn.execute("CREATE TABLE t(x)")
    with pytest.raises(StoreError, match="not a zoomrag index"):
        Index.open(path, embedder=CountingEmbedder())
    with pytest.raises(StoreError, match="will not overwrite it"):
        Index.open(path, embedder=CountingEmbedder(), reindex=True)


def test_opening_a_missing_index_without_create_says_how_to_build_one(tmp_path):
    with pytest.raises(StoreError, match=r"no index here; build one with: zoomrag index PATH\.\.\. --index"):
        Index.open(tmp_path / "none.db", create=False)


def test_a_second_writer_fails_with_a_clear_message(tmp_path, corpus):
    with open_index(tmp_path) as first, open_index(tmp_path, lock_timeout=0.1) as second:
        first._lock.acquire()
        try:
            with pytest.raises(IndexLockedError, match=r"index\.db is being written by another zoomrag "
                                                       r"process \(pid \d+\); wait for it to finish"):
                second.add([corpus])
        finally:
            first._lock.release()
        assert second.add([corpus]).added == 2


def test_a_reader_keeps_working_while_a_writer_holds_a_transaction(tmp_path, corpus):
    with open_index(tmp_path) as ix:
        ix.add([corpus])
    path = tmp_path / "ix" / "index.db"
    writer = sqlite3.connect(path, isolation_level=None)
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("DELETE FROM documents")  # uncommitted: readers must still see the old state
    try:
        with Index.open(path, create=False) as reader:
            assert reader.stats().documents == 2
            [c] = reader.query("SQLite file", mode="bm25", top=1, expand="none")
            assert c.text == "SQLite keeps a whole database in one file."
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_stats_and_check(tmp_path, corpus):
    with open_index(tmp_path) as ix:
        ix.add([corpus])
        s = ix.stats()
        assert (s.documents, s.characters, s.units, s.vectors) == (2, len(FRUIT) + len(DB), 6, 6)
        assert s.nodes == 2 + 4 + 6  # roots, paragraphs, lines
        assert s.embedder == "hash (hash-v1-d32, 32-d)"
        assert s.chunking == "strategy test-paragraph-lines; units embed their heading trails"
        assert 0 < s.bytes_without_vectors < s.file_bytes
        report = ix.check()
    assert report.ok and report.problems == ()
    assert report.counts["documents"] == 2


def test_check_reports_damage(tmp_path, corpus):
    with open_index(tmp_path) as ix:
        ix.add([corpus])
    path = tmp_path / "ix" / "index.db"
    with sqlite3.connect(path) as conn:
        conn.execute("DELETE FROM vectors WHERE key IN (SELECT vec FROM nodes WHERE vec IS NOT NULL LIMIT 1)")
        conn.execute("UPDATE nodes SET span_end = 100000 WHERE row = (SELECT max(row) FROM nodes)")
    with open_index(tmp_path) as ix:
        report = ix.check()
    assert not report.ok
    assert "1 units point to a missing vector" in report.problems
    assert "1 nodes have a span outside their document's text" in report.problems


def test_tree_is_stored_exactly(tmp_path, corpus):
    chunker = ParagraphLines()
    with open_index(tmp_path) as ix:
        ix.add([corpus])
        stored = ix.tree(str(corpus / "db.txt"))
    from zoomrag.load import load_path

    original = chunker.chunk(load_path(corpus / "db.txt", id="db.txt"))
    assert [n.to_dict() for n in stored.nodes] == [n.to_dict() for n in original.nodes]
    with open_index(tmp_path) as ix, pytest.raises(StoreError, match="no document 'nothing'"):
        ix.tree("nothing")


def test_bad_arguments_are_config_errors(tmp_path, corpus):
    with open_index(tmp_path) as ix:
        ix.add([corpus])
        with pytest.raises(ConfigError, match="unknown mode 'fuzzy'; choose one of: dense, bm25, hybrid"):
            ix.query("x", mode="fuzzy")
        with pytest.raises(ConfigError, match=r"unknown expansion 'grow'; choose one of: .*none, parent"):
            ix.query("x", expand="grow")
        with pytest.raises(ConfigError, match="budget=0 must be at least 1 token"):
            ix.query("x", budget=0)
    with pytest.raises(ConfigError, match="a strategy or a profile, not both"):
        Index.open(tmp_path / "x.db", strategy="fixed", profile="default")


def test_an_empty_index_answers_nothing(tmp_path):
    with Index.open(tmp_path / "empty.db") as ix:
        assert ix.query("anything") == []
        assert ix.check().ok


@settings(max_examples=25, deadline=None)
@given(query=st.text(max_size=40).filter(str.strip), budget=st.integers(1, 200), top=st.integers(1, 5),
       expand=st.sampled_from(["none", "parent"]), mode=st.sampled_from(["bm25", "hybrid", "dense"]))
def test_contexts_never_repeat_a_character_and_fit_the_budget(tmp_path_factory, query, budget, top, expand,
                                                              mode):
    tmp = tmp_path_factory.mktemp("prop")
    docs = [Document.from_text(FRUIT, id="fruit"), Document.from_text(DB, id="db"),
            Document.from_text("SQL \"quotes\" AND OR NEAR( * col: 数据库 在 一个 文件", id="odd")]
    with open_index(tmp) as ix:
        ix.add(docs)
        contexts = ix.query(query, budget=budget, top=top, expand=expand, mode=mode)
    assert len(contexts) <= top
    assert sum(c.end - c.start for c in contexts) <= budget  # CharCounter: tokens are characters
    by_doc: dict[str, list[tuple[int, int]]] = {}
    for c in contexts:
        by_doc.setdefault(c.doc_id, []).append((c.start, c.end))
        for s, e, _ in c.hits:
            assert c.start <= s <= e <= c.end
    for spans in by_doc.values():
        spans.sort()
        assert all(a_end < b_start for (_, a_end), (b_start, _) in pairwise(spans))
    assert [c.score for c in contexts] == sorted((c.score for c in contexts), reverse=True)


def test_the_index_files_inside_an_indexed_folder_are_not_indexed(tmp_path, corpus):
    with Index.open(corpus / "my.db", embedder=CountingEmbedder(), strategy=ParagraphLines()) as ix:
        report = ix.add([corpus])
        assert ix.add([corpus]).unchanged == 2
    assert (report.added, report.skipped) == (2, ())


def test_a_long_lived_reader_sees_documents_changed_by_another_writer(tmp_path, corpus):
    with open_index(tmp_path) as writer:
        writer.add([corpus])
    with open_index(tmp_path) as reader:
        [before] = reader.query("SQLite file", mode="bm25", top=1, expand="parent")
        assert before.text.startswith("Databases store rows.")
        tree_of_fruit = reader._searcher.trees.tree("fruit.txt")
        write(corpus / "db.txt", DB.replace("Databases store rows.", "Tables hold rows."))
        with open_index(tmp_path) as writer:
            assert writer.add([corpus]).updated == 1
        [after] = reader.query("SQLite file", mode="bm25", top=1, expand="parent")
        assert after.text.startswith("Tables hold rows.")
        # the unchanged document's cached tree was kept, not reloaded
        assert reader._searcher.trees.tree("fruit.txt") is tree_of_fruit


class _WholeTrees:
    """The same policy without its ``reads`` promise: the index gives it whole trees."""

    def __init__(self, inner):
        self.inner = inner
        self.name = inner.name

    def expand(self, hits, trees, budget):
        return self.inner.expand(hits, trees, budget)


MARKDOWN = [
    ("# Fruit\n\nApples are red. Apples grow on trees.\n\n## Bananas\n\nBananas are yellow and long.\n"
     "Bananas grow in bunches.\n\n## Cherries\n\nCherries are small and dark red.\n"),
    ("# Databases\n\nDatabases store rows in tables.\n\n## SQLite\n\nSQLite keeps a whole database in one "
     "file. SQLite needs no server.\n\n### Indexes\n\nIndexes make lookups fast. A red index is rare.\n"),
]


@pytest.mark.parametrize("policy", ["none", "parent", "parent:-2", "parent:0", "parent:1"])
def test_policies_that_read_only_ancestors_get_the_same_contexts_from_partial_trees(tmp_path, policy):
    from zoomrag.expand import NoExpansion, ParentExpansion

    name, _, depth = policy.partition(":")
    expander = NoExpansion() if name == "none" else ParentExpansion(int(depth) if depth else -1)
    docs = [Document.from_text(t, id=f"m{i}", format="markdown") for i, t in enumerate(MARKDOWN)]
    rules: set[str] = set()
    with Index.open(tmp_path / "i.db", embedder=CountingEmbedder(), strategy="hierarchical",
                    counter=CharCounter()) as ix:
        ix.add(docs)
        for q in ["red apples", "SQLite server", "bananas grow", "index lookups red"]:
            for mode in ("dense", "bm25", "hybrid"):
                for budget, top, fill, order in [(60, 3, True, "score"), (400, None, False, "document"),
                                                 (25, 1, True, "score")]:
                    kw = {"mode": mode, "budget": budget, "top": top, "fill": fill, "order": order, "explain": True}
                    got = ix.query(q, expand=expander, **kw)
                    assert got == ix.query(q, expand=_WholeTrees(expander), **kw)
                    rules.update(c.rule.split(";")[0] for c in got)
    # several rules, so several kinds of spans, were compared (`none` gives units only: contexts
    # grown to whole sentences leave no room for a piece cut to fit)
    assert len(rules) > 1 or name == "none"


class WordCounter:
    """One token per whitespace-separated word."""

    name = "test-words"

    def token_starts(self, text: str) -> list[int]:
        return [m.start() for m in re.finditer(r"\S+", text)]


def test_the_embedder_and_counter_objects_given_are_the_ones_used(tmp_path, corpus):
    emb = CountingEmbedder()
    with Index.open(tmp_path / "i.db", embedder=emb, strategy=ParagraphLines(), counter=WordCounter()) as ix:
        ix.add([corpus])
        assert ix.embedder is emb and "fruit\nApples are red." in emb.embedded
        # The fruit paragraph is 6 words (35 characters): the budget is counted in words.
        paragraph = ix.query("Apples red", mode="bm25", budget=6, top=1, expand="parent")
        line = ix.query("Apples red", mode="bm25", budget=5, top=1, expand="parent")
    assert [c.text for c in paragraph] == ["Apples are red.\nBananas are yellow."]
    assert [c.text for c in line] == ["Apples are red."]


def test_an_index_keeps_its_profiles_routes_when_the_profile_changes(tmp_path, monkeypatch):
    """A profile is a name: what it resolves to can change (an edited profiles file, another
    release's built-ins). An index keeps the routes it was built with; naming the profile asks
    for what it means now, which would chunk new documents unlike the stored ones."""
    profiles = tmp_path / "profiles.toml"
    profiles.write_text('[profiles.notes]\ntext = { strategy = "fixed", size = 64 }\n')
    monkeypatch.setenv("ZOOMRAG_PROFILES", str(profiles))
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("One paragraph of notes.\n\nAnother paragraph of notes.\n")
    path = tmp_path / "ix.db"
    with Index.open(path, embedder=CountingEmbedder(), profile="notes") as ix:
        ix.add([docs])
    profiles.write_text('[profiles.notes]\ntext = { strategy = "fixed", size = 32 }\n')
    (docs / "b.md").write_text("word " * 60)  # 60 tokens: one chunk of at most 64, two of 32
    with Index.open(path, embedder=CountingEmbedder()) as ix:  # as built
        ix.add([docs])
        assert len(ix.tree("b.md").leaves()) == 1
        assert "text=fixed(size=64" in ix.settings.chunking()[2].describe()
    with pytest.raises(IndexMismatchError) as err:
        Index.open(path, embedder=CountingEmbedder(), profile="notes")
    msg = str(err.value)
    assert "was chunked with profile 'notes' as auto(profile='notes'; text=fixed(size=64" in msg
    assert "size=32" in msg and f"zoomrag index --reindex --index {path} {docs}" in msg
    with Index.open(path, embedder=CountingEmbedder(), profile="notes", reindex=True) as ix:  # new routes
        ix.add([docs])
    with Index.open(path, embedder=CountingEmbedder()) as ix:
        assert len(ix.tree("b.md").leaves()) == 2


def test_an_index_pinned_before_routes_were_data_keeps_them_read_from_their_description(tmp_path, monkeypatch):
    profiles = tmp_path / "profiles.toml"
    profiles.write_text('[profiles.notes]\ntext = { strategy = "fixed", size = 64 }\n')
    monkeypatch.setenv("ZOOMRAG_PROFILES", str(profiles))
    path = tmp_path / "ix.db"
    with Index.open(path, embedder=CountingEmbedder(), profile="notes") as ix:
        ix.add(Document.from_text("Notes.", id="a.md"))
        ix.store.conn.execute("DELETE FROM index_meta WHERE key = 'chunking_routes_data'")  # an older index
    profiles.write_text('[profiles.notes]\ntext = { strategy = "fixed", size = 32 }\n')
    with Index.open(path, embedder=CountingEmbedder()) as ix:
        ix.add(Document.from_text("word " * 60, id="b.md"))
        assert len(ix.tree("b.md").leaves()) == 1  # chunked at 64, as the stored documents were
        # a description that does not read back exactly: the profile as it resolves now, checked
        ix.store.conn.execute("UPDATE index_meta SET value = 'auto(profile=''notes''; text=fixed(size=<64>))' "
                              "WHERE key = 'chunking_routes'")
    with pytest.raises(IndexMismatchError, match="was chunked with profile 'notes' as auto"):
        Index.open(path, embedder=CountingEmbedder())


@pytest.mark.parametrize("name", profile_names())
def test_every_built_in_profiles_description_reads_back_into_its_routes(name):
    router = chunker_for_profile(name, {"table.max_values": 7} if name in ("default", "parent_child") else {})
    assert routes_from_description(router.describe()) == router.pinned_routes()
    assert routes_from_description("auto(profile='x')") is None


class _CollectorWatch(CountingEmbedder):
    """Records whether the garbage collector was on when a question was embedded."""

    def __init__(self) -> None:
        super().__init__()
        self.collector: list[bool] = []

    def embed_query(self, text):
        import gc

        self.collector.append(gc.isenabled())
        return super().embed_query(text)


def test_a_query_pauses_the_collector_and_leaves_it_as_it_was(tmp_path, corpus):
    import gc

    emb = _CollectorWatch()
    with open_index(tmp_path, emb=emb) as ix:
        ix.add([corpus])
        was = gc.isenabled()
        try:
            gc.enable()
            assert ix.query("SQLite file", mode="dense", budget=200)
            assert gc.isenabled() and emb.collector[-1] is False
            gc.disable()  # an application that turned it off keeps it off
            assert ix.query("red apples", mode="dense", budget=200)
            assert not gc.isenabled()
            gc.enable()
            with pytest.raises(ConfigError):
                ix.query("SQLite file", mode="nonsense")
            assert gc.isenabled()  # on again after an error inside the query too
        finally:
            (gc.enable if was else gc.disable)()


def test_a_folder_that_cannot_be_listed_is_reported_and_its_documents_are_kept(tmp_path, corpus, monkeypatch):
    write(corpus / "locked" / "deep.txt", "Deep words about pears in a locked folder.")
    with open_index(tmp_path) as ix:
        ix.add([corpus])
        assert len(ix.documents()) == 3
        real = os.scandir

        def scandir(path=".", *a, **k):
            if Path(path).name == "locked":
                raise PermissionError(13, "Permission denied", str(path))
            return real(path, *a, **k)

        monkeypatch.setattr(os, "scandir", scandir)
        report = ix.add([corpus], prune=True)
        assert report.removed == 0 and str(corpus / "locked" / "deep.txt") in report.kept
        assert any("locked: cannot list this folder (Permission denied)" in why for _, why in report.skipped)
        assert len(ix.documents()) == 3


def test_a_site_sphinx_built_is_indexed_as_its_pages_and_the_rest_is_reported(tmp_path):
    site = tmp_path / "site"
    write(site / "index.html", "<h1>Tool</h1><p>The tool reads pears.</p>")
    write(site / "_sources" / "index.rst.txt", "Tool\n====\n\nThe tool reads pears.\n")
    write(site / "_static" / "theme.js", "function toggle() { return 1; }\n")
    write(site / "searchindex.js", "Search.setIndex({})\n")
    with open_index(tmp_path) as ix:
        report = ix.add([site])
        assert [d.id for d in ix.documents()] == ["index.html"]
        why = dict(report.skipped)
        assert "the page is read instead" in why[str(site / "_sources" / "index.rst.txt")]
        assert "theme or the search index" in why[str(site / "_static" / "theme.js")]
