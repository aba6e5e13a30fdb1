"""Context shape in assembly: sentence and line boundaries, no fragments, table header rows,
the stop rule, one copy of text that two files share."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_expand_support import Trees, chars, moved_back

from zoomrag.expand import Candidate, assemble
from zoomrag.expand.bounds import (
    AFTER_REACH,
    MIN_WORDS,
    clean_end,
    clean_start,
    grow,
    has_words,
    heading_starts,
    is_markup,
    item_after,
    item_start,
    lead_in,
    lead_start,
    leads_on,
    led_to,
    snap,
    without_heading,
    without_markup_edges,
    word_count,
    words_upto,
)
from zoomrag.load import read_text
from zoomrag.load.readers.delimited import read_csv
from zoomrag.load.spans import skip_space, trim_end
from zoomrag.model import Document, Hit
from zoomrag.parse import make_chunker
from zoomrag.parse.base import build_tree
from zoomrag.parse.router import chunker_for_profile
from zoomrag.store.fts import query_terms

SENTENCES = [
    "The river rises in the hills north of the town.",
    "Farmers along its banks grow rice and beans in the wet season.",
    "In 1910 a dam was built to hold back the spring floods.",
    "It failed twice before engineers raised the wall by four metres.",
    "Today the reservoir supplies water to three cities.",
    "Boats are not allowed on it.",
    "Fish stocks have recovered since the ban on nets.",
    "A footpath follows the eastern shore for twelve kilometres.",
]


def prose(n: int, per_paragraph: int) -> str:
    paras, cur = [], []
    for i in range(n):
        cur.append(SENTENCES[i % len(SENTENCES)])
        if len(cur) == per_paragraph:
            paras.append(" ".join(cur))
            cur = []
    if cur:
        paras.append(" ".join(cur))
    return "\n\n".join(paras) + "\n"


@settings(max_examples=120, deadline=None)
@given(st.integers(3, 30), st.integers(1, 5),
       st.lists(st.tuples(st.floats(0, 1), st.integers(0, 200), st.floats(0, 1)), min_size=1, max_size=8),
       st.integers(5, 400), st.booleans())
def test_contexts_are_exact_in_budget_never_repeat_and_end_at_sentences(n, per, raw, budget, fill):
    text = prose(n, per)
    tree = build_tree(Document(id="d", source="d.txt", text=text), [])
    cands = []
    for k, (where, size, score) in enumerate(raw):
        s = int(where * (len(text) - 1))
        e = min(len(text), s + size + 1)
        h = Hit(f"h{k}", "d", s, min(e, s + 8), score)
        cands.append(Candidate("d", s, e, score, (h,), fallback=(Candidate("d", s, h.end, score, (h,)),)))
    out = assemble(cands, Trees(tree), budget, chars, fill=fill)
    seen: set[int] = set()
    total = 0
    for c in out:
        parts = c.parts()
        assert c.text == "\n".join(text[s:e] for s, e in parts)
        for s, e in parts:
            assert not seen & set(range(s, e))
            seen |= set(range(s, e))
            total += e - s
            # the one exception: a cut at words inside a sentence too long to fit (over half
            # the budget or more)
            if not clean_start(text, s):
                a, b = snap(text, s, s + 1)
                assert 2 * (b - a) > budget, (text[s:e], c.rule)
            if not clean_end(text, e):
                a, b = snap(text, e - 1, e)
                assert 2 * (b - a) > budget, (text[s:e], c.rule)
        # under 15 words only when cut at words, when the document is that small, or as the one
        # context of a budget smaller than the context's own 15-word form
        small = "the budget holds no more" in c.rule and len(out) == 1 and \
            (lambda g: g[1] - g[0])(grow(text, *snap(text, c.start, c.end))) > budget
        assert word_count(text, c.start, c.end) >= MIN_WORDS or ", cut at words" in c.rule or small or \
            word_count(text, 0, len(text)) < MIN_WORDS
    assert total <= budget


def test_snap_widens_to_whole_sentences_and_grow_reaches_fifteen_words():
    text = prose(6, 6)
    s, e = snap(text, text.index("rice"), text.index("rice") + 4)
    assert text[s:e] == SENTENCES[1]
    s, e = grow(text, s, e)
    assert text[s:e] == " ".join(SENTENCES[1:3]) and word_count(text, s, e) >= MIN_WORDS
    # lines, not sentences, in tables and code
    table = "| a | b |\n|---|---|\n| one. Two | three |\n"
    s, e = snap(table, table.index("Two"), table.index("Two") + 3, lines=True)
    assert table[s:e] == "| one. Two | three |"


@settings(max_examples=150, deadline=None)
@given(st.integers(2, 12), st.integers(0, 400), st.integers(0, 400), st.booleans())
def test_grow_within_a_range_stays_inside_it(n, a, b, lines):
    text = prose(n, 2)
    lo, hi = sorted((a % (len(text) - 1), b % (len(text) - 1)))
    s0, e0 = snap(text, lo, max(lo + 1, min(hi, lo + 5)), lines)
    s, e = grow(text, s0, e0, lines, within=(lo, hi))
    assert s <= s0 and e >= e0
    assert min(lo, s0) <= s and e <= max(hi, e0)  # never past the range, beyond where it began


def test_a_short_match_grows_into_a_readable_context():
    text = prose(8, 8)
    tree = build_tree(Document(id="d", source="d.txt", text=text), [])
    h = Hit("h", "d", text.index("dam"), text.index("dam") + 3, 0.9)
    [c] = assemble([Candidate("d", h.start, h.end, 0.9, (h,))], Trees(tree), 1000, chars)
    assert c.text == " ".join(SENTENCES[2:4])


LIST = ("Intro text here.\n\n"
        "- alpha beta gamma\n  delta. Epsilon zeta\n  eta theta\n"
        "- iota kappa\n  lambda mu. Nu xi omicron pi rho sigma tau upsilon phi chi psi omega\n"
        "  and the rest of the alphabet again.\n\n"
        "1. one two\n   three. Four five\n\nA paragraph after it. Its second sentence here.\n")


def test_item_start_finds_the_marker_of_the_list_item_a_position_lies_in():
    def at(word: str) -> str:
        return LIST[item_start(LIST, LIST.index(word)):][:8]

    assert at("Epsilon") == "- alpha " and at("delta") == "- alpha "
    assert at("Nu xi") == "- iota k" and at("Four") == "1. one t"
    assert at("- iota") == "- iota k"  # already at its marker
    assert at("Its second") == "Its seco" and at("Intro") == "Intro te"  # no list item
    far = LIST.index("Nu xi")
    assert item_start(LIST, far, reach=10) == far  # the marker lies too far back


LINES = st.sampled_from(["- a bullet line", "  wrapped on. Next", "12. numbered", "plain words here",
                         "", "   ", "* star item", "-not a marker", "```", "\u2022 dot"])


@settings(max_examples=200, deadline=None)
@given(st.lists(LINES, min_size=1, max_size=12), st.data())
def test_item_start_is_a_marker_at_or_before_the_position_within_reach(lines, data):
    text = "\n".join(lines)
    pos = data.draw(st.integers(0, len(text)))
    reach = data.draw(st.integers(0, 60))
    got = item_start(text, pos, reach)
    assert pos - reach <= got <= pos
    if got < pos:
        line = text.rfind("\n", 0, got) + 1
        assert text[line:got].strip() == "" and text[got] in "-*\u20221234567890"
        assert "\n\n" not in text[got:pos] and not any(
            ln.strip() == "" for ln in text[got:text.rfind("\n", 0, pos) + 1].split("\n")[1:-1])


def test_a_context_starting_inside_a_list_item_starts_at_its_marker_when_that_fits():
    tree = build_tree(Document(id="d", source="d.md", text=LIST), [])
    s, e = LIST.index("Nu xi"), LIST.index("again.") + len("again.")
    h = Hit("h", "d", s, e, 0.9)
    [wide] = assemble([Candidate("d", s, e, 0.9, (h,))], Trees(tree), 1000, chars)
    assert wide.text == LIST[LIST.index("- iota"):e]
    # no room for the item's first sentence: the context keeps the sentence start it had
    [tight] = assemble([Candidate("d", s, e, 0.9, (h,))], Trees(tree), e - s + 5, chars)
    assert tight.text == LIST[s:e]
    # lines of code are never taken for list items
    [code] = assemble([Candidate("d", s, e, 0.9, (h,), kind="code")], Trees(tree), 1000, chars)
    assert code.text.startswith("lambda mu.")


def test_item_after_finds_where_the_list_item_a_position_lies_in_ends():
    def at(word: str, end: int = len(LIST)) -> str:
        return LIST[item_after(LIST, LIST.index(word), end):][:8]

    assert at("Epsilon") == "- iota k" and at("eta theta") == "- iota k"
    assert at("Nu xi") == "1. one t" and at("Four") == "A paragr"  # the paragraph after a blank line
    assert at("Intro") == "Intro te" and at("Its second") == "Its seco"  # no list item
    assert at("Epsilon", LIST.index("- iota")) == "Epsilon "  # nothing begins before the end


@settings(max_examples=200, deadline=None)
@given(st.lists(LINES, min_size=1, max_size=12), st.data())
def test_item_after_is_a_later_line_start_inside_the_range(lines, data):
    text = "\n".join(lines)
    pos = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(pos, len(text)))
    got = item_after(text, pos, end)
    assert got == pos or pos < got < end
    if got > pos:
        line = text.rfind("\n", 0, got) + 1
        assert line > pos and text[line:got].strip() == "" and not text[got].isspace()
        before = text[text.rfind("\n", 0, line - 1) + 1:line - 1]
        assert text[got] in "-*\u20221234567890" or before.strip() == ""
        assert item_start(text, pos, reach=AFTER_REACH) < pos  # pos lies inside an item


def test_a_context_that_cannot_start_at_its_item_marker_starts_at_the_next_item():
    tree = build_tree(Document(id="d", source="d.md", text=LIST), [])
    s, e = LIST.index("Epsilon"), LIST.index("again.") + len("again.")
    h = Hit("h", "d", LIST.index("iota"), e, 0.9)
    budget = e - s + 5  # no room for "- alpha beta gamma" before it
    [c] = assemble([Candidate("d", s, e, 0.9, (h,))], Trees(tree), budget, chars)
    assert c.text.startswith("- iota kappa")
    # a hit in the item's tail keeps it
    h2 = Hit("h2", "d", s, s + 7, 0.9)
    [kept] = assemble([Candidate("d", s, e, 0.9, (h2,))], Trees(tree), budget, chars)
    assert kept.text.startswith("Epsilon zeta")


def test_a_code_context_grown_into_prose_ends_at_a_sentence_not_a_line():
    text = ("Intro sentence one here.\n\n```\nx = 1\ny = 2\n```\n\n"
            "Note that the copy is required to avoid updating the inputs with\n"
            "*putmask* and more words. The next sentence is here.\n")
    tree = build_tree(Document(id="d", source="d.md", text=text), [])
    s, e = text.index("```"), text.index("```\n\n") + 3
    h = Hit("h", "d", s, e, 0.9)
    [c] = assemble([Candidate("d", s, e, 0.9, (h,), kind="code")], Trees(tree), 1000, chars)
    assert c.text == text[s:text.index(" The next")]


CSV = "code,name,description\n" + "".join(
    f"{400 + i},NAME_{i},Description number {i} of this status code is long enough\n" for i in range(30))


def test_a_csv_context_is_whole_rows_with_the_header_row_as_its_first_span():
    doc = read_csv(CSV, doc_id="c", source="c.csv")
    tree = make_chunker("table").chunk(doc)
    cell = next(n for n in tree.nodes if n.kind == "cell" and n.text == "NAME_17")
    h = Hit(cell.id, "c", cell.start, cell.end, 0.9)
    [c] = assemble([Candidate("c", cell.start, cell.end, 0.9, (h,), kind="cell")], Trees(tree), 1000, chars,
                   explain=True)
    header_end = CSV.index("\n")
    assert c.parts()[0] == (0, header_end) and len(c.parts()) == 2
    s, e = c.parts()[1]
    assert CSV[s - 1] == "\n" and CSV[e] == "\n" and "NAME_17" in CSV[s:e]
    assert c.text.startswith("code,name,description\n4") and c.text.endswith("long enough")
    assert "with its table's header row" in c.rule
    assert c.to_dict()["spans"] == [{"start": a, "end": b} for a, b in c.parts()]


def test_a_table_matched_in_a_short_section_is_returned_with_that_section_and_no_more():
    """A slide or a short section: a title, a line, a table. Grown line by line past it, the
    context took in the next section's title and its whole one-line paragraph."""
    talk = " ".join(f"Point {i} of the talk covers the hiring plan for team {i}." for i in range(12))
    text = ("# By region\n\nFigures in millions.\n\n| Region | Revenue |\n| --- | --- |\n| Europe | 4.1 |\n"
            f"| Asia | 2.0 |\n\n# Hiring\n\n{talk}\n")
    tree = make_chunker("markdown", {"unit": "chars"}).chunk(read_text(text, format="markdown"))
    s, e = text.index("| Europe"), text.index(" |\n\n# Hiring") + 2
    h = Hit("h", tree.document.id, s, e, 0.9)
    [c] = assemble([Candidate(tree.document.id, s, e, 0.9, (h,), kind="row")], Trees(tree), 1000, chars)
    assert c.text == text[:text.index("\n\n# Hiring")]


