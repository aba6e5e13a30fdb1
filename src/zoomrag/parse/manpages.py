"""Headings of manual pages and of Python's ``help()`` (pydoc) text.

Both print section names in capitals at the left margin with the section's text indented under
them (``NAME``, ``SYNOPSIS``, ``OPTIONS``; pydoc's ``CLASSES``, ``FUNCTIONS``, ``DATA``). pydoc
also prints each class as ``class Name(Base)`` over lines that start with `` |  ``, and splits a
class's members into groups (`` |  Methods defined here:``, `` |  Data descriptors inherited
from Base:``); a manual page has subsections, indented a little less than their text. Each kind
present makes a level, outermost first. A member described under its line (`` |  glob(self,
pattern)`` over `` |      Iterate over…``), after its group's line, and a module function
described under ``FUNCTIONS`` are headings too, so a method's text has the section path
``CLASSES › class Path(PurePath) › Methods defined here › glob(self, pattern)`` and a context
keeps to one entry instead of opening on the tail of the one before. A member without a
description (an attribute's name alone) stays its group's text.
"""

from __future__ import annotations

import re
from bisect import bisect_left

#: A capitals line of at most five words after a blank line, with indented text under it.
_SECTION = re.compile(r"\n[ \t]*\n([A-Z][A-Z0-9]*(?:[ /&-][A-Z0-9]+){0,4})[ \t]*\n(?=[ \t]+\S)")
#: A manual page's subsection: a short line indented 2 to 4 spaces after a blank line or its
#: section's line, with text indented deeper under it (``   Operation modifiers`` over options
#: at 7 spaces).
_SUBSECTION = re.compile(r"\n(?:[ \t]*|[A-Z][A-Z0-9 /&-]*)\n( {2,4}[A-Z][\w'-]*(?: [\w'-]+){0,5})[ \t]*\n(?= {5,}\S)")
#: pydoc's class line, followed by the class's `` |  `` lines.
_CLASS = re.compile(r"\n([ \t]*class [A-Za-z_]\w*(?:\([^\n]*\))?)[ \t]*\n(?=[ \t]*\|  )")
#: A group of a class's members, in pydoc's words; its line from the gutter's ``|`` on, so that
#: the section before it does not end in a stray ``|``.
_GROUP = re.compile(r"\n[ \t]*(\|  ([A-Z][\w ]*? (?:defined here|inherited from [\w.]+)):)[ \t]*(?=\n)")
#: A class member's line, ``|  name(…)`` or ``|  name = …`` or ``|  name``, with its description
#: indented under it (from the gutter's ``|`` on, as a group's).
_MEMBER = re.compile(r"\n[ \t]*(\|  ([A-Za-z_]\w*(?:\([^\n]*\)| = [^\n]*)?))[ \t]*(?=\n[ \t]*\|      \S)")
#: A module function's line under ``FUNCTIONS``, at four spaces, with its description at eight.
_FUNCTION = re.compile(r"\n(    ([A-Za-z_]\w*\([^\n]*))[ \t]*(?=\n        \S)")
#: Both open with this section; capitals lines in other texts (a contract's ``ARTICLE 1``) are
#: left to the plain-text headings.
_FIRST = "NAME"


def manpage_headings(text: str) -> list[tuple[int, int, int, str]]:
    """``(start, end, level, title)`` of every heading, in order; [] when the text is neither a
    manual page nor pydoc text (no ``NAME`` section line first and no class line)."""
    sections = [(m.start(1), m.end(1), 0, m.group(1)) for m in _SECTION.finditer(text)]
    if len(sections) < 2 or sections[0][3] != _FIRST:
        sections = []
    else:
        sections += [(m.start(1), m.end(1), 1, m.group(1)) for m in _SUBSECTION.finditer(text)]
    classes = [(m.start(1), m.end(1), 2, m.group(1)) for m in _CLASS.finditer(text)] if "class " in text else []
    groups = [(m.start(1), m.end(1), 3, m.group(2)) for m in _GROUP.finditer(text)] if classes else []
    found = sorted(sections + classes + groups + _members(text, sections, classes, groups))
    if not found:
        return []
    # Levels are dense ranks of the kinds present: help() on one class has no sections.
    present = sorted({kind for _, _, kind, _ in found})
    level = {kind: i + 1 for i, kind in enumerate(present)}
    return [(s, e, level[kind], title.strip()) for s, e, kind, title in found]


def _members(text: str, sections: list[tuple[int, int, int, str]], classes: list[tuple[int, int, int, str]],
             groups: list[tuple[int, int, int, str]]) -> list[tuple[int, int, int, str]]:
    """Described members after a group's line in a class, and described functions under
    ``FUNCTIONS``: kind 4."""
    out = []
    if groups:
        # a member belongs to the group before it; a line before the class's first group is the
        # class's own signature or docstring
        opens = sorted((s, kind) for s, _, kind, _ in classes + groups)
        starts = [s for s, _ in opens]
        for m in _MEMBER.finditer(text):
            i = bisect_left(starts, m.start(1))
            if i and opens[i - 1][1] == 3:
                out.append((m.start(1), m.end(1), 4, m.group(2)))
    for i, (s, _, _, title) in enumerate(sections):
        if title == "FUNCTIONS":
            end = next((t for t, _, kind, _ in sections[i + 1:] if kind == 0), len(text))
            out += [(m.start(1), m.end(1), 4, m.group(2)) for m in _FUNCTION.finditer(text, s, end)]
    return out
