"""Interval arithmetic over half-open character spans ``[start, end)``.

Evidence and returned contexts are sets of characters; keeping them as sorted, disjoint
intervals makes every metric O(n log n) in the number of spans instead of O(characters).
``tests/test_eval_spans.py`` checks each function against a plain character-set reference.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence

Interval = tuple[int, int]
#: A span inside a named document: ``(doc_id, start, end)``.
DocSpan = tuple[str, int, int]


def union(spans: Iterable[Interval]) -> list[Interval]:
    """Sorted, disjoint intervals covering the same characters (empty spans vanish)."""
    out: list[Interval] = []
    for s, e in sorted(sp for sp in spans if sp[1] > sp[0]):
        if out and s <= out[-1][1]:
            if e > out[-1][1]:
                out[-1] = (out[-1][0], e)
        else:
            out.append((s, e))
    return out


def length(disjoint: Iterable[Interval]) -> int:
    """Characters covered by already disjoint intervals."""
    return sum(e - s for s, e in disjoint)


def intersect(a: Sequence[Interval], b: Sequence[Interval]) -> list[Interval]:
    """Intersection of two sorted disjoint interval lists (a two-pointer sweep)."""
    out: list[Interval] = []
    i = j = 0
    while i < len(a) and j < len(b):
        s = max(a[i][0], b[j][0])
        e = min(a[i][1], b[j][1])
        if s < e:
            out.append((s, e))
        if a[i][1] < b[j][1]:
            i += 1
        else:
            j += 1
    return out


def overlaps(a: Interval, b: Interval) -> bool:
    """True when the two spans share at least one character (touching ends do not count)."""
    return max(a[0], b[0]) < min(a[1], b[1])


def by_doc(spans: Iterable[DocSpan]) -> dict[str, list[Interval]]:
    """Group document spans into one disjoint interval list per document."""
    groups: dict[str, list[Interval]] = defaultdict(list)
    for doc_id, s, e in spans:
        groups[doc_id].append((s, e))
    return {d: union(v) for d, v in groups.items()}


def doc_length(groups: Mapping[str, Sequence[Interval]]) -> int:
    return sum(length(v) for v in groups.values())


def doc_intersect(a: Mapping[str, Sequence[Interval]],
                  b: Mapping[str, Sequence[Interval]]) -> dict[str, list[Interval]]:
    return {d: intersect(a[d], b[d]) for d in a.keys() & b.keys()}
