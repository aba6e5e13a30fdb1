"""One hit per embedded text in each ranking.

The same unit text can sit in many places: a cell repeated in every parameter table, a
licence paragraph in every file, a copied section. Each copy scores the same in both rankers,
so copies would take the first ranks and push out the different texts below them. Within each
ranking only the best copy is kept, before fusion, so the freed ranks go to other texts. Two
units are copies when they embedded the same text (the vector key is the hash of that text);
units without a vector are always kept. The copies left out are told to the caller, so that a
context can name the other files that hold its text.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence


def first_of_each_text(ranking: Sequence[tuple[int, float]], text_keys: Mapping[int, Hashable | None],
                       copies: dict[int, list[int]] | None = None) -> list[tuple[int, float]]:
    """``ranking`` (best first) without later units whose text key an earlier unit had; each
    unit left out is added to ``copies[row of the unit kept for its text]`` when given."""
    seen: dict[Hashable, int] = {}
    out = []
    for row, score in ranking:
        key = text_keys.get(row)
        if key is not None:
            first = seen.get(key)
            if first is not None:
                if copies is not None:
                    copies.setdefault(first, []).append(row)
                continue
            seen[key] = row
        out.append((row, score))
    return out
