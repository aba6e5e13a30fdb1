"""PowerPoint decks and Excel workbooks (optional extras): each slide or sheet written as the HTML
it means and read as a page is; slides parted as pages, a sheet's rows under their header."""

from __future__ import annotations

import datetime as dt
import importlib.util
from pathlib import Path

import pytest
from cli_support import index_folder, top_context

from zoomrag.errors import InputError
from zoomrag.load import load_path

needs_pptx = pytest.mark.skipif(importlib.util.find_spec("pptx") is None,
                                reason="the optional 'pptx' extra is not installed")
needs_xlsx = pytest.mark.skipif(importlib.util.find_spec("openpyxl") is None,
                                reason="the optional 'xlsx' extra is not installed")

DECK = [
    {"title": "Quarterly review"},
    {"title": "Revenue", "bullets": [(0, "Up 12 % on last year"), (1, "Mostly from Europe"), (0, "Costs flat")],
     "notes": "Say that Europe grew fastest.\nThen pause."},
    {"title": "By region", "table": [["Region", "Revenue"], ["Europe", "4.1"], ["Asia", "2.0"]],
     "box": ["Figures in millions.", "Unaudited."], "picture": "Map of the two regions"},
    {},  # an empty slide keeps its page
    {"title": "Trend", "chart": ("Revenue by quarter", ["Q1", "Q2"], {"Europe": (4.1, 5.0), "Asia": (2.0, 2.2)})},
]
BOOK = {
    "Revenue": [["Q3 revenue by region"], [None], ["Region", "Revenue", "Updated"],
                ["Europe", 4.1, dt.datetime(2026, 9, 30)], ["Asia | Pacific", 2.0, dt.datetime(2026, 9, 30, 12, 5)],
                [None, None, None], ["Costs", 3], ["Staff", 12.5]],
    "Empty": [],
    "Staff": [["Name", "Team", "Lead"], ["Ann", "Data", True], ["Bo", "Web", False]],
}


def deck(path: Path, slides=DECK, title: str | None = "Q3 review") -> Path:
    from pptx_support import make_pptx

    path.write_bytes(make_pptx(slides, title=title))
    return path


def book(path: Path, sheets=BOOK, title: str | None = "Q3 figures") -> Path:
    from xlsx_support import make_xlsx

    path.write_bytes(make_xlsx(sheets, title=title))
    return path


#: What each is read as, line by line.
DECK_LINES = [
    "# Quarterly review", "\f", "# Revenue", "", "- Up 12 % on last year", "  - Mostly from Europe", "- Costs flat",
    "", "## Notes", "", "Say that Europe grew fastest.", "", "Then pause.", "\f", "# By region", "",
    "Figures in millions.", "", "Unaudited.", "", "| Region | Revenue |", "| --- | --- |", "| Europe | 4.1 |",
    "| Asia | 2.0 |", "", "Map of the two regions", "\f", "", "\f", "# Trend", "", "Revenue by quarter", "",
    "| Series | Q1 | Q2 |", "| --- | --- | --- |", "| Europe | 4.1 | 5 |", "| Asia | 2 | 2.2 |",
]
BOOK_LINES = [
    "# Revenue", "", "Q3 revenue by region", "", "| Region | Revenue | Updated |", "| --- | --- | --- |",
    "| Europe | 4.1 | 2026-09-30 |", "| Asia \\| Pacific | 2 | 2026-09-30T12:05:00 |", "", "| Costs | 3 |",
    "| --- | --- |", "| Staff | 12.5 |", "", "# Staff", "", "| Name | Team | Lead |", "| --- | --- | --- |",
    "| Ann | Data | TRUE |", "| Bo | Web | FALSE |",
]


@pytest.mark.parametrize(("write", "name", "title", "lines", "kinds", "untitled"), [
    # slides: pages of headings, lists, tables and speaker notes; an empty slide keeps its page
    pytest.param(deck, "review.pptx", "Q3 review", DECK_LINES,
                 ["heading", "heading", "list", "heading:2", "text", "text", "heading", "text", "text", "table", "text",
                  "heading", "text", "table"],
                 "Quarterly review", marks=needs_pptx),  # untitled, the first slide's title names it
    # sheets: headings over their tables, a blank row ending one, a title row as a paragraph
    pytest.param(book, "q3.xlsx", "Q3 figures", BOOK_LINES, ["heading", "text", "table", "table", "heading", "table"],
                 None, marks=needs_xlsx),
])
def test_a_file_is_read_as_the_pages_it_shows(tmp_path, write, name, title, lines, kinds, untitled):
    doc = load_path(write(tmp_path / name))
    assert doc.format == name.rsplit(".", 1)[1] and doc.metadata == {"title": title}
    assert doc.text.split("\n") == lines
    assert [b.type + (f":{b.level}" if b.level > 1 else "") for b in doc.blocks] == kinds
    assert load_path(write(tmp_path / f"untitled-{name}", title=None)).metadata == {"title": untitled}