def test_a_table_context_does_not_open_with_the_last_rows_of_the_section_before():
    """Two sheets of a workbook: the rows of the first held a weak match (a name), and the
    context of the second sheet's table opened with them, rows without their header."""
    sales = "".join(f"| 2026-Q{q} | Asia | {300 + q} | Bo |\n" for q in range(1, 5))
    staff = "".join(f"| {n} | {r} | {o} |\n" for n, r, o in (("Ann", "Sales lead", "Lyon"), ("Bo", "Analyst", "Osaka"),
                                                           ("Cy", "Account manager", "Austin")))
    text = (f"# Sales\n\n| Quarter | Region | Sales | Owner |\n| --- | --- | --- | --- |\n{sales}\n"
            f"# Staff\n\n| Name | Role | Office |\n| --- | --- | --- |\n{staff}")
    text = text.rstrip("\n")
    tree = make_chunker("markdown", {"unit": "chars"}).chunk(read_text(text, format="markdown"))
    doc_id = tree.document.id
    weak_at = text.index("| 2026-Q4")
    strong_at = text.index("| Bo | Analyst")
    hits = (Hit("a", doc_id, strong_at, text.index("\n", strong_at), 0.032),
            Hit("b", doc_id, weak_at, text.index("\n", weak_at), 0.012))
    cand = Candidate(doc_id, text.index("| 2026-Q3"), len(text), 0.032, hits, kind="row")
    [c] = assemble([cand], Trees(tree), 1000, chars)
    assert c.text.startswith("# Staff\n\n| Name | Role | Office |") and "2026" not in c.text
    # a strong match in the rows before keeps them
    hits = (hits[0], dataclasses.replace(hits[1], score=0.03))
    [c] = assemble([dataclasses.replace(cand, hits=hits)], Trees(tree), 1000, chars)
    assert "| 2026-Q4 | Asia | 304 | Bo |" in c.text


