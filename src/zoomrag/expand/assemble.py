"""Assembly: pack candidate spans into contexts within a token budget.

Candidates are taken best first. Each is first given a readable shape
(:mod:`zoomrag.expand.bounds`): widened to sentence boundaries (line boundaries in tables,
lists and code) and, when shorter than 15 words, grown by whole sentences; in prose, given its
hits, it leaves out a glance into the next section, the tail of the section before and lines of
bare markup at its edges (:func:`~.docview.context_edges`). A candidate that overlaps, touches,
or is separated only by whitespace from spans already chosen in its document is merged with
them, so no character is ever returned twice; its cost is the growth in tokens of the merged
span. A candidate is tried first with the example its kept lead-in leads to, or from the marker
of the list item it starts in; one that does not fit is replaced by its fallbacks; one that would open a context beyond
``top`` is skipped (``top`` counts contexts as returned: the spans inside one table are one
context); one whose text another document already gave is skipped (the same file twice is
returned once, naming the other in ``Context.copies``). A near copy is returned: a clause that
differs from another contract's in one name differs where it matters. Tokens are counted on
the final spans, so the returned contexts never exceed the budget together. Code that opens
with another definition's last lines (none of its hits) starts after them. A context inside a table
carries the table's header row as a second span (charged once per table). From what the budget
has left, a context from inside a function, method or class takes its signature
(:mod:`zoomrag.expand.heads`; from the comment above a C declaration, the declaration after it), one holding a footnote the sentence that cites it, one citing a
note the note (:mod:`zoomrag.expand.footnotes`), and one opening on a sentence that leans on
the one before ("But…") that sentence.

Assembly stops short of the budget when what is left is not worth it: a candidate whose
expected evidence per token (:mod:`zoomrag.expand.evidence`) is below ``stop`` times the best
placed one's is skipped, for every policy and for ``fill``.

Options (keyword-only): ``fill=True`` spends what is left of the budget on the best candidate
that did not fit, cut to whole sentences around its best hit (to words when not even one
sentence fits, never mid-word); ``order="document"`` returns the contexts of each document in
text order (documents by their best score); ``explain=True`` makes each context's ``rule``
name every rule merged into it, and the last context's rule say why assembly stopped.
"""

from __future__ import annotations

import dataclasses
import re
from bisect import bisect_left
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field

from ..errors import ConfigError
from ..load.base import is_paged
from ..load.spans import skip_space, trim_end
from ..model import CODE_KINDS, Context, Hit, best_anchor, shown_metadata
from .base import Candidate, TreeSource
from .bounds import (
    AFTER_REACH,
    ITEM_REACH,
    MIN_WORDS,
    grow,
    has_words,
    item_after,
    item_lines,
    item_start,
    lead_start,
    lean_start,
    snap,
    word_count,
)
from .cutting import cut_to_fit
from .docview import (
    DocView,
    context_edges,
    doc_view,
    heading_start,
    headings_in,
    in_code,
    led_end,
    section_edges,
    section_holding,
    small_section,
    table_of,
    table_read_under,
    turn_lead,
    worded_section,
)
from .evidence import hit_ranks, per_token
from .heads import declared_after, enclosing, enclosing_head, head_cut, head_span
from .innermost import innermost
from .pertree import bounded

#: Tokens in a piece of text (the budget's unit).
TokenCount = Callable[[str], int]
#: Tokens in ``[start, end)`` of a document: ``sizes(doc_id, start, end)``.
SpanCount = Callable[[str, int, int], int]

#: A context of code under 15 words that ends with the next definition's signature takes that
#: definition when it is at most this long (characters); else it stays as it is.
NEXT_DEFINITION = 600
#: A candidate below this share of the best placed candidate's expected evidence per token is
#: not worth its tokens (docs/expansion.md, "Assembly").
STOP = 0.1
#: Node kinds and document formats whose contexts start and end at line boundaries.
LINE_KINDS = frozenset({"table", "header", "row", "cell", "column", "code", "list", "function",
                        "method", "class"})
#: Node kinds read as one piece: two contexts inside one such node become one (the text between
#: them filled) when the budget has room for it.
WHOLE_KINDS = frozenset({"function", "method", "class", "code", "paragraph"})


@dataclass
class _Span:
    start: int
    end: int
    tokens: int
    best: Candidate
    hits: dict[str, Hit] = field(default_factory=dict)
    #: Rules of every candidate merged into this span, in the order they were placed.
    rules: list[str] = field(default_factory=list)
    #: Its text with whitespace runs as single spaces (to find the same text in another file).
    flat: str = ""
    #: :func:`_head` of its text (kept: every later candidate of another file looks for it).
    head: str = ""
    #: Exact spans returned with it that it does not touch: its definition's signature, a footnote,
    #: or the sentence citing one.
    companions: list[tuple[int, int]] = field(default_factory=list)
    #: Other documents whose copy of its text was left out for it.
    copies: list[str] = field(default_factory=list)


ORDERS = ("score", "document")
#: How far into a span :func:`_head` looks for a line long enough to find it by.
_HEAD_LOOK = 400
_VISIBLE = re.compile(r"\S")


