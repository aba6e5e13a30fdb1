"""E-books: the pages of the reading order read as HTML pages, one after another."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from epub_support import make_epub, page

from zoomrag.cli import main
from zoomrag.errors import InputError
from zoomrag.load import load_path
from zoomrag.load.base import detect_format

COVER = page("Cover", '<img src="cover.jpg" alt=""/>')
ONE = page("Tide Book", "<h1>Chapter 1. Tides</h1><p>The moon pulls the sea twice a day.</p>"
                        "<h2>Spring tides</h2><p>Sun and moon in line make the highest tides.</p>")
TWO = page("Tide Book", "<h1>Chapter 2. Tables</h1><table><tr><th>Port</th><th>High water</th></tr>"
                        "<tr><td>Brest</td><td>06:12</td></tr></table>")
NOTES = page("Notes", "<p>Editor's notes, outside the reading order.</p>")
NAV = page("Contents", '<h1>Contents</h1><nav><ol><li><a href="one.xhtml">Chapter 1. Tides</a></li></ol></nav>')


def test_the_reading_order_is_read_as_pages_one_after_another(tmp_path):
    path = tmp_path / "tides.epub"
    # the manifest lists two.xhtml first; the spine reads one.xhtml first, after a cover and the
    # contents
    path.write_bytes(make_epub([("two.xhtml", TWO), ("cover.xhtml", COVER), ("one.xhtml", ONE),
                                ("notes.xhtml", NOTES), ("nav.xhtml", NAV)], title="The Tide Book",
                               spine=["cover.xhtml", "nav.xhtml", "one.xhtml", "notes.xhtml", "two.xhtml"],
                               nonlinear=("notes.xhtml",)))
    doc = load_path(path)
    assert detect_format(path) == doc.format == "epub"
    assert doc.metadata == {"title": "The Tide Book"}
    assert doc.text == ("# Chapter 1. Tides\n\nThe moon pulls the sea twice a day.\n\n## Spring tides\n\n"
                        "Sun and moon in line make the highest tides.\n\n# Chapter 2. Tables\n\n"
                        "| Port | High water |\n| --- | --- |\n| Brest | 06:12 |")
    assert [(b.type, b.level, doc.text[b.start:b.end]) for b in doc.blocks] == [
        ("heading", 1, "# Chapter 1. Tides"), ("text", 0, "The moon pulls the sea twice a day."),
        ("heading", 2, "## Spring tides"), ("text", 0, "Sun and moon in line make the highest tides."),
        ("heading", 1, "# Chapter 2. Tables"), ("table", 0, "| Port | High water |\n| --- | --- |\n| Brest | 06:12 |"),
    ]
    # without a title of its own, the first page's names it
    path.write_bytes(make_epub([("one.xhtml", ONE)], title=None))
    assert load_path(path).metadata == {"title": "Tide Book"}


@pytest.mark.parametrize(("book", "message"), [
    (make_epub([("one.xhtml", ONE)])[:200],
     r"cannot read this e-book \(BadZipFile: .+\); check that it is a complete \.epub file$"),
    (make_epub([("one.xhtml", ONE)], container="<container><rootfiles/></container>"),
     r"cannot read this e-book \(ValueError: its container.xml names no package file\)"),
    (make_epub([("one.xhtml", b"<html><body><p>caf\xe9</p></body></html>")]),
     r"OEBPS/text/one.xhtml: not valid UTF-8 \(byte 0xe9"),
])
def test_a_broken_e_book_is_a_clear_error(tmp_path, book, message):
    path = tmp_path / "broken.epub"
    path.write_bytes(book)
    with pytest.raises(InputError, match=rf"^{path}: {message}"):
        load_path(path)


def test_an_encrypted_e_book_is_refused_with_what_to_do(tmp_path):
    path = tmp_path / "drm.epub"
    path.write_bytes(make_epub([("one.xhtml", ONE)], encrypted=("one.xhtml",)))
    with pytest.raises(InputError, match=r"pages are encrypted \(DRM\); .* DRM-free copy$"):
        load_path(path)


def test_an_e_book_indexed_and_asked_answers_from_its_chapter(tmp_path):
    books = tmp_path / "books"
    books.mkdir()
    (books / "tides.epub").write_bytes(make_epub([("one.xhtml", ONE), ("two.xhtml", TWO)], title="The Tide Book"))
    (books / "bad.epub").write_bytes(b"PK\x03\x04 not really a zip")
    runner = CliRunner()
    index = str(tmp_path / "i.db")
    got = runner.invoke(main, ["index", str(books), "--index", index, "--embedder", "hash"])
    assert got.exit_code == 0, got.output
    assert "1 added" in got.output and "bad.epub" in got.output and "Traceback" not in got.output
    got = runner.invoke(main, ["query", "what makes the highest tides", "--index", index, "--json"])
    assert got.exit_code == 0, got.output
    first = json.loads(got.output)["contexts"][0]
    assert first["source"].endswith("tides.epub") and "Sun and moon in line" in first["text"]
    assert first["section_path"][:1] == ["Chapter 1. Tides"]


def test_chapter_titles_drawn_by_the_books_style_sheet_are_headings(tmp_path):
    """A book converted without heading elements (calibre's ``<p class="calibre5">``): its titles
    are what its style sheet sets in bold and larger."""
    chapter = ("<p class='ch'>Chapter One</p><p class='tx'>It was a bright cold day, and the clocks were "
               "striking thirteen as he walked home.</p><p class='tx'>The hallway smelt of boiled cabbage.</p>")
    path = tmp_path / "book.epub"
    path.write_bytes(make_epub([("c1.xhtml", page("One", chapter)),
                                ("c2.xhtml", page("Two", chapter.replace("One", "Two")))],
                               files={"styles/book.css": ".ch { font-weight: bold; font-size: 1.6em }\n"
                                                         ".tx { text-indent: 1em }"}))
    doc = load_path(path)
    assert [doc.text[b.start:b.end] for b in doc.blocks if b.type == "heading"] == ["# Chapter One", "# Chapter Two"]
