"""The Store protocol's conformance suite, written once and run on every backend.

Each test takes ``location``: an SQLite file, then a database on a private PostgreSQL server
(:mod:`pg_server`), then a collection on a private Milvus server with its index file
(:mod:`milvus_server`). Everything goes through the public interfaces: :class:`zoomrag.Index`, the
:class:`~zoomrag.store.Store` protocol, and for crashes a writer process killed with SIGKILL.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import numpy as np
import pytest
from test_index_support import CountingEmbedder, ParagraphLines, write

from zoomrag.errors import IndexMismatchError, StoreError
from zoomrag.index import Index
from zoomrag.model import Document
from zoomrag.parse import PARSER_VERSION
from zoomrag.store import Reading, Store, is_server, open_store, unit_text

pytestmark = pytest.mark.xdist_group("postgres")


@pytest.fixture(params=["sqlite", "postgres", pytest.param("milvus", marks=pytest.mark.milvus)])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return str(tmp_path / "index.db")
    if request.param == "milvus":
        return request.getfixturevalue("milvus_url")
    return request.getfixturevalue("pg_url")


def _folder(root: Path, n: int = 8) -> Path:
    docs = root / "docs"
    for i in range(n):
        write(docs / f"d{i:02}.txt", f"Document {i} opens here.\nIts second line names topic {i % 3}.\n\n"
                                     f"Another paragraph of {i}.\nWith café and 北京大学 {i}.")
    return docs


def _open(location: str, **kw: object) -> Index:
    kw.setdefault("embedder", CountingEmbedder())
    kw.setdefault("strategy", ParagraphLines())
    return Index.open(location, **kw)  # type: ignore[arg-type]


def _counts(location: str) -> dict[str, int]:
    store = open_store(location, create=False)
    try:
        return store.counts()
    finally:
        store.close()


def test_both_stores_implement_the_protocol(location):
    with _open(location) as ix:
        assert isinstance(ix.store, Store)
        assert is_server(location) == (not isinstance(ix.path, Path))


def test_round_trip_documents_spans_vectors_and_pins(location, tmp_path):
    docs = _folder(tmp_path)
    emb = CountingEmbedder()
    with _open(location, embedder=emb) as ix:
        g0 = ix.store.generation()
        report = ix.add([docs])
        assert (report.added, report.units) == (8, 32)
        assert ix.store.generation() > g0
        meta = ix.store.meta()
        assert (meta["embedder"], meta["dimension"], meta["chunking_name"]) == ("hash", "32", "test-paragraph-lines")
        rows = ix.documents()
        assert [r.id for r in rows] == [f"d{i:02}.txt" for i in range(8)]
        for row in rows:
            text = (docs / row.id).read_text(encoding="utf-8")
            assert (row.source, row.origin, row.length) == (str((docs / row.id).resolve()), "file", len(text))
            tree = ix.tree(row.id)
            expected = ParagraphLines().chunk(Document(id=row.id, source=row.source, text=text))
            assert [(n.id, n.kind, n.level, n.start, n.end, n.parent_id, n.children) for n in tree.nodes] == \
                [(n.id, n.kind, n.level, n.start, n.end, n.parent_id, n.children) for n in expected.nodes]
            assert all(n.text == text[n.start:n.end] for n in tree.nodes)
            assert ix.store.document_text(row.id, 9, 14) == text[9:14]
            units = tree.leaves()
            stored = [v for v in ix.store.document_vectors(row.id) if v is not None]
            want = CountingEmbedder().embed_documents([unit_text(u) for u in units])
            np.testing.assert_array_equal(np.frombuffer(b"".join(stored), "<f4").reshape(len(units), 32), want)
        counts = ix.store.counts()
        assert (counts["documents"], counts["nodes"], counts["units"]) == (8, 56, 32)
        assert ix.check().ok, ix.check().problems
        with pytest.raises(StoreError, match="no document 'nope'"):
            ix.store.load_tree("nope")


def test_documents_given_as_objects_keep_metadata(location):
    with _open(location) as ix:
        ix.add([Document(id="a", source="mem://a", text="Alpha line.\nBeta line.", metadata={"year": 2021}),
                Document(id="b", source="mem://b", text="Gamma line.", metadata={"tags": ["x", "y"]})])
        assert dict(ix.store.document_metadata_of("a")) == {"year": 2021}
        ix.update_metadata("b", {"lang": "de"})
        assert dict(ix.store.metadata_by_id(["b"])["b"]) == {"tags": ["x", "y"], "lang": "de"}
        assert ix.store.metadata_keys(10) == [("lang", 1), ("tags", 1), ("year", 1)]
        assert ix.stats().metadata_keys == (("lang", 1), ("tags", 1), ("year", 1))
        assert [r.origin for r in ix.documents()] == ["api", "api"]
        now = Reading("text", PARSER_VERSION)
        assert ix.store.document_readings() == {"a": now, "b": now}
        assert ix.store.document_readings(["b", "nope"]) == {"b": now}
        assert ix.store.document_readings([]) == {}


def test_a_document_keeps_the_parser_version_its_tree_was_written_with(location):
    from zoomrag.parse import Span, build_tree

    tree = build_tree(Document.from_text("one line", id="d", format="markdown"), [Span("line", 0, 8)])
    with _open(location) as ix:
        ix.add([Document.from_text("another", id="other")])
        ix.store.write_document(tree, [], {}, origin="api", parser=7)
        assert ix.store.document_readings(["d"]) == {"d": Reading("markdown", 7)}
        ix.store.write_document(tree, [], {}, origin="api", parser=8)  # rewritten in place
        assert ix.store.document_readings() == {"d": Reading("markdown", 8), "other": Reading("text", PARSER_VERSION)}
        assert ix.check().ok, ix.check().problems


def test_incremental_update_embeds_only_new_text(location, tmp_path):
    docs = _folder(tmp_path)
    with _open(location) as ix:
        ix.add([docs])
    write(docs / "d03.txt", "Document 3 opens here.\nA brand new line.")
    emb = CountingEmbedder()
    with _open(location, embedder=emb) as ix:
        report = ix.add([docs])
        assert (report.added, report.updated, report.unchanged) == (0, 1, 7)
        assert emb.embedded == ["A brand new line."]
        assert ix.tree("d03.txt").document.text == "Document 3 opens here.\nA brand new line."
        hit = ix.search("brand new", mode="bm25", k=1)[0]
        assert (hit.doc_id, hit.start, hit.end) == ("d03.txt", 23, 40)
        assert ix.check().ok, ix.check().problems


def test_prune_and_delete(location, tmp_path):
    docs = _folder(tmp_path)
    with _open(location) as ix:
        ix.add([docs])
        (docs / "d05.txt").unlink()
        report = ix.add([docs], prune=True)
        assert report.removed == 1
        assert ix.delete("d06.txt") is True
        assert ix.delete("d06.txt") is False
        assert [r.id for r in ix.documents()] == [f"d{i:02}.txt" for i in (0, 1, 2, 3, 4, 7)]
        assert not any(h.doc_id in ("d05.txt", "d06.txt") for h in ix.search("Document opens", k=50))
        assert ix.vacuum() >= 0
        assert ix.check().ok, ix.check().problems


FILTER_DOCS = [
    ("a", {"year": 2019, "lang": "en", "tags": ["x"]}),
    ("b", {"year": 2021, "lang": "de"}),
    ("c", {"year": 2023, "lang": "en", "published": "2024-03-01"}),
    ("d", {"lang": "fr", "tags": ["x", "y"]}),
    ("e/f", {}),
]


@pytest.mark.parametrize(("where", "doc", "expected"), [
    ({"year": {"$gte": 2020}}, None, {"b", "c"}),
    ({"lang": "en"}, None, {"a", "c"}),
    ({"lang": {"$ne": "en"}}, None, {"b", "d", "e/f"}),
    ({"tags": "y"}, None, {"d"}),
    ({"year": {"$exists": False}}, None, {"d", "e/f"}),
    ({"$or": [{"lang": "fr"}, {"year": {"$lt": 2020}}]}, None, {"a", "d"}),
    ({"published": {"$gte": "2024-01-01"}}, None, {"c"}),
    (None, "e/*", {"e/f"}),
    ({"lang": {"$in": ["de", "fr"]}}, ["b", "e/f"], {"b"}),
])
def test_filters_are_pushed_into_the_store(location, where, doc, expected):
    with _open(location) as ix:
        ix.add([Document(id=i, source=f"mem://{i}", text=f"Shared words in {i}.\nMore shared words.", metadata=m)
                for i, m in FILTER_DOCS])
        for mode in ("dense", "bm25", "hybrid"):
            hits = ix.search("shared words", mode=mode, k=20, where=where, doc=doc)
            assert {h.doc_id for h in hits} == expected, mode


def test_same_hits_and_contexts_on_both_backends(pg_url, tmp_path):
    docs = _folder(tmp_path, n=20)
    indexes = [_open(str(tmp_path / "index.db")), _open(pg_url)]
    try:
        for ix in indexes:
            ix.add([docs])
        for q in ("topic 2 second line", "café", "北京", "Another paragraph of 7", "opens"):
            for mode in ("dense", "bm25", "hybrid"):
                a, b = (ix.search(q, mode=mode, k=10) for ix in indexes)
                assert [(h.node_id, round(h.score, 6)) for h in a] == [(h.node_id, round(h.score, 6)) for h in b]
            a_ctx, b_ctx = (ix.query(q, budget=60, mode="hybrid") for ix in indexes)
            assert [(c.doc_id, c.start, c.end, c.text) for c in a_ctx] == [(c.doc_id, c.start, c.end, c.text)
                                                                           for c in b_ctx]
    finally:
        for ix in indexes:
            ix.close()


def test_snapshot_reads_under_a_concurrent_writer(location, tmp_path):
    docs = _folder(tmp_path, n=3)
    with _open(location) as reader, _open(location) as writer:
        reader.add([docs])
        with reader.store.snapshot():
            before = (reader.store.generation(), reader.store.document_hashes())
            writer.add([Document(id="new", source="mem://new", text="A new document arrives.")])
            assert (reader.store.generation(), reader.store.document_hashes()) == before
            assert reader.store.find_document("new") is None
        assert reader.store.find_document("new") == "new"

        # a writer flipping one document between two versions: every read sees one whole version
        versions = ["Flip one.\nFlip two.\n\nFlip three.", "Flop only line, and longer than the others."]
        stop = threading.Event()
        errors: list[BaseException] = []

        def flip() -> None:
            try:
                with _open(location, lock_timeout=30) as w:
                    for i in range(30):
                        w.add([Document(id="flip", source="mem://flip", text=versions[i % 2])])
            except BaseException as e:  # pragma: no cover - reported below
                errors.append(e)
            finally:
                stop.set()

        thread = threading.Thread(target=flip)
        thread.start()
        seen = set()
        while not stop.is_set():
            with reader.store.snapshot():
                if reader.store.find_document("flip") is None:
                    continue
                tree = reader.store.load_tree("flip")
                assert tree.document.text in versions
                assert all(n.text == tree.document.text[n.start:n.end] for n in tree.nodes)
                hashes = reader.store.content_hashes(["flip"])
                assert hashes["flip"] == tree.document.content_hash
                seen.add(tree.document.text)
        thread.join()
        assert not errors, errors
        assert seen, "the reader never saw the document"
        assert reader.check().ok


WRITER = textwrap.dedent("""
    import sys, time
    sys.path.insert(0, {tests!r})
    from test_index_support import CountingEmbedder, ParagraphLines
    from zoomrag.index import Index

    class Slow(CountingEmbedder):
        def embed_documents(self, texts):
            time.sleep(0.03)
            return super().embed_documents(texts)

    with Index.open({location!r}, embedder=Slow(), strategy=ParagraphLines(), lock_timeout=60) as ix:
        ix.add([{docs!r}])
