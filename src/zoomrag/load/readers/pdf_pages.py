"""What a typeset page carries besides its running text, found in the text a PDF's pages give.

Running heads and feet (:func:`without_running_lines`): a page's first or last line that recurs
there on at least three pages and a fifth of them (digits aside, where they stay or grow from
page to page: ``Chapter 4: Function reference 18``), and a page number alone (``12``, ``- 12 -``, ``Page 3 of 9``, ``iv``) where
pages put one; behind a page number, the line next to it is looked at too (on a page of more
than four lines). Where three pages or more print their number alone, the others' first or last
line that opens or closes with that page's number is a head too (``Chapter 3: Utilities 7`` on
page 7). They would otherwise sit in the middle of every context that runs over a page break,
and in the units embedded there. The first page keeps its head, which is usually the document's
title.

Line numbers (:func:`without_line_numbers`): a manuscript under review numbers its lines of
prose, at their starts or set against their ends ("…viewed17"); they go where they count up on
half a page's lines, or on ten.

Words broken at a line end (:func:`joined_words`) are joined when the document spells them
whole elsewhere (and never with the hyphen), so that search finds them.

Footnotes (:func:`page_notes`): a page's last lines from one that opens with a mark set against
its first word (``2Note that…``, ``∗This file…``), or with the document's next note number set
apart, over a line or a link.
"""

from __future__ import annotations

import re
from collections import Counter

from ...text.lists import LEADER_LINE

_DIGITS = re.compile(r"\d+")
#: A number that opens or closes a line: where a head puts the page number ("Chapter 3: Utilities 7").
_EDGE_NUMBERS = re.compile(r"^\s*(\d+)(?!\S)|(?<!\S)(\d+)\s*$")
#: Roman numerals as front matter numbers its pages (``iv``, ``xii``), not any word of their letters.
_ROMAN = r"(?=[ivxlc])c{0,3}(?:xc|xl|l?x{0,3})(?:ix|iv|v?i{0,3})"
#: A page number alone: ``12``, ``- 12 -``, ``[12]``, ``Page 3 of 9``, ``3/9``, ``iv``, and a
#: statement's ``F-3`` (also what the HTML reader drops at a page break: :mod:`.html_look`); no
#: document has ten thousand pages, so ``425000000`` in a table's last column is a figure.
PAGE_NUMBER = re.compile(rf"(?:page\s*)?[-–—(\[]?\s*(?:\d{{1,4}}|{_ROMAN})\s*[-–—)\]]?(?:\s*(?:of|/)\s*\d{{1,4}})?"
                         r"|[a-z]{1,2}\s*-\s*\d{1,4}", re.IGNORECASE)


def _edge_key(line: str) -> str | None:
    """What a running head or foot keeps from page to page, or None for a line too plain to tell."""
    flat = " ".join(line.split())
    if PAGE_NUMBER.fullmatch(flat):
        return "#"
    key = _DIGITS.sub("#", flat.casefold())
    return key if sum(c.isalpha() for c in key) >= 3 else None


def numbers_run(lines: list[str]) -> bool:
    """Whether lines alike but for their numbers, in page order, number as a running head or foot
    does: each of their numbers the same from page to page or growing (``Chapter 4 … 18``, then
    ``Chapter 5 … 25``). ``Note 5`` then ``Note 2`` at the tops of two pages are titles."""
    columns = zip(*([int(n) for n in _DIGITS.findall(line)] for line in lines))
    return all(all(a <= b for a, b in zip(column, column[1:])) for column in columns)


def _edge_numbers(line: str) -> set[str]:
    return {g for pair in _EDGE_NUMBERS.findall(line) for g in pair if g}


