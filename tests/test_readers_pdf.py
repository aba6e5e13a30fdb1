"""PDF reader (optional extra): pages joined by form feeds, page numbers in block meta."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from zoomrag.errors import InputError
from zoomrag.load import load_path
from zoomrag.load.readers.pdf import document_title

needs_pdfium = pytest.mark.skipif(importlib.util.find_spec("pypdfium2") is None,
                                 reason="the optional 'pdf' extra is not installed")


def make_pdf(pages: list[list[str]], locked: bool = False) -> bytes:
    """A minimal valid PDF: one Helvetica text line per string, pages in order. ``locked``: with
    a standard security handler the empty password does not open (as a user password does)."""
    n = len(pages)
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        f"<< /Type /Pages /Kids [{' '.join(f'{4 + 2 * i} 0 R' for i in range(n))}] /Count {n} >>".encode(),
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
    ]
    for i, lines in enumerate(pages):
        ops = "BT /F1 12 Tf 14 TL 72 720 Td " + " T* ".join(f"({line}) Tj" for line in lines) + " ET"
        stream = ops.encode("latin-1")
        objects.append((f"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
                        f"/Resources << /Font << /F1 3 0 R >> >> /Contents {5 + 2 * i} 0 R >>").encode())
        objects.append(b"<< /Length %d >>\nstream\n" % len(stream) + stream + b"\nendstream")
    if locked:
        objects.append(b"<< /Filter /Standard /V 1 /R 2 /O <%s> /U <%s> /P -4 >>" % (b"11" * 32, b"22" * 32))
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, 1):
        offsets.append(len(out))
        out += b"%d 0 obj\n" % number + body + b"\nendobj\n"
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % o for o in offsets)
    trailer = b"/Size %d /Root 1 0 R" % (len(objects) + 1)
    if locked:
        trailer += b" /Encrypt %d 0 R /ID [<%s> <%s>]" % (len(objects), b"ab" * 16, b"ab" * 16)
    out += b"trailer\n<< %s >>\nstartxref\n%d\n%%%%EOF\n" % (trailer, xref)
    return bytes(out)


@pytest.fixture
def two_pages(tmp_path):
    p = tmp_path / "report.pdf"
    p.write_bytes(make_pdf([["Hello PDF", "second line"], ["Page two"]]))
    return p


@needs_pdfium
def test_pages_are_joined_by_form_feed_lines_with_page_numbers(two_pages):
    doc = load_path(two_pages)
    assert doc.format == "pdf"
    assert doc.text == "Hello PDF\nsecond line\n\f\nPage two"
    assert doc.metadata == {"title": None, "pages": 2, "pages_without_text": 0}  # no page read by OCR
    assert [(b.type, dict(b.meta), doc.text[b.start:b.end]) for b in doc.blocks] == [
        ("text", {"page": 1}, "Hello PDF\nsecond line"),
        ("text", {"page": 2}, "Page two"),
    ]


def test_missing_extra_names_it(two_pages, monkeypatch):
    monkeypatch.setitem(sys.modules, "pypdfium2", None)  # makes `import pypdfium2` raise ImportError
    with pytest.raises(InputError, match=rf"^{two_pages}: reading PDF files needs the optional 'pdf' extra; "
                                         r"install it with: pip install 'zoomrag\[pdf\]'$"):
        load_path(two_pages)


@needs_pdfium
def test_corrupt_pdf_is_a_clear_error(tmp_path):
    p = tmp_path / "broken.pdf"
    p.write_bytes(b"%PDF-1.4\nthis is not really a pdf")
    with pytest.raises(InputError, match=rf"^{p}: cannot read this PDF \(.+\); check that the file is"):
        load_path(p)


@needs_pdfium
def test_a_pdf_locked_with_a_password_is_a_clear_error(tmp_path):
    p = tmp_path / "locked.pdf"
    p.write_bytes(make_pdf([["Secret text"]], locked=True))
    with pytest.raises(InputError, match=rf"^{p}: the PDF is encrypted with a password; decrypt it first$"):
        load_path(p)


@needs_pdfium
def test_pdf_with_an_empty_page(tmp_path):
    p = tmp_path / "gap.pdf"
    p.write_bytes(make_pdf([["one"], [], ["three"]]))
    doc = load_path(p)
    assert doc.text == "one\n\f\n\n\f\nthree"
    assert [(b.meta["page"], doc.text[b.start:b.end]) for b in doc.blocks] == [(1, "one"), (3, "three")]
    assert (doc.metadata["pages"], doc.metadata["pages_without_text"]) == (3, 1)


@pytest.mark.parametrize(("raw", "title"), [
    ("Quarterly  report\n2024", "Quarterly report 2024"), (None, None), ("  ", None), ("Untitled", None),
    ("untitled-3", None), ("Microsoft Word - draft_v2.docx", None), ("slides.pptx", None), ("Document1", None),
    ("C:\\Users\\me\\paper.tex", None), ("/home/me/out.dvi", None), ("Presentation", None),
    ("Scanned Document", None), ("scan_2024-03-01_0001", None), ("IMG_0042", None), ("Scanning in Tesseract", "Scanning in Tesseract"),
    ("The Document Object Model", "The Document Object Model"), ("Word - a story", "Word - a story"),
])
def test_application_written_titles_are_not_titles(raw, title):
    assert document_title(raw) == title


@needs_pdfium
def test_running_heads_and_page_numbers_are_left_out(tmp_path):
    words = ["apples", "pears", "plums", "grapes", "melons"]
    body = [[f"We grew {w} in part {n}.", f"The {w} sold well.", f"Next year more {w}.", f"Notes on {w}."]
            for n, w in enumerate(words, 1)]
    pages = [["Annual Report 2024", *b, f"- {n} -"] for n, b in enumerate(body, 1)]
    path = tmp_path / "report.pdf"
    path.write_bytes(make_pdf(pages))
    doc = load_path(path)
    # the first page keeps its head (the title); every page number goes
    assert doc.text.split("\n\f\n") == ["Annual Report 2024\n" + "\n".join(body[0])] + [
        "\n".join(b) for b in body[1:]]
    assert [b.meta["page"] for b in doc.blocks] == [1, 2, 3, 4, 5]


def test_a_line_on_two_pages_only_or_without_letters_is_kept():
    from zoomrag.load.readers.pdf_pages import without_running_lines

    pages = ["Intro\nbody one\n}", "Intro\nbody two\n}", "Other\nbody three\n}", "Other\nbody four\n}"]
    assert without_running_lines(pages) == pages
    # a short page: only its outermost lines are looked at, so a templated body line stays
    short = [f"Head\nStep {n} of the plan.\n{n}" for n in range(1, 6)]
    assert without_running_lines(short) == ["Head\nStep 1 of the plan."] + [f"Step {n} of the plan." for n in range(2, 6)]
    assert without_running_lines(["A\n1", "B\n2"]) == ["A\n1", "B\n2"]  # too few pages to tell


def test_titles_at_page_tops_numbered_out_of_page_order_are_kept():
    from zoomrag.load.readers.pdf_pages import without_running_lines

    body = [f"Text of part {w}." for w in ("one", "two", "three", "four", "five", "six")]
    # each part's notes restart at 1: titles, where a head's numbers stay or grow with the pages
    titled = [f"Note {n}\n{b}" for n, b in zip((1, 2, 1, 2, 3, 1), body)]
    assert without_running_lines(titled) == titled
    heads = [f"Chapter {c}: Tools {p}\n{b}" for c, p, b in zip((1, 1, 2, 2, 3, 3), range(10, 16), body)]
    assert without_running_lines(heads) == [heads[0], *body[1:]]


def test_a_head_that_carries_its_page_number_goes_when_other_pages_print_theirs_alone():
    from zoomrag.load.readers.pdf_pages import without_running_lines

    body = ["Intro to the tool.", "How to install it.", "Usage of the tool.", "Options it takes.",
            "Files it writes.", "Bugs it has."]
    # printed numbers run one ahead of the page's place; chapter heads hold them on some pages
    pages = ["Title page\n" + body[0], "2\n" + body[1], "Chapter 1: Start 3\n" + body[2], "4\n" + body[3],
             "Chapter 2: More 5\n" + body[4], "6\n" + body[5]]
    assert without_running_lines(pages) == ["Title page\n" + body[0], *body[1:]]
    # a first line that opens with another number than the page's stays
    pages[2] = "7 ways to start\n" + body[2]
    assert without_running_lines(pages)[2] == "7 ways to start\n" + body[2]


@needs_pdfium
def test_a_sentence_that_runs_on_over_a_page_break_stays_one_sentence(tmp_path):
    from zoomrag.text.sentences import sentence_spans

    path = tmp_path / "flow.pdf"
    path.write_bytes(make_pdf([["The results in this part of the", "study were"],
                               ["clear to all of us.", "A new paragraph."], ["Third page starts here."]]))
    doc = load_path(path)
    assert doc.text == ("The results in this part of the\nstudy were\n\fclear to all of us.\nA new paragraph."
                        "\n\f\nThird page starts here.")
    assert [doc.text[a:b] for a, b in sentence_spans(doc.text, 0, len(doc.text))][0] == (
        "The results in this part of the\nstudy were\n\fclear to all of us.")
    assert [b.meta["page"] for b in doc.blocks] == [1, 2, 3]


def test_a_word_hyphenated_at_a_line_end_is_joined_when_the_document_spells_it_whole():
    from zoomrag.load.readers.pdf_pages import joined_words

    pages = ["Data manip-\nulation, they said. A well-\nknown fact.", "Manipulation is the well-known word; cre-\nated."]
    assert joined_words(pages) == [
        "Data manipulation,\nthey said. A well-\nknown fact.",  # spelt whole elsewhere; spelt with a hyphen
        "Manipulation is the well-known word; cre-\nated.",  # "created" appears nowhere whole
    ]
    assert joined_words(["no breaks here"]) == ["no breaks here"]


@needs_pdfium
def test_footnotes_follow_the_sentence_that_runs_over_their_page_break(tmp_path):
    # A page's notes sit at its foot, between the halves of a sentence running on to the next
    # page: they move after the line that ends it, each note a paragraph of its own.
    path = tmp_path / "notes.pdf"
    path.write_bytes(make_pdf([
        ["The panel sits on the roof of the", "1The roof faces south.", "2It was built in", "1990 by hand."],
        ["barn and it works", "well. It makes power.", "A second paragraph.", "3The last note."],
        ["3D printing is not a note here."],
    ]))
    doc = load_path(path)
    assert doc.text == (
        "The panel sits on the roof of the\n\fbarn and it works\nwell. It makes power."
        "\n\n1The roof faces south.\n\n2It was built in\n1990 by hand.\n\nA second paragraph."
        "\n\n3The last note.\n\f\n3D printing is not a note here.")
    assert [(b.meta["page"], doc.text[b.start:b.end]) for b in doc.blocks] == [
        (1, "The panel sits on the roof of the"),
        (2, "barn and it works\nwell. It makes power."),
        (1, "1The roof faces south."),
        (1, "2It was built in\n1990 by hand."),
        (2, "A second paragraph."),
        (2, "3The last note."),
        (3, "3D printing is not a note here."),
    ]


@needs_pdfium
def test_glyph_codes_with_no_character_are_left_out(tmp_path):
    path = tmp_path / "figure.pdf"
    path.write_bytes(make_pdf([["headsep\x08\x08 footskip\x1b -\x00"]]))
    assert load_path(path).text == "headsep footskip -"


def test_line_numbers_of_a_manuscript_under_review_are_left_out():
    from zoomrag.load.readers.pdf_pages import without_line_numbers

    page = ("Information on features not mentioned here16\ncan be viewed in the comments.17\n"
            "It was rewritten in 200318\n    E = mc^2\nand released later.19\nKeywords: novae (251)20")
    assert without_line_numbers(page) == (
        "Information on features not mentioned here\ncan be viewed in the comments.\n"
        "It was rewritten in 2003\n    E = mc^2\nand released later.\nKeywords: novae (251)")
    # numbers of the text's own: codes in a table after a space, a year, a count that does not run
    table = "\\textfractionsolidus 47\n\\textzerooldstyle 48\n\\textoneoldstyle 49\n\\texttwooldstyle 50"
    prose = "It was built in 1990\nand sold in 1995\nto a farmer with 12\ncows and 3"
    assert without_line_numbers(table) == table and without_line_numbers(prose) == prose


def test_line_numbers_opening_the_lines_are_left_out_but_not_a_contents():
    from zoomrag.load.readers.pdf_pages import without_line_numbers

    prose = [f"{38 + i} Line {i} of the manuscript tells at length what the authors did and why."
             for i in range(4)]
    assert without_line_numbers("\n".join(["2 Schwarz et al.", *prose])) == "\n".join(
        ["2 Schwarz et al.", *(line.split(" ", 1)[1] for line in prose)])
    contents = "\n".join(f"{i} Section title {i}" for i in range(1, 12))  # short lines, counting up
    assert without_line_numbers(contents) == contents


def test_pdfiums_marks_are_read_back_in_line():
    from zoomrag.load.readers.pdf import page_text

    raw = ("Wiki-\r\nbooks LATEX\r\n1\r\n, a textbook, and see the Instructions to Authors2\r\n. Only "
           "tech\ufffenical issues are\r\nconsidered.\x0b")
    assert page_text(raw) == ("Wiki-\nbooks LATEX1, a textbook, and see the Instructions to Authors2. Only "
                              "tech-\nnical issues are\nconsidered.")


@needs_pdfium
def test_pdfs_read_from_many_threads_at_once_are_each_read_whole(tmp_path):
    # PDFium is not thread-safe: the reader takes one PDF at a time, whoever calls it.
    from concurrent.futures import ThreadPoolExecutor

    paths = []
    for i in range(8):
        path = tmp_path / f"r{i}.pdf"
        words = ["apples", "barns", "cherries", "dunes", "elms", "ferns"]  # no line recurs as a running head
        path.write_bytes(make_pdf([[f"Report {i} tells of {words[p]} in line {k}." for k in range(40)]
                                   for p in range(6)]))
        paths.append(path)
    with ThreadPoolExecutor(4) as pool:
        docs = list(pool.map(load_path, paths * 3))
    for i, doc in enumerate(docs):
        assert doc.text.count(f"Report {i % 8} tells of ferns in line 39.") == 1 and doc.text.count("\f") == 5


def test_a_note_number_set_apart_opens_a_note_only_where_the_numbering_goes_on():
    from zoomrag.load.readers.pdf_pages import page_notes

    # PDFium may give a superscript on a line of its own; a link's note has its number apart
    page = "The package is in every\ndistribution today.\n1\nIn most installations it is included."
    assert page_notes(page) == ("The package is in every\ndistribution today.",
                                ["1\nIn most installations it is included."], 1)
    page = "See the guide online.\n1 https://example.org/guide\n2. See http://example.org/faq"
    assert page_notes(page) == ("See the guide online.", ["1 https://example.org/guide",
                                                          "2. See http://example.org/faq"], 2)
    # a figure's number over its caption, after note 3: no note
    page = "The layout is drawn below.\n2\nOn an odd page, we get the layout:"
    assert page_notes(page, last=3) == (page, [], 3)
    assert page_notes("Text.\n4Set against its word.", last=3) == ("Text.", ["4Set against its word."], 4)
    # against Chinese text, as a month is: the next note only
    page = "正文到此为止。\n13除这里提供的变量外, 还有很多。"
    assert page_notes(page, last=12) == ("正文到此为止。", ["13除这里提供的变量外, 还有很多。"], 13)
    assert page_notes("会议定于\n12月举行。", last=3) == ("会议定于\n12月举行。", [], 3)


@needs_pdfium
def test_notes_carried_over_and_a_pages_own_notes_stay_paragraphs_apart(tmp_path):
    # The last page ends no sentence: page 1's notes follow all of it, then its own, apart.
    path = tmp_path / "notes.pdf"
    path.write_bytes(make_pdf([
        ["The panel sits on the roof of the", "1The roof faces south."],
        ["barn and the one beside it", "2The barn is red."],
    ]))
    doc = load_path(path)
    assert doc.text == ("The panel sits on the roof of the\n\fbarn and the one beside it\n\n"
                        "1The roof faces south.\n\n2The barn is red.")
    assert [(b.meta["page"], doc.text[b.start:b.end]) for b in doc.blocks] == [
        (1, "The panel sits on the roof of the"), (2, "barn and the one beside it"),
        (1, "1The roof faces south."), (2, "2The barn is red.")]
