"""Expected evidence of a candidate, for assembly's stop rule (``density``'s model, for any policy).

A hit of rank ``r`` (0 = best) is relevant with probability ``tau / (tau + r)``; evidence runs
from it into the text around it with probability ``exp(-d / reach)`` at ``d`` tokens. A
candidate's expected evidence is then, summed over its hits and capped at its size,
``q · (hit tokens + reach · (1 − exp(−before / reach)) + reach · (1 − exp(−after / reach)))``;
a hit beside the span (a piece cut from a larger candidate) adds the evidence running into it.
``density`` knows its leaves' probabilities and gives the figure itself
(:attr:`Candidate.evidence`). Per token, the figure says how much of a context is likely to be
worth its budget: a 30-token hit of rank 10 inside a 2000-token parent is worth little per token.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

from .base import Candidate

TAU = 5.0
REACH = 64.0

SpanTokens = Callable[[str, int, int], int]


def hit_ranks(candidates: Iterable[Candidate]) -> dict[str, int]:
    """Rank of every hit among all candidates (and their fallbacks), by score, best first."""
    best: dict[str, float] = {}
    stack = list(candidates)
    while stack:
        c = stack.pop()
        for h in c.hits:
            if h.score > best.get(h.node_id, -math.inf):
                best[h.node_id] = h.score
        stack.extend(c.fallback)
    order = sorted(best, key=lambda k: -best[k])
    return {k: r for r, k in enumerate(order)}


def expected(c: Candidate, ranks: dict[str, int], tokens: SpanTokens) -> float:
    """Expected evidence tokens in ``c``."""
    size = tokens(c.doc_id, c.start, c.end)
    if c.evidence is not None:
        return min(float(size), c.evidence)
    mass = 0.0
    for h in c.hits:
        q = TAU / (TAU + ranks.get(h.node_id, len(ranks)))
        if h.end <= c.start or h.start >= c.end:  # a hit beside the span: evidence running into it
            d = tokens(c.doc_id, h.end, c.start) if h.end <= c.start else tokens(c.doc_id, c.end, h.start)
            mass += q * REACH * (math.exp(-d / REACH) - math.exp(-(d + size) / REACH))
            continue
        s, e = max(h.start, c.start), min(h.end, c.end)
        before = tokens(c.doc_id, c.start, s) if s > c.start else 0
        after = tokens(c.doc_id, e, c.end) if e < c.end else 0
        inner = tokens(c.doc_id, s, e) if e > s else 0
        mass += q * (inner + REACH * (1 - math.exp(-before / REACH)) + REACH * (1 - math.exp(-after / REACH)))
    return min(float(size), mass)


def per_token(c: Candidate, ranks: dict[str, int], tokens: SpanTokens) -> float:
    size = tokens(c.doc_id, c.start, c.end)
    return expected(c, ranks, tokens) / size if size > 0 else 0.0
