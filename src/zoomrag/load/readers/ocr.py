"""Text of page images through Tesseract, the OCR engine Debian and Homebrew package.

The ``tesseract`` program is run on one page at a time (a greyscale PGM on its standard input),
one thread each (its OpenMP threads on a small machine cost more than they give: 18 s a page
instead of 2.7), as many at once as there are cores (:mod:`.pdf_ocr`). Its TSV output gives
every word with its block, line and box, which :mod:`.ocr_layout` lays out as a page's text.

Languages: ``ZOOMRAG_OCR_LANGUAGES`` (Tesseract's form, ``deu+eng``), else every language whose
model is installed (``tesseract-ocr-deu`` and the like), the orientation model aside.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ...errors import InputError

#: Seconds one page may take before it is left without text (a hostile image, a huge page).
PAGE_TIMEOUT = 180
#: Models that read no language: orientation and script detection, equations.
_NOT_LANGUAGES = frozenset({"osd", "equ"})


@dataclass(frozen=True)
class Engine:
    """An installed Tesseract: its program, version and the languages it reads with."""

    program: str
    version: str
    languages: str
    #: The orientation model is installed: pages turned 90 or 180 degrees are read upright.
    orientation: bool

    def page_tsv(self, image: bytes, source: str, page: int) -> str:
        """Tesseract's TSV of one page image (PGM, PNG or any format Leptonica reads): every
        word with its place."""
        return self._tsv("stdin", image, source, f"page {page}", PAGE_TIMEOUT)

    def file_tsv(self, path: Path, source: str, timeout: float) -> str:
        """Tesseract's TSV of an image file of one page or many (a TIFF's), pages numbered."""
        return self._tsv(str(path), None, source, "its pages", timeout,
                         "; it may be damaged or not the image its name says: open it in an image viewer and save "
                         "it again as PNG or TIFF, or leave it out")

    def _tsv(self, given: str, image: bytes | None, source: str, what: str, timeout: float, fix: str = "") -> str:
        mode = "1" if self.orientation else "3"  # automatic layout, with orientation when it can
        args = [self.program, given, "stdout", "--psm", mode, "-l", self.languages, "tsv"]
        env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
        try:
            done = subprocess.run(args, input=image, capture_output=True, env=env, timeout=timeout, check=False)
        except subprocess.TimeoutExpired:
            raise InputError(f"{source}: {what} not read by OCR within {timeout:.0f} s; "
                             "it is left without text") from None
        except OSError as e:  # Tesseract removed since it was found
            raise InputError(f"{source}: Tesseract could not be run for {what} ({e})") from None
        if done.returncode != 0:
            said = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise InputError(f"{source}: Tesseract could not read {what} "
                             f"({said[-1] if said else f'exit status {done.returncode}'}){fix}")
        return done.stdout.decode("utf-8", "replace")


def _run(args: Sequence[str]) -> str:
    try:
        done = subprocess.run(list(args), capture_output=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return (done.stdout + done.stderr).decode("utf-8", "replace")


@functools.cache
def engine() -> Engine | None:
    """Tesseract as installed, or None when it is not (or reads no language)."""
    program = shutil.which("tesseract")
    if program is None:
        return None
    first = _run([program, "--version"]).split("\n", 1)[0].split()
    version = first[1] if len(first) > 1 else "unknown"
    listed = [ln.strip() for ln in _run([program, "--list-langs"]).splitlines()[1:] if ln.strip()]
    installed = [lang for lang in listed if lang not in _NOT_LANGUAGES and "/" not in lang]
    chosen = os.environ.get("ZOOMRAG_OCR_LANGUAGES", "").strip()
    if chosen:
        unknown = [lang for lang in chosen.split("+") if lang not in listed]
        if unknown:
            raise InputError(f"ZOOMRAG_OCR_LANGUAGES={chosen}: Tesseract has no model for "
                             f"{', '.join(unknown)}; install it (e.g. apt-get install "
                             f"tesseract-ocr-{unknown[0]}) or name installed ones ({'+'.join(installed)})")
    elif installed:
        # English first where it is installed: the model Tesseract tries first reads most pages
        chosen = "+".join(sorted(installed, key=lambda lang: lang != "eng"))
    else:
        return None
    return Engine(program, version, chosen, "osd" in listed)


#: What to do where pages are scanned as images and Tesseract is not installed.
MISSING = ("install Tesseract to read them by OCR (Debian and Ubuntu: apt-get install tesseract-ocr; "
           "macOS: brew install tesseract) and index again, or add a text layer yourself (e.g. ocrmypdf)")
