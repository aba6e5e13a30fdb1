"""Footnotes in assembly: a note comes with the sentence citing it, a citing sentence with its note."""

from __future__ import annotations

import json

from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st
from test_expand_support import RAW_CANDIDATES, Trees, assemble_anywhere, chars

from zoomrag.cli import main
from zoomrag.expand import Candidate, assemble
from zoomrag.expand.footnotes import find_footnotes
from zoomrag.load import read_text
from zoomrag.model import Document, Hit
from zoomrag.parse import chunker_for_profile
from zoomrag.parse.base import build_tree

NOTES = (
    "# Migration log\n\n"
    "The brokers were moved in two waves over a fortnight in October.\n\n"
    "- 2026-10-02: lag alarms fired during the nightly compaction; we raised the replication "
    "factor of the internal topics to three.[^why]\n"
    "- 2026-10-09: the audit consumers moved, and no duplicates were seen by the checks.\n\n"
    + "Filler paragraph about the weather in the data centre and nothing else at all. " * 6 + "\n\n"
    "[^why]: The default of one lost the checkpoint topic once, when a broker was replaced by the vendor.\n"
    "    It took a day to rebuild the offsets from the consumer logs.\n\n"
    "[^unused]: A note that nothing cites stays where it is.\n"
)


def _tree():
    return build_tree(Document(id="n", source="n.md", text=NOTES, format="markdown"), [])


def _one(start: int, end: int, budget: int, explain: bool = True):
    h = Hit("h", "n", start, end, 0.9)
    return assemble([Candidate("n", start, end, 0.9, (h,))], Trees(_tree()), budget, chars, explain=explain)


def test_a_note_alone_comes_with_the_sentence_that_cites_it():
    s = NOTES.index("[^why]:")
    [c] = _one(s, NOTES.index("consumer logs.") + len("consumer logs."), 1000)
    item = NOTES.index("- 2026-10-02")
    cite_end = NOTES.index("[^why]\n") + len("[^why]")
    note_end = NOTES.index("consumer logs.") + len("consumer logs.")
    assert c.parts() == ((item, cite_end), (s, note_end))
    assert c.text == NOTES[item:cite_end] + "\n" + NOTES[s:note_end]
    assert "the sentence citing its footnote" in c.rule


def test_a_citing_sentence_comes_with_its_note():
    s = NOTES.index("- 2026-10-02")
    [c] = _one(s, NOTES.index("[^why]\n") + len("[^why]"), 1000)
    note = NOTES.index("[^why]:")
    assert c.parts()[-1] == (note, NOTES.index("consumer logs.") + len("consumer logs."))
    assert len(c.parts()) == 2 and "the footnote it cites" in c.rule
    assert "[^unused]" not in c.text


def test_a_note_cited_in_a_table_row_comes_with_the_row_and_its_header():
    text = ("# Platforms\n\n| System | Support |\n| --- | --- |\n| Linux | Tier 1 |\n"
            "| Windows x86 | Experimental[^x] |\n| macOS | Tier 1 |\n\n"
            + "Filler paragraph about nothing in particular at all here. " * 6 + "\n\n"
            "[^x]: Running on x86 Windows should work, but tests only run on WoW64 in our infrastructure.\n")
    tree = chunker_for_profile("default").chunk(read_text(text, format="markdown", id="t", source="t.md"))
    assert any(n.kind == "table" for n in tree.nodes)
    note = text.index("[^x]:")
    h = Hit("h", "t", note, len(text) - 1, 0.9)
    [c] = assemble([Candidate("t", note, len(text) - 1, 0.9, (h,))], Trees(tree), 1000, chars)
    header = (text.index("| System"), text.index("| --- | --- |") + len("| --- | --- |"))
    row = (text.index("| Windows x86"), text.index("Experimental[^x] |") + len("Experimental[^x] |"))
    assert c.parts() == (header, row, (note, len(text) - 1))


def test_a_context_begun_inside_a_note_starts_at_its_marker():
    s = NOTES.index("It took a day")
    e = NOTES.index("consumer logs.") + len("consumer logs.")
    h = Hit("h", "n", s, e, 0.9)
    [c] = assemble([Candidate("n", s, e, 0.9, (h,))], Trees(_tree()), 1000, chars)
    assert c.parts()[-1][0] == NOTES.index("[^why]:") and c.parts()[-1][1] >= e


def test_no_room_no_note():
    s = NOTES.index("- 2026-10-02")
    e = NOTES.index("[^why]\n") + len("[^why]")
    [c] = _one(s, e, e - s + 20)
    assert c.parts() == ((s, e),)


def test_a_note_beside_its_citation_widens_the_context():
    text = "The pool is shared by all workers.[^p] It holds forty connections at most.\n\n" \
           "[^p]: Shared since version two of the scheduler, which replaced per-worker pools.\n"
    tree = build_tree(Document(id="b", source="b.md", text=text, format="markdown"), [])
    h = Hit("h", "b", 0, 10, 0.9)
    [c] = assemble([Candidate("b", 0, 38, 0.9, (h,))], Trees(tree), 1000, chars)
    assert (c.start, c.end) == (0, len(text.rstrip())) and c.spans == ()


