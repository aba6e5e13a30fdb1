"""Assembly: pack candidate spans into contexts within a token budget.

Candidates are taken best first. A candidate that overlaps, touches, or is separated only by
whitespace from spans already chosen in its document is merged with them, so no character is ever returned twice; its cost is the
growth in tokens of the merged span. A candidate that does not fit is replaced by its
fallbacks; one that would open a context beyond ``top`` is skipped. Tokens are counted on
the final spans, so the returned contexts never exceed the budget together.

Options (keyword-only, off by default so the plain packing above stays as it is):
``fill=True`` spends what is left of the budget on the best candidate that did not fit, cut to
whole sentences around its best hit (to words when not even one sentence fits, never mid-word);
``order="document"`` returns the contexts of each document in text order (documents by their
best score); ``explain=True`` makes each context's ``rule`` name every rule merged into it.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from ..errors import ConfigError
from ..model import Context, Hit
from ..text.sentences import sentence_spans
from .base import Candidate, TreeSource

#: Tokens in a piece of text (the budget's unit).
TokenCount = Callable[[str], int]
#: Tokens in ``[start, end)`` of a document: ``sizes(doc_id, start, end)``.
SpanCount = Callable[[str, int, int], int]


@dataclass
class _Span:
    start: int
    end: int
    tokens: int
    best: Candidate
    hits: dict[str, Hit] = field(default_factory=dict)
    #: Rules of every candidate merged into this span, in the order they were placed.
    rules: list[str] = field(default_factory=list)


ORDERS = ("score", "document")
_VISIBLE = re.compile(r"\S")


def assemble(candidates: Iterable[Candidate], trees: TreeSource, budget: int, count: TokenCount,
             top: int | None = None, *, fill: bool = False, order: str = "score",
             explain: bool = False, sizes: SpanCount | None = None) -> list[Context]:
    """Contexts best first, at most ``top`` of them, with at most ``budget`` tokens in all.

    ``sizes(doc_id, start, end)``, when given, sizes spans instead of ``count`` on their text
    (a per-document token measure: the document is tokenized once, not every candidate).
    """
    if order not in ORDERS:
        raise ConfigError(f"assembly order {order!r} is not allowed; choose one of: {', '.join(ORDERS)}")
    chosen: dict[str, list[_Span]] = {}
    used = 0
    n_contexts = 0
    #: Candidates (with no fallback left) that did not fit the budget, best first: cut to fill.
    left_out: list[Candidate] = []

    def plan(c: Candidate) -> tuple[list[_Span], int, int, int, int] | None:
        """Where ``c`` would go: (spans it merges with, start, end, tokens, cost); None: no room."""
        spans = chosen.setdefault(c.doc_id, [])
        if not spans and top is not None and n_contexts >= top:
            return None  # nothing to merge with and no room for another context: no tree needed
        text = trees.tree(c.doc_id).document.text
        touching = [s for s in spans if _near(s.start, s.end, c.start, c.end, text)]
        if not touching and top is not None and n_contexts >= top:
            return None
        start = min([c.start, *(s.start for s in touching)])
        end = max([c.end, *(s.end for s in touching)])
        tokens = count(text[start:end]) if sizes is None else sizes(c.doc_id, start, end)
        return touching, start, end, tokens, tokens - sum(s.tokens for s in touching)

    def commit(c: Candidate, touching: list[_Span], start: int, end: int, tokens: int, cost: int) -> None:
        nonlocal used, n_contexts
        spans = chosen[c.doc_id]
        merged = _Span(start, end, tokens, c)
        for s in touching:
            spans.remove(s)
            merged.hits.update(s.hits)
            merged.rules.extend(s.rules)
            if s.best.score > merged.best.score:
                merged.best = s.best
        for h in c.hits:
            old = merged.hits.get(h.node_id)
            if old is None or h.score > old.score:
                merged.hits[h.node_id] = h
        merged.rules.append(c.rule)
        spans.append(merged)
        used += cost
        n_contexts += 1 - len(touching)

    def place(c: Candidate) -> bool:
        """Place ``c``, else its fallbacks; True when anything was placed."""
        where = plan(c)
        if where is not None and used + where[4] <= budget:
            commit(c, *where)
            return True
        placed = False
        for f in c.fallback:
            placed = place(f) or placed
        return placed

    for cand in sorted(candidates, key=lambda c: -c.score):
        if used >= budget:
            break
        if not place(cand) and fill and plan(cand) is not None:
            left_out.append(cand)  # too big even as its fallbacks: a piece of it may still fit

    if fill:
        for cand in left_out:
            if used >= budget:
                break
            piece = _cut_to_fit(cand, trees.tree(cand.doc_id).document.text, chosen.get(cand.doc_id, []),
                                lambda p: _fits(plan(p), used, budget))
            if piece is not None:
                commit(piece, *plan(piece))  # type: ignore[misc]

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
                rule=_explained(b.rule, s.rules) if explain else b.rule, metadata=document.metadata,
            ))
    out.sort(key=lambda ctx: (-ctx.score, ctx.doc_id, ctx.start))
    if order == "document":
        best = {}
        for ctx in out:
            best.setdefault(ctx.doc_id, len(best))
        out.sort(key=lambda ctx: (best[ctx.doc_id], ctx.start))
    return out


def _explained(best: str, rules: list[str]) -> str:
    """The best candidate's rule, then the others merged into the same context (counted)."""
    others: dict[str, int] = {}
    skipped = False
    for r in rules:
        if r == best and not skipped:
            skipped = True
            continue
        others[r] = others.get(r, 0) + 1
    if not others:
        return best
    merged = ", ".join(r if n == 1 else f"{r} ×{n}" for r, n in others.items())
    return f"{best}; merged with {merged}"


