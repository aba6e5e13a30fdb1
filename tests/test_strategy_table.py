"""The ``table`` strategy: table → header/row → column/cell, header-propagated embed_text."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_tree, texts

from zoomrag.errors import ConfigError
from zoomrag.load import load_path, read_text
from zoomrag.load.tables import parse_pipe_table
from zoomrag.model import Block, Document
from zoomrag.parse import build_tree, make_chunker
from zoomrag.parse.strategies.table import TableChunker

FIXTURES = Path(__file__).parent / "fixtures"

TABLE_2X3 = """\
| Name | Age | City |
|------|----:|------|
| Alice | 31 | Paris |
| Bob | 25 | Rome |
"""


def rows_of(tree):
    return [(n.level, n.kind, n.start, n.end, n.text, n.embed_text) for n in tree]


def test_exact_tree_for_a_two_by_three_table():
    tree = make_chunker("table").chunk(read_text(TABLE_2X3, format="markdown"))
    assert rows_of(tree) == [
        (0, "document", 0, 87, TABLE_2X3, None),
        (1, "table", 0, 86, TABLE_2X3.rstrip("\n"), None),
        (2, "header", 0, 21, "| Name | Age | City |", "Name | Age | City"),
        (3, "column", 2, 6, "Name", "Name: Alice; Bob"),
        (3, "column", 9, 12, "Age", "Age: 31; 25"),
        (3, "column", 15, 19, "City", "City: Paris; Rome"),
        (2, "row", 44, 66, "| Alice | 31 | Paris |", "Name: Alice | Age: 31 | City: Paris"),
        (3, "cell", 46, 51, "Alice", "Name: Alice"),
        (3, "cell", 54, 56, "31", "Age: 31 (row Alice)"),
        (3, "cell", 59, 64, "Paris", "City: Paris (row Alice)"),
        (2, "row", 67, 86, "| Bob | 25 | Rome |", "Name: Bob | Age: 25 | City: Rome"),
        (3, "cell", 69, 72, "Bob", "Name: Bob"),
        (3, "cell", 75, 77, "25", "Age: 25 (row Bob)"),
        (3, "cell", 80, 84, "Rome", "City: Rome (row Bob)"),
    ]
    check_tree(tree, partition=False)
    assert [n.kind for n in tree.leaves()] == ["column"] * 3 + ["cell"] * 6


def test_rows_as_leaves_and_no_columns():
    chunker = make_chunker("table", {"cells": "false", "columns": "no"})
    tree = chunker.chunk(read_text(TABLE_2X3, format="markdown"))
    assert [(n.level, n.kind, n.text) for n in tree][1:] == [
        (1, "table", TABLE_2X3.rstrip("\n")),
        (2, "header", "| Name | Age | City |"),
        (2, "row", "| Alice | 31 | Paris |"),
        (2, "row", "| Bob | 25 | Rome |"),
    ]


def test_csv_tree_points_inside_quotes_and_across_lines():
    doc = load_path(FIXTURES / "people.csv")
    tree = make_chunker("table").chunk(doc)
    assert rows_of(tree)[1:] == [
        (1, "table", 0, 67, doc.text.rstrip("\n"), None),
        (2, "header", 0, 14, "name,city,note", "name | city | note"),
        (3, "column", 0, 4, "name", "name: Alice; Bob"),
        (3, "column", 5, 9, "city", "city: Paris; Rome"),
        (3, "column", 10, 14, "note", "note: likes tea, coffee; two lines"),
        (2, "row", 15, 46, 'Alice,Paris,"likes tea, coffee"',
         "name: Alice | city: Paris | note: likes tea, coffee"),
        (3, "cell", 15, 20, "Alice", "name: Alice"),
        (3, "cell", 21, 26, "Paris", "city: Paris (row Alice)"),
        (3, "cell", 28, 45, "likes tea, coffee", "note: likes tea, coffee (row Alice)"),
        (2, "row", 47, 67, 'Bob,Rome,"two\nlines"', "name: Bob | city: Rome | note: two lines"),
        (3, "cell", 47, 50, "Bob", "name: Bob"),
        (3, "cell", 51, 55, "Rome", "city: Rome (row Bob)"),
        (3, "cell", 57, 66, "two\nlines", "note: two lines (row Bob)"),
    ]


def test_html_table_cells_point_into_the_rendering():
    doc = load_path(FIXTURES / "sample.html")
    tree = make_chunker("table").chunk(doc)
    cells = [(n.text, n.embed_text) for n in tree if n.kind == "cell"]
    assert cells == [("Alice", "Name: Alice"), ("lead", "Role: lead (row Alice)"),
                     ("Bob", "Name: Bob"), ("a\\|b", "Role: a|b (row Bob)")]
    assert [n.kind for n in tree.children(tree.root)] == ["chunk", "chunk", "chunk", "table", "chunk"]


def test_text_around_tables_becomes_chunks():
    doc = load_path(FIXTURES / "sample.md", front_matter="text")  # its front matter is a chunk
    tree = make_chunker("table").chunk(doc)
    top = [(n.kind, n.text) for n in tree.children(tree.root)]
    assert [k for k, _ in top] == ["chunk"] * 5 + ["table"] + ["chunk"] * 2
    assert top[1] == ("chunk", "# Install")
    assert top[-1] == ("chunk", "indented code")
    check_tree(tree, partition=False)


def test_document_without_blocks_is_scanned_for_pipe_tables():
    doc = Document.from_text("Intro\n\n" + TABLE_2X3 + "\nOutro")
    tree = make_chunker("table").chunk(doc)
    assert [(n.kind, n.text) for n in tree.children(tree.root)] == [
        ("chunk", "Intro"), ("table", TABLE_2X3.rstrip("\n")), ("chunk", "Outro")]


def test_a_table_ruled_with_joins_has_rows_and_no_rule_rows():
    # Org mode's and Emacs' tables: ``+`` where the columns meet; rules between groups of rows
    text = "| Name | Role |\n|------+------|\n| Ann  | lead |\n|------+------|\n| Bo   | dev  |\n"
    tree = make_chunker("table").chunk(Document.from_text("Staff:\n\n" + text))
    assert [(n.kind, n.text) for n in tree if n.kind in ("table", "header", "row")] == [
        ("table", text.rstrip("\n")), ("header", "| Name | Role |"), ("row", "| Ann  | lead |"), ("row", "| Bo   | dev  |")]
    # one rule per column junction: a rule of another width is no delimiter, and neither is
    # help()'s single-column rule
    assert "table" not in [n.kind for n in make_chunker("table").chunk(
        Document.from_text("| a | b |\n|---+---+---|\n| 1 | 2 |\n"))]
    assert "table" not in [n.kind for n in make_chunker("table").chunk(
        Document.from_text(" |  Methods\n |  -----+--\n |  x\n"))]


def test_csv_document_without_blocks():
    doc = Document.from_text("a;b\n1;2\n", format="csv", metadata={"delimiter": ";"})
    tree = make_chunker("table").chunk(doc)
    assert [(n.kind, n.text, n.embed_text) for n in tree if n.kind in ("cell", "column")] == [
        ("column", "a", "a: 1"), ("column", "b", "b: 2"),
        ("cell", "1", "a: 1"), ("cell", "2", "b: 2 (row 1)")]


def test_split_range_on_a_table_block_matches_the_whole_document():
    doc = load_path(FIXTURES / "sample.md")
    block = next(b for b in doc.blocks if b.type == "table")
    chunker = make_chunker("table")
    [span] = chunker.split_range(doc, block.start, block.end)
    whole = next(n for n in chunker.chunk(doc) if n.kind == "table")
    assert (span.kind, span.start, span.end) == ("table", whole.start, whole.end)
    tree = build_tree(doc, [span])
    assert [n.text for n in tree if n.kind == "cell"] == ["Alice", "31", "Bob", "25"]


def test_unparsable_table_block_is_kept_as_a_chunk():
    doc = Document(id="d", source="s", text="just | text\nno delimiter row",
                   blocks=(Block(0, 28, "table"),))
    tree = make_chunker("table").chunk(doc)
    assert [(n.kind, n.text) for n in tree.leaves()] == [("chunk", "just | text\nno delimiter row")]


def test_empty_cells_get_no_node_and_unnamed_columns_a_number():
    text = "| Name |  | Note |\n|---|---|---|\n| Ann | x |  |\n|  |  |  |\n| | y | z | extra |\n"
    tree = make_chunker("table").chunk(read_text(text, format="markdown"))
    assert [(n.kind, n.text, n.embed_text) for n in tree if n.level >= 2] == [
        ("header", "| Name |  | Note |", "Name | Note"),
        ("column", "Name", "Name: Ann"),
        ("column", "Note", "Note: z"),
        ("row", "| Ann | x |  |", "Name: Ann | column 2: x"),
        ("cell", "Ann", "Name: Ann"),
        ("cell", "x", "column 2: x (row Ann)"),
        ("row", "| | y | z | extra |", "column 2: y | Note: z | column 4: extra"),
        ("cell", "y", "column 2: y"),
        ("cell", "z", "Note: z"),
        ("cell", "extra", "column 4: extra"),
    ]


def test_column_listing_is_capped():
    text = "| n |\n|---|\n" + "".join(f"| {i} |\n" for i in range(5))
    tree = make_chunker("table", {"max_values": "2"}).chunk(read_text(text, format="markdown"))
    assert next(n.embed_text for n in tree if n.kind == "column") == "n: 0; 1; … (+3 more)"


@pytest.mark.parametrize("params, message", [
    ({"max_values": 0}, r"^table: max_values=0 is out of range; use at least 1 and at most 100000$"),
    ({"columns": "maybe"}, r"^table: columns='maybe' is not a valid bool$"),
    ({"cells": 1}, r"^table: cells must be true or false, got 1$"),
    ({"rows": True},
     r"^strategy 'table' has no parameter 'rows'; its parameters are: cells, columns, max_values$"),
])
def test_bad_parameters(params, message):
    with pytest.raises(ConfigError, match=message):
        make_chunker("table", params)


def test_empty_document():
    tree = make_chunker("table").chunk(read_text("", format="markdown"))
    assert len(tree) == 1 and tree.leaves() == []


# -- properties -----------------------------------------------------------------------------

def lost_characters(tree):
    text = tree.document.text
    covered = bytearray(len(text))
    for leaf in tree.leaves():
        covered[leaf.start:leaf.end] = b"\x01" * leaf.length
    return {c for i, c in enumerate(text) if not covered[i] and not c.isspace()}


_CELL = st.text(alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\n\r"), max_size=8)


def _escape(cell: str) -> str:
    return cell.replace("\\", "\\\\").replace("|", "\\|")


@st.composite
def markdown_tables(draw):
    width = draw(st.integers(1, 4))
    rows = draw(st.lists(st.lists(_CELL, min_size=width, max_size=width), min_size=1, max_size=4))
    esc = [[_escape(c) for c in row] for row in rows]
    lines = ["| " + " | ".join(r) + " |" for r in esc]
    lines.insert(1, "|" + "---|" * width)
    before = draw(st.sampled_from(["", "Intro text.\n\n", "# Head\n\n"]))
    return before + "\n".join(lines) + "\n", rows


@settings(max_examples=150, deadline=None)
@given(st.one_of(texts, markdown_tables().map(lambda t: t[0])), st.sampled_from(["markdown", "text", "html"]))
def test_tree_invariants_and_only_table_syntax_lost(text, fmt):
    doc = read_text(text, format=fmt)
    chunker = TableChunker()
    tree = chunker.chunk(doc)
    check_tree(tree, partition=False)
    assert lost_characters(tree) <= set("|-:")
    assert chunker.chunk(doc).to_dict() == tree.to_dict()


def _joined(case: tuple[str, list[list[str]]], between: bool) -> tuple[str, list[list[str]]]:
    """A generated table ruled as Org mode rules one: ``+`` where the columns meet, and (with
    ``between``) a rule after every row too."""
    text, rows = case
    rule = "|" + "+".join("---" for _ in rows[0]) + "|"
    lines = text.rstrip("\n").split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("|---"))
    body = [x for line in lines[at + 1:] for x in ((line, rule) if between else (line,))]
    return "\n".join([*lines[:at], rule, *body]) + "\n", rows


@settings(max_examples=150, deadline=None)
@given(markdown_tables().flatmap(lambda case: st.booleans().map(lambda b: _joined(case, b))),
       st.sampled_from(["text", "org"]))
def test_tables_ruled_with_joins_lose_only_their_rules(case, fmt):
    text, rows = case
    tree = TableChunker().chunk(read_text(text, format=fmt))
    check_tree(tree, partition=False)
    assert lost_characters(tree) <= set("|-:+")
    # one column is no table (help() output), a table of empty cells holds nothing, and a
    # control character may end a line in text
    cells = [c for r in rows for c in r]
    if len(rows[0]) > 1 and any(c.strip() for c in cells) and all(c.isprintable() for c in cells):
        [table] = [n for n in tree if n.kind == "table"]
        assert len([n for n in tree.children(table) if n.kind == "row"]) == len(
            [r for r in rows[1:] if any(c.strip() for c in r)])


@settings(max_examples=150, deadline=None)
@given(markdown_tables())
def test_generated_tables_give_one_node_per_non_empty_cell(case):
    text, rows = case
    doc = read_text(text, format="markdown")
    tree = make_chunker("table").chunk(doc)
    [table] = [n for n in tree if n.kind == "table"]
    body = [r for r in rows[1:] if any(c.strip() for c in r)]
    assert len([n for n in tree if n.kind == "row"]) == len(body)
    cells = [n for n in tree if n.kind == "cell"]
    assert [n.text for n in cells] == [_escape(c.strip()) for r in body for c in r if c.strip()]
    assert all(table.start <= n.start <= n.end <= table.end for n in cells)
    # Values (what embed_text repeats) undo the escapes.
    parsed = parse_pipe_table(doc.text, table.start, table.end)
    assert [[c.value for c in r.cells] for r in parsed.rows] == [[c.strip() for c in r] for r in rows[1:]]


@settings(max_examples=150, deadline=None)
@given(st.text(alphabet=',"\n ab;\t\u00e9', max_size=80), st.sampled_from(["csv", "tsv"]))
def test_delimited_tree_invariants(text, fmt):
    tree = make_chunker("table").chunk(read_text(text, format=fmt))
    check_tree(tree, partition=False)
    assert lost_characters(tree) <= set(',";\t')