def test_the_same_text_in_two_files_is_returned_once():
    text = prose(8, 4)
    a = build_tree(Document(id="a", source="a.txt", text=text), [])
    b = build_tree(Document(id="b", source="b.txt", text=text), [])
    s = text.index("dam")
    cands = [Candidate(d, s, s + 3, score, (Hit(f"h{d}", d, s, s + 3, score),)) for d, score in (("a", 0.9), ("b", 0.8))]
    out = assemble(cands, Trees(a, b), 1000, chars)
    assert [(c.doc_id, c.copies) for c in out] == [("a", ("b",))]


def test_the_same_section_under_a_short_title_in_two_files_is_returned_once():
    # npm's docs repeat each option's section in every command's page: `#### \`workspaces\`` …
    text = "#### `workspaces`\n\n* Default: null\n\n" + prose(3, 4)
    trees = [build_tree(Document(id=d, source=d, text=text), []) for d in ("run.md", "exec.md")]
    s = text.index("dam")
    cands = [Candidate(d, 0, len(text), score, (Hit(f"h{d}", d, s, s + 3, score),))
             for d, score in (("run.md", 0.9), ("exec.md", 0.8))]
    out = assemble(cands, Trees(*trees), 1000, chars)
    assert [(c.doc_id, c.copies) for c in out] == [("run.md", ("exec.md",))]


MIT = ("Permission is hereby granted, free of charge, to any person obtaining a copy of this software "
       "and associated documentation files, to deal in the Software without restriction, including "
       "without limitation the rights to use, copy, modify, merge, publish and distribute it.\n\n"
       "The above copyright notice and this permission notice shall be included in all copies or "
       "substantial portions of the Software.\n\n"
       "THE SOFTWARE IS PROVIDED AS IS, WITHOUT WARRANTY OF ANY KIND, EXPRESS OR IMPLIED, INCLUDING BUT "
       "NOT LIMITED TO THE WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE.\n")


def whole(docs: dict[str, str], budget: int = 5000) -> list[tuple[str, tuple[str, ...]]]:
    """The documents returned, with the copies left out for each, when each is a candidate,
    whole, best first, with one hit on its fourth paragraph (or its last)."""
    trees = [build_tree(Document(id=d, source=d, text=t), []) for d, t in docs.items()]
    cands = []
    for i, (d, t) in enumerate(docs.items()):
        paragraph = t.rstrip("\n").split("\n\n")[min(3, t.count("\n\n"))]
        s = t.index(paragraph)
        cands.append(Candidate(d, 0, len(t), 1 - i / 10, (Hit(f"h{d}", d, s, s + len(paragraph), 1 - i / 10),)))
    return [(c.doc_id, c.copies) for c in assemble(cands, Trees(*trees), budget, chars)]


def test_a_near_copy_from_another_file_is_returned():
    # two contracts whose clause differs in one name: the difference is what a reader asks about
    law = ("This Agreement is governed by the laws of the State of {} without regard to its conflict of "
           "laws rules, and each party submits to the courts of that State for any dispute under it.")
    docs = {f"{state}.txt": f"Supply agreement\n\nPreamble.\n\nSection 1.\n\n{law.format(state)}\n"
            for state in ("Delaware", "Texas")}
    assert whole(docs) == [("Delaware.txt", ()), ("Texas.txt", ())]
    # the same licence under other copyright lines: their holders are theirs
    docs = {f"{name}/LICENSE": f"MIT License\n\nCopyright (c) 2020 {name}\n\n{MIT}" for name in ("ms", "uuid")}
    assert whole(docs) == [("ms/LICENSE", ()), ("uuid/LICENSE", ())]


def test_a_context_names_the_documents_holding_most_of_what_matched_in_it():
    # search ranks a text once and says which other documents hold it (Hit.copies)
    text = prose(8, 8)
    tree = build_tree(Document(id="a", source="a.txt", text=text), [])
    first, second = SENTENCES[0], " ".join(SENTENCES[1:4])  # 10 words; 32 words

    def copies(*hits: tuple[str, tuple[str, ...]]) -> tuple[str, ...]:
        found = [Hit(f"h{i}", "a", text.index(t), text.index(t) + len(t), 1.0, copies=c)
                 for i, (t, c) in enumerate(hits)]
        [ctx] = assemble([Candidate("a", 0, len(text), 1.0, tuple(found))], Trees(tree), 1000, chars)
        return ctx.copies

    assert copies((second, ("b", "c")), (first, ("c",))) == ("c", "b")  # the one holding more first
    assert copies((first, ("b",))) == ()  # ten words: a common phrase, not a copy
    assert copies((second, ("b",)), (SENTENCES[4] + " " + " ".join(SENTENCES[5:8]), ())) == ("b",)
    assert copies((first + " " + SENTENCES[1], ("b",)), (second, ())) == ()  # under half of the match
    # a document returned in a context of its own is no copy left out
    other = build_tree(Document(id="b", source="b.txt", text="Other words here."), [])
    found = (Hit("h", "a", 0, len(text), 1.0, copies=("b",)),)
    out = assemble([Candidate("a", 0, len(text), 1.0, found), Candidate("b", 0, 17, 0.5, (Hit("g", "b", 0, 17, 0.5),))],
                   Trees(tree, other), 1000, chars)
    assert [(c.doc_id, c.copies) for c in out] == [("a", ()), ("b", ())]


def test_heading_starts_skip_comments_in_fenced_code():
    text = "Intro.\n\n```sh\n# install it\npip install x\n```\n\n## Usage\n\nRun it.\n"
    assert heading_starts(text) == [text.index("## Usage")]
    assert heading_starts(text, text.index("## Usage") + 1) == []
    assert heading_starts("a\n#tag not a heading\n#") == [21]  # "#" alone is an empty heading
    rst = "Same as validate.\n\n\nValidators\n----------\n\nText.\n\n=====\nTitle\n=====\n\nRun this\n~~~\n"
    # a title from its overline; a fence shorter than its line above is none
    assert heading_starts(rst) == [rst.index("Validators"), rst.index("=====")]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["# A", "## B c", "text here", "```", "#no", "", "  # d"]), max_size=12))
def test_heading_starts_are_the_heading_lines_outside_fences(lines):
    text = "\n".join(lines)
    pos, fenced, want = 0, False, []
    for line in lines:
        if line == "```":
            fenced = not fenced
        elif not fenced and line in ("# A", "## B c", "  # d"):
            want.append(pos)
        pos += len(line) + 1
    assert heading_starts(text) == want