def _context_key(doc: DocView, start: int, end: int) -> object:
    """Which returned context the span ``[start, end)`` is part of: every span inside one table
    is one context (under the table's header row); any other span is a context of its own.
    ``top`` counts these, so it counts contexts as they are returned."""
    table = table_read_under(doc, start, end)
    return table if table is not None else ("span", start)


def _flat(text: str) -> str:
    return " ".join(text.split())


def _head(text: str, start: int, end: int) -> str:
    """A line of ``text[start:end]`` to find the same text elsewhere quickly: the first of 20
    characters or more among its first lines (a short title such as ``#### `workspaces``` says
    too little), up to 60 of them; "" when there is none."""
    s = start
    limit = min(end, start + _HEAD_LOOK)
    while s < limit:
        nl = text.find("\n", s, end)
        line_end = end if nl < 0 else nl
        head = text[s:min(line_end, s + 60)].strip()
        if len(head) >= 20:
            return head
        s = line_end + 1
    return ""


def assemble(candidates: Iterable[Candidate], trees: TreeSource, budget: int, count: TokenCount,
             top: int | None = None, *, fill: bool = False, order: str = "score",
             explain: bool = False, sizes: SpanCount | None = None, stop: float = STOP,
             shape: bool = True, words: tuple[str, ...] = ()) -> list[Context]:
    """Contexts best first, at most ``top`` of them, with at most ``budget`` tokens in all.

    ``sizes(doc_id, start, end)``, when given, sizes spans instead of ``count`` on their text
    (a per-document token measure: the document is tokenized once, not every candidate).
    ``stop`` (0 to spend the whole budget) is the evidence-per-token floor, relative to the best.
    ``shape=False`` packs the spans as the policy gave them (no widening to boundaries, no
    minimum size): the packing alone, for tests and for callers that shape spans themselves.
    ``words``: the question's BM25 terms (:func:`zoomrag.store.fts.query_terms`), which keep a
    lead-in that holds one the rest of its context lacks.
    """
    reshape = shape
    if order not in ORDERS:
        raise ConfigError(f"assembly order {order!r} is not allowed; choose one of: {', '.join(ORDERS)}")
    if not 0 <= stop < 1:
        raise ConfigError(f"assembly stop={stop!r} is out of range; use 0 (fill the budget) up to below 1")
    candidates = sorted(candidates, key=lambda c: -c.score)
    chosen: dict[str, list[_Span]] = {}
    docs: dict[str, DocView] = {}
    #: Tables (doc_id, table start) whose header row is already paid for.
    headed: set[tuple[str, int]] = set()
    used = 0
    n_contexts = 0
    #: Candidates (with no fallback left) that did not fit the budget, best first: cut to fill.
    left_out: list[Candidate] = []
    ranks = hit_ranks(candidates)
    best_e = 0.0
    #: Why assembly stopped: the first candidate turned away by the stop rule, else None.
    floored: list[tuple[Candidate, float]] = []

    def doc(doc_id: str) -> DocView:
        d = docs.get(doc_id)
        if d is None:
            d = docs[doc_id] = doc_view(trees, doc_id)
        return d

    def tokens(doc_id: str, start: int, end: int) -> int:
        return count(doc(doc_id).text[start:end]) if sizes is None else sizes(doc_id, start, end)

    def lines_for(c: Candidate) -> bool:
        d = doc(c.doc_id)
        return d.lines or c.kind in LINE_KINDS or table_of(d, c.start, c.end) is not None

    def shaped(c: Candidate) -> Candidate:
        """``c`` widened to boundaries and grown to at least MIN_WORDS words."""
        if not reshape:
            return c
        # a candidate that did not fit is shaped again by fill, its fallbacks often share its
        # edges, and other calls ask about the same spans: the shape is kept with the document
        shapes = doc(c.doc_id).shapes
        key = (c.start, c.end, c.kind, c.whole)
        got = shapes.get(key)
        if got is None:
            got = bounded(shapes)[key] = _shape(c)
        s, e = got
        d = doc(c.doc_id)
        if c.whole:  # its edges are the definition's or entry's own
            return c if (s, e) == (c.start, c.end) else dataclasses.replace(c, start=s, end=e)
        if d.definitions:
            e = _before_next_head(c, s, e)
            s = _after_previous_tail(c, s, e)
        # the edges depend on the hits: kept by the hits' spans and scores; a document of lines
        # has none to move but its sections' (a configuration file's keys)
        if not d.lines or d.sections:
            lines = lines_for(c)
            edge_key = (s, e, lines, tuple((h.start, h.end, h.score) for h in c.hits), words)
            edges = d.edges.get(edge_key)
            if edges is None:
                edges = bounded(d.edges)[edge_key] = (section_edges(d, s, e, c.hits) if lines else
                                                      context_edges(d, s, e, c.hits, words))
            s, e = edges
        if (s, e) == (c.start, c.end):
            return c
        return dataclasses.replace(c, start=s, end=e)

    def _before_next_head(c: Candidate, s: int, e: int) -> int:
        """``e``, or for code that ends with the next definition's signature and none of its
        body: the end of the code before it; when that is under 15 words (a fragment), the end of
        that definition if it is short (a few lines cost little of a small budget), else ``e``.
        Code whose hits run into the signature it ends inside takes the rest of the signature
        (``SQLITE_API int sqlite3_prepare(`` is no place to stop) when that is short."""
        tree = trees.tree(c.doc_id)
        cut = head_cut(tree, s, e)
        if cut is None or cut <= s:
            return e
        if any(h.end > cut for h in c.hits):
            box = enclosing(tree, cut, cut + 1)
            head_end = head_span(tree, box)[1] if box is not None else e
            return head_end if e < head_end <= e + NEXT_DEFINITION else e
        text = doc(c.doc_id).text
        before = trim_end(text, s, cut)
        if has_words(text, s, before):
            return before
        after = enclosing(tree, cut, cut + 1)
        return trim_end(text, s, after[1]) if after is not None and after[1] - cut <= NEXT_DEFINITION else e

    def _after_previous_tail(c: Candidate, s: int, e: int) -> int:
        """``s``, or for code that opens with the last lines of a definition (none of its head,
        none of the hits) and goes on past its end: where the code after it starts, when that
        holds 15 words; a reader was handed ``return {buf.out(), buf.count()}; }`` under the
        signature of a function the question was not about."""
        tree = trees.tree(c.doc_id)
        box = enclosing(tree, s, s + 1)
        if box is None or not s < box[1] < e or any(h.start < box[1] for h in c.hits) \
                or enclosing_head(tree, s) is None:
            return s
        text = doc(c.doc_id).text
        after = skip_space(text, box[1], e)
        return after if has_words(text, after, e) else s

    def _shape(c: Candidate) -> tuple[int, int]:
        d = doc(c.doc_id)
        lines = lines_for(c)
        s, e = snap(d.text, c.start, c.end, lines)
        if c.whole:  # a definition or entry asked for by name: complete, however short
            return s, e
        if d.tiny or has_words(d.text, s, e):
            small = None
        elif d.lines and d.sections:
            small = worded_section(d, s, e)
        else:
            small = None if lines else small_section(d, s, e)
        if small is not None:  # a heading, a line and an example: the entry they belong to
            s, e = small
        elif not d.tiny and not has_words(d.text, s, e):  # a document under 15 words may be cut
            # code grows inside its function first: the next definition's first line is no end;
            # prose, a table or a list inside its section: the next section's title is none either
            box = enclosing(trees.tree(c.doc_id), s, e) if lines and d.definitions else \
                section_holding(d, s, e, len(d.text))
            if box is not None:
                s, e = grow(d.text, s, e, lines, within=box)
            # a table or list with the whole of its section (a slide: its title, a table) says
            # what it is; grown further it would take in the next section's lines
            whole = box is not None and lines and not d.lines and s <= box[0] and e >= trim_end(d.text, *box)
            if not has_words(d.text, s, e) and not whole:
                s, e = grow(d.text, s, e, lines)
            if lines and not d.lines:
                # grown past a code block, list or table into the prose around it: whole
                # sentences there, not lines of a hard-wrapped paragraph
                if e > c.end:
                    e = snap(d.text, e - 1, e)[1]
                if s < c.start:
                    s = snap(d.text, s, s + 1)[0]
        table = table_of(d, s, e) or table_of(d, c.start, c.end)
        if table is not None and table[0] < s <= table[2]:
            s = table[0]  # a context that reaches into the header row starts with all of it
            if e <= table[2] < table[1]:  # the header alone says nothing: rows follow it
                e = max(e, *grow(d.text, table[2], table[2], True,
                                 MIN_WORDS + word_count(d.text, table[0], table[2]))[1:])
        return s, e

    def itemised(c: Candidate) -> Candidate:
        """``c`` (shaped) from the marker of the list item (or footnote) it starts inside, when
        it starts past one: preferred, and given up for ``c`` when it does not fit."""
        if not reshape or c.kind in CODE_KINDS:
            return c
        d = doc(c.doc_id)
        if d.lines or table_of(d, c.start, c.end) is not None:
            return c
        s = item_start(d.text, c.start)
        if s == c.start and d.notes.notes:
            s = d.notes.note_start(c.start, ITEM_REACH)
        return c if s == c.start else dataclasses.replace(c, start=s)

    def past_item(c: Candidate) -> Candidate:
        """``c`` (shaped) from where the list item it starts inside ends, when its hits all lie
        after that: the tail of an item reads as a fragment without its marker."""
        if not reshape or c.kind in CODE_KINDS:
            return c
        d = doc(c.doc_id)
        if d.lines or table_of(d, c.start, c.end) is not None:
            return c
        if d.items is None:
            d.items = item_lines(d.text)
        k = bisect_left(d.items, c.start)
        if not k or d.items[k - 1] < c.start - AFTER_REACH:
            return c  # no list item begins within reach before it: not inside one
        s = item_after(d.text, c.start, c.end)
        if s == c.start or any(h.start < s for h in c.hits) or not has_words(d.text, s, c.end):
            return c
        return dataclasses.replace(c, start=s)

    def plan(c: Candidate, room: int | None = None) -> tuple[list[_Span], int, int, int, int, int] | None:
        """Where ``c`` would go: (spans it merges with, start, end, tokens, cost, contexts after
        it); None: no room for its tokens (with ``room``, when it costs more than that) or, past
        ``top``, for another context."""
        spans = chosen.setdefault(c.doc_id, [])
        if not spans and top is not None and n_contexts >= top:
            return None  # nothing to merge with and no room for another context: no tree needed
        d = doc(c.doc_id)
        if spans:
            # _near for every span at once: a span touches c when it reaches the whitespace around c
            lo, hi = _reach(d.text, c.start, c.end)
            touching = [s for s in spans if s.start <= hi and s.end >= lo]
        else:
            touching = []
        if touching:
            start = min(c.start, min(s.start for s in touching))
            end = max(c.end, max(s.end for s in touching))
        else:
            start, end = c.start, c.end
        if d.tables:  # a span inside a table that already has a context joins that context
            before = {_context_key(d, s.start, s.end) for s in spans}
            after = {_context_key(d, s.start, s.end) for s in spans if all(s is not t for t in touching)}
            after.add(_context_key(d, start, end))
            contexts = n_contexts - len(before) + len(after)
        else:  # every span is a context of its own
            contexts = n_contexts + 1 - len(touching)
        if top is not None and contexts > top:
            return None
        n = tokens(c.doc_id, start, end)
        cost = n - sum(s.tokens for s in touching)
        table = table_read_under(d, start, end) if d.tables else None
        if table is not None and (c.doc_id, table[0]) not in headed and start > table[2]:
            cost += tokens(c.doc_id, table[0], table[2])
        lead = speaker(d, start)
        if lead is not None and not any(lead in s.companions for s in touching):
            cost += tokens(c.doc_id, *lead)  # who speaks is paid for with what they said
        if room is not None and cost > room:
            return None
        # the look for repeats, the dearer test, only for what fits
        copied = _repeats(c, start, end)
        if copied is not None:
            if c.doc_id not in copied.copies:
                copied.copies.append(c.doc_id)
            return None
        return touching, start, end, n, cost, contexts

    def _repeats(c: Candidate, start: int, end: int) -> _Span | None:
        """The span of another file that already gave this text (or a context inside it); None
        when it is new."""
        doc_id = c.doc_id
        text = doc(doc_id).text
        head = None
        flat = None
        for other, spans in chosen.items():
            if other == doc_id or not spans:
                continue
            if head is None:
                head = _head(text, start, end)
            other_text = doc(other).text
            for s in spans:
                # cheap first: the first words of one found in the other, then the whole text
                if head and other_text.find(head, s.start, s.end) >= 0:
                    flat = flat if flat is not None else _flat(text[start:end])
                    if flat in s.flat:
                        return s
                s_head = s.head
                if s_head and text.find(s_head, start, end) >= 0:
                    flat = flat if flat is not None else _flat(text[start:end])
                    if s.flat in flat:
                        return s
        return None

    def commit(c: Candidate, touching: list[_Span], start: int, end: int, tokens_: int, cost: int,
               contexts: int) -> _Span:
        nonlocal used, n_contexts
        spans = chosen[c.doc_id]
        d = doc(c.doc_id)
        merged = _Span(start, end, tokens_, c, flat=_flat(d.text[start:end]), head=_head(d.text, start, end))
        for s in touching:
            spans.remove(s)
            merged.hits.update(s.hits)
            merged.rules.extend(s.rules)
            merged.copies.extend(x for x in s.copies if x not in merged.copies)
            if s.best.score > merged.best.score:
                merged.best = s.best
        for h in c.hits:
            old = merged.hits.get(h.node_id)
            if old is None or h.score > old.score:
                merged.hits[h.node_id] = h
        merged.rules.append(c.rule)
        for s in touching:  # a turn's lead the merged span now holds is paid for once
            for piece in s.companions:
                if piece[1] <= start or piece[0] >= end:
                    merged.companions.append(piece)
                else:
                    cost -= tokens(c.doc_id, *piece)
        lead = speaker(d, start)
        if lead is not None and lead not in merged.companions:
            merged.companions.append(lead)
            merged.rules.append(_SPEAKER)
        spans.append(merged)
        table = table_read_under(d, start, end)
        if table is not None:
            headed.add((c.doc_id, table[0]))
        used += cost
        n_contexts = contexts
        return merged

    def speaker(d: DocView, start: int) -> tuple[int, int] | None:
        """The lead (time and speaker) of the conversation's turn a span starting at ``start``
        lies inside of, which it carries."""
        return turn_lead(d, start) if reshape and d.turns else None

    def worth(c: Candidate) -> bool:
        """The stop rule: False when ``c`` holds too little expected evidence per token."""
        nonlocal best_e
        if stop == 0:
            return True
        e = per_token(c, ranks, tokens)
        if best_e and e < stop * best_e:
            if not floored:
                floored.append((c, e))
            return False
        best_e = max(best_e, e)
        return True

    def led(c: Candidate) -> Candidate:
        """``c`` (shaped) with the block its last sentence leads to, when a hit kept that lead-in
        ("…defaults to two:" over its example): preferred, and given up for ``c`` when it does
        not fit."""
        if not reshape or lines_for(c):
            return c
        end = led_end(doc(c.doc_id).text, c.start, c.end)
        return c if end == c.end else dataclasses.replace(c, end=end)

    def place(c: Candidate) -> bool:
        """Place ``c`` (shaped), else its fallbacks; True when anything was placed."""
        c = shaped(c)
        room = budget - used
        where, said = None, None
        for preferred, rule in ((led, _LED_TO), (itemised, None), (past_item, None)):
            w = preferred(c)  # one at a time: the first that fits is taken
            where = plan(w, room) if w is not c else None
            if where is not None:
                said = rule
                break
        if where is None:
            w, where = c, plan(c, room)
        if where is not None and worth(c):
            merged = commit(w, *where)
            if said is not None:  # --explain names the widening, as finish_edges' do
                merged.rules.append(said)
            return True
        placed = False
        for f in c.fallback:
            placed = place(f) or placed
        return placed

    def close_gaps() -> None:
        """Join two spans of one document when the text between them lies in one
        :data:`WHOLE_KINDS` node (two pieces of one function, of one paragraph) or is only
        whitespace (a span widened up to the next one), and fits what is left."""
        nonlocal used, n_contexts
        for doc_id, spans in chosen.items():
            if len(spans) < 2:
                continue
            d = doc(doc_id)
            spans.sort(key=lambda s: s.start)
            i = 0
            while i + 1 < len(spans):
                a, b = spans[i], spans[i + 1]
                if (table_of(d, a.start, a.end) is None and table_of(d, b.start, b.end) is None
                        and (not d.text[a.end:b.start].strip() or _whole_node(trees, doc_id, a.end, b.start))):
                    n = tokens(doc_id, a.start, b.end)
                    cost = n - a.tokens - b.tokens
                    if used + cost <= budget:
                        joined = _Span(a.start, b.end, n, a.best if a.best.score >= b.best.score else b.best,
                                       {**a.hits, **b.hits}, [*a.rules, *b.rules, _GAP_FILLED],
                                       flat=_flat(d.text[a.start:b.end]), head=a.head,
                                       copies=[*a.copies, *(x for x in b.copies if x not in a.copies)])
                        spans[i:i + 2] = [joined]
                        used += cost
                        n_contexts -= 1
                        continue
                i += 1

    def finish_edges() -> None:
        """From what the budget has left, best spans first: a span that ends with a lead-in
        ("…as follows:") takes the block it leads to (the example, the list), one that opens with
        such a block takes the lead-in above it, one that starts a little way into a section
        starts at its heading (in a configuration file too: at its key), and one that opens with
        a sentence leaning on the one before ("But…", "This…") takes that sentence. Only then, and only where no other span holds
        that text: neither holds a hit, and every candidate with hits comes first."""
        order = sorted(((sp.best.score, doc_id, i) for doc_id, spans in chosen.items()
                        for i, sp in enumerate(spans)), key=lambda t: -t[0])
        for _, doc_id, i in order:
            d = doc(doc_id)
            sp = chosen[doc_id][i]
            if d.lines and d.sections:  # a configuration file: from the key it starts under
                widen(doc_id, i, heading_start(d, sp.start), sp.end, _HEADED)
            elif not d.lines and table_of(d, sp.start, sp.end) is None:
                widen(doc_id, i, sp.start, led_end(d.text, sp.start, sp.end), _LED_TO)
                sp = chosen[doc_id][i]
                widen(doc_id, i, lead_start(d.text, sp.start), sp.end, _LEADS_IN)
                sp = chosen[doc_id][i]
                widen(doc_id, i, heading_start(d, sp.start), sp.end, _HEADED)
                for _ in range(LEAN_STEPS):  # "But" after "Also" after "It": back to where it stands
                    sp = chosen[doc_id][i]
                    begin = lean_start(d.text, sp.start)
                    if begin == sp.start or headings_in(d, begin - 1, sp.start) or in_code(d, begin):
                        break
                    widen(doc_id, i, begin, sp.end, _LEANS_ON)
                    if chosen[doc_id][i] is sp:
                        break

    def widen(doc_id: str, i: int, start: int, end: int, rule: str) -> None:
        """Span ``i`` of ``doc_id`` as ``[start, end)`` when that is new, fits what is left and
        takes no other span's text."""
        nonlocal used
        spans = chosen[doc_id]
        sp = spans[i]
        if used >= budget or (start, end) == (sp.start, sp.end):
            return
        if any(o.start < end and o.end > start for o in spans if o is not sp):
            return
        n = tokens(doc_id, start, end)
        if used + n - sp.tokens <= budget:
            used += n - sp.tokens
            text = doc(doc_id).text
            spans[i] = dataclasses.replace(sp, start=start, end=end, tokens=n, rules=[*sp.rules, rule],
                                           flat=_flat(text[start:end]), head=_head(text, start, end))

    def add_companions() -> None:
        """From what the budget has left, best spans first: a span from inside a function, method
        or class takes its signature (from the comment above a C declaration, the declaration
        after it); a span from inside a turn of a conversation takes its time
        and speaker; a span holding a footnote takes the sentence that cites it,
        and a span citing a footnote takes the note; a span naming a type its schema defines (or
        a ``$ref``) takes that definition; each where no other span holds that text (a piece
        beside its span widens it instead)."""
        nonlocal used
        order = sorted(((sp.best.score, doc_id, i) for doc_id, spans in chosen.items()
                        for i, sp in enumerate(spans)), key=lambda t: -t[0])
        for _, doc_id, i in order:
            d = doc(doc_id)
            sp = chosen[doc_id][i]
            wanted: list[tuple[tuple[int, int], str]] = []
            if d.definitions:
                tree = trees.tree(doc_id)
                head = enclosing_head(tree, sp.start) or declared_after(tree, sp.start, sp.end)
                if head is not None:
                    wanted.append((head, _DEF_HEAD))
            if d.turns and (lead := turn_lead(d, sp.start)) is not None:
                wanted.append((lead, _SPEAKER))
            if d.notes.notes:
                wanted += [(_citing(d, ref), _CITING) for label in d.notes.defined_in(sp.start, sp.end)
                           if (ref := d.notes.first_ref(label)) is not None
                           and not sp.start <= ref[0] < sp.end]
                wanted += [(d.notes.notes[label], _NOTE) for label in d.notes.cited_in(sp.start, sp.end)
                           if not sp.start <= d.notes.notes[label][0] < sp.end]
            if d.refs.targets:
                hit = max(sp.hits.values(), key=lambda h: h.score, default=None)
                wanted += [(target, _REFERRED) for target in d.refs.cited_in(
                    d.text, sp.start, sp.end, None if hit is None else (hit.start, hit.end))]
            for (s, e), rule in wanted:
                sp = chosen[doc_id][i]
                if used >= budget:
                    return
                near = _near(sp.start, sp.end, s, e, d.text)
                lo, hi = (min(s, sp.start), max(e, sp.end)) if near else (s, e)
                # no character twice: neither another span's text nor a piece carried already
                taken = [(o.start, o.end) for o in chosen[doc_id] if o is not sp] + \
                    [c for o in chosen[doc_id] for c in o.companions]
                if any(a < hi and b > lo for a, b in taken):
                    continue
                if near:
                    widen(doc_id, i, lo, hi, rule)
                    continue
                pieces = [(s, e)]
                table = table_of(d, s, e) if d.tables else None
                header_free = table is not None and not any(a < table[2] and b > table[0] for a, b in taken)
                if table is not None and header_free and s > table[2] and not sp.start <= table[0] < sp.end:
                    pieces.insert(0, (table[0], table[2]))  # a table's row reads under its header row
                n = sum(tokens(doc_id, a, b) for a, b in pieces)
                if used + n <= budget:
                    used += n
                    sp.companions.extend(pieces)
                    sp.rules.append(rule)

    def referred(c: Candidate) -> Candidate | None:
        """The definition a placed candidate of a schema or an API names nearest its best hit
        (:mod:`.references`), as a candidate placed right after it: what the field's type holds
        (an input's fields, an enum's values) answers more than the next-best match. Only for
        the first :data:`REFERRING` contexts, and a definition of at most :data:`REFERRED_SHARE`
        of the budget."""
        d = doc(c.doc_id)
        if not d.refs.targets or not c.hits:
            return None
        hit = max(c.hits, key=lambda h: h.score)
        taken = [(sp.start, sp.end) for sp in chosen.get(c.doc_id, [])]
        for s, e in d.refs.cited_in(d.text, c.start, c.end, (hit.start, hit.end)):
            if (s, e) in referred_to or any(a < e and b > s for a, b in taken):
                continue
            referred_to.add((s, e))
            if tokens(c.doc_id, s, e) > REFERRED_SHARE * budget:
                return None
            score = hit.score * 0.99  # ranked right under what refers to it
            return Candidate(c.doc_id, s, e, score, (dataclasses.replace(hit, start=s, end=e, score=score),),
                             section_path=d.refs.path_of((s, e)), kind="class", whole=True,
                             rule=f"the definition {' › '.join(c.section_path)} refers to" if c.section_path
                             else _REFERRED)
        return None

    pending = list(candidates)[::-1]  # a stack: a definition referred to goes on top
    referred_to: set[tuple[int, int]] = set()
    referring = 0
    while pending:
        cand = pending.pop()
        if used >= budget:
            break
        if place(cand):
            # a definition brought in brings no other: the reader follows one step
            if referring < REFERRING and (cand.start, cand.end) not in referred_to \
                    and (ref := referred(cand)) is not None:
                referring += 1
                pending.append(ref)
        elif fill and plan(shaped(cand)) is not None:
            left_out.append(cand)  # too big even as its fallbacks: a piece of it may still fit
    if reshape:
        close_gaps()

    if fill:
        for cand in left_out:
            if used >= budget:
                break
            d = doc(cand.doc_id)
            widened = shaped(cand)

            def fits(p: Candidate) -> bool:
                return plan(p, budget - used) is not None

            doc_id = cand.doc_id
            taken = [(sp.start, sp.end) for sp in chosen.get(doc_id, [])]
            piece = cut_to_fit(widened, d.text, taken, fits, lines_for(widened),
                               # a cut inside a sentence only when it is too long to ever fit whole
                               lambda s, e: not reshape or 2 * tokens(doc_id, s, e) > budget)
            if piece is None:
                continue
            table = table_of(d, piece.start, piece.end)
            if reshape and table is not None and piece.end <= table[2]:
                continue  # a table's header row alone says nothing
            small_ok = False
            if reshape and not d.tiny and not has_words(d.text, piece.start, piece.end):
                # a piece under 15 words grows to 15 when that fits; else it stands only when the
                # budget can never hold its 15-word form and nothing else was placed: a small
                # budget still gets its best piece, never an empty answer
                grown = shaped(piece)
                if fits(grown):
                    piece = grown
                else:
                    small_ok = used == 0 and tokens(doc_id, grown.start, grown.end) > budget
            cut = head_cut(trees.tree(doc_id), piece.start, piece.end) if reshape and d.definitions else None
            if cut is not None:  # it ends inside a signature: it ends before that definition instead
                end = trim_end(d.text, piece.start, cut)
                if not any(h.start < end for h in piece.hits):
                    continue
                piece = dataclasses.replace(piece, end=end, hits=tuple(h for h in piece.hits if h.start < end))
            where = plan(piece)
            big_enough = (not reshape or d.tiny or small_ok or has_words(d.text, where[1], where[2])
                          if where else False)
            if where is not None and big_enough and worth(dataclasses.replace(piece, hits=widened.hits)):
                if reshape and not d.tiny and small_ok and not has_words(d.text, where[1], where[2]):
                    piece = dataclasses.replace(piece, rule=piece.rule + _SMALL)
                commit(piece, *where)
        if reshape:
            close_gaps()
    if reshape:
        finish_edges()
        close_gaps()
        add_companions()

    out = []
    returned = {doc_id for doc_id, spans in chosen.items() if spans}
    for doc_id, spans in chosen.items():
        if not spans:
            continue
        document = trees.tree(doc_id).document
        d = doc(doc_id)
        groups: dict[object, list[_Span]] = {}
        for s in sorted(spans, key=lambda s: s.start):
            groups.setdefault(_context_key(d, s.start, s.end), []).append(s)
        for key, group in groups.items():
            out.append(_context(document, d, key, group, explain, returned))
    out.sort(key=lambda ctx: (-ctx.score, ctx.doc_id, ctx.start))
    if order == "document":
        best: dict[str, int] = {}
        for ctx in out:
            best.setdefault(ctx.doc_id, len(best))
        out.sort(key=lambda ctx: (best[ctx.doc_id], ctx.start))
    if explain and out:
        last = out[-1]
        out[-1] = dataclasses.replace(last, rule=f"{last.rule}; assembly: {_why(used, budget, floored, stop, best_e)}")
    return out


