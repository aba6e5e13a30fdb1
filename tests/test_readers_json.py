"""JSON and JSON Lines: data written as the page it means (values as lines, text as paragraphs,
nested objects and records as sections, records of short values as one table)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_support import index_folder, top_context
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_rendered_blocks

from zoomrag.errors import InputError
from zoomrag.load import load_path, read_text
from zoomrag.load.base import detect_format

HANDBOOK = {
    "title": "Café handbook",
    "owner": {"name": "Zoë", "since": 2019},
    "sections": [
        {"heading": "Opening", "text": "We open at 7.\n\nThe first shift makes coffee.", "staff": 2},
        {"heading": "Closing", "text": "Count the till.", "checks": {"till": True, "doors": ["front", "back"],
                                                                    "alarm": {"code": None, "zone": [1, 2]}}},
    ],
    "tags": ["food", "drink"],
    "notes": "One line.\nAnd its second line.",
}


def test_an_object_is_its_values_then_its_sections():
    doc = read_text(json.dumps(HANDBOOK), format="json")  # as Python writes it: "Caf\u00e9"
    assert doc.metadata == {"title": "Café handbook"}
    assert doc.text.split("\n") == [
        "title: Café handbook", "owner: {name: Zoë, since: 2019}", "tags: food, drink", "",
        "notes: One line. And its second line.", "",  # a line break inside a paragraph is a space
        "# sections", "",
        "## Opening", "", "text: We open at 7.", "", "The first shift makes coffee.", "", "staff: 2", "",
        "## Closing", "", "text: Count the till.", "checks: {till: true, doors: [front, back], alarm: {code: null, zone: [1, 2]}}"]
    assert [(b.type, b.level) for b in doc.blocks] == [
        ("text", 0), ("text", 0), ("heading", 1), ("heading", 2), ("text", 0), ("text", 0), ("text", 0),
        ("heading", 2), ("text", 0)]


TICKETS = [
    {"id": 101, "subject": "Printer jams on page 2", "body": "The printer jams.\n\nCan someone come by?"},
    {"id": 102, "body": "The VPN drops every hour."},
]


def test_json_lines_are_records_headed_by_their_titles_or_lines(tmp_path):
    path = tmp_path / "tickets.jsonl"
    path.write_text(json.dumps(TICKETS[0]) + "\n\n" + json.dumps(TICKETS[1]) + "\n" + json.dumps("a note") + "\n")
    doc = load_path(path)
    assert detect_format(path) == doc.format == "jsonl" and detect_format(Path("x.ndjson")) == "jsonl"
    assert doc.text.split("\n") == [
        "# Printer jams on page 2", "", "id: 101", "", "body: The printer jams.", "", "Can someone come by?", "",
        "# Line 3", "", "id: 102", "body: The VPN drops every hour.", "", "- a note"]


def test_a_text_in_markdown_keeps_its_sections_under_its_record():
    record = {"id": "guide", "title": "The guide", "text": "Intro.\n\n## Install\n\nRun `pip install x`.\n\n"
                                                          "```sh\nx --help\n```\n"}
    doc = read_text(json.dumps(record) + "\n", format="jsonl")
    assert doc.text.split("\n") == ["# The guide", "", "id: guide", "", "Intro.", "", "### Install", "",
                                    "Run pip install x.", "", "```sh", "x --help", "```"]


def test_records_of_short_values_alike_are_one_table():
    rows = [{"region": "Europe", "sales": 4.1, "open": True}, {"region": "Asia", "sales": 2}, {"region": "Africa"}]
    doc = read_text(json.dumps(rows), format="json")
    assert doc.text.split("\n") == ["| region | sales | open |", "| --- | --- | --- |", "| Europe | 4.1 | true |",
                                    "| Asia | 2 |  |", "| Africa |  |  |"]
    assert [b.type for b in doc.blocks] == ["table"]


@pytest.mark.parametrize(("name", "content", "message"), [
    ("a.json", '{"a": 1,\n "b": }', r"not valid JSON at line 2, column 7 \(Expecting value\); fix it, or rename "
                                      r"the file if it is not JSON$"),
    ("a.jsonl", '{"a": 1}\n{"a": 2\n', r"not valid JSON at line 2, column 8 \(Expecting ',' delimiter\)"),
    ("a.json", "[" * 100_000 + "]" * 100_000, r"JSON nested too deeply to read; flatten it or leave the file out$"),
])
def test_a_file_that_is_not_json_is_a_clear_error(tmp_path, name, content, message):
    path = tmp_path / name
    path.write_text(content)
    with pytest.raises(InputError, match=rf"^{re.escape(str(path))}: {message}"):
        load_path(path)


def test_comments_and_trailing_commas_are_read_past():
    # as tsconfig.json and editors' settings are written; strings keep their slashes
    text = ('{\n  // the compiler\'s settings\n  "compilerOptions": {"target": "es2020", /* modern */\n'
            '    "paths": {"@/*": ["src/*"]}, "url": "http://x.org/a//b",\n  },\n}\n')
    assert read_text(text, format="json").text == (
        "compilerOptions: {target: es2020, paths: {@/*: [src/*]}, url: http://x.org/a//b}")


def test_deep_values_are_written_as_json():
    deep: object = "core"
    for _ in range(30):
        deep = {"inner": deep, "long": "x " * 150}
    doc = read_text(json.dumps(deep), format="json")
    assert '{"inner": "core"' in doc.text.replace("\n", " ")


_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=300),
    lambda inner: st.lists(inner, max_size=5) | st.dictionaries(st.text(max_size=8), inner, max_size=5),
    max_leaves=30)


@settings(max_examples=150, deadline=None)
@given(_VALUES)
def test_any_json_gives_blocks_inside_its_rendering(value):
    for fmt, text in (("json", json.dumps(value)), ("jsonl", json.dumps(value) + "\n" + json.dumps(value))):
        check_rendered_blocks(read_text(text, format=fmt))


def test_a_record_comes_back_under_its_title(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "tickets.jsonl").write_text("\n".join(json.dumps(t) for t in TICKETS) + "\n")
    top = top_context(index_folder(folder, tmp_path), "printer jams")
    assert top["section_path"] == ["Printer jams on page 2"] and "Can someone come by?" in top["text"]
    assert "{" not in top["text"]
