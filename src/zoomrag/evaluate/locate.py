"""Find a passage of text in a corpus: exactly, then with whitespace differences forgiven.

Imported and generated evidence arrives as text, often re-wrapped (newlines turned into
spaces, runs of spaces collapsed). The whitespace-normalised match is mapped back to exact
offsets of the original text, so evidence is always a true span ``text[start:end]``.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from .dataset import EvalDocument

_WS = re.compile(r"\s+")

Method = Literal["exact", "whitespace"]


@dataclass(frozen=True, slots=True)
class Located:
    doc_id: str
    start: int
    end: int
    method: Method
    #: Other places (in this or other documents) where the same passage also occurs.
    also_found: int = 0


def normalize_ws(text: str) -> str:
    """Whitespace runs become one space; leading and trailing whitespace go."""
    return _WS.sub(" ", text).strip()


class _Normalized:
    """A document's whitespace-collapsed text with a map back to original offsets."""

    __slots__ = ("origin", "text")

    def __init__(self, text: str):
        parts: list[str] = []
        origin: list[int] = []  # origin[k] = offset in ``text`` of normalised character k
        pos = 0
        for m in _WS.finditer(text):
            parts.append(text[pos:m.start()])
            origin.extend(range(pos, m.start()))
            parts.append(" ")
            origin.append(m.start())
            pos = m.end()
        parts.append(text[pos:])
        origin.extend(range(pos, len(text)))
        self.text = "".join(parts)
        self.origin = origin

    def span(self, start: int, end: int) -> tuple[int, int]:
        """Original offsets of normalised ``[start, end)`` (end is past the last matched character)."""
        return self.origin[start], self.origin[end - 1] + 1


def _count(haystack: str, needle: str, first: int) -> int:
    """Occurrences of needle after the one at ``first`` (overlapping ones included)."""
    n = 0
    k = haystack.find(needle, first + 1)
    while k >= 0:
        n += 1
        k = haystack.find(needle, k + 1)
    return n


class Locator:
    """Locates passages in a fixed set of documents; normalised texts are built once, lazily."""

    def __init__(self, documents: Sequence[EvalDocument]):
        self._docs = {d.id: d for d in documents}
        self._order = [d.id for d in documents]
        self._norm: dict[str, _Normalized] = {}

    def _normalized(self, doc_id: str) -> _Normalized:
        n = self._norm.get(doc_id)
        if n is None:
            n = self._norm[doc_id] = _Normalized(self._docs[doc_id].text)
        return n

    def has(self, doc_id: str) -> bool:
        return doc_id in self._docs

    def locate(self, passage: str, doc_id: str | None = None, *, near: int | None = None) -> Located | None:
        """Where ``passage`` occurs: in ``doc_id`` if given, else the first document (corpus order).

        Exact matches win over whitespace-normalised ones. ``near`` prefers the occurrence
        closest to that offset (a generator knows which passage it showed the model).
        """
        needle = passage.strip()
        if not needle:
            return None
        ids = [doc_id] if doc_id is not None else self._order
        ids = [d for d in ids if d in self._docs]
        for method in ("exact", "whitespace"):
            found = [hit for d in ids if (hit := self._find(d, needle, method, near)) is not None]
            if found:  # the first wins; every other occurrence is counted
                return replace(found[0], also_found=sum(f.also_found for f in found) + len(found) - 1)
        return None

    def _find(self, doc_id: str, needle: str, method: Method, near: int | None) -> Located | None:
        if method == "exact":
            text = self._docs[doc_id].text
            k = closest_occurrence(text, needle, near)
            if k < 0:
                return None
            return Located(doc_id, k, k + len(needle), "exact", _count(text, needle, text.find(needle)))
        norm = self._normalized(doc_id)
        small = normalize_ws(needle)
        k = closest_occurrence(norm.text, small, None if near is None else bisect_left(norm.origin, near))
        if k < 0:
            return None
        s, e = norm.span(k, k + len(small))
        return Located(doc_id, s, e, "whitespace", _count(norm.text, small, norm.text.find(small)))


def closest_occurrence(haystack: str, needle: str, near: int | None) -> int:
    """Where ``needle`` occurs in ``haystack`` nearest to offset ``near`` (the first when None); -1 if nowhere."""
    k = haystack.find(needle)
    if k < 0 or near is None:
        return k
    best = k
    while k >= 0:
        if abs(k - near) < abs(best - near):
            best = k
        if k > near:
            break
        k = haystack.find(needle, k + 1)
    return best
