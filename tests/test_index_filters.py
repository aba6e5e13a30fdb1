"""Filters, metadata and document identity through the Index API and the CLI."""

from __future__ import annotations

import json
import shutil

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_index_support import CountingEmbedder, ParagraphLines, write

from zoomrag.cli import main
from zoomrag.errors import ConfigError, StoreError
from zoomrag.index import Index
from zoomrag.model import Document
from zoomrag.text.tokens import CharCounter

TOPICS = ["apples", "rivers", "engines", "violins", "glaciers", "lanterns"]


def corpus_docs(n: int = 12) -> list[Document]:
    docs = []
    for i in range(n):
        topic = TOPICS[i % len(TOPICS)]
        paras = "\n\n".join(f"Line {j} about {topic} and shared words here.\nMore {topic} text number {i}-{j}."
                            for j in range(6))
        docs.append(Document(id=f"d{i:02}", source=f"src/d{i:02}.txt", text=paras,
                             metadata={"n": i, "topic": topic, "even": i % 2 == 0,
                                       "date": f"2024-0{1 + i % 9}-01"}))
    return docs


@pytest.fixture(scope="module")
def ix(tmp_path_factory):
    index = Index.open(tmp_path_factory.mktemp("filters") / "index.db", embedder=CountingEmbedder(),
                       strategy=ParagraphLines(), counter=CharCounter())
    index.add(corpus_docs())
    yield index
    index.close()


def matches(meta: dict, doc_id: str, where: dict | None, doc) -> bool:
    """The filter evaluated in Python, from the language's definition (the reference)."""
    if doc is not None:
        refs = [doc] if isinstance(doc, str) else doc
        import fnmatch
        if not any(fnmatch.fnmatchcase(doc_id, r) or fnmatch.fnmatchcase(f"src/{doc_id}.txt", r) for r in refs):
            return False
    for key, cond in (where or {}).items():
        value = meta.get(key)
        for op, x in cond.items():
            ok = {"$eq": lambda: value == x and type(value) is type(x),
                  "$ne": lambda: not (value == x and type(value) is type(x)),
                  "$in": lambda: value in x, "$nin": lambda: value not in x,
                  "$gte": lambda: isinstance(value, int) and not isinstance(value, bool) and value >= x,
                  "$lt": lambda: isinstance(value, int) and not isinstance(value, bool) and value < x}[op]()
            if not ok:
                return False
    return True