def test_a_context_does_not_open_with_the_tail_of_the_section_before():
    tail = "Check out the next page if you would like to know how it does all of the above."
    body = ("It does nothing dynamic at runtime, so there is no overhead at all when your program runs, "
            "and the class stays yours.")
    text = f"# Overview\n\n{tail}\n\n## What it is not\n\n{body}\n"
    tree = make_chunker("markdown").chunk(Document(id="o", source="o.md", text=text, format="markdown"))
    at = text.index("It does")

    def start(first: int, *hits: int) -> int:
        found = tuple(Hit(f"h{h}", "o", h, h + 10, 1.0) for h in (first, *hits))
        [ctx] = assemble([Candidate("o", text.index("Check"), len(text), 1.0, found)], Trees(tree), 1000, chars)
        return ctx.start

    assert start(at) == text.index("## What")  # the tail of the section before is left out
    assert start(text.index("## What")) == text.index("## What")  # a hit that begins with its heading
    assert start(at, text.index("next page")) == 0  # a hit in the tail keeps it, under its heading


_HELP = ("Python Library Documentation: module spawn\n\nNAME\n    spawn - run programs\n\nMODULE REFERENCE\n"
         "    When in doubt, consult the module reference at the location listed above.\n\n"
         "DESCRIPTION\n    This module allows you to spawn processes, connect to their input and output "
         "pipes, and obtain their return codes when they finish.\n\nFUNCTIONS\n    call(args)\n"
         "        Run a command and wait for it to complete.\n")
_PAPER = ("1 Introduction\nThe first part of this paper sets out the question.\n"
          "Check the appendix for all of the above.\n"
          "2 Methods\nThis study measured the yield of each field in every season, with the same "
          "instruments and the same team.\n3 Results\nThe yield rose.\n")


@pytest.mark.parametrize(("text", "fmt", "opening", "hit", "closing", "starts"), [
    # help() output titles its sections with capitals (``DESCRIPTION``)
    (_HELP, "text", "When in", "This module", "FUNCTIONS", "DESCRIPTION\n    This module"),
    # a PDF's text with numbered lines, as LaTeX sets them (``2 Methods``)
    (_PAPER, "pdf", "Check the", "This study", "3 Results", "2 Methods\nThis study"),
])
def test_plain_text_titles_bound_a_context_as_markdown_ones_do(text, fmt, opening, hit, closing, starts):
    """A context opening with the tail of the section before starts at its own title."""
    doc = Document(id="p", source=f"doc.{fmt}", text=text, format=fmt)
    tree = make_chunker("hierarchical", {"unit": "chars"}).chunk(doc)
    at = text.index(hit)
    found = (Hit("h", "p", at, at + 30, 1.0),)
    [ctx] = assemble([Candidate("p", text.index(opening), text.index(closing), 1.0, found)],
                     Trees(tree), 1000, chars)
    assert ctx.text.startswith(starts)


@pytest.mark.parametrize(("fmt", "text", "starts"), [
    ("asciidoc", "= Spawn\n\n== Reference\n\nWhen in doubt, consult the module reference at the location "
                 "listed above.\n\n== Description\n\nThis module allows you to spawn processes, connect to "
                 "their input and output pipes, and obtain their return codes when they finish.\n\n"
                 "== Functions\n\nRun a command and wait.\n", "== Description\n\nThis module"),
    ("org", "* Reference\n\nWhen in doubt, consult the module reference at the location listed above.\n\n"
            "* TODO Description :doc:\n  :PROPERTIES:\n  :ID: 7\n  :END:\nThis module spawns processes, "
            "connects to their pipes, and obtains their return codes when they finish.\n\n"
            "* Functions\n\nRun a command and wait.\n", "* TODO Description :doc:\n"),
])
def test_titles_bound_a_context_read_from_the_store(fmt, text, starts):
    """A stored document has no reader blocks: AsciiDoc's ``==`` titles and Org's headlines are
    found from its text."""
    tree = make_chunker("hierarchical", {"unit": "chars"}).chunk(read_text(text, format=fmt))
    stored = dataclasses.replace(tree, document=dataclasses.replace(tree.document, blocks=()))
    at = text.index("This module")
    after = text.index("Functions") - (3 if fmt == "asciidoc" else 2)
    cand = Candidate(tree.document.id, text.index("When in"), after, 1.0,
                     (Hit("h", tree.document.id, at, at + 30, 1.0),))
    [ctx] = assemble([cand], Trees(stored), 1000, chars)
    assert ctx.text.startswith(starts)


def test_lines_of_bare_html_tags_are_cut_from_a_contexts_edges():
    text = ('<img src="logo.png">\n</p>\n\n## Features\n\nIt speaks HTTP/2.\n\n<p align="center">\n'
            '  <a href="x"><img src="badge.svg"></a> <!-- ci -->\n')
    hit = text.index("It speaks")
    s, e = without_markup_edges(text, 0, len(text), hit, hit + 17)
    assert text[s:e] == "## Features\n\nIt speaks HTTP/2."
    # a tag line holding the hit stays, as does text on a tag's line
    assert without_markup_edges(text, 0, len(text), 0, len(text)) == (0, len(text))
    assert without_markup_edges("<b>Note</b> this.\n", 0, 18, 17, 17) == (0, 18)
    myst = "(examples-validators)=\n\n## Validators\n\nText.\n\n.. _next:\n"
    s, e = without_markup_edges(myst, 0, len(myst), myst.index("##"), myst.index("Text") + 5)
    assert myst[s:e] == "## Validators\n\nText."
    assert is_markup(myst, 0, myst.index("##")) and not is_markup(myst, 0, myst.index("Text") + 4)
    assert not is_markup("<http://www.gnu.org/licenses/>", 0, 30)  # an autolink is text
    # the index entries of the next entry (Python's docs), not the end of this one's text
    rst = "   returns ``[]``.\n\n\n.. index::\n   single: universal newlines; str.splitlines method\n"
    s, e = without_markup_edges(rst, 0, len(rst), 3, 10)
    assert rst[s:e] == "   returns ``[]``."
    assert not is_markup("single: a line of prose", 0, 23)  # only indented, under the directive
    for attrs in ("[source,sh]", "[quote, Albert Einstein]", "[[install]]", "[#id.role]"):
        assert is_markup(attrs, 0, len(attrs)), attrs  # AsciiDoc's, with or without spaces
    assert not is_markup("[see the manual]", 0, 16)  # words in brackets, no attribute list
    org = "#+FILETAGS: :ops:\n\n* Backups\n:PROPERTIES:\n:ID: 42\n:END:\nRun them nightly.\n:LOGBOOK:\n"
    s, e = without_markup_edges(org, 0, len(org), org.index("* Backups"), org.index("nightly") + 8)
    assert org[s:e] == "* Backups\n:PROPERTIES:\n:ID: 42\n:END:\nRun them nightly."  # Org's, at the edges
    assert is_markup("|----+---|", 0, 10) and not is_markup("| a | b |", 0, 9)  # a table's frame, not a row
    for field in (":param x: the value", ":Author: Ann", "# Heading"):
        assert not is_markup(field, 0, len(field)), field  # reStructuredText fields and headings are text
    # a cut that would leave a fragment is not made
    short = "Short words here.\n" + "<a href='x'>\n" * 3 + " ".join(["<br>"] * 20) + "\n"
    assert without_markup_edges(short, 0, len(short), 0, 5) == (0, len(short))
    # in assembly: a README's logo frame before the section a hit is in
    readme = "<p align=\"center\">\n  <img src=\"logo.png\">\n</p>\n\n## Features\n\n" + prose(3, 3)
    tree = build_tree(Document(id="r", source="README.md", text=readme, format="markdown"), [])
    at = readme.index("Farmers")
    [ctx] = assemble([Candidate("r", 0, len(readme), 1.0, (Hit("h", "r", at, at + 20, 1.0),))], Trees(tree),
                     1000, chars)
    assert ctx.text.startswith("## Features\n\nThe river rises")
    # a MyST label matched on its own goes too; the hit on the prose stays
    doc = "(features)=\n\n## Features\n\n" + prose(3, 3)
    tree = build_tree(Document(id="m", source="m.md", text=doc, format="markdown"), [])
    at = doc.index("Farmers")
    hits = (Hit("l", "m", 0, 11, 0.5), Hit("h", "m", at, at + 20, 1.0))
    [ctx] = assemble([Candidate("m", 0, len(doc), 1.0, hits)], Trees(tree), 1000, chars)
    assert ctx.text.startswith("## Features") and [h[:2] for h in ctx.hits] == [(at, at + 20)]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["</p>", "<p align='c'>", "  <img src=x> <!-- c -->", "Words here.", "", "# H"]),
                max_size=10), st.data())