def _fits(where: tuple[list[_Span], int, int, int, int] | None, used: int, budget: int) -> bool:
    return where is not None and used + where[4] <= budget


def _cut_to_fit(c: Candidate, text: str, spans: list[_Span], fits: Callable[[Candidate], bool]) -> Candidate | None:
    """The largest piece of ``c`` around its best hit that ``fits``: whole sentences, else words.

    The piece stays inside the gap between already chosen spans that holds the hit, so it never
    repeats text; it grows one sentence at a time, after the hit first, then before it.
    """
    anchor = max(c.hits, key=lambda h: h.score) if c.hits else None
    a_start, a_end = (anchor.start, anchor.end) if anchor is not None else (c.start, c.end)
    gaps, pos = [], c.start
    for s in sorted(spans, key=lambda s: s.start):
        if s.start > pos:
            gaps.append((pos, min(s.start, c.end)))
        pos = max(pos, s.end)
    if pos < c.end:
        gaps.append((pos, c.end))
    gaps = [(a, b) for a, b in gaps if a < b]
    if not gaps:
        return None
    # the free gap holding the anchor, else the first one after it, else the last one before it
    lo, hi = next((g for g in gaps if g[0] <= a_start < g[1]), None) or next(
        (g for g in gaps if g[0] >= a_start), gaps[-1])
    a_start, a_end = min(max(a_start, lo), hi), max(min(a_end, hi), lo)
    sentences = sentence_spans(text, lo, hi)
    if not sentences:
        return None
    # the sentences holding the anchor, or the one after it
    core = [k for k, (s, e) in enumerate(sentences) if s < a_end and e > a_start] or \
        [next((k for k, (s, _) in enumerate(sentences) if s >= a_start), len(sentences) - 1)]
    i, j = core[0], core[-1]

    def piece(s: int, e: int) -> Candidate:
        return Candidate(c.doc_id, s, e, c.score, tuple(h for h in c.hits if s <= h.start and h.end <= e),
                         c.section_path, c.level, c.kind, f"{c.rule}, cut to fit")

    best = piece(sentences[i][0], sentences[j][1])
    if not fits(best):
        return _words(text, sentences[i][0], sentences[j][1], fits, piece)
    grow_after = True
    while True:
        grown = None
        for after in ((True, False) if grow_after else (False, True)):
            if after and j + 1 < len(sentences):
                trial = piece(sentences[i][0], sentences[j + 1][1])
                if fits(trial):
                    grown, j = trial, j + 1
                    break
            if not after and i > 0:
                trial = piece(sentences[i - 1][0], sentences[j][1])
                if fits(trial):
                    grown, i = trial, i - 1
                    break
        if grown is None:
            return best
        best, grow_after = grown, not grow_after


def _words(text: str, start: int, end: int, fits: Callable[[Candidate], bool],
           piece: Callable[[int, int], Candidate]) -> Candidate | None:
    """The longest run of whole words from ``start`` that fits (binary search on word ends)."""
    ends = [m for m in range(start + 1, end + 1) if m == end or (text[m].isspace() and not text[m - 1].isspace())]
    lo, hi, found = 0, len(ends) - 1, None
    while lo <= hi:
        mid = (lo + hi) // 2
        trial = piece(start, ends[mid])
        if fits(trial):
            found, lo = trial, mid + 1
        else:
            hi = mid - 1
    return found


def _near(a_start: int, a_end: int, b_start: int, b_end: int, text: str) -> bool:
    """Overlapping, touching, or separated by whitespace only (then one context reads better)."""
    if a_start <= b_end and b_start <= a_end:
        return True
    lo, hi = (a_end, b_start) if a_end < b_start else (b_end, a_start)
    return _VISIBLE.search(text, lo, hi) is None  # stops at the first visible character of the gap
