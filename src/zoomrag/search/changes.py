"""A changelog's lines answer what changed, not how to do something.

A project's changelog (``CHANGES.md``; parse/changelog.py marks it ``changelog: true``) names
every feature the day it came, in a line that matches a question about the feature closely:
"How do I add a --version option?" found "Add custom_version_option, a --version option…" before
the page that shows how. A question that does not ask about a change — no release or version,
no "changed", "added", "removed", "deprecated" or "fixed" — gets a changelog's units at
:data:`SHARE` of their score, below the pages that use those words to explain. Asked what
changed, or asked of changelogs alone (``--where changelog=true``), they rank as they match.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

import numpy as np

from ..store.rows import Selection
from .fusion import Fused

__all__ = ["SHARE", "asks_about_change", "changelogs_after"]

#: What a changelog unit's score counts for, for a question that does not ask what changed.
SHARE = 0.5

#: Words of asking what changed. Not "add", "remove", "change" or "fix", which how-to questions
#: use ("How do I add a subcommand?"), nor ``--version``, an option.
_CHANGE = re.compile(
    r"(?<![-\w])versions?\b|\b(?:releases?|released|changed|changelogs?|new in|added|removed|removal|"
    r"deprecat\w*|since|introduced|fixed|breaking|broke|regression|upgrad\w*|downgrad\w*|migrat\w*|"
    r"when (?:was|were|did))\b|\bv?\d+\.\d+(?:\.\d+)*\b", re.I)


def asks_about_change(query: str) -> bool:
    """Whether the question asks what changed, or when (the module docstring)."""
    return _CHANGE.search(query) is not None


def changelogs_after(fused: Sequence[Fused], changelogs: Selection) -> list[Fused]:
    """``fused`` with the units of the documents in ``changelogs`` at :data:`SHARE` of their
    score, in score order again (units are rows; a document's are ``first .. first + count``);
    unchanged when they are all from changelogs."""
    if not len(changelogs):
        return list(fused)
    rows = np.fromiter((int(f.key) for f in fused), dtype=np.int64, count=len(fused))  # type: ignore[call-overload]
    at = np.searchsorted(changelogs.first, rows, side="right") - 1
    inside = (at >= 0) & (rows < changelogs.first[at] + changelogs.count[at])
    if not inside.any() or inside.all():  # none, or all (``--where changelog=true``): as they are
        return list(fused)
    scored = [Fused(f.key, f.score * SHARE, f.ranks) if hit else f for f, hit in zip(fused, inside.tolist())]
    return sorted(scored, key=lambda f: -f.score)