conditions = st.one_of(
    st.builds(lambda n: {"n": {"$gte": n}}, st.integers(0, 12)),
    st.builds(lambda n: {"n": {"$lt": n}}, st.integers(0, 12)),
    st.builds(lambda t: {"topic": {"$eq": t}}, st.sampled_from(TOPICS + ["none"])),
    st.builds(lambda ts: {"topic": {"$in": ts}}, st.lists(st.sampled_from(TOPICS), min_size=1, max_size=3)),
    st.builds(lambda t: {"topic": {"$ne": t}}, st.sampled_from(TOPICS)),
    st.builds(lambda b: {"even": {"$eq": b}}, st.booleans()),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(where=st.lists(conditions, max_size=2).map(lambda cs: {k: v for c in cs for k, v in c.items()}),
       doc=st.one_of(st.none(), st.sampled_from(["d03", "src/d1*", ["d00", "d07"]])),
       budget=st.integers(40, 600), mode=st.sampled_from(["dense", "bm25", "hybrid"]),
       expand=st.sampled_from(["none", "parent", "window", "auto"]))
def test_every_context_satisfies_the_filter_fits_the_budget_and_fills_it(ix, where, doc, budget, mode, expand):
    docs = {d.id: d for d in corpus_docs()}
    allowed = {i for i, d in docs.items() if matches(dict(d.metadata), i, where, doc)}
    out = ix.query("apples rivers engines shared words", budget=budget, top=None, mode=mode, expand=expand,
                   where=where or None, doc=doc)
    assert {c.doc_id for c in out} <= allowed
    used = sum(len(c.text) for c in out)  # CharCounter: a token is a character
    assert used <= budget
    for c in out:
        assert dict(c.metadata) == {**docs[c.doc_id].metadata, "lang": "en"}  # told by the index
        assert docs[c.doc_id].text[c.start:c.end] == c.text
    # a selective filter still fills the budget when its documents hold enough text (dense ranks all)
    room = sum(len(docs[i].text) for i in allowed)
    if mode == "dense" and allowed and room >= 4 * budget:
        assert used >= budget // 2, (used, budget, sorted(allowed))


def test_a_filter_that_matches_nothing_returns_nothing_and_says_why(ix):
    assert ix.query("apples", where={"colour": "red"}) == []
    notes = ix.filter_notes({"colour": "red"}, None)
    assert any("no document has metadata key 'colour'" in n for n in notes)
    assert ix.filter_notes({"topic": "apples"}, None) == []
    with pytest.raises(ConfigError, match=r'where\["n"\]: unknown operator'):
        ix.query("apples", where={"n": {"$big": 1}})


def test_metadata_round_trip_and_update(tmp_path):
    with Index.open(tmp_path / "i.db", embedder=CountingEmbedder(), strategy=ParagraphLines(),
                    counter=CharCounter()) as ix:
        doc = Document(id="a", source="a.txt", text="Apples are red.\n\nPears are green.", metadata={"year": 2020})
        ix.add(doc, metadata={"lang": "en"})
        assert dict(ix.documents()[0].metadata) == {"lang": "en", "year": 2020}
        assert dict(ix.query("apples", mode="bm25")[0].metadata) == {"lang": "en", "year": 2020}
        # same text, new metadata: updated, not dropped, and nothing embedded again
        emb = ix.embedder
        before = len(emb.embedded)
        report = ix.add(Document(id="a", source="a.txt", text=doc.text, metadata={"year": 2021}))
        assert (report.updated, report.unchanged, len(emb.embedded)) == (1, 0, before)
        assert dict(ix.documents()[0].metadata) == {"year": 2021}
        assert ix.query("apples", where={"year": 2020}) == []
        assert ix.query("apples", where={"year": 2021}, mode="bm25")
        ix.update_metadata("a", {"lang": "de"})
        assert dict(ix.documents()[0].metadata) == {"year": 2021, "lang": "de"}
        ix.update_metadata("a", {"lang": "fr"}, replace=True)
        assert dict(ix.query("apples", where={"lang": "fr"}, mode="dense")[0].metadata) == {"lang": "fr"}
        assert len(emb.embedded) == before
        with pytest.raises(StoreError, match="no document 'zzz'"):
            ix.update_metadata("zzz", {"a": 1})


def test_query_many_batches_the_questions_and_matches_query(ix):
    many = ix.query_many(["apples", "glaciers"], budget=200, mode="dense", where={"even": True})
    assert [[c.doc_id for c in r] for r in many] == [
        [c.doc_id for c in ix.query(q, budget=200, mode="dense", where={"even": True})] for q in ("apples", "glaciers")]


def test_query_defaults_to_auto_and_honours_a_pinned_policy(tmp_path):
    with Index.open(tmp_path / "i.db", embedder=CountingEmbedder(), strategy=ParagraphLines(),
                    counter=CharCounter()) as ix:
        ix.add(Document(id="a", source="a.txt", text="Apples are red.\nApples are sweet.\n\nPears are green."))
        ix.pin_expansion("parent")
        (ctx,) = ix.query("apples red", mode="bm25", top=1, budget=1000)
        assert ctx.text == "Apples are red.\nApples are sweet."  # the pinned parent, not the line


def test_ids_are_relative_to_the_root_from_any_directory_and_for_copies(tmp_path, monkeypatch):
    write(tmp_path / "a" / "docs" / "x.txt", "Apples are red.")
    write(tmp_path / "a" / "docs" / "sub" / "y.md", "---\nyear: 2022\n---\n# Y\n\nPears are green when they are "
          "picked in late summer and turn yellow as they ripen on a cool shelf.\n")
    db = tmp_path / "index.db"

    def op():
        return Index.open(db, embedder=CountingEmbedder(), strategy=ParagraphLines(), counter=CharCounter())

    def ids():
        with op() as ix:
            return sorted((d.id, d.source) for d in ix.documents())

    with op() as ix:
        ix.add([tmp_path / "a" / "docs"])
    first = ids()
    assert [i for i, _ in first] == ["sub/y.md", "x.txt"]
    assert all(s.startswith(str(tmp_path)) for _, s in first)  # a path the user can open
    monkeypatch.chdir(tmp_path / "a")
    with op() as ix:
        assert ix.add(["docs"]).unchanged == 2
    shutil.copytree(tmp_path / "a" / "docs", tmp_path / "copy")
    monkeypatch.chdir(tmp_path)
    with op() as ix:
        report = ix.add(["copy"])
        assert (report.added, report.unchanged) == (0, 2)
        assert len(ix.documents()) == 2
        report = ix.add(["copy"], namespace="second")
        assert report.added == 2
        assert sorted(d.id for d in ix.documents()) == ["second/sub/y.md", "second/x.txt", "sub/y.md", "x.txt"]
        found = ix.query("pears", mode="bm25", where={"year": 2022})
        # both copies match; the copy of the same text takes no second rank (search/dedupe.py),
        # and the context names the other
        assert [(c.doc_id, c.copies) for c in found] in ([("second/sub/y.md", ("sub/y.md",))],
                                                         [("sub/y.md", ("second/sub/y.md",))])
        [hit] = ix.search("pears", mode="bm25", where={"year": 2022})
        assert hit.copies == (found[0].copies[0],)
        assert [c.doc_id for c in ix.query("pears", mode="bm25", doc="second/*")] == ["second/sub/y.md"]


def test_cli_meta_where_doc_and_json(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "docs" / "guide.md", "---\ntitle: Guide\nyear: 2024\n---\n# Guide\n\nSQLite keeps the index in one file.\n")
    write(tmp_path / "docs" / "old.md", "---\nyear: 2019\n---\n# Old\n\nSQLite kept the index in two files.\n")
    write(tmp_path / "docs" / "notes.txt", "SQLite notes without front matter.\n")
    runner = CliRunner()

    def run(*args, ok=0):
        r = runner.invoke(main, list(args))
        assert r.exit_code == ok, (r.stdout, r.stderr, r.exception)
        return r

    run("index", "docs", "--embedder", "hash", "--strategy", "fixed", "--set", "size=60", "--set", "unit=chars",
        "--meta", "team=db", "--meta", "rank=3", "-q")
    r = run("query", "SQLite index file", "--where", "year>=2020", "--json", "--mode", "bm25")
    payload = json.loads(r.stdout)
    assert {c["doc_id"] for c in payload["contexts"]} == {"guide.md"}
    assert payload["contexts"][0]["metadata"]["team"] == "db" and payload["contexts"][0]["metadata"]["rank"] == 3
    assert payload["contexts"][0]["metadata"]["title"] == "Guide"
    assert "year: 2024" not in "".join(c["text"] for c in payload["contexts"])  # front matter not in the text
    r = run("query", "SQLite", "--doc", "*.txt", "--json", "--mode", "bm25")
    assert {c["doc_id"] for c in json.loads(r.stdout)["contexts"]} == {"notes.txt"}
    r = run("query", "SQLite", "--doc", "docs/old.md", "--json", "--mode", "bm25")
    assert {c["doc_id"] for c in json.loads(r.stdout)["contexts"]} == {"old.md"}
    r = run("query", "SQLite", "--where-json", '{"$or": [{"year": 2019}, {"year": {"$exists": false}}]}', "--json")
    assert {c["doc_id"] for c in json.loads(r.stdout)["contexts"]} == {"old.md", "notes.txt"}
    r = run("query", "SQLite", "--where", "colour=red", "--explain")
    assert "no results" in r.stdout and "no document has metadata key 'colour'" in r.stderr
    r = run("query", "SQLite", "--where", "year>=", ok=1)
    assert "--where 'year>='" in r.stderr and "Traceback" not in r.stderr
    r = run("query", "SQLite", "--where-json", '{"year": ', ok=2)
    assert "not JSON" in r.stderr
    r = run("query", "SQLite", "--where-json", '{"year": {"$gtx": 1}}', ok=1)
    assert "unknown operator '$gtx'" in r.stderr
    r = run("stats", "--documents", "--json")
    docs = {d["id"]: d for d in json.loads(r.stdout)["documents_list"]}
    assert docs["old.md"]["metadata"]["year"] == 2019


def test_the_evaluations_doc_scope_is_a_filter_that_fills_the_budget(tmp_path):
    from pathlib import Path

    from zoomrag.evaluate import load_dataset
    from zoomrag.evaluate.retriever import IndexPool, IndexRetriever

    tiny = load_dataset(Path(__file__).parent / "fixtures" / "eval" / "tiny")
    [scoped] = [q for q in tiny.queries if q.doc_scope]
    with IndexPool(tmp_path, "hash") as pool:
        r = IndexRetriever("fixed-128", pool)
        r.build(tiny)
        out = r.retrieve(scoped, 4096)
    text = {d.id: d.text for d in tiny.documents}[scoped.doc_scope]
    assert out and {c.doc_id for c in out} == {scoped.doc_scope}
    assert sum(len(c.text) for c in out) >= len(text.strip()) // 2  # the scoped document, not 1.4 contexts of it


def test_an_evaluation_cache_of_an_older_schema_is_rebuilt(tmp_path):
    import sqlite3
    from pathlib import Path

    from zoomrag.evaluate import load_dataset
    from zoomrag.evaluate.retriever import IndexPool, resolve

    tiny = load_dataset(Path(__file__).parent / "fixtures" / "eval" / "tiny")
    with IndexPool(tmp_path, "hash") as pool:
        ix, _ = pool.get(tiny, resolve("fixed-128"))
        path = ix.path
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE index_meta SET value = '4' WHERE key = 'schema_version'")
    with IndexPool(tmp_path, "hash") as pool:
        ix, _ = pool.get(tiny, resolve("fixed-128"))
        assert ix.stats().documents == len(tiny.documents)
        assert ix.store.meta()["schema_version"] == "5"


def test_cli_namespace_keeps_two_roots_apart(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "a" / "readme.md", "# A\n\nAlpha text.\n")
    write(tmp_path / "b" / "readme.md", "# B\n\nBeta text.\n")
    runner = CliRunner()
    for folder in ("a", "b"):
        r = runner.invoke(main, ["index", folder, "--embedder", "hash", "--namespace", folder, "-q"])
        assert r.exit_code == 0, r.stderr
    r = runner.invoke(main, ["stats", "--documents", "--json"])
    assert sorted(d["id"] for d in json.loads(r.stdout)["documents_list"]) == ["a/readme.md", "b/readme.md"]
    r = runner.invoke(main, ["query", "text", "--doc", "b/*", "--json"])
    assert {c["doc_id"] for c in json.loads(r.stdout)["contexts"]} == {"b/readme.md"}
    r = runner.invoke(main, ["index", "a", "--namespace", "/bad/"])
    assert r.exit_code == 1 and "namespace '/bad/'" in r.stderr