def test_markup_edges_stay_inside_and_keep_what_must_be_kept(lines, data):
    text = "\n".join(lines)
    keep_from = data.draw(st.integers(0, len(text)))
    keep_to = data.draw(st.integers(keep_from, len(text)))
    s, e = without_markup_edges(text, 0, len(text), keep_from, keep_to)
    assert 0 <= s <= e <= len(text)
    # what lies between keep_from and keep_to stays (whitespace around it aside)
    assert s <= skip_space(text, keep_from, len(text)) and e >= trim_end(text, 0, keep_to)
    assert "Words" not in text[:s] and "Words" not in text[e:]  # only tag lines and whitespace go
    assert "# H" not in text[:s] and "# H" not in text[e:]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["Title", "-----", "=====", "Words of a line.", "", "```", "# A"]), max_size=12))
def test_each_heading_start_is_a_heading_line(lines):
    text = "\n".join(lines)
    for got in heading_starts(text):
        assert got == 0 or text[got - 1] == "\n"
        line, _, rest = text[got:].partition("\n")
        below = rest.split("\n")
        # a "#" line, a title over its underline, or an overline over a title and its underline
        assert (line == "# A" or (below[0] in ("-----", "=====") and line and line not in ("-----", "=====")
                                  and len(below[0]) >= len(line))
                or (line in ("-----", "=====") and len(below) > 1 and below[1] in ("-----", "=====")))


def test_a_context_does_not_end_by_entering_the_next_section():
    text = ("# Timeouts\n\nEvery request waits at most thirty seconds for the server to answer, and a "
            "longer wait is an error the caller sees.\n\n# Interceptors\n\nYou can change requests before "
            "they are sent.\n\nEach interceptor gets the request and returns the request it wants sent instead, "
            "or throws to stop it, and the next interceptor gets what it returned, in the order they were "
            "added to the instance, with the last one added running first for requests. Responses go through "
            "their own interceptors in the order they were added, the first one added running first.\n")
    tree = make_chunker("markdown").chunk(Document(id="m", source="m.md", text=text, format="markdown"))
    second = text.index("# Interceptors")
    before = text.index("Each interceptor")
    hit_at = text.index("Every request")

    def end(stop: int, *hits: int) -> int:
        found = tuple(Hit(f"h{h}", "m", h, h + 13, 1.0) for h in hits)
        [ctx] = assemble([Candidate("m", 0, stop, 1.0, found)], Trees(tree), 1000, chars)
        return ctx.end

    assert end(before, hit_at) == text.index("sees.") + 5  # its heading and a sentence: left out
    assert end(before, hit_at, text.index("You can")) == text.index("sent.") + 5  # a hit there keeps it
    assert end(before, hit_at, second) == text.index("sees.") + 5  # one on its title alone does not
    assert end(len(text), hit_at) == len(text) - 1  # more than a glance into it
    assert second < before


def test_assembly_stops_when_the_next_candidate_holds_little_evidence_and_explain_says_so():
    text = prose(40, 40)
    tree = build_tree(Document(id="d", source="d.txt", text=text), [])
    hits = [Hit(f"h{k}", "d", 60 * k, 60 * k + 5, 1 - k / 100) for k in range(20)]
    # the best hit alone; then a huge span around a weak hit, mostly far from it
    cands = [Candidate("d", hits[0].start, hits[0].end, 0.99, (hits[0],), rule="unit"),
             *(Candidate("d", h.start, h.end, h.score, (h,), rule="unit") for h in hits[1:19]),
             Candidate("d", 600, len(text), 0.5, (hits[19],), rule="parent of 1 hit")]
    out = assemble(cands, Trees(tree), 100_000, chars, explain=True)
    assert max(c.end for c in out) < len(text)
    assert "assembly: stopped at" in out[-1].rule and "parent of 1 hit" in out[-1].rule
    full = assemble(cands, Trees(tree), 100_000, chars, explain=True, stop=0)
    assert max(c.end for c in full) == len(text.rstrip())


@given(text=st.text(alphabet="aZ9_-| \n.é中文日本한\u3041", max_size=40), data=st.data())
def test_has_words_stops_early_but_counts_as_word_count(text, data):
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    n = data.draw(st.integers(1, 8))
    assert has_words(text, start, end, n) == (word_count(text, start, end) >= n)
    assert words_upto(text, start, end, n) == min(word_count(text, start, end), n)


def test_remembered_snaps_are_bounded_and_stay_exact(monkeypatch):
    from zoomrag.expand import bounds

    text = "First sentence here. Second one follows it.\n\nA new paragraph starts. It ends here.\n"
    spans = [(a, b) for a in range(0, len(text), 5) for b in range(a + 1, len(text), 9)]
    want = [bounds.snap(text, a, b) for a, b in spans]
    monkeypatch.setattr(bounds, "MEMO_SPANS", 2)
    other = text.replace("First", "Third")  # a new text: a memo of its own
    assert [bounds.snap(other, a, b) for a, b in spans] == want
    assert [bounds.snap(other, a, b) for a, b in reversed(spans)] == want[::-1]


LEAD_IN = ("If you want to install packages while making sure that the manifest is not modified and "
           "that both files stay strictly in sync, use the clean install command instead of this one. "
           "A package is:\n\n* a) a folder with a manifest file\n* b) a gzipped tarball of (a)\n")


def one_context(text: str, end: int, hits: list[tuple[int, int, float]], budget: int = 1000, **kw):
    """The one context ``[0, end)`` of ``text`` (one flat document) with these hits."""
    tree = build_tree(Document(id="d", source="d.md", text=text), [])
    found = tuple(Hit(f"h{k}", "d", s, e, score) for k, (s, e, score) in enumerate(hits))
    [c] = assemble([Candidate("d", 0, end, max(h.score for h in found), found)], Trees(tree), budget, chars, **kw)
    return c


