"""Evaluation documents go through the readers of ``zoomrag index``; evidence moves with them."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from zoomrag.cli import main
from zoomrag.evaluate import Dataset, EvalQuery, Evidence, load_dataset, run_eval
from zoomrag.evaluate.dataset import EvalDocument
from zoomrag.evaluate.reading import read_dataset
from zoomrag.evaluate.retriever import IndexPool, IndexRetriever
from zoomrag.load import read_text

HTML = Path(__file__).parent / "fixtures" / "eval" / "html"


def test_html_evidence_is_moved_into_the_rendered_text():
    ds = read_dataset(load_dataset(HTML))
    pets = ds.document("pets")
    assert pets.text == read_text(load_dataset(HTML).document("pets").text, format="html").text
    assert pets.text.startswith("# Cats\n\nThe cat sat on the mat & slept all day.")
    assert pets.read and any(b.type == "table" for b in pets.blocks)
    got = {q.id: [ds.evidence_text(e) for e in q.evidence] for q in ds.queries}
    assert got == {"q1": ["The cat sat on the mat & slept all day."],
                   "q2": ["Dogs bark at the moon every night."],
                   "q3": ["Tom | 3"],  # a table row's cells, as the rendering holds them
                   "q4": ["Birds fly south in winter."]}  # CRLF text: offsets shifted by the CRs
    # Evidence inside markup that is never rendered (a <style> rule) cannot be scored: listed.
    assert [(s.query_id, "not in the text its html reader makes" in s.reason) for s in ds.skipped] == [("q5", True)]
    assert read_dataset(ds) is ds  # reading twice changes nothing


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(["ab", "c ", "\r\n", "\n", "\r", "é"]), min_size=1, max_size=30), st.data())
def test_newline_normalised_offsets_point_at_the_same_characters(parts, data):
    raw = "".join(parts)
    cuts = [0]
    for p in parts:
        cuts.append(cuts[-1] + len(p))
    # Spans along the pieces.
    i = data.draw(st.integers(0, len(parts) - 1))
    j = data.draw(st.integers(i + 1, len(parts)))
    s, e = cuts[i], cuts[j]
    assume(raw[e - 1:e + 1] != "\r\n")  # an end between the CR and LF of one line break
    ds = read_dataset(Dataset("p", (EvalDocument("d", raw),), (EvalQuery("q", "x", (Evidence("d", s, e),)),)))
    if not ds.queries:  # a span of removed characters only (cannot happen along whole pieces)
        raise AssertionError(ds.skipped)
    ev = ds.queries[0].evidence[0]
    assert ds.evidence_text(ev) == raw[s:e].replace("\r\n", "\n").replace("\r", "\n")


def test_the_evaluated_index_holds_the_rendered_text_not_markup(tmp_path: Path):
    ds = load_dataset(HTML)
    with IndexPool(tmp_path, "hash", mode="bm25") as pool:
        r = IndexRetriever("fixed-128", pool)
        run = run_eval(ds, [r], [64], resamples=50)
        stored = {d.id: r.index.tree(d.id).document.text for d in r.index.documents()}
    assert "<" not in stored["pets"] and stored["pets"].startswith("# Cats")
    assert run.dataset["queries"] == 4 and [s["id"] for s in run.dataset["skipped_queries"]] == ["q5"]
    assert run.get("fixed-128", 64).mean("evidence_recall") > 0.5


def test_cli_eval_reads_html_and_lists_evidence_it_could_not_place(tmp_path: Path):
    out = tmp_path / "r.json"
    r = CliRunner().invoke(main, ["eval", "--data", str(HTML), "--config", "fixed-128", "--embedder", "hash",
                                  "--mode", "bm25", "--budgets", "64", "--cache", str(tmp_path / "c.db"),
                                  "--index-dir", str(tmp_path / "ix"), "-q", "--json", str(out)],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert "1 query left out" in r.output and "q5" in r.output
    report = json.loads(out.read_text())
    assert report["dataset"]["queries"] == 4
    assert [s["id"] for s in report["dataset"]["skipped_queries"]] == ["q5"]


def test_a_document_is_evaluated_in_the_format_its_reader_gives_it():
    """A javadoc source page is indexed as the Java file it shows; evaluated as HTML, its
    methods were not named as the index names them."""
    lines = ["package org.x;", "public class Range {", "    /** Fits a value. */", "    public int fit(int v) {",
             "        return v;", "    }", "}"]
    page = ("<html><head><meta name='description' content='source: package: org.x, class: Range'></head><body>"
            "<div class='source-container'><pre>"
            + "\n".join(f"<span class='source-line-no'>{i:03}</span><span>{line}</span>" for i, line in enumerate(lines, 1))
            + "</pre></div></body></html>")
    start = page.index("/** Fits")
    ds = read_dataset(Dataset("src", (EvalDocument("Range.html", page, format="html"),),
                              (EvalQuery("q1", "fit", (Evidence("Range.html", start, start + len("/** Fits a value. */")),)),)))
    doc = ds.document("Range.html")
    assert doc.format == "code" and doc.text.startswith("package org.x;\npublic class Range {")
    assert [ds.evidence_text(e) for e in ds.queries[0].evidence] == ["/** Fits a value. */"]
