"""A page's stated properties as metadata a filter can compare.

Wikis give a page fields beside its text — a Notion database row's properties, a Confluence
page's Page Properties table — written for people: ``Last reviewed: March 3, 2024``,
``Tags: payments, eu``. As metadata, keys are lower case with spaces as underscores
(``last_reviewed``) and values are typed as :mod:`zoomrag.store.docmeta` compares them: dates
as ISO dates (with the time when one is given), numbers as numbers, ``Yes``/``No`` as booleans,
a value of short parts joined by ``, `` (a multi-select, a list of people) as a list; anything
else stays the string it was.
"""

from __future__ import annotations

import re
from datetime import datetime
from typing import Any

__all__ = ["property_key", "property_value"]

_DATES = (("%B %d, %Y %I:%M %p", True), ("%B %d, %Y %H:%M", True), ("%B %d, %Y", False),
          ("%b %d, %Y", False), ("%d %b %Y", False), ("%d %B %Y", False), ("%Y/%m/%d", False),
          ("%Y-%m-%d", False), ("%m/%d/%Y", False))
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
#: The most words and characters of one part of a list value.
_PART_WORDS = 4
_PART_CHARS = 40


def property_key(name: str) -> str:
    """``Last reviewed`` as a metadata key: ``last_reviewed``."""
    return "_".join(name.lower().split())


def property_value(value: str) -> Any:
    """A property's value typed as a filter compares it (the module's docstring)."""
    v = " ".join(value.split())
    for form, timed in _DATES:
        try:
            moment = datetime.strptime(v, form)
        except ValueError:
            continue
        return moment.isoformat(timespec="minutes") if timed else moment.date().isoformat()
    if v in ("Yes", "No"):
        return v == "Yes"
    if _NUMBER.fullmatch(v):
        return float(v) if "." in v else int(v)
    parts = [p.strip() for p in v.split(", ")]
    if len(parts) > 1 and all(p and len(p) <= _PART_CHARS and len(p.split()) <= _PART_WORDS
                              and p[-1] not in ".!?;:" for p in parts):
        return parts
    return v
