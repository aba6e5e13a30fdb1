"""One hit per embedded text in each ranking.

The same unit text can sit in many places: a cell repeated in every parameter table, a
licence paragraph in every file, a copied section. Each copy scores the same in both rankers,
so copies would take the first ranks and push out the different texts below them. Within each
ranking only the best copy is kept, before fusion, so the freed ranks go to other texts. Two
units are copies when they embedded the same text (the vector key is the hash of that text);
units without a vector are always kept.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence


def first_of_each_text(ranking: Sequence[tuple[int, float]],
                       text_keys: Mapping[int, Hashable | None]) -> list[tuple[int, float]]:
    """``ranking`` (best first) without later units whose text key an earlier unit had."""
    seen: set[Hashable] = set()
    out = []
    for row, score in ranking:
        key = text_keys.get(row)
        if key is not None:
            if key in seen:
                continue
            seen.add(key)
        out.append((row, score))
    return out
