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

__all__ = ["as_number", "iso_date", "property_key", "property_value"]

#: Dates as filings, wikis and bylines write them.
_DATES = ("%Y%m%d", "%Y-%m-%d", "%Y/%m/%d", "%B %d, %Y", "%b %d, %Y", "%b. %d, %Y", "%m/%d/%Y", "%d %B %Y",
          "%d %b %Y")
#: A date with its time of day, as Notion writes one.
_TIMED = ("%B %d, %Y %I:%M %p", "%B %d, %Y %H:%M")
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
#: The most words and characters of one part of a list value.
_PART_WORDS = 4
_PART_CHARS = 40


def property_key(name: str) -> str:
    """``Last reviewed`` as a metadata key: ``last_reviewed``."""
    return "_".join(name.lower().split())


def iso_date(value: str) -> str:
    """``value`` as ``YYYY-MM-DD`` when it is a date in a form people write (``March 4, 2024``,
    ``20240304``, ``4 Mar 2024``), else as it is (spaces collapsed)."""
    v = " ".join(value.replace("\xa0", " ").split())
    for form in _DATES:
        try:
            return datetime.strptime(v, form).date().isoformat()
        except ValueError:
            continue
    return v


def as_number(value: str) -> int | float | None:
    """``value`` as a number when it is written as one (``47``, ``-2.5``), else None."""
    v = value.strip()
    return (float(v) if "." in v else int(v)) if _NUMBER.fullmatch(v) else None


def property_value(value: str) -> Any:
    """A property's value typed as a filter compares it (the module's docstring)."""
    v = " ".join(value.split())
    for form in _TIMED:
        try:
            return datetime.strptime(v, form).isoformat(timespec="minutes")
        except ValueError:
            continue
    if v in ("Yes", "No"):
        return v == "Yes"
    number = as_number(v)
    if number is not None:
        return number
    day = iso_date(v)
    if day != v:
        return day
    parts = [p.strip() for p in v.split(", ")]
    if len(parts) > 1 and all(p and len(p) <= _PART_CHARS and len(p.split()) <= _PART_WORDS
                              and p[-1] not in ".!?;:" for p in parts):
        return parts
    return v
