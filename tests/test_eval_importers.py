"""Importing questions with evidence text: exact and whitespace-normalised location, and the report."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zoomrag.errors import EvalError
from zoomrag.evaluate import EvalDocument, Evidence, import_questions, load_dataset
from zoomrag.evaluate.locate import Locator, normalize_ws

FIXTURES = Path(__file__).parent / "fixtures" / "eval"


@pytest.fixture(scope="module")
def tiny():
    return load_dataset(FIXTURES / "tiny")


def span_of(ds, doc_id: str, text: str) -> Evidence:
    k = ds.document(doc_id).text.index(text)
    return Evidence(doc_id, k, k + len(text))


def test_csv_import_locates_exactly_then_whitespace_normalised(tiny):
    res = import_questions(FIXTURES / "questions.csv", tiny)
    got = {q.id: q for q in res.queries}
    assert list(got) == ["c1", "c2", "c3", "c6"]
    assert got["c1"].evidence == (span_of(tiny, "a", "The cat sat on the mat."),)
    # "Rain falls" (one space) is "Rain  falls" (two) in the document: the exact original span.
    assert got["c2"].evidence == (span_of(tiny, "b", "Rain  falls in spring."),)
    # A newline in the CSV cell where the document has a space.
    assert got["c3"].evidence == (span_of(tiny, "a", "The dog barked at night."),)
    # Two rows with the same id are one question with two passages.
    assert got["c6"].evidence == (span_of(tiny, "a", "The cat sat on the mat."),
                                  span_of(tiny, "a", "Nobody slept."))
    r = res.report
    assert (r.questions, r.imported, r.evidence, r.exact, r.whitespace, r.not_found) == (6, 4, 7, 3, 2, 2)
    assert r.dropped == ("c4", "c5")
    assert [(u.line, u.query_id, u.reason) for u in r.unlocated] == [
        (6, "c4", "not found in the corpus"),
        (7, "c5", "document 'zzz' is not in the corpus"),
    ]
    assert "imported 4 of 6 questions" in r.summary() and "2 not found" in r.summary()
    assert res.into(tiny).queries == res.queries


def test_jsonl_import_with_lists_objects_and_an_unlocatable_passage(tiny):
    res = import_questions(FIXTURES / "questions.jsonl", tiny)
    got = {q.id: q for q in res.queries}
    assert list(got) == ["j1", "j2"]
    assert got["j1"].evidence == (span_of(tiny, "a", "The cat sat on the mat."),
                                  span_of(tiny, "a", "It was warm."))
    assert got["j2"].evidence == (span_of(tiny, "b", "Rain  falls in spring."),)
    assert got["j2"].answer == "spring"
    r = res.report
    assert (r.exact, r.whitespace, r.not_found, r.dropped) == (1, 2, 1, ("j3",))
    assert r.unlocated[0].line == 3 and r.unlocated[0].passage == "Not in the corpus at all."


def test_llamaindex_labelled_rag_dataset(tiny):
    res = import_questions(FIXTURES / "llamaindex.json", tiny)
    (q,) = res.queries
    assert q.id == "llama-0" and q.query == "What did the dog do at night?" and q.answer == "It barked."
    # The reference context has a newline where the document has a space after "night.".
    assert q.evidence == (span_of(tiny, "a", "The dog barked at night. Nobody slept."),)
    r = res.report
    assert (r.questions, r.imported, r.whitespace) == (3, 1, 1)
    assert [(u.query_id, u.reason) for u in r.unlocated] == [
        ("llama-1", "not found in the corpus"), ("llama-2", "no evidence text given")]


def test_import_errors(tmp_path, tiny):
    bad = tmp_path / "q.csv"
    bad.write_text("prompt,text\nx,y\n")
    with pytest.raises(EvalError, match=r"header has columns \['prompt', 'text'\]; a question column"):
        import_questions(bad, tiny)
    with pytest.raises(EvalError, match="file not found"):
        import_questions(tmp_path / "missing.csv", tiny)
    odd = tmp_path / "q.txt"
    odd.write_text("x")
    with pytest.raises(EvalError, match=r"cannot tell the format from the extension '\.txt'"):
        import_questions(odd, tiny)
    notllama = tmp_path / "q.json"
    notllama.write_text('{"rows": []}')
    with pytest.raises(EvalError, match="not a LabelledRagDataset JSON"):
        import_questions(notllama, tiny)
    clash = tmp_path / "c.csv"
    clash.write_text("id,question,evidence\nx,one?,The cat sat on the mat.\nx,two?,Nobody slept.\n")
    with pytest.raises(EvalError, match="line 3: id 'x' was used on line 2 for another question"):
        import_questions(clash, tiny)


def test_evidence_cell_with_a_json_list_is_several_passages(tmp_path, tiny):
    p = tmp_path / "q.csv"
    p.write_text('question,evidence\nwhat?,"[""The cat sat on the mat."", ""Nobody slept.""]"\n')
    (q,) = import_questions(p, tiny).queries
    assert len(q.evidence) == 2 and q.id == "q2"


# -- locating ----------------------------------------------------------------------------

def test_locator_prefers_exact_and_counts_other_occurrences(tiny):
    loc = Locator(tiny.documents)
    hit = loc.locate("falls in")
    assert (hit.doc_id, hit.method, hit.also_found) == ("b", "exact", 1)
    assert loc.locate("  The cat  ") is not None  # surrounding whitespace is ignored
    assert loc.locate("") is None and loc.locate("   ") is None
    near = loc.locate("falls in", "b", near=40)
    assert tiny.document("b").text[near.start:near.end] == "falls in" and near.start > 30


words = st.lists(st.sampled_from(["alpha", "beta", "γάμμα", "数据", "x", "end."]),
                 min_size=1, max_size=12)
gaps = st.sampled_from([" ", "  ", "\n", "\t", " \n ", "\u3000"])


@settings(max_examples=150)
@given(st.data())
def test_whitespace_normalised_match_maps_back_to_an_exact_span(data):
    ws = data.draw(words)
    text = "".join(w + data.draw(gaps) for w in ws)
    i = data.draw(st.integers(0, len(ws) - 1))
    j = data.draw(st.integers(i + 1, len(ws)))
    needle = " ".join(ws[i:j])  # the same words with different whitespace
    hit = Locator([EvalDocument("d", text)]).locate(needle)
    assert hit is not None
    found = text[hit.start:hit.end]
    assert normalize_ws(found) == normalize_ws(needle)
    assert found == found.strip()
    assert re.sub(r"\s+", "", found) == re.sub(r"\s+", "", needle)


DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def test_reimporting_real_evidence_as_rewrapped_text_finds_the_same_passages(tmp_path):
    if not (DATA / "chroma_general" / "queries.jsonl").exists():
        pytest.skip("shared/data is not present")
    import csv

    ds = load_dataset(DATA / "chroma_general").sample(12, seed=1)
    path = tmp_path / "q.csv"
    with path.open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["id", "question", "evidence", "doc_id"])
        for q in ds.queries:
            for e in q.evidence:
                # Collapse whitespace as a copy-paste through a web form would.
                w.writerow([q.id, q.query, normalize_ws(ds.evidence_text(e)), e.doc_id])
    res = import_questions(path, ds)
    assert res.report.not_found == 0 and res.report.imported == 12
    for old, new in zip(ds.queries, res.queries):
        assert [normalize_ws(ds.evidence_text(e)) for e in old.evidence] == \
            [normalize_ws(ds.evidence_text(e)) for e in new.evidence]
