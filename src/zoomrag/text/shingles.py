"""Shingles: a text as the set of its word n-grams, to tell a near copy (a licence with another
copyright line, a page of the next version) from text of its own."""

from __future__ import annotations

import re
from collections.abc import Sequence

#: A CJK character is a word of its own (Chinese and Japanese put no spaces between words).
_WORD = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]|[^\W\u3400-\u9fff\uf900-\ufaff]+")
#: Words per shingle: long enough that common phrases do not make two texts alike.
SIZE = 5


def shingles(text: str, start: int = 0, end: int | None = None) -> frozenset[int]:
    """Hashes of the runs of :data:`SIZE` words of ``text[start:end]``, case folded (one run of
    all the words when there are fewer)."""
    words = _WORD.findall(text[start:end].lower())
    if not words:
        return frozenset()
    return frozenset(hash(tuple(words[i:i + SIZE])) for i in range(max(1, len(words) - SIZE + 1)))


def share_in(grams: frozenset[int], others: Sequence[frozenset[int]]) -> float:
    """The share of ``grams`` found in any of ``others`` (1.0 for no grams: nothing is new)."""
    if not grams:
        return 1.0
    found = sum(1 for g in grams if any(g in o for o in others))
    return found / len(grams)
