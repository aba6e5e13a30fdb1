"""Scanned pages read by OCR: Tesseract's words into a page's text, the cache, the PDF reader."""

from __future__ import annotations

import importlib.util
import re
import shutil
import struct
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zoomrag.errors import InputError
from zoomrag.load import load_path
from zoomrag.load.readers import ocr
from zoomrag.load.readers.ocr_cache import OcrCache, file_key
from zoomrag.load.readers.ocr_layout import tsv_page
from zoomrag.load.readers.pdf_ocr import dpi_for, pgm

needs_tesseract = pytest.mark.skipif(shutil.which("tesseract") is None,
                                     reason="Tesseract is not installed (make test installs tesseract-ocr)")
needs_pdf = pytest.mark.skipif(importlib.util.find_spec("pypdfium2") is None or importlib.util.find_spec("PIL") is None,
                               reason="the 'pdf' extra and Pillow are needed to make a scan")

def tsv_text(tsv: str) -> str:
    return tsv_page(tsv).text


HEADER = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"


def tsv(words: list[tuple]) -> str:
    """Tesseract's TSV of words given as (block, par, line, top, height, conf, text[, left])."""
    rows = [HEADER, "1\t1\t0\t0\t0\t0\t0\t0\t1000\t1000\t-1\t"]
    for n, (block, par, line, top, height, conf, text, *left) in enumerate(words, 1):
        x = left[0] if left else 10
        rows.append(f"4\t1\t{block}\t{par}\t{line}\t0\t{x}\t{top}\t500\t{height}\t-1\t")
        rows.append(f"5\t1\t{block}\t{par}\t{line}\t{n}\t{x}\t{top}\t50\t{height}\t{conf}\t{text}")
    return "\n".join(rows) + "\n"


def test_paragraphs_come_from_gaps_blocks_and_sizes_not_tesseracts_paragraphs():
    page = tsv([
        (1, 1, 1, 100, 60, 95, "Terms"),  # a heading: twice the body's height
        (2, 1, 1, 200, 30, 95, "The"), (2, 1, 1, 200, 30, 95, "licensee"),
        (2, 2, 2, 240, 30, 95, "may"),  # Tesseract's new paragraph on an indented line: not one
        (2, 2, 3, 280, 30, 95, "copy."),
        (2, 2, 4, 360, 30, 95, "Fees"),  # a gap of two lines: a paragraph
        (2, 2, 5, 400, 30, 12, "~"),  # a speck of the scan
        (2, 2, 5, 400, 30, 91, "apply."),
        (3, 1, 1, 100, 30, 95, "Notes", 600),  # another block: a column beside
        (4, 1, 1, 140, 30, 95, "Payment is", 600),  # a block right under it
        (5, 1, 1, 100, 30, 95, "due monthly.", 1200),  # a column that goes on in mid-sentence
    ])
    assert tsv_text(page) == ("Terms\n\nThe licensee\nmay\ncopy.\n\nFees\napply.\n\nNotes\n"
                                  "Payment is\ndue monthly.")


def test_unsure_words_with_letters_are_kept():
    assert tsv_text(tsv([(1, 1, 1, 10, 30, 20, "maybe"), (1, 1, 1, 10, 30, 20, "|")])) == "maybe"


def test_an_empty_page_is_empty():
    assert tsv_text(HEADER + "\n") == ""


@settings(max_examples=60, deadline=None)
@given(st.lists(st.lists(st.from_regex(r"[A-Za-z0-9][A-Za-z0-9.,]{0,7}", fullmatch=True), min_size=1, max_size=6),
                min_size=1, max_size=12),
       st.lists(st.integers(30, 120), min_size=12, max_size=12))
