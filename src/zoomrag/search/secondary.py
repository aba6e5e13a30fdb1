"""Documents that answer one kind of question only: a changelog what changed, a test how
something is tested.

A project's changelog (``CHANGES.md``; parse/changelog.py marks it ``changelog: true``) names
every feature the day it came, in a line that matches a question about the feature closely:
"How do I add a --version option?" found "Add custom_version_option, a --version option…" before
the page that shows how. Its tests (``*_test.go``, ``tests/``; parse/testfiles.py marks them
``test: true``) call every function with the words of its documentation: "How do I make pflag
treat --dry_run and --dry-run as the same?" found a test that sets up such a flag before the
function that does it. A question that does not ask about a change — no release or version, no
"changed", "added", "removed", "deprecated" or "fixed" — gets a changelog's units at
:data:`SHARE` of their score, and one that does not ask about tests a test's, below the pages
and the code that use those words to explain. Asked about them, or of them alone (``--where
changelog=true``, ``--where test=true``), they rank as they match.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from ..store.rows import Selection
from .fusion import Fused

__all__ = ["SHARE", "asks_about_change", "asks_about_tests", "secondary_after"]

#: What a secondary document's unit's score counts for, for a question not about what it answers.
SHARE = 0.5

#: Words of asking what changed. Not "add", "remove", "change" or "fix", which how-to questions
#: use ("How do I add a subcommand?"), nor ``--version``, an option.
_CHANGE = re.compile(
    r"(?<![-\w])versions?\b|\b(?:releases?|released|changed|changelogs?|new in|added|removed|removal|"
    r"deprecat\w*|since|introduced|fixed|breaking|broke|regression|upgrad\w*|downgrad\w*|migrat\w*|"
    r"when (?:was|were|did))\b|\bv?\d+\.\d+(?:\.\d+)*\b", re.I)
#: Words of asking about tests: how something is tested, a test's fixture or mock.
_TESTS = re.compile(r"\b(?:tests?|tested|testing|unit[- ]?tests?|pytest|unittest|mock\w*|fixtures?|"
                    r"spec|specs|benchmarks?|assert\w*)\b", re.I)


def asks_about_change(query: str) -> bool:
    """Whether the question asks what changed, or when (the module docstring)."""
    return _CHANGE.search(query) is not None


def asks_about_tests(query: str) -> bool:
    """Whether the question asks about tests (the module docstring)."""
    return _TESTS.search(query) is not None


def secondary_after(fused: Sequence[Fused], documents: Selection) -> list[Fused]:
    """``fused`` with the units of the documents in ``documents`` at :data:`SHARE` of their
    score, in score order again (units are rows; a document's are ``first .. first + count``);
    unchanged when they are all from those documents."""
    if not len(documents):
        return list(fused)
    rows = np.fromiter((int(f.key) for f in fused), dtype=np.int64, count=len(fused))  # type: ignore[call-overload]
    at = np.searchsorted(documents.first, rows, side="right") - 1
    inside = (at >= 0) & (rows < documents.first[at] + documents.count[at])
    if not inside.any() or inside.all():  # none, or all (``--where test=true``): as they are
        return list(fused)
    scored = [Fused(f.key, f.score * SHARE, f.ranks) if hit else f for f, hit in zip(fused, inside.tolist())]
    return sorted(scored, key=lambda f: -f.score)
