"""PDF through PDFium (``pypdfium2``, the optional ``pdf`` extra, imported only when a PDF is
read), which spaces words by where their glyphs lie (TeX writes no space characters) and
spells ligatures out (``ﬁ`` as ``fi``), so that search finds them.

Pages are joined by a line holding a form feed (``\\n\\f\\n``), so a page break is also a
paragraph break, unless the text runs on: a page that ends without a stop, before one that
starts in lower case, is joined by a line break and a form feed (``\\n\\f``), so the sentence
goes on over the break. Every block carries its page number in ``meta["page"]`` (from 1); the
metadata holds ``pages``, ``pages_ocr`` (pages without a text layer that OCR read: scans,
:mod:`.pdf_ocr`, where Tesseract is installed), ``pages_ocr_failed`` (the pages it could not
read, when there are any) and ``pages_without_text`` (pages still without).

Before that, each page loses its running heads and feet and its line numbers, words broken at
its line ends are joined, and its footnotes are set apart (:mod:`.pdf_pages`). The notes are
paragraphs of their own after the page's body; where the body's last sentence runs on over the
page break, they follow the line that ends it on the next page, so that the sentence is read
whole and no note sits inside it.
"""

from __future__ import annotations

import re
import threading
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

from ...errors import InputError
from ...model import Block, Document, normalize_newlines
from ..base import reader_module
from .ocr import engine
from .pdf_ocr import dpi_for, headings_of, pgm, read_scanned, scan_metadata
from .pdf_pages import joined_words, page_notes, without_line_numbers, without_running_lines
from .plain import paragraph_blocks

PAGE_BREAK = "\n\f\n"
#: Between pages whose text runs on: a sentence does not end at a form feed in mid-line.
RUN_ON_BREAK = "\n\f"
_STOPS = ".!?:;)]}\"'”’…。！？"

#: Titles that name no document: what an application writes when its user set none (a file
#: name, "Microsoft Word - x.docx", "Untitled"). Units embed the title before their text, so a
#: junk one would lead every unit of the PDF.
_JUNK_TITLE = re.compile(
    r"(?:untitled(?:[ _-]?\d+)?|document ?\d*|presentation ?\d*|powerpoint presentation|slide ?\d+"
    r"|scan(?:ned)?(?: document| image)?[ _-]?[\d_-]*|img[ _-]?[\d_-]+|image ?\d*"
    r"|microsoft (?:word|powerpoint|excel) - .*|.*\.(?:docx?|pptx?|xlsx?|pdf|tex|dvi|ps|odt|rtf|indd|txt)"
    r"|[a-z]:[\\/].*|/.*)", re.IGNORECASE)


def document_title(raw: object) -> str | None:
    """The PDF's title metadata when it names the document, else None."""
    title = " ".join(str(raw).split()) if raw else ""
    return title if title and _JUNK_TITLE.fullmatch(title) is None else None


#: Control characters in a page's text: codes of glyphs the font maps to no character (the
#: arrows of a figure), which say nothing and would reach the embedder and the terminal; a
#: form feed is the reader's own page break.
_GLYPH_CODES = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _sentence_end(body: str) -> int:
    """Where the first line of ``body`` that ends a sentence ends, or ``len(body)``."""
    pos = 0
    for line in body.split("\n"):
        pos += len(line)
        tail = line.rstrip()
        if tail and tail[-1] in _STOPS:
            return pos
        pos += 1
    return len(body)


#: A note's mark alone on a line before punctuation ("LATEX\n1\n, a textbook").
_MARK_ALONE = re.compile(r"\n(\d{1,3}|[*∗†‡§¶])\n(?=[.,;:)\]])")
#: The line break between a mark and the punctuation after it ("Authors2\n. Only").
_AFTER_MARK = re.compile(r"(?<=[A-Za-z)][\d*∗†‡§¶])\n(?=[.,;:)\]](?:[ \t]|$))", re.MULTILINE)


def page_text(raw: str) -> str:
    """A page's text as PDFium gives it, as this reader works on it: line feeds; a word that
    PDFium joined over a line end where it was hyphenated (its mark U+FFFE) broken there again
    with the hyphen, for :func:`joined_words` to judge; no glyph codes; a note's mark on the
    line of the word it follows."""
    text = _GLYPH_CODES.sub("", normalize_newlines(raw.replace("\ufffe", "-\n"))).rstrip()
    # A superscript (a note's mark) is a line of its own to PDFium: back on its word's line.
    text = _MARK_ALONE.sub(r"\1", text)
    return _AFTER_MARK.sub("", text)


#: PDFium is not thread-safe, not even across documents (a second thread's call corrupts the
#: process): one PDF is read at a time, whoever reads it.
_PDFIUM_LOCK = threading.Lock()


def _pages(pdfium, path: Path, source: str) -> tuple[list[str], object, dict[int, float]]:
    """The text of every page, the title metadata and the pages (from 1) without text that
    hold a picture, with the picture's resolution."""
    with _PDFIUM_LOCK:
        return _pages_locked(pdfium, path, source)


def _pages_locked(pdfium, path: Path, source: str) -> tuple[list[str], object, dict[int, float]]:
    try:
        pdf = pdfium.PdfDocument(path)
    except pdfium.PdfiumError as e:
        if getattr(e, "err_code", None) == pdfium.raw.FPDF_ERR_PASSWORD:
            raise InputError(f"{source}: the PDF is encrypted with a password; decrypt it first") from None
        raise InputError(f"{source}: cannot read this PDF ({e}); check that the file is a complete, "
                         "valid PDF") from None
    try:
        pages: list[str] = []
        pictured: dict[int, float] = {}  # pages without text that hold a picture (scans): its dpi
        for i in range(len(pdf)):
            page = pdf[i]
            textpage = page.get_textpage()
            pages.append(page_text(textpage.get_text_range()))
            textpage.close()
            if not pages[-1].strip() and (dpi := _image_dpi(pdfium, page)) is not None:
                pictured[i + 1] = dpi
            page.close()
        return pages, pdf.get_metadata_dict().get("Title"), pictured
    finally:
        pdf.close()


