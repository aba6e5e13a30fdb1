"""Cut texts into length-sorted batches: the plan a padded-batch model runs fastest.

A padded batch costs ``count x longest`` tokens whatever the real lengths are, so texts are
sorted by their exact token count first (each batch is then nearly uniform) and a batch ends at
``max_count`` texts or when one more text would take it past ``max_tokens`` padded tokens (many
short texts per batch, few long ones). A single text longer than the token budget still gets a
batch of its own: the budget bounds memory, it never refuses a text.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import ConfigError


def length_batches(lengths: Sequence[int], max_count: int, max_tokens: int | None = None) -> list[list[int]]:
    """Indices of ``lengths`` grouped into batches, shortest texts first.

    Ties keep their input order. Every index appears exactly once; each batch has at most
    ``max_count`` items and, when ``max_tokens`` is given, ``len(batch) * max(length)`` is at
    most ``max_tokens`` unless the batch is a single text.
    """
    if isinstance(max_count, bool) or not isinstance(max_count, int) or max_count < 1:
        raise ConfigError(f"length batches: max_count={max_count!r} is out of range; use at least 1")
    if max_tokens is not None and (isinstance(max_tokens, bool) or not isinstance(max_tokens, int)
                                   or max_tokens < 1):
        raise ConfigError(f"length batches: max_tokens={max_tokens!r} is out of range; use at least 1 or None")
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    batches: list[list[int]] = []
    current: list[int] = []
    for i in order:
        # Sorted ascending, so the text being added is the batch's longest.
        full = len(current) >= max_count or (
            max_tokens is not None and (len(current) + 1) * lengths[i] > max_tokens)
        if current and full:
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches

