"""Assembly: pack candidate spans into contexts within a token budget.

Candidates are taken best first. A candidate that overlaps, touches, or is separated only by
whitespace from spans already chosen in its document is merged with them, so no character is ever returned twice; its cost is the
growth in tokens of the merged span. A candidate that does not fit is replaced by its
fallbacks; one that would open a context beyond ``top`` is skipped. Tokens are counted on
the final spans, so the returned contexts never exceed the budget together.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..model import Context, Hit
from .base import Candidate, TreeSource

#: Tokens in a piece of text (the budget's unit).
TokenCount = Callable[[str], int]


@dataclass
class _Span:
    start: int
    end: int
    tokens: int
    best: Candidate
    hits: dict[str, Hit] = field(default_factory=dict)


def assemble(candidates: Iterable[Candidate], trees: TreeSource, budget: int, count: TokenCount,
             top: int | None = None) -> list[Context]:
    """Contexts best first, at most ``top`` of them, with at most ``budget`` tokens in all."""
    chosen: dict[str, list[_Span]] = {}
    used = 0
    n_contexts = 0

    def place(c: Candidate) -> None:
        nonlocal used, n_contexts
        spans = chosen.setdefault(c.doc_id, [])
        text = trees.tree(c.doc_id).document.text
        touching = [s for s in spans if _near(s.start, s.end, c.start, c.end, text)]
        if not touching and top is not None and n_contexts >= top:
            for f in c.fallback:
                place(f)
            return
        start = min([c.start, *(s.start for s in touching)])
        end = max([c.end, *(s.end for s in touching)])
        tokens = count(text[start:end])
        cost = tokens - sum(s.tokens for s in touching)
        if used + cost > budget:
            for f in c.fallback:
                place(f)
            return
        merged = _Span(start, end, tokens, c)
        for s in touching:
            spans.remove(s)
            merged.hits.update(s.hits)
            if s.best.score > merged.best.score:
                merged.best = s.best
        for h in c.hits:
            old = merged.hits.get(h.node_id)
            if old is None or h.score > old.score:
                merged.hits[h.node_id] = h
        spans.append(merged)
        used += cost
        n_contexts += 1 - len(touching)

    for cand in sorted(candidates, key=lambda c: -c.score):
        if used >= budget:
            break
        place(cand)

    out = []
    for doc_id, spans in chosen.items():
        if not spans:
            continue
        document = trees.tree(doc_id).document
        for s in spans:
            b = s.best
            hits = sorted(s.hits.values(), key=lambda h: (h.start, h.end))
            out.append(Context(
                doc_id=doc_id, source=document.source, start=s.start, end=s.end,
                text=document.text[s.start:s.end], score=b.score, section_path=b.section_path,
                level=b.level, kind=b.kind, hits=tuple((h.start, h.end, h.score) for h in hits),
                rule=b.rule,
            ))
    out.sort(key=lambda ctx: (-ctx.score, ctx.doc_id, ctx.start))
    return out


def _near(a_start: int, a_end: int, b_start: int, b_end: int, text: str) -> bool:
    """Overlapping, touching, or separated by whitespace only (then one context reads better)."""
    if a_start <= b_end and b_start <= a_end:
        return True
    gap = text[a_end:b_start] if a_end < b_start else text[b_end:a_start]
    return not gap.strip()
