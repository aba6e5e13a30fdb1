"""CSV/TSV reader and the delimited-table parser: exact spans for quoted fields."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zoomrag.errors import InputError
from zoomrag.load import load_path, read_text
from zoomrag.load.readers.delimited import guess_delimiter
from zoomrag.load.tables import delimited_records, parse_delimited, scan_fields

FIXTURES = Path(__file__).parent / "fixtures"


def cells_of(text, table):
    return [[text[c.start:c.end] for c in r.cells] for r in (table.header, *table.rows)]


def test_csv_fixture_is_one_table_block():
    doc = load_path(FIXTURES / "people.csv")
    assert doc.text == 'name,city,note\nAlice,Paris,"likes tea, coffee"\nBob,Rome,"two\nlines"\n'
    assert (doc.format, doc.metadata) == ("csv", {"delimiter": ","})
    [b] = doc.blocks
    assert (b.type, b.start, b.end) == ("table", 0, 67)
    assert b.meta == {"delimiter": ",", "records": 3, "columns": 3}


def test_csv_fixture_cells_point_at_exact_spans():
    doc = load_path(FIXTURES / "people.csv")
    table = parse_delimited(doc.text, 0, len(doc.text), ",")
    assert cells_of(doc.text, table) == [
        ["name", "city", "note"], ["Alice", "Paris", "likes tea, coffee"], ["Bob", "Rome", "two\nlines"]]
    assert [(r.start, r.end) for r in table.rows] == [(15, 46), (47, 67)]
    assert doc.text[table.rows[1].start:table.rows[1].end] == 'Bob,Rome,"two\nlines"'


def test_tsv_fixture():
    doc = load_path(FIXTURES / "people.tsv")
    assert (doc.format, doc.blocks[0].meta["delimiter"]) == ("tsv", "\t")
    table = parse_delimited(doc.text, doc.blocks[0].start, doc.blocks[0].end, "\t")
    assert cells_of(doc.text, table) == [["name", "age"], ["Alice", "31"], ["Bob", "25"]]


def test_escaped_quotes_junk_after_quotes_padding_and_blank_lines():
    text = ' a ,"say ""hi""" ,"x"y, "q"\n\n,,\n"open,\nend'
    table = parse_delimited(text, 0, len(text), ",")
    # A field starting with a space is unquoted for csv: its quotes are content.
    assert cells_of(text, table) == [["a", 'say ""hi""', 'x"y', '"q"'], ["open,\nend"]]
    assert [c.value for c in table.header.cells] == [" a ", 'say "hi" ', "xy", ' "q"']
    assert table.rows[0].cells[0].value == "open,\nend"


@pytest.mark.parametrize("first_line, delimiter", [
    ("a,b,c", ","), ("a;b;c", ";"), ("a\tb", "\t"), ('"x;y",b', ","), ("a|b|c", "|"), ("one", ","),
    ("Preis;Menge;Summe", ";"),
])
def test_guess_delimiter(first_line, delimiter):
    assert guess_delimiter("\n" + first_line + "\nrest") == delimiter


def test_semicolon_csv_is_read_with_its_delimiter():
    doc = read_text("name;price\nTea;1,50\n", format="csv")
    assert doc.blocks[0].meta["delimiter"] == ";"


def test_unreadable_csv_names_the_file_and_line(tmp_path):
    p = tmp_path / "huge.csv"
    p.write_text("a,b\n1," + "x" * (csv.field_size_limit() + 1) + "\n")
    with pytest.raises(InputError, match=rf"^{p}: not a readable CSV file at line 2 \(field larger than"):
        load_path(p)


def test_empty_csv_has_no_block():
    assert read_text("\n\n", format="csv").blocks == ()
    assert parse_delimited("\n\n", 0, 2, ",") is None


_CSVISH = st.text(alphabet=',"\n ab\t;', max_size=60)


@settings(max_examples=200, deadline=None)
@given(_CSVISH, st.sampled_from([",", "\t", ";"]))
def test_scanner_agrees_with_the_csv_module(text, delimiter):
    records = list(delimited_records(text, 0, len(text), delimiter))
    assert [values for *_, values in records] == [r for r in csv.reader(text.splitlines(True),
                                                                         delimiter=delimiter) if r]
    for s, e, values in records:
        assert [v for *_, v in scan_fields(text, s, e, delimiter)] == values


@settings(max_examples=200, deadline=None)
@given(_CSVISH)
def test_delimited_spans_are_ordered_trimmed_and_lose_only_syntax(text):
    table = parse_delimited(text, 0, len(text), ",")
    if table is None:
        assert all(c in ',"' or c.isspace() for c in text)
        return
    covered = bytearray(len(text))
    prev = table.start
    for row in (table.header, *table.rows):
        assert prev <= row.start <= row.end <= table.end
        prev = row.end
        last = row.start
        for c in row.cells:
            assert last <= c.start <= c.end <= row.end
            piece = text[c.start:c.end]
            assert piece == piece.strip()
            covered[c.start:c.end] = b"\x01" * len(piece)
            last = c.end
    assert all(covered[i] or c in ',"' or c.isspace() for i, c in enumerate(text))
