"""What only the PostgreSQL store has: its URL on the command line, its errors, pgvector's HNSW
index above the ANN threshold, and its full-text terms (the file store's tokenizer)."""

from __future__ import annotations

import io
import json
import subprocess
import sys

import pytest
from click.testing import CliRunner
from test_index_support import CountingEmbedder, ParagraphLines, write
from test_index_support import cli_contexts as _contexts
from test_index_support import run_cli as run

from zoomrag.cli import main
from zoomrag.errors import IndexMismatchError, StoreError
from zoomrag.index import Index
from zoomrag.model import Document
from zoomrag.parse import PARSER_VERSION
from zoomrag.store import Reading, fts
from zoomrag.store.postgres import expression_terms, fold, public_url, unit_terms

pytestmark = pytest.mark.xdist_group("postgres")

UNREACHABLE = "postgresql://nobody@127.0.0.1:9/nothing"


def test_cli_index_and_query_on_postgres_give_the_file_store_contexts(pg_url, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for i in range(6):
        write(tmp_path / "docs" / f"part{i}.md", f"# Part {i}\n\nSQLite keeps index {i} in one file.\n\n"
                                                  f"## Queries {i}\n\nA query returns contexts within a budget {i}.\n")
    build = ["--embedder", "hash", "--strategy", "fixed", "--set", "size=60", "--set", "unit=chars", "-q", "docs"]
    run("index", "--store", pg_url, *build)
    run("index", "--index", "file.db", *build)
    for q in ("how is the index kept", "query budget 3"):
        ask = ["query", q, "--mode", "dense", "--json", "--budget", "80"]
        on_server = _contexts(run(*ask, "--store", pg_url))
        assert on_server == _contexts(run(*ask, "--index", "file.db"))
        assert on_server
    stats = run("stats", "--store", pg_url, "--json")
    assert json.loads(stats.stdout)["documents"] == 6
    assert "is consistent" in run("check", "--store", pg_url).stdout
    exported = run("export", "--store", pg_url, "--out", "out.jsonl")
    assert exported.exit_code == 0
    assert sum(1 for line in (tmp_path / "out.jsonl").open() if '"type": "document"' in line) == 6


def test_unreachable_server_is_one_line_without_traceback(tmp_path):
    with pytest.raises(StoreError, match=r"^postgresql://nobody@127\.0\.0\.1:9/nothing: cannot reach the "
                                         r"PostgreSQL server \(.*\); start it, or fix the URL"):
        Index.open(UNREACHABLE)
    write(tmp_path / "a.txt", "text")
    result = CliRunner().invoke(main, ["index", "--store", UNREACHABLE, str(tmp_path / "a.txt")])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert result.stderr.count("\n") == 1 and "cannot reach the PostgreSQL server" in result.stderr


def test_store_option_takes_only_a_server_url(tmp_path):
    result = CliRunner().invoke(main, ["query", "x", "--store", "index.db"])
    assert result.exit_code == 2
    assert "is not a server URL" in result.stderr


def test_missing_extra_names_the_install_command(tmp_path):
    code = ("import sys; sys.modules['psycopg'] = None\n"
            "from zoomrag.cli import main\n"
            f"sys.argv = ['zoomrag', 'stats', '--store', {UNREACHABLE!r}]\n"
            "main()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "error: a postgresql:// store needs the postgres extra: pip install 'zoomrag[postgres]'"]


def test_password_never_appears_in_messages():
    assert public_url("postgresql://me:secret@db.example:5433/idx?sslmode=require") == \
        "postgresql://me@db.example:5433/idx?sslmode=require"
    with pytest.raises(StoreError) as caught:
        Index.open("postgresql://me:secret@127.0.0.1:9/x")
    assert "secret" not in str(caught.value)


def test_a_missing_index_is_named_with_the_command_to_build_it(pg_url):
    with pytest.raises(StoreError, match=r"no index here; build one with: zoomrag index --store"):
        Index.open(pg_url, create=False)


def test_hnsw_index_answers_above_the_threshold(pg_index_url, tmp_path):
    docs = [Document(id=f"d{i}", source=f"mem://{i}", text=f"Line {i} about topic {i % 7}.\nAnd {i} more words.",
                     metadata={"even": i % 2 == 0}) for i in range(80)]
    with Index.open(pg_index_url, embedder=CountingEmbedder(), strategy=ParagraphLines(), ann_threshold=50) as ix, \
            Index.open(str(tmp_path / "f.db"), embedder=CountingEmbedder(), strategy=ParagraphLines(),
                       ann="off") as exact:
        ix.add(docs)
        exact.add(docs)
        assert ix.stats().ann == "pgvector hnsw"
        for q in ("topic 3", "Line 42", "more words"):
            got = [h.node_id for h in ix.search(q, mode="dense", k=10)]
            want = [h.node_id for h in exact.search(q, mode="dense", k=10)]
            assert len(set(got) & set(want)) >= 9
            filtered = ix.search(q, mode="dense", k=10, where={"even": True})
            assert filtered and all(int(h.doc_id[1:]) % 2 == 0 for h in filtered)
            # exact on both sides; pgvector sums in another order, so near-ties may swap
            want_f = exact.search(q, mode="dense", k=10, where={"even": True})
            assert [h.score for h in filtered] == pytest.approx([h.score for h in want_f], abs=1e-5)
            assert len({h.node_id for h in filtered} & {h.node_id for h in want_f}) >= 9


def test_text_postgres_cannot_hold_is_refused_by_name(pg_url):
    with Index.open(pg_url, embedder=CountingEmbedder(), strategy=ParagraphLines()) as ix:
        with pytest.raises(StoreError, match="mem://nul: the text holds a NUL character"):
            ix.add([Document(id="nul", source="mem://nul", text="before\x00after")])


def test_terms_are_the_file_stores_tokens_without_diacritics():
    assert unit_terms("Café CAFE naïve 北京 x_y") == ["cafe", "naive", "北", "京", "x", "y"]
    assert fold("Ünïcödé") == "Unicode"
    for term in ("plain", 'quo"te', "北京"):
        assert expression_terms(fts.expression(term)) == ([fold(term)] if not fts.is_phrase(term) else list(term))


def _export(ix: Index) -> list[str]:
    out = io.StringIO()
    ix.export(out, vectors=True)
    return out.getvalue().splitlines()[1:]  # the first line names the index


def test_copy_a_file_index_to_postgres_and_back(pg_url, tmp_path):
    docs = [Document(id=f"d{i}", source=f"mem://{i}", text=f"Line {i}.\nAnother line {i}.\n\nLast {i}.",
                     metadata={"n": i}) for i in range(6)]
    with Index.open(str(tmp_path / "a.db"), embedder=CountingEmbedder(), strategy=ParagraphLines(),
                    levels=True) as src:
        src.add(docs)
        report = src.copy_to(pg_url)
        assert (report.copied, report.unchanged) == (6, 0)
        assert src.copy_to(pg_url).unchanged == 6  # resumes: nothing copied twice
        original = _export(src)
    emb = CountingEmbedder()
    with Index.open(pg_url, embedder=emb, strategy=ParagraphLines()) as copy:
        assert _export(copy) == original
        assert copy.check().ok, copy.check().problems
        assert copy.add(docs).unchanged == 6 and emb.embedded == []
        result = run("copy", "--store", pg_url, "--to", str(tmp_path / "b.db"))
        assert result.stdout.startswith("6 copied, 0 unchanged")
    with Index.open(str(tmp_path / "b.db")) as back:
        assert _export(back) == original
        assert back.check().ok
    with Index.open(str(tmp_path / "other.db"), embedder=CountingEmbedder(dimension=16),
                    strategy=ParagraphLines()) as other:
        other.add(docs[:1])
        with pytest.raises(IndexMismatchError, match="copy into an empty index"):
            other.copy_to(pg_url)


def test_check_finds_damage_made_behind_zoomrags_back(pg_url):
    import psycopg

    with Index.open(pg_url, embedder=CountingEmbedder(), strategy=ParagraphLines()) as ix:
        ix.add([Document(id=f"d{i}", source=f"mem://{i}", text=f"One {i}.\nTwo {i}.") for i in range(3)])
        assert ix.check().ok
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE nodes SET terms = ARRAY['wrong'] WHERE rowno = (SELECT min(rowno) FROM nodes WHERE unit)")
        conn.execute("UPDATE documents SET text = 'Xne 1.\nTwo 1.' WHERE id = 'd1'")
        conn.execute("DELETE FROM nodes WHERE rowno = (SELECT max(rowno) FROM nodes)")
    with Index.open(pg_url) as ix:
        problems = ix.check().problems
    assert "1 documents have damaged text (first: 'd1')" in problems
    assert "full-text terms disagree with the units' text (1 units)" in problems
    assert "1 documents have a node count that differs from their nodes" in problems
    result = CliRunner().invoke(main, ["check", "--store", pg_url])
    assert result.exit_code == 1 and "Traceback" not in result.output


def test_the_base_install_works_without_the_postgres_extra(tmp_path):
    code = ("import sys; sys.modules['psycopg'] = None; sys.modules['pgserver'] = None\n"
            "from zoomrag import Index\n"
            "from zoomrag.store import Store, open_store\n"
            f"store = open_store({str(tmp_path / 'f.db')!r})\n"
            "assert isinstance(store, Store)\n"
            "print('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "ok", done.stderr


def test_common_terms_are_not_counted_but_estimated_from_the_statistics(pg_url, tmp_path):
    docs = [Document(id=f"d{i}", source=f"mem://{i}", text=f"common words here\nrare{i} line {i}") for i in range(120)]
    with Index.open(pg_url, embedder=CountingEmbedder(), strategy=ParagraphLines()) as ix, \
            Index.open(str(tmp_path / "f.db"), embedder=CountingEmbedder(), strategy=ParagraphLines()) as file:
        ix.add(docs)  # ANALYZE at the end of the run: the statistics hold "common"
        file.add(docs)
        store = ix.store
        exact = store.term_counts(["common", "rare7"])
        assert (exact["common"].units, exact["rare7"].units) == (120, 1)
        capped = store.term_counts(["common", "rare7", "line"], cap=10)
        assert capped["rare7"].units == 1 and capped["common"].units == 11  # "more than 10"
        assert capped["common"].reach == pytest.approx(11 / 120, rel=0.2)  # not counted: estimated
        assert store._common_counts(["common", "rare7"], cap=10).keys() == {"common"}  # type: ignore[attr-defined]
        for q in ("common rare7", "common words line", "rare99 here"):
            assert [h.node_id for h in ix.search(q, mode="bm25", k=5)] == \
                [h.node_id for h in file.search(q, mode="bm25", k=5)]


def test_the_unit_count_is_kept_by_every_write_and_counted_once_for_an_older_index(pg_url):
    docs = [Document(id=f"d{i}", source=f"mem://{i}", text=f"Line {i}.\nAnother {i}.") for i in range(6)]
    with Index.open(pg_url, embedder=CountingEmbedder(), strategy=ParagraphLines()) as ix:
        ix.add(docs)
        store = ix.store
        assert store.meta()["units"] == str(store.unit_count()) == "12"
        ix.delete("d0")
        assert store.meta()["units"] == "10" and ix.check().ok
        store.conn.execute("DELETE FROM index_meta WHERE key = 'units'")  # as an index made before it was kept
        assert store.unit_count() == 10  # counted
        ix.add([Document(id="d9", source="mem://9", text="Nine.\nTen.")])  # the writer's lock counts it first
        assert store.meta()["units"] == "12" and ix.check().ok


def test_an_index_from_before_parser_versions_is_read_as_it_is_and_gains_the_column_when_opened_to_write(pg_url):
    docs = [Document(id=f"d{i}", source=f"mem://{i}", text=f"Line {i}.\nAnother {i}.") for i in range(3)]
    with Index.open(pg_url, embedder=CountingEmbedder(), strategy=ParagraphLines()) as ix:
        ix.add(docs)
        ix.store.conn.execute("ALTER TABLE documents DROP COLUMN parser")  # as an older zoomrag made it
    with Index.open(pg_url, create=False) as reader:
        assert reader.query("another 2", mode="bm25", top=1, expand="none")[0].doc_id == "d2"
        assert set(reader.store.document_readings().values()) == {Reading("text", 0)}
        assert reader.check().ok, reader.check().problems
    emb = CountingEmbedder()
    with Index.open(pg_url, embedder=emb, strategy=ParagraphLines()) as ix:
        report = ix.add(docs)
        assert (report.updated, report.unchanged, report.embedded) == (3, 0, 0)
        assert set(ix.store.document_readings().values()) == {Reading("text", PARSER_VERSION)}
        assert ix.add(docs).unchanged == 3
        assert ix.check().ok, ix.check().problems


def test_dense_search_started_beside_reads_the_snapshot_it_was_started_in(pg_index_url):
    emb = CountingEmbedder()
    docs = [Document(id=f"d{i}", source=f"mem://{i}", text=f"Line {i} about topic {i % 7}.\nAnd {i} more words.")
            for i in range(60)]
    with Index.open(pg_index_url, embedder=CountingEmbedder(), strategy=ParagraphLines(), ann_threshold=50) as writer:
        writer.add(docs)
        reader = Index.open(pg_index_url, embedder=emb, strategy=ParagraphLines(), ann_threshold=50)
        store = reader.store
        q = emb.embed_query("a new line about topic 3")
        with store.snapshot():
            before = store.nearest(q, 10)
            writer.add([Document(id="new", source="mem://new", text="a new line about topic 3")])
            assert store.nearest_started(q, 10)() == before  # on the second connection: the same version
            assert store.nearest_started(q, 10)() == before
        after = store.nearest_started(q, 10)()  # outside a snapshot: searched at once, the newest version
        assert after != before and after == store.nearest(q, 10)
        new_row = {u.doc_id: r for r, u in store.units([r for r, _ in after]).items()}.get("new")
        assert after[0] == (new_row, pytest.approx(1.0))
        # hybrid search through the index: dense rows found beside BM25's reads, as dense alone finds them
        dense = [h.node_id for h in reader.search("a new line about topic 3", mode="dense", k=5)]
        hybrid = reader.search("a new line about topic 3", mode="hybrid", k=5)
        assert dense[0] == hybrid[0].node_id and "dense" in hybrid[0].ranks
        reader.close()


def test_a_hybrid_query_that_fails_leaves_the_second_connection_usable(pg_index_url, monkeypatch):
    import threading

    import zoomrag.index.searching as searching
    from zoomrag.store.postgres import PostgresStore

    docs = [Document(id=f"d{i}", source=f"mem://{i}", text=f"Line {i} about topic {i % 7}.\nAnd {i} more words.")
            for i in range(60)]
    with Index.open(pg_index_url, embedder=CountingEmbedder(), strategy=ParagraphLines(), ann_threshold=50) as ix:
        ix.add(docs)
        want = ix.search("topic 3", mode="hybrid", k=5)
        # BM25 fails at once, and the dense half imports the snapshot only after it ended
        gate = threading.Event()
        real = PostgresStore._nearest_beside

        def late(self, *args, **kwargs):
            gate.wait(5)
            return real(self, *args, **kwargs)

        def failing(*args, **kwargs):
            raise RuntimeError("BM25 failed")

        monkeypatch.setattr(PostgresStore, "_nearest_beside", late)
        monkeypatch.setattr(searching, "bm25_search", failing)
        with pytest.raises(RuntimeError, match="BM25 failed"):
            ix.search("topic 3", mode="hybrid", k=5)
        gate.set()
        monkeypatch.undo()
        assert ix.search("topic 3", mode="hybrid", k=5) == want  # the side connection recovered


def test_ann_off_builds_no_vector_index_and_searches_exactly(pg_url, tmp_path):
    # Where the server's pgvector cannot build an index (its backend dies on some CPUs), this is
    # the way to use it: no build is tried, so nothing crashes.
    docs = [Document(id=f"d{i}", source=f"mem://{i}", text=f"Line {i} about topic {i % 7}.\nAnd {i} more words.")
            for i in range(60)]
    with Index.open(pg_url, embedder=CountingEmbedder(), strategy=ParagraphLines(), ann_threshold=50,
                    ann="off") as ix, \
            Index.open(str(tmp_path / "f.db"), embedder=CountingEmbedder(), strategy=ParagraphLines(),
                       ann="off") as exact:
        ix.add(docs)
        exact.add(docs)
        assert ix.stats().ann.startswith("none (exact search")
        assert ix.store.describe_vectors().startswith("none yet")
        for q in ("topic 3", "Line 42"):
            got = ix.search(q, mode="dense", k=5)
            want = exact.search(q, mode="dense", k=5)
            assert [h.score for h in got] == pytest.approx([h.score for h in want], abs=1e-5)