def test_no_notes_no_change():
    text = "A plain text [^ with a bracket but no note. It reads as it is written here today.\n"
    assert find_footnotes(text).notes == {} and find_footnotes("no notes at all").refs == []


def test_find_footnotes_exact():
    got = find_footnotes(NOTES)
    why = NOTES.index("[^why]:")
    assert got.notes["why"] == (why, NOTES.index("consumer logs.") + len("consumer logs."))
    assert got.notes["unused"] == (NOTES.index("[^unused]:"), len(NOTES.rstrip()))
    assert [(s, lab) for s, _, lab in got.refs] == [(NOTES.index("[^why]\n"), "why")]


RST = ("Decimal arithmetic [#]_ is exact, as the standard says [1]_ and [CIT2002]_ show.\n"
       "Some precision [#]_ too.\n\n"
       + "Filler words about rounding modes and contexts, said once more. " * 5 + "\n\n"
       ".. [#] New in version 3.3.\n"
       ".. [1] The General Decimal Arithmetic\n"
       "   Specification, continued here with the rules for every operation.\n\n"
       "   A second paragraph of it.\n\n"
       ".. [#]\n"
       "    Changed in version 3.9.\n\n"
       ".. [CIT2002] A citation.\n"
       "Text after the notes.\n")


def test_restructured_text_notes_and_citations():
    got = find_footnotes(RST)

    def span(first: str, last: str) -> tuple[int, int]:
        return RST.index(first), RST.index(last) + len(last)
    assert got.notes == {"#1": span(".. [#] New", "3.3."), "1": span(".. [1]", "A second paragraph of it."),
                         "#2": span(".. [#]\n", "3.9."), "CIT2002": span(".. [CIT2002]", "A citation.")}
    assert [(RST[s:e], lab) for s, e, lab in got.refs] == [("[#]_", "#1"), ("[1]_", "1"), ("[CIT2002]_", "CIT2002"),
                                                           ("[#]_", "#2")]


def test_a_restructured_text_note_comes_with_its_citation():
    tree = build_tree(Document(id="r", source="r.rst", text=RST, format="rst"), [])
    s, e = RST.index(".. [1]"), RST.index("of it.") + len("of it.")
    [c] = assemble([Candidate("r", s, e, 0.9, (Hit("h", "r", s, e, 0.9),))], Trees(tree), 1000, chars)
    cite = RST.index("Decimal")
    assert c.parts()[0][0] == cite and RST[c.parts()[0][0]:c.parts()[0][1]].endswith("[CIT2002]_ show.")
    assert c.parts()[-1] == (s, e)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["word ", "[^a]", "[^b] ", "\n", "\n\n", "[^a]: ", "    ", "[^", "]", ":",
                                 ".. [1] ", "[1]_", ".. [#]", "[#]_", " "]),
                max_size=60))
def test_footnote_spans_are_exact_and_labelled(pieces):
    text = "".join(pieces)
    got = find_footnotes(text)
    for label, (s, e) in got.notes.items():
        assert 0 <= s < e <= len(text)
        assert text.startswith((f"[^{label}]:", f".. [{label.rstrip('0123456789') if label[0] in '#*' else label}]"), s)
        assert s == 0 or text[:s].endswith(("\n", "\n ", "\n  ", "\n   ")) or not text[:s].strip(" ")
        assert not text[e - 1].isspace()
    for s, e, label in got.refs:
        assert text[s:e] in (f"[^{label}]", f"[{label.rstrip('0123456789') if label[0] in '#*' else label}]_")
    assert got.refs == sorted(got.refs)


def test_query_returns_a_note_with_its_citation_through_the_cli(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "log.md").write_text(NOTES, encoding="utf-8")

    def run(*args: str) -> str:
        result = CliRunner().invoke(main, list(args))
        assert result.exit_code == 0, (result.stdout, result.stderr, result.exception)
        return result.stdout

    run("index", "docs", "--embedder", "hash", "-q", "--no-probe")
    question = "checkpoint topic lost when a broker was replaced by the vendor"
    got = json.loads(run("query", question, "--mode", "bm25", "--budget", "200", "--top", "1", "--json"))
    [ctx] = got["contexts"]
    item, note = NOTES.index("- 2026-10-02"), NOTES.index("[^why]:")
    assert [s["start"] for s in ctx["spans"]] == [item, note]
    assert ctx["text"].startswith("- 2026-10-02: lag alarms") and "\n[^why]: The default of one" in ctx["text"]
    shown = run("query", question, "--mode", "bm25", "--budget", "200", "--top", "1")
    assert f"[{item}, " in shown and f") + [{note}, " in shown


@settings(max_examples=150, deadline=None)
@given(RAW_CANDIDATES, st.integers(20, 900))
def test_carried_spans_never_repeat_a_character_nor_pass_the_budget(raw, budget):
    assemble_anywhere(_tree(), raw, budget)