_GAP_FILLED = "the text between two pieces of one unit filled"
_LED_TO = "what its last sentence leads to"
_LEADS_IN = "the sentence leading to its first block"
_HEADED = "its section's heading"
_LEANS_ON = "the sentence its first one leans on"
_DEF_HEAD = "its definition's signature"
_SPEAKER = "its turn's time and speaker"
_NOTE = "the footnote it cites"
_CITING = "the sentence citing its footnote"
_REFERRED = "the definition it refers to"
#: How many of the best contexts bring the definition they refer to (:mod:`.references`) before
#: the next candidates, and the largest share of the budget such a definition may take.
REFERRING = 3
REFERRED_SHARE = 0.25
#: The most sentences a context opening on a leaning one takes back, one at a time.
LEAN_STEPS = 3


def _citing(d: DocView, ref: tuple[int, int]) -> tuple[int, int]:
    """The sentence holding a footnote reference (its line in a table, its item in a list)."""
    lines = d.lines or table_of(d, *ref) is not None
    s, e = snap(d.text, ref[0], ref[1], lines)
    return (s if lines else item_start(d.text, s)), e


def _whole_node(trees: TreeSource, doc_id: str, start: int, end: int) -> bool:
    """True when the smallest node below the document holding ``[start, end)`` is read whole
    (:data:`WHOLE_KINDS`)."""
    best = innermost(trees.tree(doc_id), start, end)
    return best is not None and best.kind in WHOLE_KINDS


