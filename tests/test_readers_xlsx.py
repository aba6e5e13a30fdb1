"""Excel workbooks (optional extra): each sheet's tables read as the HTML they mean."""

from __future__ import annotations

import datetime as dt
import importlib.util
import json

import pytest
from click.testing import CliRunner

from zoomrag.cli import main
from zoomrag.errors import InputError
from zoomrag.load import load_path

pytestmark = pytest.mark.skipif(importlib.util.find_spec("openpyxl") is None,
                                reason="the optional 'xlsx' extra is not installed")

BOOK = {
    "Revenue": [["Q3 revenue by region"], [None], ["Region", "Revenue", "Updated"],
                ["Europe", 4.1, dt.datetime(2026, 9, 30)], ["Asia | Pacific", 2.0, dt.datetime(2026, 9, 30, 12, 5)],
                [None, None, None], ["Costs", 3], ["Staff", 12.5]],
    "Empty": [],
    "Staff": [["Name", "Team", "Lead"], ["Ann", "Data", True], ["Bo", "Web", False]],
}


def make(tmp_path, sheets=BOOK, title="Q3 figures"):
    from xlsx_support import make_xlsx

    path = tmp_path / "q3.xlsx"
    path.write_bytes(make_xlsx(sheets, title=title))
    return path


def test_sheets_are_headings_over_their_tables(tmp_path):
    doc = load_path(make(tmp_path))
    assert doc.format == "xlsx" and doc.metadata == {"title": "Q3 figures"}
    assert doc.text == ("# Revenue\n\nQ3 revenue by region\n\n| Region | Revenue | Updated |\n| --- | --- | --- |\n"
                        "| Europe | 4.1 | 2026-09-30 |\n| Asia \\| Pacific | 2 | 2026-09-30T12:05:00 |\n\n"
                        "| Costs | 3 |\n| --- | --- |\n| Staff | 12.5 |\n\n# Staff\n\n| Name | Team | Lead |\n"
                        "| --- | --- | --- |\n| Ann | Data | TRUE |\n| Bo | Web | FALSE |")
    assert [(b.type, b.level) for b in doc.blocks] == [
        ("heading", 1), ("text", 0), ("table", 0), ("table", 0), ("heading", 1), ("table", 0)]
    assert load_path(make(tmp_path, title=None)).metadata == {"title": None}


def test_a_broken_workbook_is_a_clear_error(tmp_path):
    path = make(tmp_path)
    path.write_bytes(path.read_bytes()[:300])
    with pytest.raises(InputError, match=rf"^{path}: cannot read this Excel workbook \(.+\); check that it is a "
                                         r"complete \.xlsx \(an older \.xls must be saved as \.xlsx first\)$"):
        load_path(path)


def test_a_row_comes_back_with_its_columns_names(tmp_path):
    books = tmp_path / "books"
    books.mkdir()
    people = [["Name", "Team", "Office"]] + [[f"Person {i}", f"Team {i % 5}", f"Room {100 + i}"] for i in range(40)]
    make(tmp_path, {"People": people}).rename(books / "people.xlsx")
    index = str(tmp_path / "i.db")
    runner = CliRunner()
    got = runner.invoke(main, ["index", str(books), "--index", index, "--embedder", "hash"])
    assert got.exit_code == 0, got.output
    got = runner.invoke(main, ["query", "Person 17", "--index", index, "--json", "--mode", "bm25",
                               "--budget", "60"])
    assert got.exit_code == 0, got.output
    top = json.loads(got.output)["contexts"][0]
    assert top["text"].startswith("| Name | Team | Office |") and "| Person 17 | Team 2 | Room 117 |" in top["text"]
    assert top["section_path"] == ["People"]
