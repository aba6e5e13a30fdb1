"""Word's automatic numbering, as the page shows it: ``3.``, ``3.1``, ``(a)``, ``Article IV``.

A contract's clause titles are numbered by Word, not typed: the number lives in the paragraph's
numbering properties (``w:numPr``, or its style's) and ``word/numbering.xml`` says how each
level is written (``%1.%2``, lower letters, Roman numerals) and where it starts. mammoth keeps
only "an ordered list item" of it, so each title came out as a list of one item numbered 1.
Here every numbered paragraph of the document gets the label Word would draw, counted as Word
counts: per list, a level's counter restarting when a level above it moves on.
"""

from __future__ import annotations

import re
import zipfile
from xml.etree import ElementTree

__all__ = ["numbering_labels"]

_W = "{http://schemas.openxmlformats.org/wordprocessingml/2006/main}"
_LEVEL_REF = re.compile(r"%([1-9])")
_ROMAN = ((1000, "m"), (900, "cm"), (500, "d"), (400, "cd"), (100, "c"), (90, "xc"), (50, "l"), (40, "xl"),
          (10, "x"), (9, "ix"), (5, "v"), (4, "iv"), (1, "i"))


def _val(el: ElementTree.Element | None, tag: str) -> str | None:
    child = el.find(_W + tag) if el is not None else None
    return child.get(_W + "val") if child is not None else None


def _roman(n: int) -> str:
    out = []
    for value, letters in _ROMAN:
        while n >= value:
            out.append(letters)
            n -= value
    return "".join(out)


def _letters(n: int) -> str:
    # Word repeats the letter past z: a … z, aa … zz
    return chr(ord("a") + (n - 1) % 26) * ((n - 1) // 26 + 1) if n > 0 else ""


def _written(n: int, fmt: str) -> str:
    if fmt == "lowerLetter":
        return _letters(n)
    if fmt == "upperLetter":
        return _letters(n).upper()
    if fmt == "lowerRoman":
        return _roman(n)
    if fmt == "upperRoman":
        return _roman(n).upper()
    if fmt == "decimalZero":
        return f"{n:02d}"
    return str(n)


def _read(z: zipfile.ZipFile, name: str) -> ElementTree.Element | None:
    try:
        return ElementTree.fromstring(z.read(name))
    except (KeyError, ElementTree.ParseError):
        return None


class _Lists:
    """numbering.xml: each list's levels (start, format, text) and where counting restarts."""

    def __init__(self, root: ElementTree.Element | None, styles: ElementTree.Element | None):
        self.levels: dict[str, dict[int, tuple[int, str, str]]] = {}  # abstract id → level → start, fmt, text
        self.styled: dict[str, tuple[str, int]] = {}  # style id → abstract id, level (a heading's list)
        self.nums: dict[str, tuple[str, dict[int, int]]] = {}  # num id → abstract id, start overrides
        self.style_nums: dict[str, tuple[str, int | None]] = {}  # style id → num id, level
        if root is not None:
            for abstract in root.iter(_W + "abstractNum"):
                aid = abstract.get(_W + "abstractNumId") or ""
                levels = self.levels.setdefault(aid, {})
                for lvl in abstract.iter(_W + "lvl"):
                    i = int(lvl.get(_W + "ilvl") or 0)
                    start = _val(lvl, "start")
                    levels[i] = (int(start) if start and start.isdigit() else 1,
                                 _val(lvl, "numFmt") or "decimal", _val(lvl, "lvlText") or "")
                    if (style := _val(lvl, "pStyle")) is not None:
                        self.styled[style] = (aid, i)
            for num in root.iter(_W + "num"):
                overrides = {int(o.get(_W + "ilvl") or 0): int(v) for o in num.iter(_W + "lvlOverride")
                             if (v := _val(o, "startOverride")) is not None and v.isdigit()}
                self.nums[num.get(_W + "numId") or ""] = (_val(num, "abstractNumId") or "", overrides)
        if styles is not None:
            for definition in styles.iter(_W + "style"):
                num_pr = definition.find(f"{_W}pPr/{_W}numPr")
                if num_pr is not None and (num_id := _val(num_pr, "numId")):
                    ilvl = _val(num_pr, "ilvl")
                    self.style_nums[definition.get(_W + "styleId") or ""] = (num_id, int(ilvl) if ilvl else None)

    def numbering(self, paragraph: ElementTree.Element) -> tuple[str, int] | None:
        """The list and level numbering ``paragraph``: its own, or its style's."""
        ppr = paragraph.find(_W + "pPr")
        num_pr = ppr.find(_W + "numPr") if ppr is not None else None
        style = _val(ppr, "pStyle")
        num_id, level = (_val(num_pr, "numId"), _val(num_pr, "ilvl")) if num_pr is not None else (None, None)
        if num_id is None and style in self.style_nums:
            num_id, styled_level = self.style_nums[style]
            level = str(styled_level) if styled_level is not None else None
        if not num_id or num_id == "0" or num_id not in self.nums:
            return None
        if level is None and style is not None and style in self.styled:
            level = str(self.styled[style][1])
        return num_id, int(level) if level and level.isdigit() else 0


def numbering_labels(z: zipfile.ZipFile) -> list[tuple[str, str]]:
    """``(text, label)`` of every paragraph Word numbers, in document order: its text without
    spaces (to find it again) and the label Word draws before it (``""`` for a bullet)."""
    document = _read(z, "word/document.xml")
    if document is None:
        return []
    lists = _Lists(_read(z, "word/numbering.xml"), _read(z, "word/styles.xml"))
    if not lists.nums:
        return []
    counters: dict[str, dict[int, int]] = {}
    started: set[str] = set()
    out: list[tuple[str, str]] = []
    for paragraph in document.iter(_W + "p"):
        found = lists.numbering(paragraph)
        if found is None:
            continue
        num_id, level = found
        aid, overrides = lists.nums[num_id]
        levels = lists.levels.get(aid, {})
        # a list with start overrides counts on its own; others share their abstract list's count
        key = num_id if overrides else aid
        count = counters.setdefault(key, {})
        if overrides and num_id not in started:
            started.add(num_id)
            count.update({i: s - 1 for i, s in overrides.items()})
        start, fmt, text = levels.get(level, (1, "decimal", f"%{level + 1}."))
        count[level] = count.get(level, start - 1) + 1
        for deeper in [i for i in count if i > level]:
            del count[deeper]
        if fmt in ("bullet", "none"):
            label = ""
        else:
            label = _LEVEL_REF.sub(lambda m: _written(
                count.get(int(m.group(1)) - 1, levels.get(int(m.group(1)) - 1, (1, "", ""))[0]),
                levels.get(int(m.group(1)) - 1, (1, fmt, ""))[1]), text)
        words = "".join(t.text or "" for t in paragraph.iter(_W + "t"))
        out.append(("".join(words.split()), label.strip()))
    return out
