"""Plain text reader: the text as it is, paragraph blocks, pipe tables as table blocks."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import texts

from zoomrag.load import load_path, read_text
from zoomrag.load.spans import line_spans, paragraph_spans, trim
from zoomrag.model import normalize_newlines

FIXTURES = Path(__file__).parent / "fixtures"


def blocks_of(doc):
    return [(b.type, doc.text[b.start:b.end]) for b in doc.blocks]


def test_fixture_paragraphs_exact():
    doc = load_path(FIXTURES / "sample.txt")
    assert doc.format == "text"
    assert doc.text == "First paragraph\nstill first.\n\n\nSecond paragraph.\n"
    assert [(b.start, b.end, b.type) for b in doc.blocks] == [(0, 28, "text"), (31, 48, "text")]


def test_blank_lines_of_whitespace_separate_paragraphs():
    doc = read_text("  one\n \t \ntwo\nthree  \n\n\n", format="text")
    assert blocks_of(doc) == [("text", "one"), ("text", "two\nthree")]


def test_pipe_table_inside_a_paragraph_is_a_table_block():
    doc = read_text("Scores:\n| a | b |\n|---|---|\n| 1 | 2 |\nafter\n\nnext", format="text")
    assert blocks_of(doc) == [
        ("text", "Scores:"),
        ("table", "| a | b |\n|---|---|\n| 1 | 2 |"),
        ("text", "after"),
        ("text", "next"),
    ]


def test_pipes_without_a_delimiter_row_are_text():
    doc = read_text("a | b\nc | d\n", format="text")
    assert blocks_of(doc) == [("text", "a | b\nc | d")]


def test_span_helpers():
    text = "ab\n\ncd\n"
    assert line_spans(text) == [(0, 2), (3, 3), (4, 6)]
    assert line_spans(text, 3, 6) == [(3, 3), (4, 6)]
    assert line_spans("") == []
    assert paragraph_spans(text) == [(0, 2), (4, 6)]
    assert trim("  x ", 0, 4) == (2, 3)
    assert trim("   ", 0, 3) == (3, 3)


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=" \t\n\u3000\xa0ab", max_size=200), st.integers(0, 200), st.integers(0, 200))
def test_trim_is_the_character_by_character_trim(text, a, b):
    start, end = sorted((min(a, len(text)), min(b, len(text))))
    s, e = start, end
    while s < e and text[s].isspace():
        s += 1
    while e > s and text[e - 1].isspace():
        e -= 1
    assert trim(text, start, end) == (s, e)


@settings(max_examples=150, deadline=None)
@given(texts)
def test_any_text_gives_ordered_blocks_covering_every_character(text):
    doc = read_text(text, format="text")
    assert doc.text == normalize_newlines(text)
    prev = 0
    covered = bytearray(len(doc.text))
    for b in doc.blocks:
        assert prev <= b.start < b.end <= len(doc.text)
        piece = doc.text[b.start:b.end]
        assert not piece[0].isspace() and not piece[-1].isspace()
        covered[b.start:b.end] = b"\x01" * (b.end - b.start)
        prev = b.end
    # Plain text blocks partition the text: every non-space character is in a block.
    assert all(covered[i] or c.isspace() for i, c in enumerate(doc.text))


def test_python_help_output_is_text_not_a_table():
    import pydoc

    text = pydoc.render_doc(str, renderer=pydoc.plaintext)
    doc = read_text(text, format="text")
    assert " |  ------" in text  # help() draws rules under its section titles
    assert all(b.type == "text" for b in doc.blocks)


def test_a_one_column_table_needs_pipes_on_both_sides():
    doc = read_text("| name |\n| --- |\n| x |\n\n |  Methods:\n |  -------\n |  foo\n", format="text")
    assert blocks_of(doc) == [("table", "| name |\n| --- |\n| x |"), ("text", "|  Methods:\n |  -------\n |  foo")]