def without_running_lines(pages: list[str]) -> list[str]:
    """``pages`` without their running heads and feet (see the module docstring)."""
    if len(pages) < 3:
        return pages
    split = [page.split("\n") for page in pages]
    edges: list[list[tuple[int, str, str | None, bool]]] = []  # per page: (line, zone, key, outermost)
    counts: Counter[tuple[str, str]] = Counter()
    said: dict[tuple[str, str], list[str]] = {}  # each edge's lines, in page order
    offsets: Counter[int] = Counter()  # printed page number less the page's place
    for number, lines in enumerate(split):
        filled = [i for i, line in enumerate(lines) if line.strip()]
        mine: list[tuple[int, str, str | None, bool]] = []
        for zone, order in (("head", filled[:2]), ("foot", filled[::-1][:2])):
            for depth, i in enumerate(order):
                key = _edge_key(lines[i])
                if all(i != j for j, *_ in mine):
                    mine.append((i, zone, key, depth == 0))
                if key == "#" and (m := _DIGITS.search(lines[i])):
                    offsets[int(m.group()) - number] += 1
                # the next line inward only behind a page number, on a page of some length
                if key != "#" or len(filled) <= 4:
                    break
        counts.update({(zone, key) for _, zone, key, _ in mine if key is not None})
        for i, zone, key, _ in mine:
            if key is not None:
                said.setdefault((zone, key), []).append(lines[i])
        edges.append(mine)
    need = max(3, -(-len(pages) // 5))
    running = {edge for edge, n in counts.items() if n >= need and (edge[1] == "#" or numbers_run(said[edge]))}
    offset, seen = offsets.most_common(1)[0] if offsets else (0, 0)
    out = []
    for number, (lines, mine) in enumerate(zip(split, edges)):
        printed = str(number + offset) if seen >= 3 else None
        drop = {i for i, zone, key, outer in mine
                if not (number == 0 and zone == "head")
                and ((key is not None and (zone, key) in running)
                     or (outer and printed is not None and printed in _edge_numbers(lines[i])))}
        out.append("\n".join(line for i, line in enumerate(lines) if i not in drop).strip("\n") if drop else pages[number])
    return out


#: Digits at a line's end: set against its last character, where a manuscript under review
#: numbers its lines ("…can be viewed17"); or after a space, a line number only when it runs
#: into the text's own digits ("in 200340") within a run (a code table's numbers stand alone).
_END_DIGITS = re.compile(r"(?<![\d\s])(\d{1,7})$|(?<=\s)(\d{2,7})$")
#: Digits opening a line before its text, where other PDFs put the number ("38 In 1996 …").
_START_DIGITS = re.compile(r"^[ \t]*(\d{1,6})[ \t]+(?=\S)")
#: Numbered lines in turn that start a run of line numbers.
_NUMBER_RUN = 3
#: Line numbers that say a page is numbered, whatever share of its lines they number (a page of
#: figures and tables has many lines without).
_NUMBERED_PAGE = 10
#: A manuscript numbers its lines of prose, most of them at least this long (characters).
_PROSE_LINE = 40


def _line_numbers(lines: list[str], at_end: bool) -> dict[int, tuple[int, int]]:
    """Line -> the span of its line number: digits at each line's end (``at_end``) or start that
    count up by one from line to line (lines without, such as an unnumbered display, or with
    digits of their own that start no count, keep the count). At a line's end a number may run
    into the text's own digits ("in 200340" is "in 2003" on line 40): the count says where it
    begins."""
    found: list[tuple[int, str, bool]] = []
    for i, line in enumerate(lines):
        if at_end and (m := _END_DIGITS.search(line)):
            found.append((i, m.group(1) or m.group(2), m.group(1) is not None))
        elif not at_end and (m := _START_DIGITS.match(line)) and not LEADER_LINE.search(line):
            found.append((i, m.group(1), True))  # a contents entry ("11 Plain . . . 12") is none
    out: dict[int, tuple[int, int]] = {}
    expected: int | None = None
    for k, (i, digits, glued) in enumerate(found):
        if expected is not None and _counts(digits, expected, at_end) and (glued or digits != str(expected)):
            n = len(str(expected))
        elif glued:  # a run starts where the next lines go on counting
            ahead = [d for _, d, _ in found[k + 1:k + _NUMBER_RUN]]
            sizes = range(len(digits), 0, -1) if at_end else (len(digits),)
            n = next((n for n in sizes if len(ahead) == _NUMBER_RUN - 1 and all(
                _counts(d, int(digits[-n:]) + j + 1, at_end) for j, d in enumerate(ahead))), 0)
            if not n:
                continue  # the text's own digits ("E = mc^2" inside a run): the count goes on
            expected = int(digits[-n:])
        else:
            continue
        if at_end:
            end = len(lines[i].rstrip())
            out[i] = (end - n, end)
        else:
            start = lines[i].index(digits)
            out[i] = (start, start + n)
        expected += 1
    return out


def _counts(digits: str, number: int, at_end: bool) -> bool:
    """Whether ``digits`` hold line number ``number``: end with it at a line's end (where it may
    run into the text's own digits), are it at a line's start."""
    return digits.endswith(str(number)) if at_end else digits == str(number)


def without_line_numbers(page: str) -> str:
    """``page`` without the line numbers of a manuscript under review, at the ends or the starts
    of its lines: numbers that count up from line to line on at least half of them, or on ten.
    They would join the words they touch ("viewed17") and sit in every unit."""
    lines = page.split("\n")
    filled = sum(1 for line in lines if line.strip())
    for at_end in (True, False):
        numbers = _line_numbers(lines, at_end)
        if not at_end and 2 * sum(len(lines[i]) >= _PROSE_LINE for i in numbers) < len(numbers):
            continue  # numbered short lines: a contents ("1 Introduction", "2 Methods") or code
        if numbers and (len(numbers) * 2 >= filled or len(numbers) >= _NUMBERED_PAGE):
            for i, (a, b) in numbers.items():
                line = lines[i]
                lines[i] = line[:a].rstrip() if at_end else line[:a] + line[b:].lstrip(" \t")
            return "\n".join(lines)
    return page


#: A word broken at a line end with a hyphen, and what follows it up to the next space.
_BROKEN = re.compile(r"([A-Za-z]+)-\n([a-z]+)(\S*)[ \t]?")
_WORDS = re.compile(r"[A-Za-z]+")
_HYPHENED = re.compile(r"[A-Za-z]+-[A-Za-z]+")


def joined_words(pages: list[str]) -> list[str]:
    """``pages`` with words hyphenated at a line end joined ("manip-\\nulation" becomes
    "manipulation\\n") where the document spells the joined word elsewhere and never the hyphenated
    one: "well-\\nknown" keeps its hyphen. The word's second part, with what sticks to it
    ("ulation,"), moves up to the first line."""
    whole = "\n".join(pages)
    if "-\n" not in whole:
        return pages
    rest = _BROKEN.sub(" ", whole)  # the words as the document spells them elsewhere
    seen = {w.casefold() for w in _WORDS.findall(rest)}
    hyphened = {w.casefold() for w in _HYPHENED.findall(rest)}

    def join(m: re.Match[str]) -> str:
        a, b, rest = m.groups()
        word = (a + b).casefold()
        if word in seen and f"{a}-{b}".casefold() not in hyphened:
            return f"{a}{b}{rest}\n"
        return m.group(0)
    return [_BROKEN.sub(join, page) for page in pages]


#: A footnote's first line: its mark (a number or a symbol) set against its first word, as a
#: PDF's text gives a superscript ("2Note that…", "∗This file…").
_NOTE = re.compile(r"(?:\d{1,3}|[*∗†‡§¶])(?=[A-Z][a-z’']|[“\"‘(])")
#: A note's number set apart: alone on its line over the note, as PDFium may give a superscript
#: ("1" over "In most…"), before a link ("1 https://…", "1. See http://…"), or against Chinese
#: text ("13除这里…").
#: Such a line may be a figure's label or a date too, so it opens a note only when its number
#: goes on from the document's notes before.
_NUMBER_APART = re.compile(r"[ \t]*(\d{1,3})[ \t]*$|(\d{1,3})\.?[ \t]+(?=(?:See[ \t]+)?https?://)"
                           r"|(\d{1,3})(?=[\u3400-\u9fff])")
#: Lines at a page's foot where its notes may begin.
NOTE_LINES = 15


def page_notes(page: str, last: int = 0) -> tuple[str, list[str], int]:
    """``page`` split into its body and its footnotes, each note with its lines, and the number
    of its last note (``last`` when none is numbered). The notes are the page's last lines from
    the first among its last NOTE_LINES that opens a note: with a mark set against its first
    word, or with a number set apart that goes on from ``last``, over a line or a link."""
    lines = page.split("\n")

    def number(i: int) -> int | None:
        """The note number line ``i`` opens a note with, 0 for a mark against its word, or None."""
        if _NOTE.match(lines[i]):
            digits = re.match(r"\d+", lines[i])
            return int(digits.group()) if digits else 0
        m = _NUMBER_APART.match(lines[i])
        if m is None:
            return None
        if m.group(2):  # before a link: the next of the notes numbered so far
            return int(m.group(2)) if int(m.group(2)) > last else None
        if m.group(3):  # set against Chinese text, as a month is ("12月"): the next note, or the one after
            return int(m.group(3)) if last < int(m.group(3)) <= last + 2 else None
        # alone on a line, as a figure's or a display's number may be: the next note, or the one
        # after (a note missed), over a line that opens a sentence
        n = int(m.group(1))
        return n if last < n <= last + 2 and i + 1 < len(lines) and lines[i + 1][:1].isupper() else None

    first = None
    for i in range(max(1, len(lines) - NOTE_LINES), len(lines)):
        if number(i) is not None:
            first = i
            break
    if first is None:
        return page, [], last
    notes: list[list[str]] = []
    for i in range(first, len(lines)):
        n = None if notes and _NUMBER_APART.fullmatch(notes[-1][-1]) else number(i)
        if n is None and notes:
            notes[-1].append(lines[i])
            continue
        notes.append([lines[i]])
        last = n if n and (n > last or n == 1) else last  # "1Note…" set against its word starts anew
    return "\n".join(lines[:first]).rstrip(), ["\n".join(n) for n in notes], last