def _why(used: int, budget: int, floored: list[tuple[Candidate, float]], stop: float, best_e: float) -> str:
    """Why assembly stopped where it did (shown by ``--explain`` under the last context)."""
    if floored:
        c, e = floored[0]
        return (f"stopped at {used}/{budget} tokens: the next candidate ({c.rule or 'unit'}) holds "
                f"{e:.2f} expected evidence per token, below {stop:g} × the best context's {best_e:.2f}")
    if used >= budget:
        return f"budget full ({used}/{budget} tokens)"
    return f"no more candidates that fit ({used}/{budget} tokens)"


def _context(document, d: DocView, key: object, group: list[_Span], explain: bool,
             returned: Collection[str] = ()) -> Context:
    """One context from the chosen spans of one table (with its header row), or one span."""
    best = max(group, key=lambda s: s.best.score)
    b = best.best
    hits = sorted((h for s in group for h in s.hits.values()), key=lambda h: (h.start, h.end))
    rules = [r for s in group for r in s.rules]
    parts = [(s.start, s.end) for s in group]
    rule = _explained(b.rule, rules) if explain else b.rule
    if isinstance(key, tuple) and len(key) == 3 and not isinstance(key[0], str):
        t_start, _, h_end = key
        if parts[0][0] > h_end:
            if _near(t_start, h_end, parts[0][0], parts[0][1], d.text):
                parts[0] = (t_start, parts[0][1])
            else:
                parts.insert(0, (t_start, h_end))
            rule = f"{rule}, with its table's header row"
    if explain:
        rule += _ranked(hits)
    extra = [c for s in group for c in s.companions]
    if extra:
        merged: list[tuple[int, int]] = []
        for s, e in sorted([*parts, *extra]):  # pieces only whitespace apart read as one
            if merged and _near(*merged[-1], s, e, d.text):
                merged[-1] = (merged[-1][0], max(merged[-1][1], e))
            else:
                merged.append((s, e))
        parts = merged
    text = d.text
    # A hit is shown where it lies inside the returned text: shaping may have trimmed a hit's
    # indentation or cut a long one, and a highlight outside the context points at nothing.
    shown = sorted({(max(h.start, s), min(h.end, e), h.score) for h in hits for s, e in parts
                    if max(h.start, s) < min(h.end, e)})
    return Context(
        doc_id=document.id, source=document.source, start=parts[0][0], end=parts[-1][1],
        text="\n".join(text[s:e] for s, e in parts) if len(parts) > 1 else text[parts[0][0]:parts[0][1]],
        score=b.score, section_path=b.section_path, level=b.level, kind=b.kind,
        hits=tuple(shown), rule=rule,
        spans=tuple(parts) if len(parts) > 1 else (), metadata=shown_metadata(document.metadata),
        anchor=best_anchor(document.metadata, shown, parts[0][0]),
        pages=page_span(text, parts[0][0], parts[-1][1], paged=is_paged(document.format)),
        # a document returned in a context of its own is no copy left out
        copies=tuple(x for x in dict.fromkeys([*(c for s in group for c in s.copies), *_copied_hits(text, hits)])
                     if x not in returned),
    )