def test_a_context_does_not_end_with_a_lead_in_whose_list_it_leaves_out():
    end = LEAD_IN.index(":") + 1
    assert one_context(LEAD_IN, end, [(0, 20, 0.9)]).text.endswith("instead of this one.")
    # a hit in the lead-in keeps it, and a context without 15 other words keeps it too
    kept = one_context(LEAD_IN, end, [(LEAD_IN.index("A package"), end, 0.9)])
    assert kept.text.endswith("A package is:\n\n* a) a folder with a manifest file\n* b) a gzipped tarball of (a)")
    # a hit on the sentences before it as well (one leaf) matched those: the lead-in still goes
    leaf = one_context(LEAD_IN, end, [(LEAD_IN.index("that both"), end, 0.9)])
    assert leaf.text.endswith("instead of this one.")
    short = "Use the clean install command. A package is:\n\n* a) a folder\n"
    assert one_context(short, short.index(":") + 1, [(0, 5, 0.9)]).text.endswith("is:\n\n* a) a folder")


def _terms(question: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(query_terms(question)))


def test_a_lead_in_holding_a_word_of_the_question_stays_with_what_it_leads_to():
    end = LEAD_IN.index(":") + 1
    hit = [(LEAD_IN.index("that both"), end, 0.9)]  # one leaf over the sentence before and the lead-in
    listed = "A package is:\n\n* a) a folder with a manifest file\n* b) a gzipped tarball of (a)"
    # "package" is in the lead-in alone ("packages" before it is another word): it stays, and
    # the list it leads to comes with it
    assert one_context(LEAD_IN, end, hit, words=_terms("What is a package?")).text.endswith(listed)
    # a word the sentences before hold too ("manifest" is in the list, not the kept text; "clean"
    # is before the lead-in) does not keep it, nor does a question without such a word
    for question in ("clean install command", "how do I install", ""):
        got = one_context(LEAD_IN, end, hit, words=_terms(question))
        assert got.text.endswith("instead of this one."), question
    # where what it leads to does not fit, the lead-in still ends the context (it holds the match)
    small = one_context(LEAD_IN, end, hit, budget=end + 10, words=_terms("What is a package?"))
    assert small.text.endswith("A package is:")


TEMPDIR = ("## tempdir\n\nWhen set to a value other than None, this variable defines the default value "
           "for the dir argument to the functions defined in this module.\n\n## Examples\n\n"
           "Here are some examples of typical usage of the module:\n\n```\nimport tempfile\n```\n")


def test_a_weaker_hit_in_a_lead_under_a_heading_does_not_keep_it_nor_the_heading():
    end = TEMPDIR.index(":") + 1
    body = (TEMPDIR.index("When"), TEMPDIR.index("## Examples") - 2, 0.9)
    intro = TEMPDIR.index("## Examples")
    assert one_context(TEMPDIR, end, [body, (intro, end, 0.4)]).text.endswith("defined in this module.")
    # the lead-in matched best: it stays, heading and all, with the example it leads to
    kept = one_context(TEMPDIR, end, [body, (intro, end, 0.95)])
    assert kept.text.endswith("usage of the module:\n\n```\nimport tempfile\n```")
    # a weaker hit in a lead-in of the same section keeps it: what it leads to may be placed next
    flow = TEMPDIR.replace("## Examples\n\n", "")
    fend = flow.index(":") + 1
    same = one_context(flow, fend, [(0, 20, 0.9), (flow.index("Here"), fend, 0.4)], budget=fend)
    assert same.text.endswith("usage of the module:")


def test_without_heading_drops_a_last_line_that_is_a_heading():
    assert TEMPDIR[:without_heading(TEMPDIR, 0, TEMPDIR.index("Here") - 2)].endswith("this module.")
    assert without_heading(TEMPDIR, 0, 11) == 11  # the heading is the whole range
    assert without_heading("a\n#not a heading", 0, 16) == 16
    assert without_heading("words\n\n   ### Title", 0, 20) == 5


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["# Title", "## Sub", "plain words", "", "#hashtag", "    # code", " ### x"]),
                min_size=1, max_size=8), st.data())
def test_without_heading_ends_before_a_heading_line_or_keeps_the_end(lines, data):
    text = "\n".join(lines)
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    got = without_heading(text, start, end)
    assert start <= got <= end
    if got < end:
        rest = text[got:end].lstrip()
        assert rest.lstrip(" ").startswith("#") and "\n" not in rest
        assert text[start:got] == text[start:got].rstrip()


EXAMPLE = ("Set the limit on the emitter itself. To avoid the warning for one listener only, raise the "
           "limit around it, as follows:\n\n```js\nemitter.setMaxListeners(11);\nemitter.once('e', f);\n```\n\n"
           "The trace flag prints a stack trace for such warnings, with the emitter and the event that "
           "raised them.\n")


def test_a_span_widened_up_to_the_next_one_joins_it():
    """A lead-in takes its example and so reaches the next span: one passage, not a second
    context opening under a header of its own with what follows the example."""
    tree = build_tree(Document(id="x", source="x.md", text=EXAMPLE), [])
    colon = EXAMPLE.index(":") + 1
    flag = EXAMPLE.index("The trace")
    end = len(EXAMPLE) - 1
    first = Candidate("x", 0, colon, 0.9, (Hit("h", "x", EXAMPLE.index("To avoid"), colon, 0.9),))
    second = Candidate("x", flag, end, 0.8, (Hit("g", "x", flag, end, 0.8),))
    [one] = assemble([first, second], Trees(tree), 1000, chars, stop=0)
    assert (one.start, one.end) == (0, end) and len(one.hits) == 2


def test_a_piece_cut_to_fit_never_ends_on_a_sentence_of_no_word():
    """AsciiDoc's ordered items open with ". ": the sentence splitter makes each "." a sentence,
    and a cut to fit ended a context on one."""
    text = ("Your code may need to explain why it does what it does, for a few reasons:\n\n"
            ". The fix for one problem may be obvious to you now.\n. It may not be to others later.\n")
    tree = build_tree(Document(id="a", source="a.txt", text=text), [])
    first = text.index(":") + 1
    cand = Candidate("a", 0, len(text) - 1, 0.9, (Hit("h", "a", 0, first, 0.9),))
    [c] = assemble([cand], Trees(tree), first + 3, chars, fill=True)
    assert c.text.endswith("reasons:")


def test_led_to_finds_the_block_after_a_lead_in():
    colon = EXAMPLE.index(":") + 1
    assert EXAMPLE[colon:led_to(EXAMPLE, colon)].strip().endswith("f);\n```")
    after = EXAMPLE.index("The trace")
    assert EXAMPLE[after:led_to(EXAMPLE, after)].endswith("the event that raised them.")
    assert led_to(EXAMPLE, len(EXAMPLE)) is None
    assert led_to("Lead:\n\n" + "x " * 1000, 5) is None  # longer than LED_TO_CHARS
    assert led_to("Lead:\n\n```\nno closing fence\n", 5) is None


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["```", "~~~", "code line", "", "  ", "words here.", "- item", "````"]),
                max_size=10), st.data())
