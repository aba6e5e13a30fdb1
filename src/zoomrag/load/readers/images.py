"""Image files read by OCR: a TIFF's pages (a scanner's or a fax's, one or many) and a picture
of a page (a phone's photo, a screenshot: PNG, JPEG, WebP, GIF, BMP).

Tesseract reads the file whole (a TIFF's pages in order, one thread), each page's words are laid
out as a scanned PDF page's are (:mod:`.ocr_layout`) and the pages go through the PDF reader's
page pipeline (running heads, hyphens, notes, headings). Pages are cached by the file's content
as a PDF's are. Without Tesseract the file is refused with how to install it. A folder's
pictures are read only when asked (:class:`~zoomrag.load.ignore.FileRules` ``pictures``): most
are figures and screenshots, seconds each to read for a few words of an interface.
"""

from __future__ import annotations

import struct
from pathlib import Path

from ...errors import InputError
from ...model import Document
from .ocr import MISSING, PAGE_TIMEOUT, engine
from .ocr_cache import OcrCache
from .ocr_layout import tsv_page
from .pdf import page_text, paged_document
from .pdf_ocr import headings_of, ocr_key, scan_metadata

#: The extensions of pictures Tesseract reads (through Leptonica).
PICTURES = (".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp")
#: Pages counted at most (a TIFF whose directories loop back would otherwise never end).
_MOST_PAGES = 10_000


def tiff_pages(head: bytes) -> int:
    """How many pages (image directories) a classic TIFF holds, from its bytes; 1 where they
    cannot be followed (BigTIFF, a damaged chain)."""
    if head[:4] not in (b"II*\x00", b"MM\x00*") or len(head) < 8:
        return 1
    order = "<" if head[:2] == b"II" else ">"
    (offset,) = struct.unpack(order + "I", head[4:8])
    seen: set[int] = set()
    while offset and offset not in seen and offset + 2 <= len(head) and len(seen) < _MOST_PAGES:
        seen.add(offset)
        (entries,) = struct.unpack(order + "H", head[offset:offset + 2])
        end = offset + 2 + 12 * entries
        if end + 4 > len(head):
            break
        (offset,) = struct.unpack(order + "I", head[end:end + 4])
    return max(1, len(seen))


def _split(tsv: str) -> dict[int, str]:
    """Tesseract's TSV of a file of pages, one TSV a page (by its page number, from 1)."""
    lines = tsv.splitlines()
    if not lines:
        return {}
    pages: dict[int, list[str]] = {}
    for line in lines[1:]:
        number = line.split("\t", 2)[1] if line.count("\t") >= 2 else ""
        if number.isdigit():
            pages.setdefault(int(number), [lines[0]]).append(line)
    return {n: "\n".join(rows) + "\n" for n, rows in pages.items()}


def read_tiff(path: Path, doc_id: str) -> Document:
    return _read(path, doc_id, "tiff", "a TIFF image, whose pages are read as scanned pages by OCR")


def read_picture(path: Path, doc_id: str) -> Document:
    return _read(path, doc_id, "picture", "a picture, whose text is read by OCR")


def _read(path: Path, doc_id: str, fmt: str, what: str) -> Document:
    source = str(path)
    ocr = engine()
    if ocr is None:
        raise InputError(f"{source}: {what}: {MISSING}")
    cache = OcrCache()
    try:
        key = ocr_key(path, ocr, f"|{fmt}")
        tsvs = cache.pages(key)
        if not tsvs:
            count = tiff_pages(path.read_bytes()) if fmt == "tiff" else 1
            tsvs = _split(ocr.file_tsv(path, source, PAGE_TIMEOUT * count))
            for n, tsv in tsvs.items():
                cache.put(key, n, tsv)
    finally:
        cache.close()
    scanned = {n: tsv_page(tsvs[n]) for n in sorted(tsvs)}
    pages = [page_text(scanned[n].text) if n in scanned else "" for n in range(1, max(scanned, default=0) + 1)]
    return paged_document(doc_id, source, fmt, pages,
                          {"title": None, "pages": len(pages), **scan_metadata(scanned)}, headings_of(scanned))
