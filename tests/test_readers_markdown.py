"""Markdown reader: text kept verbatim, typed blocks from markdown-it's block parse."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import texts

from zoomrag.load import load_path, read_text
from zoomrag.model import normalize_newlines

FIXTURES = Path(__file__).parent / "fixtures"


def blocks_of(doc):
    return [(b.type, b.level, dict(b.meta), doc.text[b.start:b.end]) for b in doc.blocks]


def check_blocks(doc, *, trimmed=True):
    """Blocks lie inside the text, in order, without overlap, and are not empty."""
    prev = 0
    for b in doc.blocks:
        assert prev <= b.start < b.end <= len(doc.text), (b, prev)
        if trimmed:
            piece = doc.text[b.start:b.end]
            assert not piece[-1].isspace()
            assert b.type == "code" or not piece[0].isspace(), b
        prev = b.end


def test_fixture_blocks_exact():
    doc = load_path(FIXTURES / "sample.md", front_matter="text")
    assert doc.format == "markdown"
    assert doc.metadata == {"title": "Sample guide"}
    assert doc.text == (FIXTURES / "sample.md").read_text()
    assert blocks_of(doc) == [
        ("text", 0, {"front_matter": True}, "---\ntitle: Sample guide\n---"),
        ("heading", 1, {}, "# Install"),
        ("text", 0, {}, "Run the installer\ntwice."),
        ("heading", 2, {}, "## Options"),
        ("list", 0, {"ordered": False}, "- fast\n- safe"),
        ("table", 0, {}, "| Name | Age |\n|------|----:|\n| Alice | 31 |\n| Bob | 25 |"),
        ("code", 0, {"language": "python", "info": "python"}, '```python\nprint("hi")\n```'),
        ("code", 0, {"language": ""}, "    indented code"),
    ]
    assert [(b.start, b.end) for b in doc.blocks][:3] == [(0, 27), (29, 38), (40, 64)]


def test_setext_headings_quotes_html_and_ordered_lists():
    doc = read_text("Title\n=====\n\nSub\n---\n\n> quoted\n> more\n\n<div>raw</div>\n\n3) three\n4) four\n",
                    format="markdown")
    assert blocks_of(doc) == [
        ("heading", 1, {}, "Title\n====="),
        ("heading", 2, {}, "Sub\n---"),
        ("text", 0, {"quote": True}, "> quoted\n> more"),
        ("text", 0, {"html": True}, "<div>raw</div>"),
        ("list", 0, {"ordered": True}, "3) three\n4) four"),
    ]
    assert doc.metadata == {"title": "Title"}


def test_no_headings_inside_code_fences_and_fence_aliases():
    doc = read_text("~~~py extra\n# not a heading\n~~~\n\n```\nplain\n```", format="markdown")
    assert blocks_of(doc) == [
        ("code", 0, {"language": "python", "info": "py extra"}, "~~~py extra\n# not a heading\n~~~"),
        ("code", 0, {"language": "", "info": ""}, "```\nplain\n```"),
    ]
    assert doc.metadata == {"title": None}


def test_thematic_breaks_and_link_definitions_get_no_block():
    doc = read_text("a\n\n***\n\n[ref]: https://example.com\n\nb", format="markdown")
    assert blocks_of(doc) == [("text", 0, {}, "a"), ("text", 0, {}, "b")]


def test_toml_front_matter_and_unclosed_front_matter():
    doc = read_text('+++\ntitle = "T"\n+++\n# H\n', format="markdown", front_matter="text")
    assert blocks_of(doc) == [("text", 0, {"front_matter": True}, '+++\ntitle = "T"\n+++'),
                              ("heading", 1, {}, "# H")]
    assert doc.metadata == {"title": "T"}
    # Without a closing line it is a thematic break and a paragraph, not front matter.
    doc = read_text("---\ntitle: x\n", format="markdown")
    assert blocks_of(doc) == [("text", 0, {}, "title: x")]


def test_front_matter_lines_do_not_shift_offsets():
    text = "---\na: 1\nb: 2\n---\n\n| x | y |\n|---|---|\n| 1 | 2 |\n"
    doc = read_text(text, format="markdown", front_matter="text")
    table = doc.blocks[1]
    assert (table.type, doc.text[table.start:table.end]) == ("table", "| x | y |\n|---|---|\n| 1 | 2 |")


def test_crlf_is_normalised_and_offsets_point_into_the_normalised_text():
    doc = read_text("# A\r\n\r\npara\r\n", format="markdown")
    assert doc.text == "# A\n\npara\n"
    assert blocks_of(doc) == [("heading", 1, {}, "# A"), ("text", 0, {}, "para")]


def test_empty_and_blank_documents():
    assert read_text("", format="markdown").blocks == ()
    assert read_text(" \n\n\t\n", format="markdown").blocks == ()


_MD_PIECES = st.sampled_from([
    "# H", "## H2", "Setext\n===", "---", "- item", "1. one", "> quote", "```py", "```", "    code",
    "| a | b |", "|---|---|", "| 1 | 2 |", "<div>", "</div>", "[r]: /u", "+++", "title: x", "\n", "\n\n",
    "text", " ", "\t", "\u00a0", "\u2028", "\x00", "😀", "中文。",
    "```{note}", "```{contents}", ":depth: 2", "```{eval-rst}", ".. currentmodule:: x", "(label)=",
    "```{code-block} python", "{func}`f`",
])


@settings(max_examples=150, deadline=None)
@given(st.one_of(texts, st.lists(_MD_PIECES, max_size=40).map("\n".join),
                 st.lists(_MD_PIECES, max_size=40).map("".join)))
def test_any_text_gives_ordered_blocks_inside_it(text):
    doc = read_text(text, format="markdown", front_matter="text")
    assert doc.text == normalize_newlines(text)
    whole = read_text(text, format="markdown")  # front matter, when there is some, goes to metadata
    skipped = whole.metadata.get("front_matter_chars", 0)
    assert whole.text == normalize_newlines(text)[skipped:]
    check_blocks(doc)
    for b in doc.blocks:
        assert b.type in ("text", "heading", "table", "code", "list")
        assert (b.level > 0) == (b.type == "heading")


DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def test_wikitext_markdown_keeps_text_and_finds_every_heading():
    corpus = DATA / "wikitext_md" / "corpus.jsonl"
    if not corpus.exists():
        pytest.skip("shared data not present")
    [record] = [json.loads(line) for line in corpus.read_text().splitlines() if line.strip()]
    doc = read_text(record["text"], format="markdown", id=record["id"])
    # Offsets of the evaluation's evidence spans stay valid: the reader never rewrites markdown.
    assert doc.text == record["text"]
    headings = [b for b in doc.blocks if b.type == "heading"]
    assert len(headings) == 77
    assert {b.level for b in headings} == {1, 2, 3, 4}
    assert all(doc.text[b.start:b.end].startswith("#" * b.level + " ") for b in headings)
    check_blocks(doc)


def test_front_matter_becomes_metadata_and_leaves_the_text():
    text = "---\ntitle: Notes\nyear: 2021\ntags: [a, b]\ndate: 2024-05-01\n---\n\n# Head\n\nBody.\n"
    doc = read_text(text, format="markdown", id="n", metadata={"lang": "en"})
    assert doc.text == "# Head\n\nBody.\n"
    assert dict(doc.metadata) == {"title": "Notes", "year": 2021, "tags": ["a", "b"], "date": "2024-05-01",
                                  "front_matter_chars": len(text) - len(doc.text), "lang": "en"}
    assert doc.id == "n"


def test_toml_front_matter_becomes_metadata():
    doc = read_text('+++\ntitle = "T"\nyear = 2020\n+++\n# H\n', format="markdown")
    assert doc.text == "# H\n"
    assert doc.metadata["title"] == "T" and doc.metadata["year"] == 2020


@pytest.mark.parametrize("text", ["---\na: [1\n---\nx\n", "---\njust a line\n---\nx\n", "---\n- a\n- b\n---\nx\n"])
def test_a_block_that_is_not_key_value_pairs_stays_in_the_text(text):
    doc = read_text(text, format="markdown", source="notes.md")
    assert doc.text == text
    assert "front_matter_chars" not in doc.metadata


@pytest.mark.parametrize(("text", "rest", "block"), [
    ("---\ntitle: T\n... \t\n \n\n# H\n", "# H\n", "---\ntitle: T\n... \t"),
    ("---\ntitle: T\n---", "", "---\ntitle: T\n---"),
    ("+++ \ntitle = 'T'\n+++  \n\t\nx", "x", "+++ \ntitle = 'T'\n+++  "),
    # "+++" does not close YAML (whose body then does not parse: it all stays in the text)
    ("---\nt: T\n+++\n---\nx\n", "---\nt: T\n+++\n---\nx\n", "---\nt: T\n+++\n---"),
])
def test_front_matter_ends_at_its_own_closing_line(text, rest, block):
    # Metadata: the text starts after the closing line and the blank lines after it.
    assert read_text(text, format="markdown").text == rest
    # Kept as text: one block up to the end of the closing line.
    doc = read_text(text, format="markdown", front_matter="text")
    assert doc.blocks[0].meta == {"front_matter": True} and doc.text[:doc.blocks[0].end] == block
