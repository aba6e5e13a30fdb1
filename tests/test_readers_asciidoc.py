"""AsciiDoc reader: titles as heading blocks, listing and literal blocks as code, markup lines in
no block, the header's attribute entries as metadata."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_blocks, texts

from zoomrag import Index, make_chunker
from zoomrag.load import read_text
from zoomrag.load.base import detect_format
from zoomrag.parse.headings import find_headings

DOC = """\
= Toolbox Guide
:author: Ann Lee
:toc:

Intro text.

[[install]]
== Install

Run it:

[source,sh]
----
$ pip install toolbox

$ toolbox --help
----

Then go on.

=== Literal output

....
done in 2s
....

////
a comment, not content
////

====
An example paragraph.
====

Old style title
---------------

Text under it.
"""


def blocks_of(doc):
    return [(b.type, b.level, dict(b.meta), doc.text[b.start:b.end]) for b in doc.blocks]


def test_titles_code_and_markup_exact():
    doc = read_text(DOC, format="asciidoc")
    assert doc.text == DOC  # kept as it is: every span is into the file
    assert doc.metadata == {"author": "Ann Lee", "title": "Toolbox Guide"}
    assert blocks_of(doc) == [
        ("heading", 1, {"title": "Toolbox Guide"}, "= Toolbox Guide"),
        ("text", 0, {}, "Intro text."),
        ("heading", 2, {"title": "Install"}, "== Install"),
        ("text", 0, {}, "Run it:"),
        ("code", 0, {"language": "sh"}, "----\n$ pip install toolbox\n\n$ toolbox --help\n----"),
        ("text", 0, {}, "Then go on."),
        ("heading", 3, {"title": "Literal output"}, "=== Literal output"),
        ("code", 0, {}, "....\ndone in 2s\n...."),
        ("text", 0, {}, "An example paragraph."),
        ("heading", 2, {"title": "Old style title"}, "Old style title\n---------------"),
        ("text", 0, {}, "Text under it."),
    ]
    assert [h.title for h in find_headings(doc)] == ["Toolbox Guide", "Install", "Literal output",
                                                    "Old style title"]


def test_a_command_over_a_listing_fence_is_not_a_title():
    """Read as plain text, ``$ git push`` over ``----`` was a setext heading, and its section
    path named the command."""
    text = "Push it again:\n\n----\n$ git push -f origin topic\n----\n\nThen wait.\n"
    doc = read_text(text, format="asciidoc")
    assert [b.type for b in doc.blocks] == ["text", "code", "text"]
    short = "Some words\nNote\n----\n"  # a paragraph's last line over a line of dashes
    assert "heading" not in [b.type for b in read_text(short, format="asciidoc").blocks]


def test_titles_say_a_links_text_and_not_its_anchor():
    doc = read_text("==== https://lore.kernel.org/git[the mailing list]\n\n== GitHub CI[[GHCI]]\n",
                    format="asciidoc")
    assert [h.title for h in find_headings(doc)] == ["the mailing list", "GitHub CI"]


def test_an_unclosed_fence_is_text():
    doc = read_text("Intro.\n\n----\nno closing line\n", format="asciidoc")
    assert [b.type for b in doc.blocks] == ["text", "text"]


def test_extensions_and_chunks(tmp_path: Path):
    assert detect_format(Path("guide.adoc")) == detect_format(Path("x.asciidoc")) == "asciidoc"
    doc = read_text(DOC, format="asciidoc")
    tree = make_chunker("markdown", {"max_size": 30}).chunk(doc)
    code = DOC.index("----")
    close = DOC.index("----", code + 4)
    inside = [n for n in tree.nodes if code < n.start < close or code < n.end < close]
    assert not inside  # the listing is never cut at its blank line
    paths = {n.section_path for n in tree.nodes if n.section_path}
    assert ("Toolbox Guide", "Install") in paths


def test_an_indexed_guide_returns_contexts_without_anchor_lines(tmp_path: Path):
    src = tmp_path / "docs"
    src.mkdir()
    body = " ".join(f"Step {i} copies the toolbox files into place and checks them." for i in range(12))
    (src / "guide.adoc").write_text(f"= Guide\n\n== Install\n\n{body}\n\n[[usage]]\n== Usage\n\n"
                                    "Call the toolbox from a shell.\n")
    with Index.open(tmp_path / "i.db", embedder="hash") as ix:
        ix.add(src)
        got = ix.query("how are toolbox files copied into place", budget=400)
    assert got and all("[[usage]]" not in c.text for c in got)
    assert got[0].section_path[-1] == "Install"


_PIECES = st.sampled_from([
    "= T", "== Title", "Title", "-----", "=====", "----", "....", "////", "====", "--", "[source,py]",
    "[[x]]", ":a: b", "text", "  indented", "", "\t", "中文。", "|===", "| a | b",
])


@settings(max_examples=200, deadline=None)
@given(st.one_of(texts, st.lists(_PIECES, max_size=40).map("\n".join)))
def test_any_text_gives_ordered_blocks_inside_it(text):
    check_blocks(read_text(text, format="asciidoc"), text)