@pytest.mark.parametrize(("write", "kind", "old"), [
    pytest.param(deck, "PowerPoint deck", "ppt", marks=needs_pptx),
    pytest.param(book, "Excel workbook", "xls", marks=needs_xlsx),
])
def test_a_broken_file_is_a_clear_error(tmp_path, write, kind, old):
    path = write(tmp_path / f"broken.{old}x")
    path.write_bytes(path.read_bytes()[:300])
    with pytest.raises(InputError, match=rf"^{path}: cannot read this {kind} \(.+\); check that it is a complete "
                                         rf"\.{old}x \(an older \.{old} must be saved as \.{old}x first\)$"):
        load_path(path)


@needs_pptx
def test_a_context_from_a_deck_says_its_slide(tmp_path):
    (tmp_path / "decks").mkdir()
    plans = [{"title": f"Hiring in {season}", "bullets": [(0, "Four teams grow")],
              "notes": " ".join(f"Point {i} of the talk covers the hiring plan for team {i} in {season}."
                                for i in range(12))} for season in ("spring", "autumn")]
    deck(tmp_path / "decks" / "review.pptx", [plans[0], DECK[2], plans[1]])
    top = top_context(index_folder(tmp_path / "decks", tmp_path), "Europe Asia", "--expand", "none")
    assert "| Europe | 4.1 |" in top["text"] and top["section_path"] == ["By region"]
    assert top["pages"] == [2, 2]


@needs_xlsx
def test_a_row_comes_back_with_its_columns_names(tmp_path):
    (tmp_path / "books").mkdir()
    people = [["Name", "Team", "Office"]] + [[f"Person {i}", f"Team {i % 5}", f"Room {100 + i}"] for i in range(40)]
    book(tmp_path / "books" / "people.xlsx", {"People": people})
    top = top_context(index_folder(tmp_path / "books", tmp_path), "Person 17", "--budget", "60")
    assert top["text"].startswith("| Name | Team | Office |") and "| Person 17 | Team 2 | Room 117 |" in top["text"]
    assert top["section_path"] == ["People"]


@needs_xlsx
def test_a_sheet_stretched_to_its_last_cell_is_read_by_the_cells_it_holds(tmp_path, monkeypatch):
    from openpyxl import Workbook

    book = Workbook()
    sheet = book.active
    sheet.title = "Notes"
    sheet["A1"], sheet["B1"], sheet["A2"], sheet["B2"] = "Item", "Owner", "Roof", "Ann"
    sheet.cell(row=1_048_576, column=16_384, value="stray")  # the sheet's used range is all of it
    book.save(tmp_path / "stray.xlsx")
    assert load_path(tmp_path / "stray.xlsx").text.split("\n") == [
        "# Notes", "", "| Item | Owner |", "| --- | --- |", "| Roof | Ann |", "", "stray"]
    # a file of more cells than a reader reads is refused with what to do
    from zoomrag.load.readers import xlsx

    monkeypatch.setattr(xlsx, "MAX_CELLS", 3)
    with pytest.raises(InputError, match=r"stray\.xlsx: this file holds over 3 cells \(counting the empty ones "
                                         r"between filled ones\); save the sheets you need as CSV and index those$"):
        load_path(tmp_path / "stray.xlsx")


@needs_pptx
def test_a_slide_of_several_titles_keeps_them_all(tmp_path):
    # LibreOffice's templates lay out a title slide as three title shapes; all are text, the
    # top one the slide's title
    import copy

    from pptx import Presentation
    from pptx.util import Emu

    deck = Presentation()
    slide = deck.slides.add_slide(deck.slide_layouts[5])  # "Title Only"
    first = slide.shapes.title
    first.text_frame.text = "Lorem ipsum dolor sit amet."
    for text, top in (("CANDY", 100_000), ("TEMPLATE", 600_000)):
        element = copy.deepcopy(first._element)
        slide.shapes._spTree.append(element)
        shape = slide.shapes[-1]
        shape.text_frame.text, shape.top, shape.left = text, Emu(top), Emu(0)
    first.top = Emu(2_000_000)
    deck.save(tmp_path / "candy.pptx")
    assert load_path(tmp_path / "candy.pptx").text.split("\n") == [
        "# CANDY", "", "TEMPLATE", "", "Lorem ipsum dolor sit amet."]
