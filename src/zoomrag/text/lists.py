"""Line shapes of plain text: what opens a list item (for the heading rules and context edges), and
what ends a table of contents' entry (for the heading rules and the PDF reader)."""

from __future__ import annotations

import re

__all__ = ["LEADER_LINE", "LIST_ITEM"]

#: A list item's first line: a bullet, or a number with ``.`` or ``)`` (``．`` in CJK text), then
#: a space and text.
LIST_ITEM = re.compile(r"[ \t]*(?:[-*+\u2022]|\d{1,9}[.)．])[ \t]+\S")

#: A contents entry's end: dot leaders, then its page number ("3.1 Introduction . . . . 3").
LEADER_LINE = re.compile(r"(?:\.[ \t]?){4,}[ \t]*(?:\d{1,4}|[ivxlc]{1,6})[ \t]*$")