def test_every_word_is_kept_in_order(lines, gaps):
    words, top = [], 0
    for k, line in enumerate(lines):
        top += gaps[k]
        words += [(1 + k // 5, 1, k + 1, top, 30, 90.0, w) for w in line]
    text = tsv_text(tsv(words))
    assert text.split() == [w for line in lines for w in line]
    assert not re.search(r"\n{3}", text)


def test_resolution_follows_the_scan_within_bounds():
    assert dpi_for(None, 595, 842) == 300
    assert dpi_for(150, 595, 842) == 200
    assert dpi_for(240, 595, 842) == 240
    assert dpi_for(600, 595, 842) == 400
    assert dpi_for(300, 2384, 3370) == pytest.approx(6000 / (3370 / 72))  # A0: no side over 6,000 pixels


def test_a_page_image_is_a_pgm_of_its_width():
    import numpy as np

    pixels = np.arange(12, dtype=np.uint8).reshape(3, 4)  # a stride of 4 for a width of 3
    assert pgm(pixels, 3, 3) == b"P5\n3 3\n255\n" + bytes([0, 1, 2, 4, 5, 6, 8, 9, 10])


def test_the_cache_keeps_pages_by_content_and_settings(tmp_path):
    pdf = tmp_path / "a.pdf"
    pdf.write_bytes(b"one")
    cache = OcrCache(tmp_path / "c" / "ocr.sqlite")
    key = file_key(pdf, "5.3|eng|1")
    cache.put(key, 2, "page two")
    assert cache.pages(key) == {2: "page two"}
    assert cache.pages(file_key(pdf, "5.3|deu|1")) == {}
    pdf.write_bytes(b"two")
    assert cache.pages(file_key(pdf, "5.3|eng|1")) == {}
    cache.close()
    assert OcrCache(tmp_path / "c" / "ocr.sqlite").pages(key) == {2: "page two"}


def test_a_cache_that_cannot_be_written_costs_only_time(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    cache = OcrCache(blocker / "ocr.sqlite")
    cache.put("k", 1, "text")
    assert cache.pages("k") == {}


def scanned_pdf(path: Path, pages: list[list[str]], text_pages: dict[int, bytes] | None = None) -> Path:
    """An image-only PDF: each page's lines drawn large at 200 dpi, the first as a heading."""
    from PIL import Image, ImageDraw, ImageFont

    images = []
    for lines in pages:
        image = Image.new("L", (1654, 2339), 255)
        draw = ImageDraw.Draw(image)
        y = 200
        for k, line in enumerate(lines):
            font = ImageFont.load_default(size=80 if k == 0 else 40)
            draw.text((180, y), line, font=font, fill=0)
            y += 160 if k == 0 else 60
        images.append(image)
    images[0].save(path, "PDF", resolution=200, save_all=True, append_images=images[1:])
    return path


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("ZOOMRAG_CACHE_DIR", str(tmp_path / "cache"))
    return tmp_path / "cache"


@needs_tesseract
@needs_pdf
def test_a_scanned_pdf_is_read_by_ocr_and_cached(tmp_path, cache_dir, monkeypatch):
    pdf = scanned_pdf(tmp_path / "lease.pdf", [
        ["Termination", "Either party may end this lease", "with ninety days written notice."],
        ["Deposit", "The deposit is returned within", "thirty days of the end of the lease."],
    ])
    doc = load_path(pdf)
    assert doc.metadata["pages"] == 2 and doc.metadata["pages_ocr"] == 2
    assert doc.metadata["pages_without_text"] == 0
    words = doc.text.split()
    for phrase in ("Termination", "ninety days written notice.", "Deposit", "thirty days of the end"):
        assert phrase in " ".join(words)
    assert "\f" in doc.text  # pages apart, as a text layer's are
    assert [b.meta["page"] for b in doc.blocks][-1] == 2
    # read again: from the cache, whatever Tesseract would say now
    broken = replace(ocr.engine(), program=str(tmp_path / "no-tesseract"))
    monkeypatch.setattr("zoomrag.load.readers.pdf.engine", lambda: broken)
    assert load_path(pdf).text == doc.text


@needs_tesseract
@needs_pdf
def test_only_the_pages_without_text_are_read_by_ocr(tmp_path, cache_dir):
    from pypdfium2 import PdfDocument
    from test_readers_pdf import make_pdf

    scan = scanned_pdf(tmp_path / "scan.pdf", [["Schedule A", "The rent is due monthly."]])
    typed = tmp_path / "typed.pdf"
    typed.write_bytes(make_pdf([["Cover letter from the landlord"]]))
    merged = PdfDocument.new()
    merged.import_pages(PdfDocument(typed))
    merged.import_pages(PdfDocument(scan))
    merged.save(tmp_path / "both.pdf")
    doc = load_path(tmp_path / "both.pdf")
    assert doc.text.startswith("Cover letter from the landlord\n\f\nSchedule A")
    assert "rent is due monthly." in doc.text
    assert (doc.metadata["pages"], doc.metadata["pages_ocr"]) == (2, 1)


@needs_tesseract
def test_languages_named_that_tesseract_lacks_are_a_clear_error(monkeypatch):
    monkeypatch.setenv("ZOOMRAG_OCR_LANGUAGES", "eng+xyz")
    ocr.engine.cache_clear()
    try:
        with pytest.raises(InputError, match=r"^ZOOMRAG_OCR_LANGUAGES=eng\+xyz: Tesseract has no model for xyz; "
                                             r"install it \(e\.g\. apt-get install tesseract-ocr-xyz\)"):
            ocr.engine()
    finally:
        ocr.engine.cache_clear()


def test_without_tesseract_there_is_no_engine(monkeypatch):
    monkeypatch.setattr(ocr.shutil, "which", lambda name: None)
    ocr.engine.cache_clear()
    try:
        assert ocr.engine() is None
    finally:
        monkeypatch.undo()
        ocr.engine.cache_clear()


@needs_pdf
def test_a_page_tesseract_fails_on_is_named_and_the_rest_is_kept(project_with_scan, monkeypatch):
    from click.testing import CliRunner

    from zoomrag.cli import main

    failing = ocr.Engine(program="false", version="test-failing", languages="eng", orientation=False)
    monkeypatch.setattr("zoomrag.load.readers.pdf.engine", lambda: failing)
    doc = load_path(project_with_scan / "scan.pdf")
    assert doc.metadata["pages_ocr_failed"] == [1] and "pages_ocr" not in doc.metadata
    r = CliRunner().invoke(main, ["index", str(project_with_scan), "--index", str(project_with_scan.parent / "i.db")])
    assert r.exit_code == 0, r.output
    said = "".join(r.stderr.split())  # the terminal's line breaks may fall inside the path
    assert "".join(f"{project_with_scan / 'scan.pdf'}, page(s) 1: not read by OCR: Tesseract failed on them or "
                   "ran out of time; the rest of the file is indexed".split()) in said
    assert "OCRfoundnotextonthemorcouldnotreadthem(thepagesskippedabove)" in said


@pytest.fixture
def project_with_scan(tmp_path, cache_dir):
    (tmp_path / "docs").mkdir()
    scanned_pdf(tmp_path / "docs" / "scan.pdf", [["Notice", "Rent rises in May."]])
    return tmp_path / "docs"


@needs_pdf
def test_a_blank_page_without_a_picture_is_not_sent_to_ocr(tmp_path, cache_dir, monkeypatch):
    from test_readers_pdf import make_pdf

    failing = ocr.Engine(program="false", version="test-failing", languages="eng", orientation=False)
    monkeypatch.setattr("zoomrag.load.readers.pdf.engine", lambda: failing)
    (tmp_path / "book.pdf").write_bytes(make_pdf([["Chapter one."], [], ["Chapter two."]]))
    doc = load_path(tmp_path / "book.pdf")
    assert "pages_ocr_failed" not in doc.metadata and doc.metadata["pages_without_text"] == 1


def test_a_page_scanned_sideways_is_laid_out_across_its_lines():
    rows = [HEADER]
    for n, (left, text) in enumerate([(900, "Either party"), (860, "may end it."), (780, "Fees apply."),
                                      (740, "monthly")], 1):
        rows.append(f"4\t1\t1\t1\t{n}\t0\t{left}\t10\t30\t500\t-1\t")  # lines down the image, read right to left
        rows += [f"5\t1\t1\t1\t{n}\t{k}\t{left}\t10\t30\t100\t95\t{w}" for k, w in enumerate(text.split(), 1)]
    assert tsv_text("\n".join(rows)) == "Either party\nmay end it.\n\nFees apply.\nmonthly"


def test_a_line_set_large_and_read_surely_is_a_heading_by_its_size():
    from zoomrag.load.readers.ocr_layout import heading_levels

    body = [(2, 1, k, 200 + 40 * k, 30, 95, "Text of the body, typeset") for k in range(1, 6)]
    page = tsv_page(tsv([(1, 1, 1, 100, 60, 96, "Gregorian"), (1, 1, 1, 100, 60, 96, "Tower"), *body,
                         (3, 1, 1, 500, 45, 95, "Route"),
                         (4, 1, 1, 600, 60, 40, "Pao"), (4, 1, 1, 600, 60, 40, "eS"),  # stars read as letters
                         (5, 1, 1, 700, 60, 95, "The tower was built in 1580, and")]))  # a sentence
    assert page.headings == (("Gregorian Tower", 60), ("Route", 45))
    assert heading_levels([60, 45, 58, 30]) == {60: 1, 58: 1, 45: 2, 30: 3}


@needs_tesseract
@needs_pdf
def test_a_scanned_title_is_a_heading_of_the_document(tmp_path, cache_dir):
    doc = load_path(scanned_pdf(tmp_path / "lease.pdf", [
        ["Termination", "Either party may end this lease", "with ninety days written notice."]]))
    [heading] = [b for b in doc.blocks if b.type == "heading"]
    assert (doc.text[heading.start:heading.end], heading.level) == ("Termination", 1)


def test_a_sentence_running_on_in_lower_case_keeps_its_paragraph():
    page = tsv([(1, 1, 1, 100, 30, 95, "party's"), (1, 1, 1, 100, 30, 95, "ability"), (1, 1, 1, 100, 30, 95, "to"),
                (1, 1, 1, 100, 30, 95, "bring"),
                (1, 1, 2, 190, 45, 95, "cross-claims."),  # a speck made its box taller, a gap wider
                (1, 1, 3, 280, 30, 95, "Fees"), (1, 1, 3, 280, 30, 95, "apply.")])
    assert tsv_text(page) == "party's ability to bring\ncross-claims.\n\nFees apply."


def test_labels_hung_in_a_column_of_their_own_go_back_before_their_lines():
    rows = [HEADER]
    for block, line, left, top, width, text in [(1, 1, 100, 100, 40, "(a)"), (1, 2, 100, 280, 40, "(b)"),
                                                (2, 1, 180, 100, 800, "under intellectual property rights"),
                                                (2, 2, 180, 140, 800, "of such Contributor"),
                                                (2, 3, 180, 180, 800, "to use it; and"),
                                                (2, 4, 180, 280, 800, "under Patent Claims.")]:
        rows.append(f"4\t1\t{block}\t1\t{line}\t0\t{left}\t{top}\t{width}\t30\t-1\t")
        rows += [f"5\t1\t{block}\t1\t{line}\t{k}\t{left}\t{top}\t40\t30\t95\t{w}" for k, w in enumerate(text.split(), 1)]
    assert tsv_text("\n".join(rows)) == ("(a) under intellectual property rights\nof such Contributor\n"
                                         "to use it; and\n\n(b) under Patent Claims.")


def _ifd(count: int, next_offset: int) -> bytes:
    return struct.pack("<H", count) + b"\0" * 12 * count + struct.pack("<I", next_offset)


def test_a_tiffs_pages_are_counted_from_its_directories():
    from zoomrag.load.readers.images import tiff_pages

    two = b"II*\x00" + struct.pack("<I", 8) + _ifd(1, 26) + _ifd(0, 0)
    assert tiff_pages(two) == 2
    looped = b"II*\x00" + struct.pack("<I", 8) + _ifd(1, 26) + _ifd(0, 8)  # the second points back
    assert tiff_pages(looped) == 2
    assert tiff_pages(b"MM\x00*" + struct.pack(">I", 8) + struct.pack(">H", 0) + struct.pack(">I", 0)) == 1
    assert tiff_pages(b"II+\x00" + b"\0" * 12) == 1  # BigTIFF: not followed
    assert tiff_pages(b"II*\x00" + struct.pack("<I", 10**6)) == 1  # a directory past the end


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_count_as_a_page_or_more(data):
    from zoomrag.load.readers.images import tiff_pages

    assert 1 <= tiff_pages(b"II*\x00" + data) <= 10_000


def test_a_file_of_pages_is_split_by_page_number():
    from zoomrag.load.readers.images import _split

    rows = [HEADER, "1\t1\t0\t0\t0\t0\t0\t0\t9\t9\t-1\t", "5\t1\t1\t1\t1\t1\t0\t0\t9\t9\t90\tone",
            "1\t2\t0\t0\t0\t0\t0\t0\t9\t9\t-1\t", "5\t2\t1\t1\t1\t1\t0\t0\t9\t9\t90\ttwo"]
    pages = _split("\n".join(rows))
    assert sorted(pages) == [1, 2] and pages[2] == "\n".join([HEADER, rows[3], rows[4]]) + "\n"


@needs_tesseract
@needs_pdf
def test_a_tiff_of_scanned_pages_is_read_by_ocr(tmp_path, cache_dir):
    from PIL import Image, ImageDraw, ImageFont

    images = []
    for title, line in (("Invoice", "Payment is due within thirty days."), ("Terms", "Goods remain ours until paid.")):
        image = Image.new("L", (1654, 2339), 255)
        ImageDraw.Draw(image).text((180, 200), title, font=ImageFont.load_default(size=80), fill=0)
        ImageDraw.Draw(image).text((180, 400), line, font=ImageFont.load_default(size=40), fill=0)
        ImageDraw.Draw(image).text((180, 460), "Signed by the parties.", font=ImageFont.load_default(size=40), fill=0)
        images.append(image)
    images[0].save(tmp_path / "fax.tif", save_all=True, append_images=images[1:], compression="tiff_lzw")
    doc = load_path(tmp_path / "fax.tif")
    assert doc.format == "tiff" and (doc.metadata["pages"], doc.metadata["pages_ocr"]) == (2, 2)
    assert "Payment is due within thirty days." in doc.text and "Goods remain ours until paid." in doc.text
    assert [(b.type, b.meta["page"]) for b in doc.blocks if b.type == "heading"] == [("heading", 1), ("heading", 2)]


def test_without_tesseract_a_tiff_says_how_to_read_it(tmp_path, monkeypatch):
    monkeypatch.setattr("zoomrag.load.readers.images.engine", lambda: None)
    (tmp_path / "fax.tif").write_bytes(b"II*\x00" + struct.pack("<I", 8) + _ifd(0, 0))
    with pytest.raises(InputError, match=r"fax.tif: a TIFF image, whose pages are read as scanned pages by OCR: "
                                         r"install Tesseract"):
        load_path(tmp_path / "fax.tif")


needs_pillow = pytest.mark.skipif(importlib.util.find_spec("PIL") is None, reason="Pillow is needed to draw a picture")


def _photo_of_a_receipt(path: Path) -> Path:
    from PIL import Image, ImageDraw, ImageFont

    image = Image.new("L", (1400, 700), 255)
    draw = ImageDraw.Draw(image)
    for n, line in enumerate(("Hardware Store receipt", "Two wood screws and a drill bit.",
                              "Returns are accepted within thirty days.")):
        draw.text((80, 80 + 120 * n), line, font=ImageFont.load_default(size=44), fill=0)
    image.save(path, quality=85)
    return path


@needs_tesseract
@needs_pillow
def test_a_folders_pictures_are_read_by_ocr_only_when_asked_and_one_named_alone_always(tmp_path, cache_dir):
    from test_index_support import CountingEmbedder

    from zoomrag.index import Index

    folder = tmp_path / "receipts"
    folder.mkdir()
    photo = _photo_of_a_receipt(folder / "hardware.jpg")
    (folder / "notes.md").write_text("# Notes\n\nKeep every receipt for a year.\n")
    with Index.open(tmp_path / "index.db", embedder=CountingEmbedder()) as ix:
        report = ix.add([folder])
        assert report.added == 1 and dict(report.skipped)[str(photo)] == (
            f"{photo}: a picture, whose text is read by OCR only when asked: index with --pictures, or name the file")
        report = ix.add([folder], pictures=True)
        assert report.added == 1 and report.ocr == ((str(photo), 1, 1),) and not report.skipped
        hit = ix.search("how long are returns accepted", mode="bm25", k=1)[0]
        assert hit.doc_id == "hardware.jpg"
    doc = load_path(photo)  # named alone: read
    assert doc.format == "picture" and doc.metadata["pages_ocr"] == 1
    assert " ".join(doc.text.split()) == ("Hardware Store receipt Two wood screws and a drill bit. "
                                          "Returns are accepted within thirty days.")


@needs_tesseract
def test_a_damaged_picture_says_what_to_do(tmp_path, cache_dir):
    (tmp_path / "broken.png").write_bytes(b"\x89PNG\x00\x00\x01")
    with pytest.raises(InputError, match=r"broken.png: Tesseract could not read its pages \(.*\); it may be damaged "
                                         r"or not the image its name says: open it in an image viewer"):
        load_path(tmp_path / "broken.png")


def test_without_tesseract_a_picture_says_how_to_read_it(tmp_path, monkeypatch):
    monkeypatch.setattr("zoomrag.load.readers.images.engine", lambda: None)
    (tmp_path / "photo.jpg").write_bytes(b"\xff\xd8\xff\xe0")
    with pytest.raises(InputError, match=r"photo.jpg: a picture, whose text is read by OCR: install Tesseract"):
        load_path(tmp_path / "photo.jpg")


@needs_tesseract
@needs_pillow
def test_zoomrag_index_says_which_pictures_it_read_and_which_held_no_text(tmp_path, cache_dir, monkeypatch):
    from click.testing import CliRunner
    from PIL import Image

    from zoomrag.cli import main

    folder = tmp_path / "photos"
    folder.mkdir()
    _photo_of_a_receipt(folder / "receipt.jpg")
    Image.new("RGB", (400, 300), (120, 160, 90)).save(folder / "lawn.png")  # no text at all
    monkeypatch.chdir(tmp_path)
    r = CliRunner().invoke(main, ["index", "photos", "--pictures", "--embedder", "hash"])
    assert r.exit_code == 0, r.stderr
    err = " ".join(r.stderr.split())
    assert "1 file(s) were pictures or had pages scanned as images, read by OCR (Tesseract" in err
    assert "photos/receipt.jpg" in err and "of 1 pages" not in err
    assert ("1 file(s) hold no text to search, although not empty: photos/lawn.png OCR found no text in the "
            "pictures (photos, drawings): nothing of them can be searched") in err
