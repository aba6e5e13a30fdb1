"""Tesseract's words laid out as a page's text: paragraphs a blank line apart, lines a line apart.

Paragraphs are told apart by the page's geometry, not by Tesseract's own paragraphs (which
break wherever a line starts further in or out: every first line after a page break, a run of
monospaced lines): a gap wider than the page's usual line pitch, a change of size (a heading
and its text), a new block (a column, a caption) unless the line goes on right under the one
before, at the same edge; never where a sentence runs on in lower case. Labels hung before
their lines ("(a)", "1.") that Tesseract reads as a column of their own are put back. A page scanned
sideways is laid out across its lines. A paragraph of a line or two whose lines are a third
taller than the page's body, read surely, is a heading, its level by its height among the
document's headings; a title set in bold at the body's size is not seen (Tesseract's boxes
do not tell). The text is then the PDF reader's as a text layer's is (running heads,
hyphenated words, notes: :mod:`.pdf_pages`).
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
#: line this many times taller or shorter than the one before. A paragraph of lines this many
#: times as tall as the page's body (the middle height of its lines) may be a title.
_GAP = 1.45
_HEIGHT = 1.3
_TITLE = 1.3
#: A title is read with this confidence (a row of stars or dashes read as letters is not).
_SURE = 80.0
_WORD = re.compile(r"[^\W\d_]{2,}")

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
    #: Tesseract's mean confidence in the line's words, 0 to 100.
    confidence: float = 100.0


def lines_of(tsv: str) -> list[Line]:
    """The lines of Tesseract's TSV in its reading order, specks left out. A line's box is its
    own (level 4), not its words': one tall word (a speck, a capital) is not its size."""
    words: dict[Key, list[str]] = {}
    sure: dict[Key, list[float]] = {}
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
        sure.setdefault(key, []).append(confidence)
        boxes.setdefault(key, box)
        blocks[key] = (row["page_num"], row["block_num"])
    return [Line(blocks[key], *boxes[key], tuple(line), sum(sure[key]) / len(sure[key])) for key, line in words.items()]


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


@dataclass(frozen=True)
class Page:
    """A page's text and its headings: (a paragraph's text, its lines' height in pixels)."""

    text: str
    headings: tuple[tuple[str, int], ...] = ()


def _heading(paragraph: list[Line], body: float) -> bool:
    """A paragraph of a line or two set larger than the page's body text, without a sentence's
    end or a lower-case start: a title."""
    words = [w for line in paragraph for w in line.words]
    return (len(paragraph) <= 2 and len(words) <= 12 and min(line.height for line in paragraph) >= _TITLE * body
            and min(line.confidence for line in paragraph) >= _SURE  # not a rule of stars read as letters
            and any(_WORD.fullmatch(w) for w in words) and not words[0][:1].islower()
            and words[-1][-1] not in ".,;")


def _overlap(a: Line, b: Line) -> int:
    return min(a.top + a.height, b.top + b.height) - max(a.top, b.top)


def labelled(lines: list[Line]) -> list[Line]:
    """Lines with the labels hung before them put back: Tesseract reads a column of hanging
    labels ("(a)", "(b)", "1.", "•") as a block of its own, before the text they label. A block
    of short narrow lines only is such a column; each of its lines joins the line of another
    block beside it, to its right, that shares most of its height (a label with none stays)."""
    blocks: dict[tuple[str, str], list[Line]] = {}
    for line in lines:
        blocks.setdefault(line.block, []).append(line)
    columns = {block for block, own in blocks.items()
               if all(len(line.words) <= 2 and line.width <= 4 * line.height for line in own)}
    if not columns or len(columns) == len(blocks):
        return lines
    text = [line for line in lines if line.block not in columns]
    hung: dict[int, list[Line]] = {}  # id of a line of text -> the labels it takes
    for label in (line for line in lines if line.block in columns):
        beside = [(_overlap(label, line), n) for n, line in enumerate(text)
                  if line.left > label.left + label.width // 2 and line.block[0] == label.block[0]]
        most, n = max(beside, default=(0, -1))
        if n >= 0 and most * 2 >= min(label.height, text[n].height):
            hung.setdefault(id(text[n]), []).append(label)
    taken = {id(label) for labels in hung.values() for label in labels}
    out: list[Line] = []
    for line in lines:
        if id(line) in taken:
            continue
        if labels := hung.get(id(line)):
            line = replace(line, left=min(label.left for label in labels),
                           words=tuple(w for label in labels for w in label.words) + line.words)
        out.append(line)
    return out


def _middle(values: list[int]) -> int:
    """The middle of ``values`` (0 for none): a page's usual line pitch, its body's height."""
    return sorted(values)[len(values) // 2] if values else 0


def tsv_page(tsv: str) -> Page:
    """A page's text and headings from Tesseract's TSV (see the module docstring)."""
    lines = labelled(upright(lines_of(tsv)))
    if not lines:
        return Page("")
    pitch = _middle([b.top - a.top for a, b in zip(lines, lines[1:]) if a.block == b.block and b.top > a.top])
    body = _middle([line.height for line in lines])
    paragraphs: list[list[Line]] = [[lines[0]]]
    for prev, line in zip(lines, lines[1:]):
        step = line.top - prev.top
        under = 0 < step <= _GAP * pitch if pitch else step > 0
        # a sentence that goes on in lower case: a box a speck made taller, a wider gap, a new
        # column do not end its paragraph
        runs_on = prev.words[-1][-1] not in _STOPS and line.words[0][:1].islower()
        if runs_on:
            new = False
        elif max(line.height, prev.height) > _HEIGHT * max(1, min(line.height, prev.height)):
            new = True
        elif line.block != prev.block:
            beside = abs(line.left - prev.left) <= prev.height  # the same column's edge
            new = not (under and beside)
        else:
            new = not under
        if new:
            paragraphs.append([line])
        else:
            paragraphs[-1].append(line)
    texts = ["\n".join(" ".join(line.words) for line in paragraph) for paragraph in paragraphs]
    headings = tuple((text, min(line.height for line in paragraph)) for text, paragraph in zip(texts, paragraphs)
                     if len(paragraphs) > 1 and _heading(paragraph, body))
    return Page("\n\n".join(texts), headings)


def heading_levels(heights: list[int]) -> dict[int, int]:
    """Levels of headings by their height over a document: the tallest 1, and each size more than
    15 % under the first of its level the next (OCR measures the same type a few pixels apart)."""
    levels: dict[int, int] = {}
    level, top = 0, None
    for height in sorted(set(heights), reverse=True):
        if top is None or height < 0.85 * top:
            level, top = min(6, level + 1), height
        levels[height] = level
    return levels
