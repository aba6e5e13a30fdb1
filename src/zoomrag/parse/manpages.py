"""Headings of manual pages and of Python's ``help()`` (pydoc) text.

Both print section names in capitals at the left margin with the section's text indented under
them (``NAME``, ``SYNOPSIS``, ``OPTIONS``; pydoc's ``CLASSES``, ``FUNCTIONS``, ``DATA``). pydoc
also prints each class as ``class Name(Base)`` over lines that start with `` |  ``, and splits a
class's members into groups (`` |  Methods defined here:``, `` |  Data descriptors inherited
from Base:``); a manual page has subsections, indented a little less than their text. Each kind
present makes a level, outermost first, so a method's text has the section path
``CLASSES › class Path(PurePath) › Methods defined here``.
"""

from __future__ import annotations

import re

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
    found = sorted(sections + classes + groups)
    if not found:
        return []
    # Levels are dense ranks of the kinds present: help() on one class has no sections.
    present = sorted({kind for _, _, kind, _ in found})
    level = {kind: i + 1 for i, kind in enumerate(present)}
    return [(s, e, level[kind], title.strip()) for s, e, kind, title in found]