def test_led_to_ends_a_block_past_the_position_or_finds_none(lines, data):
    text = "\n".join(lines)
    end = data.draw(st.integers(0, len(text)))
    got = led_to(text, end)
    if got is not None:
        assert end < got <= len(text) and not text[got - 1].isspace()
        assert text[end:got].strip()


#: A Chinese FAQ's shape (DocBook): a lead-in ends in a full-width colon, or is left open over the
#: command and goes on after it ("然后运行 … 以升级").
OPEN = ("要从命令行升级系统，请运行\n\n```\naptitude update\n```\n\n然后运行\n\n```\naptitude full-upgrade\n```\n\n"
        "以升级系统。要查看版本，请运行：\n\n```\ndpkg -l\n```\n\nDone.\n")


def test_a_line_of_code_before_its_closing_fence_leads_nowhere():
    """The closing fence is no block to lead to: read as one, a span ending inside an example took
    the prose after it and the next example's opening fence."""
    text = ("Both calls are logged (for example\n\n```\ninstall hello 1.3\n```\n\n) with their "
            "results (for example\n\n```\nstatus installed hello 2.1\n```\n\n). To log all, add\n\n```\nlog x\n```\n")
    inside = text.index("hello 2.1") + len("hello 2.1")
    assert lead_in(text, 0, inside) == inside
    after = text.index("add") + 3  # left open over a block: a lead-in
    assert lead_in(text, 0, after) == text.index("To log")


def test_a_lead_in_ends_in_any_colon_or_is_left_open_over_a_code_block():
    then = OPEN.index("然后运行")
    assert lead_in(OPEN, 0, then + 4) == then  # open, over a command
    assert lead_in(OPEN, 0, OPEN.index("：") + 1) == OPEN.index("要查看")  # a full-width colon
    assert lead_in(OPEN, 0, OPEN.index("以升级系统。") + 6) == OPEN.index("以升级系统。") + 6  # a sentence
    assert lead_in(OPEN, 0, OPEN.index("Done.") + 5) == OPEN.index("Done.") + 5  # nothing follows
    words = "Then run\n\nthe next paragraph, not code.\n"
    assert lead_in(words, 0, 8) == 8  # open, but no code block follows
    hit = [(then, then + 4, 0.9)]
    assert one_context(OPEN, then + 4, hit).text.endswith("然后运行\n\n```\naptitude full-upgrade\n```")


def test_a_question_leads_to_the_answer_set_in_below_it_and_not_in_running_prose():
    faq = ("## First week\n\n- What if I break production?\n    \n    You will not be blamed; every deploy "
           "rolls back in one command.\n    \n- Who approves my pull requests?\n    \n    Any engineer on the team.\n")
    q = faq.index("- Who")
    end = faq.index("requests?") + 9
    assert lead_in(faq, 0, end) == q  # a toggle's question without its answer: left out
    assert led_to(faq, end) == len(faq) - 1
    prose = "Why does it matter? Because the cache is shared.\n\nNext paragraph here.\n"
    assert lead_in(prose, 0, prose.index("?") + 1) == prose.index("?") + 1


def test_a_short_lead_in_left_open_over_code_grows_forward_only():
    text = ("Some words before this point stand here.\n\nThen run\n\n```\nmake all\n```\n\n"
            "and check the output carefully afterwards for any errors at all.\n")
    s = text.index("Then")
    assert grow(text, s, s + 8) == (s, len(text) - 1)


def test_a_context_ending_with_a_lead_in_takes_what_it_leads_to_when_that_fits():
    colon = EXAMPLE.index(":") + 1
    hit = [(EXAMPLE.index("To avoid"), colon, 0.9)]  # the lead-in matched: it stays
    wide = one_context(EXAMPLE, colon, hit, explain=True)
    assert wide.text.endswith("f);\n```") and "leads to" in wide.rule
    assert one_context(EXAMPLE, colon, hit, budget=colon + 5).text.endswith("as follows:")


def test_a_matched_lead_in_is_placed_with_its_example_when_that_fits():
    """"…as follows:" without the example says nothing the reader can act on: a lead-in a hit
    keeps is placed with what it leads to, and alone only when that does not fit."""
    tree = build_tree(Document(id="x", source="x.md", text=EXAMPLE), [])
    colon = EXAMPLE.index(":") + 1
    block_end = EXAMPLE.index("```\n\n") + 3
    flag = EXAMPLE.index("The trace")
    first = Candidate("x", 0, colon, 0.9, (Hit("h", "x", EXAMPLE.index("To avoid"), colon, 0.9),))
    second = Candidate("x", flag, len(EXAMPLE) - 1, 0.8, (Hit("g", "x", flag, len(EXAMPLE) - 1, 0.8),))
    # room for the example or the next hit: the example (the next hit took it before)
    got = assemble([first, second], Trees(tree), colon + (len(EXAMPLE) - flag) + 5, chars, stop=0, explain=True)
    assert [c.text for c in got] == [EXAMPLE[:block_end]] and "leads to" in got[0].rule
    # no room for the example: the lead-in alone
    got = assemble([first, second], Trees(tree), colon + 5, chars, stop=0)
    assert [c.text for c in got] == [EXAMPLE[:colon]]
    # room for all: the next hit joins it, one passage
    got = assemble([first, second], Trees(tree), len(EXAMPLE), chars, stop=0)
    assert [c.text for c in got] == [EXAMPLE.rstrip()]


def test_a_candidate_that_is_only_a_lead_in_is_placed_with_its_example():
    """A unit that is the lead-in sentence and nothing else ("If you are not happy with the
    default prompt string, you can ask for a different one:", its own paragraph over the
    example) grows to the example as one that ends with it does."""
    text = ("Prompts ask for what is missing.\n\nIf you are not happy with the default prompt string, "
            "you can ask for a different one:\n\n```python\n@click.option('--name', prompt='Your name')\n```\n\n"
            "The prompt shows the default in brackets.\n")
    tree = build_tree(Document(id="x", source="x.md", text=text), [])
    s, colon = text.index("If you"), text.index(":") + 1
    only = Candidate("x", s, colon, 0.9, (Hit("h", "x", s, colon, 0.9),))
    got = assemble([only], Trees(tree), len(text), chars, stop=0, explain=True)
    assert [c.text for c in got] == [text[s:text.index("```\n\n") + 3]] and "leads to" in got[0].rule
    assert leads_on(text, s, colon) and lead_in(text, s, colon) == colon  # nothing to cut: all lead-in


def test_lead_start_finds_the_sentence_leading_to_the_block_a_context_opens_with():
    code = EXAMPLE.index("```js")
    assert lead_start(EXAMPLE, code) == EXAMPLE.index("To avoid")  # its lead-in, ending in a colon
    then = OPEN.index("```\naptitude full")
    assert lead_start(OPEN, then) == OPEN.index("然后运行")  # left open over the command
    after = EXAMPLE.index("The trace")
    assert lead_start(EXAMPLE, after) == after  # prose opens no block
    closed = "It ends here.\n\n```\nx = 1\n```\n"
    assert lead_start(closed, closed.index("```")) == closed.index("```")  # no lead-in above it
    listed = "Pick one:\n\n- red\n- blue\n"
    assert lead_start(listed, listed.index("- red")) == 0
    helped = "    Same as Popen.  Example:\n\n    retcode = call(['ls'])\n"  # help(): code as indented as its lead
    assert lead_start(helped, helped.index("    retcode")) == helped.index("Example")
    assert lead_start(helped, helped.index("retcode")) == helped.index("Example")  # past its indent
    assert lead_start(listed, listed.index("one")) == listed.index("one")  # mid-line
    far = "A" + " very" * 100 + " long lead-in:\n\n```\ncode\n```\n"
    assert lead_start(far, far.index("```")) == far.index("```")  # longer than LEAD_CHARS


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["```", "code line", "", "Run this:", "then run", "Done.", "- item",
                                 "1. first", "words here, and", "# Heading"]), max_size=10), st.data())
