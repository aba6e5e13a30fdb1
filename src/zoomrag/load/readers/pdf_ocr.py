"""A PDF's pages without a text layer read by OCR: rendered, read by Tesseract, cached (a
TIFF's pages share the cache's key, the headings and the metadata: :mod:`.images`).

A page is rendered at the resolution of the scan on it (between 200 and 400 dots per inch; 300
where it holds no image), greyscale, no side over 6,000 pixels; pages are read as many at once
as there are cores, and each is cached as it is read (:mod:`.ocr_cache`). What is cached is
Tesseract's TSV, every word and where it is, so that a better layout of a page's words
(:mod:`.ocr_layout`) needs no second reading.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from ...errors import InputError
from .ocr import Engine
from .ocr_cache import OcrCache, file_key
from .ocr_layout import Page, heading_levels, tsv_page

#: Changes when the images this module renders change: cached pages are read again.
OCR_VERSION = 2
MIN_DPI, DEFAULT_DPI, MAX_DPI = 200, 300, 400
MAX_SIDE = 6000
#: Pages read at once: one Tesseract (of one thread) per core.
WORKERS = max(1, os.cpu_count() or 1)

#: (page number from 1) -> the page as a greyscale PGM image.
Render = Callable[[int], bytes]


@dataclass(frozen=True)
class Scanned:
    """What OCR made of a PDF's pages without text."""

    pages: dict[int, Page]  # page number (from 1) -> its text and headings
    failed: tuple[int, ...]  # pages Tesseract failed on or gave up (PAGE_TIMEOUT)


def pgm(pixels, width: int, height: int) -> bytes:
    """A greyscale image (a ``height`` x ``>= width`` array of bytes) as a binary PGM."""
    rows = pixels[:height, :width]
    return b"P5\n%d %d\n255\n" % (width, height) + rows.tobytes()


def dpi_for(image_dpi: float | None, width_pt: float, height_pt: float) -> float:
    """The resolution to render a page at: its scan's, within bounds, no side over MAX_SIDE."""
    dpi = DEFAULT_DPI if not image_dpi else min(MAX_DPI, max(MIN_DPI, image_dpi))
    longest = max(width_pt, height_pt, 1.0) / 72
    return min(dpi, MAX_SIDE / longest)


def ocr_key(path: Path, engine: Engine, kind: str = "") -> str:
    """The cache's key of a file's pages: its content, the engine and how its pages are made."""
    return file_key(path, f"{engine.version}|{engine.languages}|{OCR_VERSION}{kind}")


def read_scanned(path: Path, source: str, blank: Sequence[int], engine: Engine, render: Render) -> Scanned:
    """The text of pages ``blank`` (numbers from 1) of the PDF at ``path``."""
    cache = OcrCache()
    try:
        key = ocr_key(path, engine)
        known = cache.pages(key)
        tsvs = {n: known[n] for n in blank if n in known}
        todo = [n for n in blank if n not in known]
        failed: list[int] = []

        def one(n: int) -> str:
            return engine.page_tsv(render(n), source, n)

        with ThreadPoolExecutor(max_workers=WORKERS) as pool:
            for n, future in zip(todo, [pool.submit(one, n) for n in todo]):
                try:
                    tsvs[n] = future.result()
                except InputError:
                    failed.append(n)
                    continue
                cache.put(key, n, tsvs[n])
        return Scanned({n: tsv_page(tsvs[n]) for n in sorted(tsvs)}, tuple(failed))
    finally:
        cache.close()


def headings_of(pages: dict[int, Page]) -> dict[int, dict[str, int]]:
    """Each page's headings (their text, white space as one space -> level), levels by height
    over the whole document."""
    levels = heading_levels([height for page in pages.values() for _, height in page.headings])
    return {n: {" ".join(text.split()): levels[height] for text, height in page.headings}
            for n, page in pages.items() if page.headings}


def scan_metadata(pages: dict[int, Page], failed: Sequence[int] = ()) -> dict[str, object]:
    """What a document's metadata says of its scanned pages: how many OCR read text on, which
    it could not read (each only when there are any)."""
    read = sum(1 for page in pages.values() if page.text.strip())
    return {**({"pages_ocr": read} if read else {}), **({"pages_ocr_failed": list(failed)} if failed else {})}