def page_span(text: str, start: int, end: int, paged: bool = False) -> tuple[int, ...]:
    """``(first, last)`` page of ``[start, end)`` in a text whose pages are parted by form feeds,
    or ``()`` for a text without any (unless ``paged``: a PDF of one page, a deck of one slide)."""
    if not paged and "\f" not in text:
        return ()
    first = text.count("\f", 0, start) + 1
    return first, first + text.count("\f", start, end)


def _copied_hits(text: str, hits: Sequence[Hit]) -> list[str]:
    """Documents holding the same text as most of what matched (search ranked each text once):
    at least half of the matched words, and MIN_WORDS of them (a repeated table cell is no copy)."""
    if not any(h.copies for h in hits):
        return []
    words = [word_count(text, h.start, h.end) for h in hits]
    held: dict[str, int] = {}
    for h, n in zip(hits, words):
        for x in h.copies:
            held[x] = held.get(x, 0) + n
    total = sum(words)
    return sorted((x for x, n in held.items() if n >= MIN_WORDS and 2 * n >= total), key=lambda x: -held[x])


def _ranked(hits: Sequence[Hit]) -> str:
    """Where each ranker placed the context's best hit (``--explain``): why it came first."""
    top = max(hits, key=lambda h: h.score, default=None)
    if top is None or not top.ranks:
        return ""
    where = [f"{name} #{rank}" for name, (_, rank) in top.ranks.items() if name not in _MARKS]
    marks = "".join(said for mark, said in _MARKS.items() if mark in top.ranks)
    return ("; best hit " + ", ".join(where) if where else "; best hit") + marks


#: What a hit's mark from search says (search/names.py, search/verbatim.py).
_MARKS = {"name": ", defines the name asked", "verbatim": ", holds the question word for word"}


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


#: A context under 15 words because the whole budget is smaller than its 15-word form.
_SMALL = ", under 15 words: the budget holds no more"


def _reach(text: str, start: int, end: int) -> tuple[int, int]:
    """``(lo, hi)``: ``[start, end)`` widened over the whitespace around it. A span ``[s, e)`` is
    :func:`_near` it exactly when ``s <= hi`` and ``e >= lo``."""
    lo = start
    while lo > 0 and text[lo - 1].isspace():
        lo -= 1
    m = _VISIBLE.search(text, end)
    return lo, m.start() if m is not None else len(text)


def _near(a_start: int, a_end: int, b_start: int, b_end: int, text: str) -> bool:
    """Overlapping, touching, or separated by whitespace only (then one context reads better)."""
    if a_start <= b_end and b_start <= a_end:
        return True
    lo, hi = (a_end, b_start) if a_end < b_start else (b_end, a_start)
    return _VISIBLE.search(text, lo, hi) is None  # stops at the first visible character of the gap
