"""A table of contents (a README's list of links to its own sections) is no answer."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from zoomrag import Index
from zoomrag.expand.contents import is_contents, trim_contents

TOC = ("- [Installation](#installation)\n- [Options](#options)\n  - [Required option](#required-option)\n"
       "  - [Custom event listeners](#custom-event-listeners)\n- [Support](#support)\n")


@pytest.mark.parametrize(("text", "found"), [
    (TOC, True),
    ("1. [Intro](#intro)\n2. [Usage](#usage)\n", True),
    ("* [Intro](#intro)\n\n* [Usage](#usage)\n", True),
    ("- [Intro](#intro)\n", False),  # one link is a link
    ("- [Docs](https://example.org/docs)\n- [Blog](https://example.org/blog)\n", False),  # other pages
    ("- [Intro](#intro) explains the rest\n- [Usage](#usage)\n", False),  # words of its own
    ("Read [Intro](#intro) and [Usage](#usage).\n", False),
    ("", False),
])
def test_a_table_of_contents_is_a_list_of_in_page_links_only(text, found):
    assert is_contents(text) is found


def test_a_query_naming_a_section_returns_the_section_not_the_table_of_contents(tmp_path):
    titles = ["Installation", "Options", "Custom event listeners", "Support"] + [f"Topic {w}" for w in
                                                                                  "abcdefghijklmnop"]
    toc = "".join(f"- [{t}](#{t.lower().replace(' ', '-')})\n" for t in titles)
    sections = "".join(
        f"## {title}\n\n" + " ".join(f"The {title.lower()} part says thing {i} about the tool." for i in range(12)) + "\n\n"
        for title in titles)
    readme = "# Tool\n\nA tool that does things for the people who use it every day.\n\n" + toc + "\n" + sections
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "README.md").write_text(readme, encoding="utf-8")
    index = Index.open(tmp_path / "i.db", embedder="hash")
    index.add(tmp_path / "docs")
    span = (readme.index(toc), readme.index(toc) + len(toc))
    for question in ("custom event listeners", "Topic c", "Support"):
        contexts = index.query(question, budget=400, mode="bm25")
        assert contexts, question
        # no context is the list, or a piece of it, and none carries more than a line of it
        assert all(not (span[0] <= c.start and c.end <= span[1]) for c in contexts), question
        assert all(sum(line in c.text for line in toc.splitlines()) <= 1 for c in contexts), question
    # nothing else to return: the list is better than nothing
    (tmp_path / "only").mkdir()
    (tmp_path / "only" / "toc.md").write_text(TOC, encoding="utf-8")
    alone = Index.open(tmp_path / "j.db", embedder="hash")
    alone.add(tmp_path / "only")
    assert alone.query("Custom event listeners", budget=400, mode="bm25")


@given(st.lists(st.sampled_from(["- [A](#a)", "  - [B c](#b-c)", "1. [D](#d)", "text", "", "- item"]), max_size=8))
def test_any_lines_are_read_without_error(lines):
    text = "\n".join(lines)
    entries = [line for line in lines if line.strip()]
    assert is_contents(text) == (len(entries) >= 2 and all("](#" in line for line in entries))


_LINES = st.sampled_from(["- [A](#a)", "  - [B c](#b-c)", "1. [D](#d)", "Some words here.", "", "## Title"])


@given(st.lists(_LINES, max_size=12), st.data())
def test_trimming_keeps_within_the_span_and_leaves_no_contents_at_its_ends(lines, data):
    text = "\n".join(lines)
    start = data.draw(st.integers(0, len(text)))
    end = data.draw(st.integers(start, len(text)))
    s, e = trim_contents(text, start, end)
    assert start <= s <= e <= end
    if s < e:
        first, last = text[s:e].split("\n")[0], text[s:e].split("\n")[-1]
        assert first.strip() and last.strip()  # no blank line left at either end
