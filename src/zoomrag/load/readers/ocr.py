"""Text of page images through Tesseract, the OCR engine Debian and Homebrew package.

The ``tesseract`` program is run on one page at a time (a greyscale PGM on its standard input),
one thread each (its OpenMP threads on a small machine cost more than they give: 18 s a page
instead of 2.7), as many at once as there are cores. Its TSV output gives every word with its
block, paragraph and line; a page's text is its paragraphs in Tesseract's reading order, a
blank line apart, their lines as the page has them, so that the PDF reader treats it as it
treats a text layer (running heads, hyphenated words, notes).

Languages: ``ZOOMRAG_OCR_LANGUAGES`` (Tesseract's form, ``deu+eng``), else every language whose
model is installed (``tesseract-ocr-deu`` and the like), the orientation model aside.
"""

from __future__ import annotations

import csv
import functools
import os
import re
import shutil
import subprocess
from collections.abc import Sequence
from dataclasses import dataclass

from ...errors import InputError

#: Seconds one page may take before it is left without text (a hostile image, a huge page).
PAGE_TIMEOUT = 180
#: Models that read no language: orientation and script detection, equations.
_NOT_LANGUAGES = frozenset({"osd", "equ"})
#: Words Tesseract is this unsure of and that hold no letter or digit are specks and rules of the
#: scan ("|", "~", "—"), not text.
_SPECK_CONFIDENCE = 50.0
_ALNUM = re.compile(r"\w")
#: A line ending in one of these ends its sentence.
_STOPS = ".!?:;"


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
        word with its place (:func:`tsv_text` makes it text)."""
        mode = "1" if self.orientation else "3"  # automatic layout, with orientation when it can
        args = [self.program, "stdin", "stdout", "--psm", mode, "-l", self.languages, "tsv"]
        env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
        try:
            done = subprocess.run(args, input=image, capture_output=True, env=env, timeout=PAGE_TIMEOUT,
                                  check=False)
        except subprocess.TimeoutExpired:
            raise InputError(f"{source}: page {page} was not read by OCR within {PAGE_TIMEOUT} s; "
                             "it is left without text") from None
        if done.returncode != 0:
            said = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise InputError(f"{source}: Tesseract could not read page {page} "
                             f"({said[-1] if said else f'exit status {done.returncode}'})")
        return done.stdout.decode("utf-8", "replace")


@dataclass
class _Line:
    block: tuple[str, str]  # (page, block)
    left: int
    top: int
    width: int
    height: int
    words: list[str]


def _upright(lines: list[_Line]) -> None:
    """Lines of a page Tesseract turned to read (its orientation model: a page scanned sideways)
    keep the coordinates of the scan, where they run down the image: their across becomes their
    down, in the direction they are read."""
    if sum(line.height > line.width for line in lines) * 2 <= len(lines):
        return
    for line in lines:
        line.left, line.top, line.width, line.height = line.top, line.left, line.height, line.width
    steps = [b.top - a.top for a, b in zip(lines, lines[1:]) if a.block == b.block]
    if sum(step < 0 for step in steps) > sum(step > 0 for step in steps):
        for line in lines:
            line.top = -line.top


#: A gap between lines over this many times the page's usual line pitch ends a paragraph; so
#: does a line this many times taller or shorter than the one before (a heading and its text).
_GAP = 1.45
_HEIGHT = 1.3


def tsv_text(tsv: str) -> str:
    """A page's text from Tesseract's TSV: paragraphs a blank line apart, lines a line apart.

    Paragraphs are told apart by the page's geometry, not by Tesseract's own paragraphs (which
    break wherever a line starts further in or out: every first line after a page break, a
    run of monospaced lines): a gap wider than the usual pitch, a change of size, a new block
    (a column, a caption) unless the line goes on from the one before — right under it, or a
    sentence that runs on in lower case."""
    lines: dict[tuple[str, str, str, str], _Line] = {}
    boxes: dict[tuple[str, str, str, str], tuple[int, int, int, int]] = {}  # a line's box
    for row in csv.DictReader(tsv.splitlines(), delimiter="\t", quoting=csv.QUOTE_NONE):
        try:
            key = (row["page_num"], row["block_num"], row["par_num"], row["line_num"])
            box = (int(row["left"]), int(row["top"]), int(row["width"]), int(row["height"]))
            confidence = float(row.get("conf") or -1)
        except (KeyError, TypeError, ValueError):
            continue
        if row.get("level") == "4":  # the line's own box: one tall word (a speck, a capital) is not its size
            boxes[key] = box
            continue
        word = (row.get("text") or "").strip()
        if row.get("level") != "5" or not word or (confidence < _SPECK_CONFIDENCE and not _ALNUM.search(word)):
            continue
        if key in lines:
            lines[key].words.append(word)
        else:
            lines[key] = _Line((row["page_num"], row["block_num"]), *boxes.get(key, box), [word])
    ordered = list(lines.values())
    _upright(ordered)
    pitches = sorted(b.top - a.top for a, b in zip(ordered, ordered[1:])
                     if a.block == b.block and b.top > a.top)
    pitch = pitches[len(pitches) // 2] if pitches else 0
    out: list[str] = []
    for prev, line in zip([None, *ordered], ordered):
        text = " ".join(line.words)
        if prev is None:
            out.append(text)
            continue
        step = line.top - prev.top
        under = 0 < step <= _GAP * pitch if pitch else step > 0
        if max(line.height, prev.height) > _HEIGHT * max(1, min(line.height, prev.height)):
            new = True
        elif line.block != prev.block:
            beside = abs(line.left - prev.left) <= prev.height  # the same column's edge
            runs_on = prev.words[-1][-1] not in _STOPS and line.words[0][:1].islower()
            new = not (runs_on or (under and beside))
        else:
            new = not under
        out.append(("\n\n" if new else "\n") + text)
    return "".join(out)


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