def _image_dpi(pdfium, page) -> float | None:
    """The resolution of the largest image on a page (its scan), or None without one."""
    best: tuple[float, float] | None = None
    for obj in page.get_objects(max_depth=3):  # a scanner may wrap its image in a form
        if obj.type != pdfium.raw.FPDF_PAGEOBJ_IMAGE:
            continue
        left, _, right, _ = obj.get_bounds()
        width = obj.get_px_size()[0]
        if right - left > 1 and (best is None or right - left > best[0]):
            best = (right - left, width / ((right - left) / 72))
    return None if best is None else best[1]


def _render(pdfium, path: Path, number: int, dpi: float) -> bytes:
    """Page ``number`` (from 1) as a greyscale PGM at the resolution of its scan, ``dpi``."""
    with _PDFIUM_LOCK:
        pdf = pdfium.PdfDocument(path)
        try:
            page = pdf[number - 1]
            width, height = page.get_size()
            bitmap = page.render(scale=dpi_for(dpi, width, height) / 72, grayscale=True)
            image = pgm(bitmap.to_numpy(), bitmap.width, bitmap.height)
            bitmap.close()
            page.close()
            return image
        finally:
            pdf.close()


def _read_scans(pdfium, path: Path, source: str, pages: list[str],
                blank: dict[int, float]) -> tuple[dict[str, object], dict[int, dict[str, int]]]:
    """Pages ``blank`` (without text, with a picture of this resolution) read by OCR in place,
    where Tesseract is installed; the metadata that says so and each page's headings. A page
    without a picture is blank: nothing to read."""
    ocr = engine() if blank else None
    if ocr is None:
        return {}, {}
    scanned = read_scanned(path, source, list(blank), ocr, lambda n: _render(pdfium, path, n, blank[n]))
    for n, page in scanned.pages.items():
        pages[n - 1] = page_text(page.text)
    return scan_metadata(scanned.pages, scanned.failed), headings_of(scanned.pages)


def _titled(block: Block, text: str, headings: dict[str, int]) -> Block:
    """``block`` as a heading where OCR found its paragraph set as one."""
    level = headings.get(" ".join(text[block.start:block.end].split())) if block.type == "text" else None
    return block if level is None else replace(block, type="heading", level=level)


def read_pdf(path: Path, doc_id: str) -> Document:
    source = str(path)
    pdfium = reader_module("pypdfium2", source, "PDF files", "pdf")
    try:
        pages, title, pictured = _pages(pdfium, path, source)
        ocr, headings = _read_scans(pdfium, path, source, pages, pictured)
    except InputError:
        raise
    except Exception as e:  # PDFium parses untrusted bytes
        raise InputError(f"{source}: cannot read this PDF ({type(e).__name__}: {e}); "
                         "check that the file is a complete, valid PDF") from e
    return paged_document(doc_id, source, "pdf", pages, {"title": document_title(title), "pages": len(pages), **ocr},
                          headings)


def paged_document(doc_id: str, source: str, fmt: str, pages: list[str], metadata: dict[str, object],
                   headings: dict[int, dict[str, int]]) -> Document:
    """A document of pages (a PDF's, a scan's) as this module reads them: running heads, line
    numbers and hyphens at line ends gone, notes apart, blocks with their page; ``headings``
    (page -> a paragraph's text -> level) makes those paragraphs headings."""
    pages = [without_line_numbers(page) for page in pages]
    split, last = [], 0
    for page in joined_words(without_running_lines(pages)):
        body, notes, last = page_notes(page, last)
        split.append((body, notes))
    bodies = [body for body, _ in split]
    joints = [RUN_ON_BREAK if a and b[:1].islower() and a[-1] not in _STOPS else PAGE_BREAK
              for a, b in zip(bodies, bodies[1:])]
    # (text, page) in reading order, page 0 for what joins them. A page's notes follow its body;
    # where the body's last sentence runs on over the page break, they follow the line that ends
    # it on the next page. A page's parts are paragraphs apart.
    pieces: list[tuple[str, int]] = []
    held: tuple[str, int] | None = None
    for number, ((body, notes), joint) in enumerate(zip(split, [*joints, ""]), 1):
        runs_on = bool(joint and body and body[-1] not in _STOPS)
        parts: list[tuple[str, int]] = []
        if held is not None:
            end = _sentence_end(body)
            parts += [(body[:end], number), held]
            body, held = body[end + 1:], None
        parts.append((body, number))
        if notes and runs_on:
            held = ("\n\n".join(notes), number)
        elif notes:
            parts.append(("\n\n".join(notes), number))
        for k, part in enumerate(p for p in parts if p[0]):
            pieces += [("\n\n", 0), part] if k else [part]
        pieces.append((joint, 0))
    if held is not None:
        pieces += [("\n\n", 0), held]
    text = "".join(t for t, _ in pieces)
    blocks: list[Block] = []
    pos = 0
    for piece, number in pieces:
        if number:
            found = headings.get(number, {})
            blocks.extend(_titled(b, text, found) for b in paragraph_blocks(text, pos, pos + len(piece),
                                                                            {"page": number}))
        pos += len(piece)
    return Document(id=doc_id, source=source, text=text, format=fmt,
                    metadata=MappingProxyType({**metadata,
                                               "pages_without_text": sum(1 for p in pages if not p.strip())}),
                    blocks=tuple(blocks))


