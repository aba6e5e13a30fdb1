"""What opens a list item in plain text and Markdown (for the heading rules and context edges)."""

from __future__ import annotations

import re

__all__ = ["LIST_ITEM"]

#: A list item's first line: a bullet, or a number with ``.`` or ``)`` (``．`` in CJK text), then
#: a space and text.
LIST_ITEM = re.compile(r"[ \t]*(?:[-*+\u2022]|\d{1,9}[.)．])[ \t]+\S")
