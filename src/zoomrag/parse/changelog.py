"""Changelogs: documents whose sections are releases (``## Version 8.5.1``, ``[26.1.0](…) -
2026-03-10``, ``v2.3.0 (2024-01-05)``).

A project's changelog names every feature in a line of its own, so a question about using one
("How do I add a --version option?") finds the line that says it was added before the page that
says how. Indexing marks such a document ``changelog: true`` (:func:`is_changelog`), and search
ranks its lines below others' for a question that does not ask what changed
(:mod:`zoomrag.search.secondary`); ``--where changelog=true`` searches the changelogs alone.

A document is a changelog when, at the outermost level that has a release heading, at least
:data:`MIN_RELEASES` headings are releases and they are two thirds of that level's headings. A
release heading is a version, with ``Version``, ``Release`` or ``v`` before it or nothing else
but a date and "released"/"unreleased" around it: ``3.1 Installation``, a manual's numbered
section, is not one.
"""

from __future__ import annotations

import re

from ..model import Document
from .headings import find_headings
from .titles import clean_title

__all__ = ["CHANGELOG_KEY", "MIN_RELEASES", "is_changelog", "is_release"]

#: The metadata key that marks a changelog.
CHANGELOG_KEY = "changelog"
#: Release headings a changelog has at least.
MIN_RELEASES = 3
_MONTH = r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.?"
_DATE = re.compile(rf"\d{{4}}[-/.]\d{{1,2}}[-/.]\d{{1,2}}|\d{{1,2}}\s+{_MONTH}\s+\d{{4}}|{_MONTH}\s+\d{{1,2}},?\s+\d{{4}}"
                   r"|\d{1,2}[-/.]\d{1,2}[-/.]\d{4}", re.I)
_SAID = re.compile(r"\b(?:released?|unreleased|yanked|not yet released|in development)\b", re.I)
_RELEASE = re.compile(r"(?:version|release|v)?\s*v?\d+(?:\.\d+)+(?:[-.+]?[a-z]+\d*)*", re.I)
_PUNCTUATION = re.compile(r"[\s\-–—:,;()\[\]*_`'\"#/]+")


def is_release(title: str) -> bool:
    """Whether a heading's clean title names a release (the module docstring)."""
    rest = _PUNCTUATION.sub(" ", _SAID.sub(" ", _DATE.sub(" ", title))).strip()
    return _RELEASE.fullmatch(rest) is not None if rest else _SAID.search(title) is not None


def is_changelog(document: Document) -> bool:
    """Whether the document's sections are releases (the module docstring)."""
    headings = find_headings(document)
    releases = [h.level for h in headings if is_release(clean_title(h.title))]
    if len(releases) < MIN_RELEASES:
        return False
    level = min(releases)
    at_level = sum(h.level == level for h in headings)
    return releases.count(level) >= MIN_RELEASES and 3 * releases.count(level) >= 2 * at_level
