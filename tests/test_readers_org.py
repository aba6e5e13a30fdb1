"""Org reader: headlines as heading blocks with the outline's titles, source and example blocks as
code, tables as blocks of their own, keywords, drawers, planning lines and comments in no block,
the ``#+TITLE:`` … keywords as metadata."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_blocks, texts

from zoomrag import Index
from zoomrag.load import read_text
from zoomrag.load.base import detect_format
from zoomrag.load.readers.org import org_title
from zoomrag.parse.headings import find_headings
from zoomrag.parse.router import chunker_for_profile

DOC = """\
#+TITLE: Team /notes/
#+AUTHOR: Ann Lee
#+DATE: 2024-05-01
#+OPTIONS: toc:nil
#+FILETAGS: :work:notes:
#+TODO: TODO REVIEW | DONE

Intro with *bold* words.

* TODO [#A] Deploy the [[https://x.org][new site]] [1/3]   :work:urgent:
  SCHEDULED: <2024-05-02 Thu>
  :PROPERTIES:
  :ID: 123
  :END:
Run it:

#+BEGIN_SRC Py :results output
* not a heading
print(1)
#+END_SRC

#+RESULTS:
: 1
: 2

** REVIEW /Check/ =logs= and [[Setup]]
# a comment line
#+begin_comment
* no heading here
#+end_comment
:LOGBOOK:
CLOCK: [2024-05-01 Wed 09:00]--[2024-05-01 Wed 10:00] =>  1:00
:END:

| Name | Role |
|------+------|
| Ann  | lead |

| a | b |
|---|---|
| 1 | 2 |

#+BEGIN_QUOTE
Quoted words.
* not a heading in a quote
#+END_QUOTE

*bold* at a line start, and a list:
- item one
- item two
-----
#+begin_example
raw example
"""


def blocks_of(doc):
    return [(b.type, b.level, dict(b.meta), doc.text[b.start:b.end]) for b in doc.blocks]


def test_headlines_code_tables_and_markup_exact():
    doc = read_text(DOC, format="org")
    assert doc.text == DOC  # kept as it is: every span is into the file
    assert doc.metadata == {"title": "Team notes", "author": "Ann Lee", "date": "2024-05-01",
                            "tags": ["work", "notes"]}
    assert blocks_of(doc) == [
        ("text", 0, {}, "Intro with *bold* words."),
        ("heading", 1, {"title": "Deploy the new site"},
         "* TODO [#A] Deploy the [[https://x.org][new site]] [1/3]   :work:urgent:"),
        ("text", 0, {}, "Run it:"),
        ("code", 0, {"language": "python"}, "#+BEGIN_SRC Py :results output\n* not a heading\nprint(1)\n#+END_SRC"),
        ("code", 0, {}, ": 1\n: 2"),
        ("heading", 2, {"title": "Check logs and Setup"}, "** REVIEW /Check/ =logs= and [[Setup]]"),
        ("table", 0, {}, "| Name | Role |\n|------+------|\n| Ann  | lead |"),  # Org's rule under the header
        ("table", 0, {}, "| a | b |\n|---|---|\n| 1 | 2 |"),
        ("text", 0, {}, "Quoted words.\n* not a heading in a quote"),
        ("text", 0, {}, "*bold* at a line start, and a list:\n- item one\n- item two"),
        ("code", 0, {}, "#+begin_example\nraw example"),  # never closed: to the end
    ]
    assert [(h.level, h.title) for h in find_headings(doc)] == [(1, "Deploy the new site"),
                                                                (2, "Check logs and Setup")]


@pytest.mark.parametrize(("raw", "title"), [
    ("TODO [#B] Write the report [40%] :work:", "Write the report"),
    ("DONE Ship it", "Ship it"),
    ("CANCELLED [#C] Old plan :a:b_c:@home:", "Old plan"),
    ("Meeting at 10:30 :meeting:", "Meeting at 10:30"),
    ("See [[file:notes.org::*Intro][the intro]] and [[https://x.org]]", "See the intro and https://x.org"),
    ("*Bold* /italic/ _under_ +gone+ ~code~ =verb=", "Bold italic under gone code verb"),
    ("*/Both/* marks", "Both marks"),
    ("Paths a/b/c and snake_case_name stay", "Paths a/b/c and snake_case_name stay"),
    ("TODOLIST is a word, not a keyword", "TODOLIST is a word, not a keyword"),
    ("Totals [2/5] [/]", "Totals"),
    ("TODO", "TODO"),  # nothing readable left: the text as written
])
def test_titles_are_what_the_outline_shows(raw, title):
    assert org_title(raw) == title


def test_no_heading_inside_blocks_or_without_a_space():
    text = ("#+BEGIN_SRC sh\n* one\n#+END_SRC\n#+BEGIN_COMMENT\n* two\n#+END_COMMENT\n"
            "#+BEGIN_EXAMPLE\n* three\n#+END_EXAMPLE\n*bold* text\n**also** not\n * a list item\n*\n")
    assert find_headings(read_text(text, format="org")) == []


def test_a_quote_never_closed_is_text_and_headlines_after_it_count():
    doc = read_text("#+BEGIN_QUOTE\nWords.\n\n* After\nMore.\n", format="org")
    assert blocks_of(doc) == [("text", 0, {}, "Words."), ("heading", 1, {"title": "After"}, "* After"),
                              ("text", 0, {}, "More.")]


def test_a_drawer_never_closed_and_planning_away_from_a_headline_are_text():
    doc = read_text("* A\n:NOTE:\nkept\n* B\nSCHEDULED: later, said the text.\n", format="org")
    assert [(b.type, doc.text[b.start:b.end]) for b in doc.blocks] == [
        ("heading", "* A"), ("text", ":NOTE:\nkept"), ("heading", "* B")]
    doc = read_text("* A\nText.\nDEADLINE: <2024-01-01>\n", format="org")
    assert [doc.text[b.start:b.end] for b in doc.blocks] == ["* A", "Text.\nDEADLINE: <2024-01-01>"]


def test_extensions_and_section_paths():
    assert detect_format(Path("notes.org")) == "org"
    doc = read_text(DOC, format="org")
    tree = chunker_for_profile("default", {}).chunk(doc)
    run = next(n for n in tree.leaves() if "Run it:" in n.text)
    assert run.section_path == ("Deploy the new site",)
    quoted = next(n for n in tree.leaves() if "Quoted words." in n.text)
    assert quoted.section_path == ("Deploy the new site", "Check logs and Setup")
    code = next(n for n in tree.nodes if "print(1)" in n.text and n.kind == "code")
    assert code.text.startswith("#+BEGIN_SRC Py") and code.text.endswith("#+END_SRC")


def test_an_indexed_notes_file_returns_its_section_with_its_heading_trail(tmp_path: Path):
    src = tmp_path / "notes"
    src.mkdir()
    backups = " ".join(f"Night {i} the dump of the database is copied to the bucket and checked." for i in range(20))
    deploy = " ".join(f"Host {i} gets the new image after the health check passes." for i in range(20))
    (src / "ops.org").write_text(
        "#+TITLE: Ops\n\n* Infrastructure :ops:\n** TODO [#A] Backups [1/2] :db:\n"
        "   :PROPERTIES:\n   :OWNER: bob\n   :END:\n" + backups
        + "\n\n** DONE Deployments :api:\n" + deploy + "\n")
    with Index.open(tmp_path / "i.db", embedder="hash") as ix:
        ix.add(src)
        got = ix.query("how is the dump of the database copied to the bucket", budget=400)
    assert got and got[0].section_path == ("Infrastructure", "Backups")
    assert "Night 3 the dump" in got[0].text and "** DONE Deployments" not in got[0].text


_PIECES = st.sampled_from([
    "* T", "** TODO [#A] Title :tag:", "*bold*", "* ", "*", "#+TITLE: x", "#+BEGIN_SRC py", "#+END_SRC",
    "#+begin_example", "#+end_example", "#+BEGIN_QUOTE", "#+END_QUOTE", "#+BEGIN_COMMENT", "#+END_COMMENT",
    ":PROPERTIES:", ":ID: 1", ":END:", ":LOGBOOK:", "SCHEDULED: <2024-01-01>", ": fixed", ":", "# c", "#",
    "| a | b |", "|---+---|", "|---|---|", "-----", "- item", "text", "  indented", "", "\t", "中文。",
])


@settings(max_examples=200, deadline=None)
@given(st.one_of(texts, st.lists(_PIECES, max_size=40).map("\n".join)))
def test_any_text_gives_ordered_blocks_inside_it(text):
    check_blocks(read_text(text, format="org"), text)