def test_lead_start_moves_back_only_to_a_sentence_over_a_block(lines, data):
    text, start, got = moved_back(lead_start, lines, data)
    if got < start:
        assert not text[got].isspace()
        lead = text[got:start].rstrip()
        assert lead[-1] == ":" or text.startswith("```", skip_space(text, start, len(text)))
        assert "\n" in text[got:skip_space(text, start, len(text))]  # from a line above


def test_a_context_opening_with_a_block_takes_the_lead_in_above_it_when_that_fits():
    tree = build_tree(Document(id="x", source="x.md", text=EXAMPLE), [])
    code = EXAMPLE.index("```js")
    end = len(EXAMPLE) - 1
    hit = Hit("h", "x", EXAMPLE.index("The trace"), end, 0.9)
    cand = Candidate("x", code, end, 0.9, (hit,))
    [c] = assemble([cand], Trees(tree), 1000, chars, explain=True)
    assert c.text.startswith("To avoid the warning") and "leading to its first block" in c.rule
    [tight] = assemble([cand], Trees(tree), end - code + 5, chars)
    assert tight.text.startswith("```js")  # no room for it: the block stands as it was


ENTRY = ("# Glossary\n\n## asynchronous generator\n\nA function which returns an asynchronous generator "
         "iterator, defined with async def.\n\nUsually refers to an asynchronous generator function, but may "
         "refer to an asynchronous generator iterator in some contexts.\n\n## awaitable\n\nAn object that can "
         "be used in an await expression, such as a coroutine.\n")


def test_a_context_a_little_way_into_its_section_starts_at_its_heading_from_the_budget_left():
    tree = make_chunker("hierarchical", {"unit": "chars"}).chunk(Document(id="g", source="g.md", text=ENTRY,
                                                                          format="markdown"))
    s = ENTRY.index("Usually")
    e = ENTRY.index("contexts.") + len("contexts.")
    hit = Candidate("g", s, e, 0.9, (Hit("h", "g", s, e, 0.9),))
    [wide] = assemble([hit], Trees(tree), 1000, chars)
    assert wide.text.startswith("## asynchronous generator\n\nA function") and wide.end == e
    [tight] = assemble([hit], Trees(tree), e - s + 10, chars)
    assert tight.text.startswith("Usually")
    # a context at a subsection's heading stays there, though its parent's heading is near
    a = ENTRY.index("## awaitable")
    at = Candidate("g", a, len(ENTRY) - 1, 0.9, (Hit("a", "g", a, len(ENTRY) - 1, 0.9),))
    [sub] = assemble([at], Trees(tree), 1000, chars)
    assert sub.text.startswith("## awaitable")


@pytest.mark.parametrize("fmt", ["markdown", "rst"])
def test_a_short_hit_grows_inside_its_section_not_into_the_next_title(fmt):
    """A 13-word last sentence grown forward took the next section's title for its 15 words."""
    title = {"markdown": "## {}\n\n", "rst": "{}\n" + "-" * 16 + "\n\n"}[fmt]
    text = (title.format("Echoing") + "Click echoes text through its own function, which handles every stream. " * 8
            + "If you do not need this you can also use the print function.\n\n" + title.format("Nesting Commands")
            + "Commands can be attached to other commands of type group, which nests them.\n")
    read = read_text(text, format=fmt)
    tree = make_chunker("hierarchical", {"unit": "chars"}).chunk(
        Document(id="q", source="q", text=read.text, format=fmt, blocks=read.blocks))
    s, e = text.index("If you"), text.index("function.\n") + len("function.")
    [c] = assemble([Candidate("q", s, e, 0.9, (Hit("h", "q", s, e, 0.9),))], Trees(tree), 1000, chars)
    assert c.text == "Click echoes text through its own function, which handles every stream. " + text[s:e]


def test_the_pages_a_span_lies_on():
    from zoomrag.expand.assemble import page_span

    text = "one\n\f\ntwo and\n\fthree\n\f\nfour"
    assert page_span(text, 0, 3) == (1, 1)
    assert page_span(text, text.index("two"), text.index("three") + 5) == (2, 3)  # runs over a break
    assert page_span(text, text.index("four"), len(text)) == (4, 4)
    assert page_span("no pages", 0, 8) == () and page_span("one page", 0, 3, paged=True) == (1, 1)


def test_a_context_from_a_tables_last_rows_into_the_text_after_it_carries_the_header_row():
    rows = "".join(f"| Line {i} | {100 + i} | {200 + i} |\n" for i in range(60))
    text = ("# Results\n\n| Item | 2023 | 2022 |\n| --- | --- | --- |\n" + rows
            + "\nSales grew in 2023 on higher volumes, and costs fell with them.\n")
    tree = chunker_for_profile("default").chunk(read_text(text, format="markdown", id="r"))
    s, e = text.index("| Line 58"), len(text) - 1
    h = Hit("h", "r", s, e, 0.9)
    [c] = assemble([Candidate("r", s, e, 0.9, (h,))], Trees(tree), 300, chars, explain=True)
    head_start = text.index("| Item")
    assert c.parts()[0] == (head_start, text.index("| Line 0") - 1)
    assert c.text.startswith("| Item | 2023 | 2022 |\n| --- | --- | --- |\n| Line 58")
    assert c.text.endswith("costs fell with them.") and "with its table's header row" in c.rule


def test_a_context_does_not_end_on_a_tables_header_row_without_a_row_under_it():
    text = ("# Restores\n\nA restore of the orders database takes about forty minutes, and it goes to a new "
            "instance so that nothing running is touched.\n\nThe results are recorded below.\n\n"
            "| Quarter | Restored by | Duration |\n| --- | --- | --- |\n| 2023 Q3 | Tom | 38 min |\n"
            "| 2023 Q4 | Ana | 52 min |\n")
    tree = chunker_for_profile("default").chunk(read_text(text, format="markdown", id="r"))
    head_end = text.index("\n", text.index("| Quarter"))
    h = Hit("h", "r", text.index("A restore"), text.index("touched.") + 8, 0.9)
    weak = Hit("w", "r", text.index("| Quarter"), head_end, 0.2)
    [c] = assemble([Candidate("r", 0, head_end, 0.9, (h, weak))], Trees(tree), 300, chars)
    assert c.text.endswith("recorded below.") and "| Quarter" not in c.text
    # a strong hit in the header row: the context goes on into the rows under it
    strong = dataclasses.replace(weak, score=0.9)
    [c] = assemble([Candidate("r", 0, head_end, 0.9, (h, strong))], Trees(tree), 300, chars)
    assert "| 2023 Q3 | Tom | 38 min |" in c.text
