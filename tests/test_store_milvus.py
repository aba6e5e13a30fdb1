"""What only the Milvus store has: its URL on the command line, the collection a Milvus user
sees, the repair after a write that reached the file but not the collection, and its errors."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_index_support import CountingEmbedder, ParagraphLines, write
from test_index_support import cli_contexts as _contexts
from test_index_support import run_cli as run

from zoomrag.cli import main
from zoomrag.errors import ConfigError, IndexMismatchError, StoreError
from zoomrag.index import Index
from zoomrag.model import Document
from zoomrag.store import WriterLock, open_store
from zoomrag.store.milvus import MilvusLocation

pytestmark = pytest.mark.milvus  # make test-milvus: one process, one server


def _open(location: str, **kw: object) -> Index:
    kw.setdefault("embedder", CountingEmbedder())
    kw.setdefault("strategy", ParagraphLines())
    return Index.open(location, **kw)  # type: ignore[arg-type]


def _client(url: str):
    from pymilvus import MilvusClient

    loc = MilvusLocation.parse(url)
    return MilvusClient(uri=f"http://{loc.host}:{loc.port}"), loc.collection


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_cli_index_and_dense_query_on_milvus_give_the_file_store_contexts(milvus_url, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for i in range(8):
        write(tmp_path / "docs" / f"part{i}.md", f"# Part {i}\n\nMilvus keeps vector {i} in a collection.\n\n"
                                                  f"## Queries {i}\n\nA query returns contexts within a budget {i}.\n")
    build = ["--embedder", "hash", "--strategy", "fixed", "--set", "size=60", "--set", "unit=chars", "-q", "docs"]
    url = milvus_url.split("?")[0]  # the file comes from --index, as a user gives it
    run("index", "--store", url, "--index", "beside.db", *build)
    assert (tmp_path / "beside.db").exists()
    run("index", "--index", "file.db", *build)
    for q in ("how is the vector kept", "query budget 3", "Part 5"):
        ask = ["query", q, "--mode", "dense", "--json", "--budget", "80"]
        on_milvus = _contexts(run(*ask, "--store", url, "--index", "beside.db"))
        assert on_milvus == _contexts(run(*ask, "--index", "file.db"))
        assert on_milvus
    stats = json.loads(run("stats", "--store", url, "--index", "beside.db", "--json").stdout)
    assert stats["documents"] == 8 and "Milvus HNSW" in stats["ann"]
    assert "is consistent" in run("check", "--store", url, "--index", "beside.db").stdout


def test_the_collection_holds_what_a_milvus_user_filters_and_joins_on(milvus_url):
    with _open(milvus_url) as ix:
        ix.add([Document(id='say "hi"/é', source="mem://a", text="Alpha line.\nBeta line.", metadata={"lang": "en"}),
                Document(id="b", source="mem://b", text="Gamma line.", metadata={"lang": "de"})])
        tree = ix.tree('say "hi"/é')
        ix.update_metadata("b", {"lang": "fr"})
        hits = ix.search("Beta", mode="dense", k=5, where={"lang": "en"})
        assert {h.doc_id for h in hits} == {'say "hi"/é'}
    client, name = _client(milvus_url)
    try:
        rows = client.query(name, filter='metadata["lang"] == "en"', consistency_level="Strong",
                            output_fields=["doc_id", "node_id", "parent_id", "kind", "level", "span_start", "span_end"])
        by_node = {n.id: n for n in tree.nodes}
        assert sorted(r["node_id"] for r in rows) == sorted(n.id for n in tree.leaves())
        for r in rows:
            node = by_node[r["node_id"]]
            assert (r["doc_id"], r["parent_id"], r["kind"], r["level"], r["span_start"], r["span_end"]) == \
                (node.doc_id, node.parent_id, node.kind, node.level, node.start, node.end)
        fr = client.query(name, filter='metadata["lang"] == "fr"', output_fields=["doc_id"], consistency_level="Strong")
        assert [r["doc_id"] for r in fr] == ["b"]
    finally:
        client.close()


def test_a_write_that_reached_only_the_file_is_repaired_and_never_read(milvus_url, tmp_path):
    """The state a process killed between the file's commit and the collection's upsert leaves."""
    docs = [Document(id=f"d{i}", source=f"mem://{i}", text=f"Document {i} first line.\nSecond line {i}.")
            for i in range(6)]
    with _open(milvus_url) as ix:
        ix.add(docs)
        file = ix.store.location.index  # type: ignore[attr-defined]
    with _open(str(file)) as only_file:  # the file alone: the collection does not hear of these
        only_file.add([Document(id="new", source="mem://new", text="A new document.\nNever upserted.")])
        only_file.delete("d2")
        only_file.add([Document(id="d3", source="mem://3", text="Document 3 replaced.\nIts new line.")])
    with WriterLock(file, timeout=1):  # held: opening does not repair, so the damage shows
        with _open(milvus_url) as ix:
            problems = ix.check().problems
            assert len(problems) == 1 and "lacks 4 vectors of the file and holds 4 it no longer has" in problems[0]
            hits = ix.search("Document first line", mode="dense", k=20)
            assert {h.doc_id for h in hits} == {"d0", "d1", "d4", "d5"}  # d2 and old d3 are dropped
    with _open(milvus_url) as ix:  # opened with the lock free: repaired from the file
        assert ix.check().ok, ix.check().problems
        hits = ix.search("Document first line", mode="dense", k=20)
        assert {h.doc_id for h in hits} == {"d0", "d1", "d3", "d4", "d5", "new"}
        top = ix.search("Never upserted.", mode="dense", k=1)[0]
        assert (top.doc_id, top.start, top.end) == ("new", 16, 31)


def test_a_dropped_collection_is_rebuilt_from_the_file(milvus_url):
    with _open(milvus_url) as ix:
        ix.add([Document(id=f"d{i}", source=f"mem://{i}", text=f"Line {i}.") for i in range(3)])
    client, name = _client(milvus_url)
    client.drop_collection(name)
    client.close()
    with _open(milvus_url) as ix:
        assert ix.check().ok
        assert ix.search("Line 2.", mode="dense", k=1)[0].doc_id == "d2"


def test_a_collection_of_another_index_file_is_refused_not_emptied(milvus_url, tmp_path):
    with _open(milvus_url) as ix:
        ix.add([Document(id="a", source="mem://a", text="Kept line.")])
    other = milvus_url.split("?")[0] + f"?index={tmp_path / 'other.db'}"
    with pytest.raises(StoreError, match=r"holds 1 vectors of another index file; give that file"):
        _open(other)
    with _open(milvus_url) as ix:
        assert ix.search("Kept line.", mode="dense", k=1)[0].doc_id == "a"


def test_dimension_mismatch_is_one_clear_error(milvus_url, tmp_path):
    with _open(milvus_url) as ix:
        ix.add([Document(id="a", source="mem://a", text="One line.")])
        file = ix.store.location.index  # type: ignore[attr-defined]
    with _open(str(file), embedder=CountingEmbedder(dimension=16), reindex=True) as only_file:
        only_file.add([Document(id="a", source="mem://a", text="One line.")])
    with pytest.raises(IndexMismatchError, match=r"holds 32-dimensional vectors, the index file's embedder gives "
                                                 r"16; give another collection name in the URL$"):
        _open(milvus_url, embedder=CountingEmbedder(dimension=16))


def test_a_collection_zoomrag_did_not_make_is_refused(milvus_url):
    from pymilvus import DataType, MilvusClient

    client, name = _client(milvus_url)
    schema = MilvusClient.create_schema(auto_id=True)
    schema.add_field("id", DataType.INT64, is_primary=True)
    schema.add_field("embedding", DataType.FLOAT_VECTOR, dim=4)
    client.create_collection(name, schema=schema)
    client.close()
    with pytest.raises(StoreError, match=r"collection 'zr_\w+' was not made by zoomrag; give another collection"):
        _open(milvus_url)


def test_reindex_with_another_embedder_replaces_the_collection(milvus_url):
    with _open(milvus_url) as ix:
        ix.add([Document(id="a", source="mem://a", text="One line.")])
    with _open(milvus_url, embedder=CountingEmbedder(dimension=16), reindex=True) as ix:
        ix.add([Document(id="a", source="mem://a", text="One line.")])
        assert ix.search("One line.", mode="dense", k=1)[0].doc_id == "a"
        assert ix.check().ok


def test_unreachable_server_is_one_line_without_traceback(tmp_path):
    url = f"milvus://127.0.0.1:{_free_port()}/nothing?index={tmp_path / 'x.db'}"
    with pytest.raises(StoreError, match=r"cannot reach the Milvus server \(.*\); start it, or fix the URL"):
        Index.open(url)
    write(tmp_path / "a.txt", "text")
    result = CliRunner().invoke(main, ["index", "--store", url, str(tmp_path / "a.txt")])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    assert result.stderr.count("\n") == 1 and "cannot reach the Milvus server" in result.stderr


def test_missing_extra_names_the_install_command():
    code = ("import sys; sys.modules['pymilvus'] = None\n"
            "from zoomrag.cli import main\n"
            "sys.argv = ['zoomrag', 'stats', '--store', 'milvus://127.0.0.1:9/x']\n"
            "main()")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "error: a milvus:// store needs the milvus extra: pip install 'zoomrag[milvus]'"]


@pytest.mark.parametrize(("url", "expected"), [
    ("milvus://db.example", ("db.example", 19530, "zoomrag", Path(".zoomrag/milvus-db.example-19530-zoomrag.db"))),
    ("milvus://h:1234/docs_v2?index=/data/i.db", ("h", 1234, "docs_v2", Path("/data/i.db"))),
])
def test_urls_name_server_collection_and_file(url, expected):
    loc = MilvusLocation.parse(url)
    assert (loc.host, loc.port, loc.collection, loc.index) == expected
    assert MilvusLocation.parse(loc.url()) == loc


@pytest.mark.parametrize("url", ["milvus://h:x/c", "milvus://h/9lives", "milvus://h/with-dash"])
def test_bad_urls_are_refused_by_name(url):
    with pytest.raises(ConfigError, match="milvus://"):
        open_store(url)


def test_filters_with_many_documents_are_searched_in_parts(milvus_url, tmp_path, monkeypatch):
    import zoomrag.store.milvus as m

    monkeypatch.setattr(m, "IDS_PER_EXPRESSION", 3)
    docs = [Document(id=f"d{i:02}", source=f"mem://{i}", text=f"Shared words {i}.", metadata={"even": i % 2 == 0})
            for i in range(20)]
    with _open(milvus_url) as on_milvus, _open(str(tmp_path / "file.db")) as on_file:
        for ix in (on_milvus, on_file):
            ix.add(docs)
        a, b = (ix.search("Shared words 4.", mode="dense", k=6, where={"even": True}) for ix in (on_milvus, on_file))
        assert [(h.node_id, round(h.score, 5)) for h in a] == [(h.node_id, round(h.score, 5)) for h in b]
        assert a[0].doc_id == "d04" and len(a) == 6


def test_copy_a_file_index_into_milvus(milvus_url, tmp_path):
    docs = [Document(id=f"d{i}", source=f"mem://{i}", text=f"Copied line {i}.\nAnd another {i}.") for i in range(5)]
    with _open(str(tmp_path / "file.db")) as ix:
        ix.add(docs)
        report = ix.copy_to(milvus_url)
        want = [(h.node_id, round(h.score, 5)) for h in ix.search("another 3", mode="dense", k=5)]
    assert report.copied == 5
    with _open(milvus_url) as ix:
        assert [(h.node_id, round(h.score, 5)) for h in ix.search("another 3", mode="dense", k=5)] == want
        assert ix.check().ok


def test_the_base_install_works_without_the_milvus_extras(tmp_path):
    code = ("import sys; sys.modules['pymilvus'] = None; sys.modules['milvus'] = None\n"
            "from zoomrag.cli import main\n"
            "from zoomrag.store import open_store\n"
            f"open_store({str(tmp_path / 'f.db')!r}).close()\n"
            "print('ok')")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "ok", done.stderr
