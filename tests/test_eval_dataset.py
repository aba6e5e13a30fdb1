"""Loading and validating the normalised evaluation format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zoomrag.errors import EvalError
from zoomrag.evaluate import Dataset, EvalQuery, Evidence, load_dataset, write_dataset

FIXTURES = Path(__file__).parent / "fixtures" / "eval"
DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def test_load_tiny_dataset():
    d = load_dataset(FIXTURES / "tiny")
    assert d.name == "tiny"
    assert [doc.id for doc in d.documents] == ["a", "b"]
    assert d.document("b").format == "markdown" and d.document("a").title == "Alpha"
    q1, q2 = d.queries
    assert q1 == EvalQuery("q1", "Where did the cat sit?", (Evidence("a", 0, 23),), answer="on the mat")
    assert d.evidence_text(q1.evidence[0]) == "The cat sat on the mat."
    assert q2.doc_scope == "b" and q2.answer is None
    assert [d.evidence_text(e) for e in q2.evidence] == ["Rain  falls in spring.", "Snow falls in winter."]
    assert [doc.text for doc in d.to_documents()] == [doc.text for doc in d.documents]


def test_corpus_hash_is_stable_and_follows_the_text():
    d = load_dataset(FIXTURES / "tiny")
    assert d.corpus_hash == load_dataset(FIXTURES / "tiny").corpus_hash
    assert d.with_queries(d.queries[:1]).corpus_hash == d.corpus_hash  # queries are not the corpus
    changed = Dataset("tiny", (d.documents[0], d.documents[1].__class__("b", "other text")), ())
    assert changed.corpus_hash != d.corpus_hash


def test_write_then_load_round_trips(tmp_path):
    d = load_dataset(FIXTURES / "tiny")
    write_dataset(d, tmp_path / "copy")
    again = load_dataset(tmp_path / "copy")
    assert again.documents == d.documents and again.queries == d.queries


def test_sample_keeps_file_order_and_is_reproducible():
    d = load_dataset(FIXTURES / "tiny")
    assert d.sample(5) is d
    one = d.sample(1, seed=3)
    assert len(one.queries) == 1 and one.sample(1, seed=3).queries == one.queries


def _write(tmp_path: Path, corpus: list, queries: list) -> Path:
    (tmp_path / "corpus.jsonl").write_text("".join(json.dumps(x) + "\n" for x in corpus))
    (tmp_path / "queries.jsonl").write_text(
        "".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in queries))
    return tmp_path


DOC = {"id": "a", "title": "A", "text": "0123456789", "format": "text"}


def _q(**kw):
    q = {"id": "q1", "query": "what?", "answer": None, "evidence": [{"doc_id": "a", "start": 0, "end": 5}]}
    q.update(kw)
    return q


@pytest.mark.parametrize("query, message", [
    (_q(evidence=[{"doc_id": "a", "start": 4, "end": 12}]),
     r"queries.jsonl, line 1: evidence \[4, 12\) ends past the end of 'a' \(length 10\); fix the offsets"),
    (_q(evidence=[{"doc_id": "zz", "start": 0, "end": 1}]),
     r"line 1: evidence names document 'zz'.*fix the doc_id"),
    (_q(evidence=[{"doc_id": "a", "start": 5, "end": 5}]), r"evidence \[5, 5\) in 'a' is empty or reversed"),
    (_q(evidence=[]), r"line 1: no evidence; every query needs at least one evidence span"),
    (_q(doc_scope="b"), r"doc_scope 'b' is not a document of the corpus"),
    (_q(evidence=[{"doc_id": "a", "start": "0", "end": 5}]),
     r"line 1, evidence 0: field 'start' must be int"),
    ({"id": "q1", "evidence": []}, r"line 1: missing field 'query'"),
    ("{not json", r"queries.jsonl, line 1: not valid JSON"),
])
def test_invalid_queries_name_file_line_and_fix(tmp_path, query, message):
    root = _write(tmp_path, [DOC], [query])
    with pytest.raises(EvalError, match=message):
        load_dataset(root)


def test_duplicate_ids_are_rejected_with_both_lines(tmp_path):
    root = _write(tmp_path, [DOC], [_q(), _q()])
    with pytest.raises(EvalError, match=r"line 2: query id 'q1' already used on line 1"):
        load_dataset(root)
    root = _write(tmp_path, [DOC, DOC], [_q()])
    with pytest.raises(EvalError, match=r"corpus.jsonl, line 2: document id 'a' already used on line 1"):
        load_dataset(root)


def test_evidence_outside_doc_scope_is_rejected(tmp_path):
    root = _write(tmp_path, [DOC, dict(DOC, id="b")], [_q(doc_scope="b")])
    with pytest.raises(EvalError, match="evidence lies in 'a' but doc_scope restricts retrieval to 'b'"):
        load_dataset(root)


def test_missing_folder_and_files(tmp_path):
    with pytest.raises(EvalError, match="not a directory; --data expects a folder"):
        load_dataset(tmp_path / "nope")
    with pytest.raises(EvalError, match="corpus.jsonl: file not found"):
        load_dataset(tmp_path)
    _write(tmp_path, [DOC], [])
    with pytest.raises(EvalError, match="no queries"):
        load_dataset(tmp_path)


def test_empty_query_text_is_skipped_and_reported(tmp_path):
    root = _write(tmp_path, [DOC], [_q(), _q(id="q2", query="  ")])
    d = load_dataset(root)
    assert [q.id for q in d.queries] == ["q1"]
    assert d.summary()["skipped_queries"] == [{"line": 2, "id": "q2", "reason": "empty query text"}]


def test_constructed_dataset_is_validated_too():
    doc = load_dataset(FIXTURES / "tiny").documents[0]
    with pytest.raises(EvalError, match="query 'x': evidence .* ends past the end"):
        Dataset("t", (doc,), (EvalQuery("x", "q?", (Evidence("a", 0, 999),)),))


@pytest.mark.parametrize("name", ["chroma_general", "wikitext_md", "cmrc2018_trial"])
def test_shared_data_loads_and_every_span_is_inside_its_document(name):
    if not (DATA / name / "queries.jsonl").exists():
        pytest.skip("shared/data is not present")
    d = load_dataset(DATA / name)
    assert len(d.queries) > 100
    for q in d.queries[:50]:
        for e in q.evidence:
            assert d.evidence_text(e).strip()


def test_a_corpus_may_name_files_read_as_the_index_reads_them(tmp_path):
    import hashlib

    (tmp_path / "files").mkdir()
    (tmp_path / "files" / "page.html").write_text("<html><body><h1>Fees</h1><p>Fees are due monthly.</p></body></html>")
    read = load_dataset(_write(tmp_path, [{"id": "p", "path": "files/page.html"}],
                               [{"id": "q", "query": "when?", "evidence": [{"doc_id": "p", "start": 0, "end": 4}]}]))
    [doc] = read.documents
    assert doc.read and doc.format == "html" and doc.text.startswith("# Fees")
    digest = hashlib.sha256(doc.text.encode()).hexdigest()
    _write(tmp_path, [{"id": "p", "path": "files/page.html", "sha256": digest}], ['{"id": "q", "query": "when?", '
                                                                                '"evidence": [{"doc_id": "p", "start": 0, "end": 4}]}'])
    assert load_dataset(tmp_path).documents[0].text == doc.text
    (tmp_path / "files" / "page.html").write_text("<p>Fees are due weekly.</p>")
    with pytest.raises(EvalError, match=r"corpus.jsonl, line 1: files/page.html reads differently from when its "
                                        r"evidence was placed"):
        load_dataset(tmp_path)
    (tmp_path / "files" / "page.html").unlink()
    with pytest.raises(EvalError, match=r"corpus.jsonl, line 1: .*page.html"):
        load_dataset(tmp_path)


def test_a_corpus_may_give_a_files_pages_as_a_loader_does(tmp_path):
    import hashlib

    pages = ["Fees\nFees are due monthly, on the first\n1", "Fees\nday of the month.\nLate fees double.\n2",
             "Fees\nRefunds take a week.\n3"]
    evidence = [{"doc_id": "fees.pdf", "start": 0, "end": 4}]
    read = load_dataset(_write(tmp_path, [{"id": "fees.pdf", "pages": pages}],
                               [{"id": "q", "query": "when?", "evidence": evidence}]))
    [doc] = read.documents
    # one document, its pages parted by a form feed, its running head and folios gone
    assert doc.read and doc.text == ("Fees\nFees are due monthly, on the first\n\fday of the month.\n"
                                     "Late fees double.\n\f\nRefunds take a week.")
    digest = hashlib.sha256(doc.text.encode()).hexdigest()
    _write(tmp_path, [{"id": "fees.pdf", "pages": pages[:1], "sha256": digest}],
           [{"id": "q", "query": "when?", "evidence": evidence}])
    with pytest.raises(EvalError, match="the file its pages make reads differently"):
        load_dataset(tmp_path)
    _write(tmp_path, [{"id": "fees.pdf", "pages": [1, 2]}], [{"id": "q", "query": "when?", "evidence": evidence}])
    with pytest.raises(EvalError, match="'pages' must be a list of texts"):
        load_dataset(tmp_path)