""")


def _writer(location: str, docs: Path) -> subprocess.Popen:
    script = WRITER.format(tests=str(Path(__file__).parent), location=location, docs=str(docs))
    return subprocess.Popen([sys.executable, "-c", script], stderr=subprocess.PIPE)


def _documents(location: str) -> int:
    try:
        return _counts(location)["documents"]
    except StoreError:
        return 0


def test_kill_9_during_a_write_leaves_it_consistent_and_a_rerun_resumes(location, tmp_path):
    n_docs = 40
    docs = tmp_path / "many"
    for i in range(n_docs):
        write(docs / f"d{i:02}.txt", f"Document {i} first line.\nSecond line of {i}.\n\nOther part {i}.")
    proc = _writer(location, docs)
    try:
        deadline = time.monotonic() + 60
        while _documents(location) < 5:
            assert proc.poll() is None, proc.stderr.read().decode()  # type: ignore[union-attr]
            assert time.monotonic() < deadline, "the writer never got going"
            time.sleep(0.02)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    done = _documents(location)
    assert 5 <= done < n_docs, "killed too late to test anything"
    emb = CountingEmbedder()
    with _open(location, embedder=emb) as ix:
        assert ix.check().ok, ix.check().problems
        report = ix.add([docs])
        assert (report.unchanged, report.added) == (done, n_docs - done)
        assert len(emb.embedded) == 3 * (n_docs - done)  # committed documents are not embedded again
        assert ix.check().ok, ix.check().problems
        top = ix.search("Second line of 39", mode="bm25", k=1)[0]
        assert (top.doc_id, top.start, top.end) == ("d39.txt", 24, 42)


def test_two_writer_processes_at_once(location, tmp_path):
    folders = []
    for part in ("left", "right"):
        folder = tmp_path / part
        for i in range(12):
            write(folder / f"{part}{i:02}.txt", f"{part} document {i}.\nIts second line.")
        folders.append(folder)
    with _open(location) as ix:  # pinned first, so that both writers agree
        ix.add([Document(id="seed", source="mem://seed", text="Seed.")])
    procs = [_writer(location, f) for f in folders]
    for p in procs:
        assert p.wait(timeout=120) == 0, p.stderr.read().decode()  # type: ignore[union-attr]
    with _open(location) as ix:
        assert ix.stats().documents == 25
        assert ix.check().ok, ix.check().problems
        rows = [ix.tree(r.id).nodes[0] for r in ix.documents()]
        assert len({(n.doc_id, n.start) for n in rows}) == 25


def test_another_embedder_is_a_clear_error(location, tmp_path):
    with _open(location) as ix:
        ix.add([_folder(tmp_path, n=2)])
    with pytest.raises(IndexMismatchError, match="hash"):
        _open(location, embedder=CountingEmbedder(dimension=16))
    with pytest.raises(IndexMismatchError):
        _open(location, strategy="fixed")


def test_a_reader_never_sees_a_schema_half_made(tmp_path):
    # a reader that opens a file while the writer creates it finds either no index yet (a clear
    # StoreError) or the whole schema: never index_meta without documents
    import threading

    from zoomrag.store.sqlite import SqliteStore

    paths = [tmp_path / f"i{n}.db" for n in range(150)]
    errors: list[BaseException] = []

    def create() -> None:
        for p in paths:
            SqliteStore(p).close()

    def read() -> None:
        for p in paths:
            while not p.exists():
                pass
            try:
                store = SqliteStore(p, create=False)
            except StoreError:
                continue
            try:
                store.counts()
            except BaseException as e:  # noqa: BLE001 - any other failure is the bug
                errors.append(e)
            finally:
                store.close()

    threads = [threading.Thread(target=create), threading.Thread(target=read)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors[:3]


def test_a_kind_another_handle_added_is_read_by_this_one(location, tmp_path):
    from zoomrag.parse import Span, build_tree
    from zoomrag.store import UnitToWrite, to_blob

    with _open(location) as a, _open(location) as b:
        a.add([Document.from_text("one line\n\nanother", id="first")])
        known = [n.kind for n in a.store.load_tree("first").nodes]  # a's list of kinds is read
        tree = build_tree(Document.from_text("x | y", id="table"), [Span("table", 0, 5, children=[Span("row", 0, 5)])])
        units = [UnitToWrite(u, 10 + i) for i, u in enumerate(tree.leaves())]
        b.store.write_document(tree, units, {u.vec_key: to_blob(np.full(32, 0.5, np.float32)) for u in units},
                               origin="api", parser=1)
        assert "row" not in known
        assert [n.kind for n in a.store.load_tree("table").nodes] == ["document", "table", "row"]
