"""Tesseract's words laid out as a page's text: paragraphs a blank line apart, lines a line apart.

Paragraphs are told apart by the page's geometry, not by Tesseract's own paragraphs (which
break wherever a line starts further in or out: every first line after a page break, a run of
monospaced lines): a gap wider than the page's usual line pitch, a change of size (a heading
and its text), a new block (a column, a caption) unless the line goes on from the one before —
right under it, at the same edge, or a sentence that runs on in lower case. A page scanned
sideways is laid out across its lines. The text is then the PDF reader's as a text layer's is
(running heads, hyphenated words, notes: :mod:`.pdf_pages`).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass, replace

#: Words Tesseract is this unsure of and that hold no letter or digit are specks and rules of the
#: scan ("|", "~", "—"), not text.
_SPECK_CONFIDENCE = 50.0
_ALNUM = re.compile(r"\w")
#: A line ending in one of these ends its sentence.
_STOPS = ".!?:;"
#: A gap between lines over this many times the page's usual pitch ends a paragraph; so does a
#: line this many times taller or shorter than the one before.
_GAP = 1.45
_HEIGHT = 1.3

Key = tuple[str, str, str, str]  # page, block, paragraph, line


@dataclass(frozen=True)
class Line:
    """A line of words and its box on the page."""

    block: tuple[str, str]  # (page, block)
    left: int
    top: int
    width: int
    height: int
    words: tuple[str, ...]


def lines_of(tsv: str) -> list[Line]:
    """The lines of Tesseract's TSV in its reading order, specks left out. A line's box is its
    own (level 4), not its words': one tall word (a speck, a capital) is not its size."""
    words: dict[Key, list[str]] = {}
    boxes: dict[Key, tuple[int, int, int, int]] = {}
    blocks: dict[Key, tuple[str, str]] = {}
    for row in csv.DictReader(tsv.splitlines(), delimiter="\t", quoting=csv.QUOTE_NONE):
        try:
            key = (row["page_num"], row["block_num"], row["par_num"], row["line_num"])
            box = (int(row["left"]), int(row["top"]), int(row["width"]), int(row["height"]))
            confidence = float(row.get("conf") or -1)
        except (KeyError, TypeError, ValueError):
            continue
        if row.get("level") == "4":
            boxes[key] = box
            continue
        word = (row.get("text") or "").strip()
        if row.get("level") != "5" or not word or (confidence < _SPECK_CONFIDENCE and not _ALNUM.search(word)):
            continue
        words.setdefault(key, []).append(word)
        boxes.setdefault(key, box)
        blocks[key] = (row["page_num"], row["block_num"])
    return [Line(blocks[key], *boxes[key], tuple(line)) for key, line in words.items()]


def upright(lines: list[Line]) -> list[Line]:
    """Lines of a page Tesseract turned to read (its orientation model: a page scanned sideways)
    keep the scan's coordinates, where they run down the image: their across becomes their
    down, in the direction they are read."""
    if sum(line.height > line.width for line in lines) * 2 <= len(lines):
        return lines
    turned = [replace(line, left=line.top, top=line.left, width=line.height, height=line.width) for line in lines]
    steps = [b.top - a.top for a, b in zip(turned, turned[1:]) if a.block == b.block]
    if sum(step < 0 for step in steps) > sum(step > 0 for step in steps):
        turned = [replace(line, top=-line.top) for line in turned]
    return turned


def tsv_text(tsv: str) -> str:
    """A page's text from Tesseract's TSV (see the module docstring)."""
    lines = upright(lines_of(tsv))
    pitches = sorted(b.top - a.top for a, b in zip(lines, lines[1:]) if a.block == b.block and b.top > a.top)
    pitch = pitches[len(pitches) // 2] if pitches else 0
    out: list[str] = []
    for prev, line in zip([None, *lines], lines):
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
