"""Assembly: pack candidate spans into contexts within a token budget.

Candidates are taken best first. Each is first given a readable shape
(:mod:`zoomrag.expand.bounds`): widened to sentence boundaries (line boundaries in tables,
lists and code) and, when shorter than 15 words, grown by whole sentences; in prose, given its
hits, it leaves out a glance into the next section, the tail of the section before and lines of
bare markup at its edges (:func:`_edges`). A candidate that overlaps, touches, or is separated
only by whitespace from spans already chosen in its document is merged with them, so no
character is ever returned twice; its cost is the growth in tokens of the merged span. A
candidate that does not fit is replaced by its fallbacks; one that would open a context beyond
``top`` is skipped (``top`` counts contexts as returned: the spans inside one table are one
context); one whose text another document already gave is skipped (the same file twice is
returned once, naming the other in ``Context.copies``). A near copy is returned: a clause that
differs from another contract's in one name differs where it matters. Tokens are counted on
the final spans, so the returned contexts never exceed the budget together. A context inside a table
carries the table's header row as a second span (charged once per table). From what the budget
has left, a context from inside a function, method or class takes its signature
(:mod:`zoomrag.expand.heads`), one holding a footnote the sentence that cites it, and one citing a
note the note (:mod:`zoomrag.expand.footnotes`).

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
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field

from ..errors import ConfigError
from ..load.readers.asciidoc import asciidoc_blocks
from ..load.spans import skip_space, trim_end
from ..model import Context, Document, Hit, Tree
from ..parse.headings import find_headings
from ..text.sentences import sentence_spans
from .base import Candidate, TreeSource
from .bounds import (
    AFTER_REACH,
    ITEM_REACH,
    MIN_WORDS,
    grow,
    has_words,
    heading_starts,
    is_markup,
    item_after,
    item_lines,
    item_start,
    lead_in,
    lead_start,
    lean_start,
    led_to,
    markup_edge,
    sentences_in,
    snap,
    without_heading,
    without_markup_edges,
    word_count,
)
from .evidence import hit_ranks, per_token
from .footnotes import Footnotes, find_footnotes
from .heads import DEFINITIONS, enclosing, enclosing_head, head_cut
from .innermost import innermost
from .pertree import bounded, per_tree

#: Tokens in a piece of text (the budget's unit).
TokenCount = Callable[[str], int]
#: Tokens in ``[start, end)`` of a document: ``sizes(doc_id, start, end)``.
SpanCount = Callable[[str, int, int], int]

#: A candidate below this share of the best placed candidate's expected evidence per token is
#: not worth its tokens (docs/expansion.md, "Assembly").
STOP = 0.1
#: Node kinds and document formats whose contexts start and end at line boundaries.
LINE_KINDS = frozenset({"table", "header", "row", "cell", "column", "code", "list", "function",
                        "method", "class"})
LINE_FORMATS = frozenset({"csv", "tsv", "code"})
#: Node kinds read as one piece: two contexts inside one such node become one (the text between
#: them filled) when the budget has room for it.
WHOLE_KINDS = frozenset({"function", "method", "class", "code", "paragraph"})
#: Node kinds whose lines are code: a line starting with ``-`` or ``1.`` there is no list item.
CODE_KINDS = frozenset({"code", "function", "method", "class"})
_DELIMITER_LINE = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*")


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


@dataclass
class _Doc:
    """What assembly needs of one document: its text, whether it is line-structured, its tables."""

    text: str
    lines: bool
    #: ``(start, end, header_end)`` of every table node.
    tables: list[tuple[int, int, int]]
    #: Fewer than MIN_WORDS words in all: a short context is then the whole document.
    tiny: bool
    #: ``(start, end, kind)`` of a candidate -> its shaped ``(start, end)``: kept with the tree
    #: (:mod:`.pertree`), since a probe or an evaluation shapes the same spans in every call.
    shapes: dict[tuple[int, int, str], tuple[int, int]] = field(default_factory=dict)
    #: Line starts of its list items (:func:`~.bounds.item_lines`), found when first needed.
    items: list[int] | None = None
    #: ``(start, end)`` of its sections, by start (sections nest: none overlaps another partly).
    sections: list[tuple[int, int]] = field(default_factory=list)
    #: Its footnotes and the references to them.
    notes: Footnotes = field(default_factory=Footnotes)
    #: Whether it has function, method or class nodes (whose heads a context inside them takes).
    definitions: bool = False
    #: ``(start, end)`` of its outermost code nodes (a prose document's code blocks, whole or as
    #: the code strategy split them), by start.
    code: list[tuple[int, int]] = field(default_factory=list)
    #: Where its headings begin (:func:`_heading_positions`), found when first needed.
    headings: list[int] | None = None
    #: The document, for its headings.
    document: Document | None = None
    #: ``(start, end, hits)`` of a shaped prose span -> its edges (:func:`_edges`), kept as
    #: :attr:`shapes` is.
    edges: dict[tuple[int, int, tuple[tuple[int, int, float], ...]], tuple[int, int]] = field(default_factory=dict)


ORDERS = ("score", "document")
_VISIBLE = re.compile(r"\S")


def _doc_info(trees: TreeSource, doc_id: str) -> _Doc:
    return per_tree(trees.tree(doc_id), "assembly", _doc_of)


def _doc_of(tree: Tree) -> _Doc:
    text = tree.document.text
    tables = []
    sections = []
    code = []
    definitions = False
    for n in tree.nodes:
        if n.kind == "table":
            tables.append((n.start, n.end, _header_end(text, n.start, n.end)))
        elif n.kind == "section":
            sections.append((n.start, n.end))
        elif n.kind in CODE_KINDS:
            code.append((n.start, n.end))
            definitions = definitions or n.kind in DEFINITIONS
    tables.sort()
    sections.sort()
    outermost: list[tuple[int, int]] = []
    for c in sorted(code, key=lambda c: (c[0], -c[1])):
        if not outermost or c[0] >= outermost[-1][1]:
            outermost.append(c)
    return _Doc(text, tree.document.format in LINE_FORMATS, tables,
                not has_words(text, 0, len(text)), sections=sections, notes=find_footnotes(text),
                definitions=definitions, code=outermost, document=tree.document)


#: A section of at most this many words (and characters) is what a too-short context grows
#: to, whole.
SMALL_SECTION = 4 * MIN_WORDS
SMALL_CHARS = 2000


def _section_holding(d: _Doc, start: int, end: int, reach: int) -> tuple[int, int] | None:
    """The innermost of ``d``'s sections holding ``[start, end)`` that starts at most ``reach``
    characters before ``start``: the latest-starting one that reaches ``end``, as sections nest."""
    i = bisect_right(d.sections, (start, len(d.text)))
    while i > 0 and d.sections[i - 1][0] >= start - reach:
        i -= 1
        if end <= d.sections[i][1]:
            return d.sections[i]
    return None


def _small_section(d: _Doc, start: int, end: int) -> tuple[int, int] | None:
    """The innermost section holding ``[start, end)`` when it is small (every section around it
    is larger) and has MIN_WORDS."""
    got = _section_holding(d, start, end, SMALL_CHARS)
    if got is None or got[1] - got[0] > SMALL_CHARS or not has_words(d.text, *got) \
            or has_words(d.text, *got, SMALL_SECTION + 1):
        return None
    return got


def _headings(d: _Doc, start: int, end: int) -> list[int]:
    """The headings that begin in ``(start, end)``, found once per document, not read from the
    tree: a partial tree (hits and their ancestors) holds no section the hits are not in."""
    if d.headings is None:
        d.headings = _heading_positions(d.document) if d.document is not None else heading_starts(d.text)
    return d.headings[bisect_right(d.headings, start):bisect_left(d.headings, end)]


def _heading_positions(document: Document) -> list[int]:
    """Where ``document``'s headings begin. A stored document has no reader blocks, so they are
    read from its text, cheaply: Markdown's and RST's titles by their lines
    (:func:`~.bounds.heading_starts`, not a markdown-it parse per document), AsciiDoc's by its
    reader's line scan, and plain text's by the parser's rules (``DESCRIPTION`` in help() output,
    ``= = Works = =``, ``2.3 Limitations``)."""
    text = document.text
    if document.format == "asciidoc":
        blocks = document.blocks or asciidoc_blocks(text)[0]
        return [b.start for b in blocks if b.type == "heading"]
    found = heading_starts(text)
    if document.format == "text":
        found = sorted({*found, *(h.start for h in find_headings(document))})
    return found


def _before_entered_section(d: _Doc, start: int, end: int, hits: Sequence[Hit]) -> int:
    """``end``, or the end of the text before a section that ``[start, end)`` only enters past its
    last hit: a heading and a sentence or two of another topic, fewer than SMALL_SECTION words,
    when MIN_WORDS words remain before it."""
    if not hits:
        return end
    text = d.text
    last = max(h.end for h in hits)
    entered = next((h for h in _headings(d, start, end) if h >= last), None)
    if entered is None or has_words(text, entered, end, SMALL_SECTION):
        return end
    cut = trim_end(text, start, entered)
    return cut if has_words(text, start, cut) else end


def _from_own_section(d: _Doc, start: int, end: int, hits: Sequence[Hit]) -> int:
    """``start``, or where the section of the first hit begins when ``[start, end)`` opens with
    the tail of the section before it: fewer than SMALL_SECTION words and no hit ("Check out the
    next page for all of the above." over a heading)."""
    if not hits:
        return start
    text = d.text
    first = min(end, min(h.start for h in hits) + 1)  # a hit may begin with its heading
    before = _headings(d, start, first)
    heading = before[-1] if before else None  # the last heading up to the first hit
    if heading is None or has_words(text, start, heading, SMALL_SECTION) or not has_words(text, heading, end):
        return start
    return heading


def _in_code(d: _Doc, pos: int) -> bool:
    """Whether ``pos`` lies inside one of ``d``'s code blocks."""
    i = bisect_right(d.code, (pos, len(d.text))) - 1
    return i >= 0 and d.code[i][0] <= pos < d.code[i][1]


def _outside_code(d: _Doc, start: int, end: int, hits: Sequence[Hit]) -> tuple[int, int]:
    """``[start, end)`` without the tail of a code block it opens inside of before its first hit
    (``if __name__ == '__main__':`` over the paragraph that matched) and the head of one it ends
    inside of after its last (an example's first lines), when MIN_WORDS words remain."""
    if not hits or not d.code:
        return start, end
    text, s, e = d.text, start, end
    i = bisect_right(d.code, (start, len(text))) - 1
    if i >= 0:
        bs, be = d.code[i]
        if bs < s < be and text[bs:s].strip() and min(h.start for h in hits) >= be:
            s = skip_space(text, be, e)
    i = bisect_left(d.code, (end, -1)) - 1
    if i >= 0:
        bs, be = d.code[i]
        if bs < e < be and text[e:be].strip() and max(h.end for h in hits) <= bs:
            e = trim_end(text, s, bs)
    return (s, e) if s < e and has_words(text, s, e) else (start, end)


def _edges(d: _Doc, s: int, e: int, hits: Sequence[Hit]) -> tuple[int, int]:
    """A shaped prose span's edges, given its hits: no piece of a code block its hits lie
    outside of, no lead-in left without what it leads to, no glance into the next section nor
    tail of the one before, no line of bare markup."""
    s, e = _outside_code(d, s, e, hits)
    e = _without_lead_in(d.text, s, e, hits)
    e = _before_entered_section(d, s, e, hits)
    s = _from_own_section(d, s, e, hits)
    # a hit's own markup lines go too (a MyST label matched), as long as some of every other
    # hit stays
    worded = [h for h in hits if not is_markup(d.text, h.start, h.end)] if markup_edge(d.text, s, e) else []
    if worded:
        s, e = without_markup_edges(d.text, s, e, min(h.end for h in worded) - 1, max(h.start for h in worded) + 1)
    return s, e


def _header_end(text: str, start: int, end: int) -> int:
    """End of a table's header row: its first line, and the ``|---|`` line under it if any."""
    nl = text.find("\n", start, end)
    if nl < 0:
        return end
    nl2 = text.find("\n", nl + 1, end)
    second = text[nl + 1:end if nl2 < 0 else nl2]
    if "-" in second and _DELIMITER_LINE.fullmatch(second):
        return end if nl2 < 0 else nl2
    return nl


def _table_of(doc: _Doc, start: int, end: int) -> tuple[int, int, int] | None:
    for t in doc.tables:
        if t[0] <= start and end <= t[1]:
            return t
    return None


def _context_key(doc: _Doc, start: int, end: int) -> object:
    """Which returned context the span ``[start, end)`` is part of: every span inside one table
    is one context (under the table's header row); any other span is a context of its own.
    ``top`` counts these, so it counts contexts as they are returned."""
    table = _table_of(doc, start, end)
    return table if table is not None else ("span", start)


def _flat(text: str) -> str:
    return " ".join(text.split())


def _head(text: str, start: int, end: int) -> str:
    """The first line of ``text[start:end]`` up to 60 characters (to find the same text
    elsewhere quickly); "" when the span is shorter than a context may be."""
    s = start
    while s < end and text[s].isspace():
        s += 1
    e = min(end, s + 60)
    nl = text.find("\n", s, e)
    head = text[s:e if nl < 0 else nl].rstrip()
    return head if len(head) >= 20 else ""


def assemble(candidates: Iterable[Candidate], trees: TreeSource, budget: int, count: TokenCount,
             top: int | None = None, *, fill: bool = False, order: str = "score",
             explain: bool = False, sizes: SpanCount | None = None, stop: float = STOP,
             shape: bool = True) -> list[Context]:
    """Contexts best first, at most ``top`` of them, with at most ``budget`` tokens in all.

    ``sizes(doc_id, start, end)``, when given, sizes spans instead of ``count`` on their text
    (a per-document token measure: the document is tokenized once, not every candidate).
    ``stop`` (0 to spend the whole budget) is the evidence-per-token floor, relative to the best.
    ``shape=False`` packs the spans as the policy gave them (no widening to boundaries, no
    minimum size): the packing alone, for tests and for callers that shape spans themselves.
    """
    reshape = shape
    if order not in ORDERS:
        raise ConfigError(f"assembly order {order!r} is not allowed; choose one of: {', '.join(ORDERS)}")
    if not 0 <= stop < 1:
        raise ConfigError(f"assembly stop={stop!r} is out of range; use 0 (fill the budget) up to below 1")
    candidates = sorted(candidates, key=lambda c: -c.score)
    chosen: dict[str, list[_Span]] = {}
    docs: dict[str, _Doc] = {}
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

    def doc(doc_id: str) -> _Doc:
        d = docs.get(doc_id)
        if d is None:
            d = docs[doc_id] = _doc_info(trees, doc_id)
        return d

    def tokens(doc_id: str, start: int, end: int) -> int:
        return count(doc(doc_id).text[start:end]) if sizes is None else sizes(doc_id, start, end)

    def lines_for(c: Candidate) -> bool:
        d = doc(c.doc_id)
        return d.lines or c.kind in LINE_KINDS or _table_of(d, c.start, c.end) is not None

    def shaped(c: Candidate) -> Candidate:
        """``c`` widened to boundaries and grown to at least MIN_WORDS words."""
        if not reshape:
            return c
        # a candidate that did not fit is shaped again by fill, its fallbacks often share its
        # edges, and other calls ask about the same spans: the shape is kept with the document
        shapes = doc(c.doc_id).shapes
        key = (c.start, c.end, c.kind)
        got = shapes.get(key)
        if got is None:
            got = bounded(shapes)[key] = _shape(c)
        s, e = got
        if not lines_for(c):  # the edges depend on the hits: kept by the hits' spans and scores
            d = doc(c.doc_id)
            edge_key = (s, e, tuple((h.start, h.end, h.score) for h in c.hits))
            edges = d.edges.get(edge_key)
            if edges is None:
                edges = bounded(d.edges)[edge_key] = _edges(d, s, e, c.hits)
            s, e = edges
        if (s, e) == (c.start, c.end):
            return c
        return dataclasses.replace(c, start=s, end=e)

    def _shape(c: Candidate) -> tuple[int, int]:
        d = doc(c.doc_id)
        lines = lines_for(c)
        s, e = snap(d.text, c.start, c.end, lines)
        small = None if d.tiny or lines or has_words(d.text, s, e) else _small_section(d, s, e)
        if small is not None:  # a heading, a line and an example: the entry they belong to
            s, e = small
        elif not d.tiny and not has_words(d.text, s, e):  # a document under 15 words may be cut
            # code grows inside its function first: the next definition's first line is no end;
            # prose inside its section: the next section's title is none either
            box = (enclosing(trees.tree(c.doc_id), s, e) if d.definitions else None) if lines else \
                _section_holding(d, s, e, len(d.text))
            if box is not None:
                s, e = grow(d.text, s, e, lines, within=box)
            if not has_words(d.text, s, e):
                s, e = grow(d.text, s, e, lines)
            if lines and not d.lines:
                # grown past a code block, list or table into the prose around it: whole
                # sentences there, not lines of a hard-wrapped paragraph
                if e > c.end:
                    e = snap(d.text, e - 1, e)[1]
                if s < c.start:
                    s = snap(d.text, s, s + 1)[0]
        table = _table_of(d, s, e) or _table_of(d, c.start, c.end)
        if table is not None and s <= table[2]:
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
        if d.lines or _table_of(d, c.start, c.end) is not None:
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
        if d.lines or _table_of(d, c.start, c.end) is not None:
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
        table = _table_of(d, start, end) if d.tables else None
        if table is not None and (c.doc_id, table[0]) not in headed and start > table[2]:
            cost += tokens(c.doc_id, table[0], table[2])
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
               contexts: int) -> None:
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
        spans.append(merged)
        table = _table_of(d, start, end)
        if table is not None:
            headed.add((c.doc_id, table[0]))
        used += cost
        n_contexts = contexts

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
        end = _led_end(doc(c.doc_id).text, c.start, c.end)
        return c if end == c.end else dataclasses.replace(c, end=end)

    def place(c: Candidate) -> bool:
        """Place ``c`` (shaped), else its fallbacks; True when anything was placed."""
        c = shaped(c)
        room = budget - used
        where, said = None, None
        for w, rule in ((led(c), _LED_TO), (itemised(c), None), (past_item(c), None)):
            where = plan(w, room) if w is not c else None
            if where is not None:
                said = rule
                break
        if where is None:
            w, where = c, plan(c, room)
        if where is not None and worth(c):
            commit(w, *where)
            if said is not None:  # --explain names the widening, as finish_edges' do
                next(sp for sp in chosen[c.doc_id] if sp.start <= w.start < sp.end).rules.append(said)
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
                if (_table_of(d, a.start, a.end) is None and _table_of(d, b.start, b.end) is None
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
        starts at its heading, and one that opens with a sentence leaning on the one before
        ("But…", "This…") takes that sentence. Only then, and only where no other span holds
        that text: neither holds a hit, and every candidate with hits comes first."""
        order = sorted(((sp.best.score, doc_id, i) for doc_id, spans in chosen.items()
                        for i, sp in enumerate(spans)), key=lambda t: -t[0])
        for _, doc_id, i in order:
            d = doc(doc_id)
            sp = chosen[doc_id][i]
            if not d.lines and _table_of(d, sp.start, sp.end) is None:
                widen(doc_id, i, sp.start, _led_end(d.text, sp.start, sp.end), _LED_TO)
                sp = chosen[doc_id][i]
                widen(doc_id, i, lead_start(d.text, sp.start), sp.end, _LEADS_IN)
                sp = chosen[doc_id][i]
                widen(doc_id, i, _heading_start(d, sp.start), sp.end, _HEADED)
                for _ in range(LEAN_STEPS):  # "But" after "Also" after "It": back to where it stands
                    sp = chosen[doc_id][i]
                    begin = lean_start(d.text, sp.start)
                    if begin == sp.start or _headings(d, begin - 1, sp.start) or _in_code(d, begin):
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
        or class takes its signature; a span holding a footnote takes the sentence that cites it,
        and a span citing a footnote takes the note; each where no other span holds that text (a
        piece beside its span widens it instead)."""
        nonlocal used
        order = sorted(((sp.best.score, doc_id, i) for doc_id, spans in chosen.items()
                        for i, sp in enumerate(spans)), key=lambda t: -t[0])
        for _, doc_id, i in order:
            d = doc(doc_id)
            sp = chosen[doc_id][i]
            wanted: list[tuple[tuple[int, int], str]] = []
            if d.definitions:
                head = enclosing_head(trees.tree(doc_id), sp.start)
                if head is not None:
                    wanted.append((head, _DEF_HEAD))
            if d.notes.notes:
                wanted += [(_citing(d, ref), _CITING) for label in d.notes.defined_in(sp.start, sp.end)
                           if (ref := d.notes.first_ref(label)) is not None
                           and not sp.start <= ref[0] < sp.end]
                wanted += [(d.notes.notes[label], _NOTE) for label in d.notes.cited_in(sp.start, sp.end)
                           if not sp.start <= d.notes.notes[label][0] < sp.end]
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
                table = _table_of(d, s, e) if d.tables else None
                header_free = table is not None and not any(a < table[2] and b > table[0] for a, b in taken)
                if table is not None and header_free and s > table[2] and not sp.start <= table[0] < sp.end:
                    pieces.insert(0, (table[0], table[2]))  # a table's row reads under its header row
                n = sum(tokens(doc_id, a, b) for a, b in pieces)
                if used + n <= budget:
                    used += n
                    sp.companions.extend(pieces)
                    sp.rules.append(rule)

    for cand in candidates:
        if used >= budget:
            break
        if not place(cand) and fill and plan(shaped(cand)) is not None:
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
            piece = _cut_to_fit(widened, d.text, chosen.get(doc_id, []), fits, lines_for(widened),
                                # a cut inside a sentence only when it is too long to ever fit whole
                                lambda s, e: not reshape or 2 * tokens(doc_id, s, e) > budget)
            if piece is None:
                continue
            table = _table_of(d, piece.start, piece.end)
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
_NOTE = "the footnote it cites"
_CITING = "the sentence citing its footnote"
#: A span that starts at most this far (characters) into its section may start at its heading.
HEAD_REACH = 400
#: The most sentences a context opening on a leaning one takes back, one at a time.
LEAN_STEPS = 3


def _led_end(text: str, start: int, end: int) -> int:
    """``end``, or the end of the block a last sentence leads to (:func:`lead_in`, :func:`led_to`)."""
    if lead_in(text, start, end) == end:
        return end
    to = led_to(text, end)
    return end if to is None else to


def _heading_start(d: _Doc, start: int) -> int:
    """``start``, or the start of the innermost section holding it (which may start there
    already) when that is at most HEAD_REACH characters back; a heading in the text between them
    (one the tree did not split at) is that section's start instead."""
    got = _section_holding(d, start, start + 1, HEAD_REACH)
    if got is None:
        return start
    between = _headings(d, got[0], start + 1)
    return between[-1] if between else got[0]


def _citing(d: _Doc, ref: tuple[int, int]) -> tuple[int, int]:
    """The sentence holding a footnote reference (its line in a table, its item in a list)."""
    lines = d.lines or _table_of(d, *ref) is not None
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


def _context(document, d: _Doc, key: object, group: list[_Span], explain: bool,
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
        spans=tuple(parts) if len(parts) > 1 else (), metadata=document.metadata,
        # a document returned in a context of its own is no copy left out
        copies=tuple(x for x in dict.fromkeys([*(c for s in group for c in s.copies), *_copied_hits(text, hits)])
                     if x not in returned),
    )


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


def _line_pieces(text: str, lo: int, hi: int) -> list[tuple[int, int]]:
    """Non-blank lines of ``text[lo:hi]``, trimmed: the pieces of a table, a list or code."""
    out = []
    pos = lo
    while pos < hi:
        nl = text.find("\n", pos, hi)
        e = hi if nl < 0 else nl
        a, b = pos, e
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if a < b:
            out.append((a, b))
        pos = e + 1
    return out


def _cut_to_fit(c: Candidate, text: str, spans: list[_Span], fits: Callable[[Candidate], bool],
                lines: bool = False, words_ok: Callable[[int, int], bool] | None = None) -> Candidate | None:
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
    sentences = _line_pieces(text, lo, hi) if lines else (sentences_in(text, lo, hi) or sentence_spans(text, lo, hi))
    if not lines:  # a piece never starts or ends on a "sentence" of no word (an AsciiDoc list's ".")
        sentences = [(s, e) for s, e in sentences if has_words(text, s, e, 1)] or sentences
    if not sentences:
        return None
    # the sentences holding the anchor, or the one after it
    core = [k for k, (s, e) in enumerate(sentences) if s < a_end and e > a_start] or \
        [next((k for k, (s, _) in enumerate(sentences) if s >= a_start), len(sentences) - 1)]
    i, j = core[0], core[-1]

    def piece(s: int, e: int) -> Candidate:
        # a piece of a hit larger than the room still holds (part of) that hit
        return Candidate(c.doc_id, s, e, c.score, tuple(h for h in c.hits if s < h.end and h.start < e),
                         c.section_path, c.level, c.kind, f"{c.rule}, cut to fit")

    best = piece(sentences[i][0], sentences[j][1])
    if not fits(best) and j > i:  # a hit larger than the room: from its first sentence on
        j = i
        best = piece(sentences[i][0], sentences[j][1])
    if not fits(best):
        if words_ok is not None and not words_ok(sentences[i][0], sentences[j][1]):
            return None
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


def _without_lead_in(text: str, start: int, end: int, hits: Sequence[Hit]) -> int:
    """``end``, or the end of the sentence before a last one that leads on (:func:`lead_in`)
    when MIN_WORDS words remain: a lead-in without what it leads to is a dangling fragment. A
    heading right over it goes with it. A hit that starts in the lead-in keeps it, unless hits
    before it score higher and it opens a section the context only enters (heading and lead-in
    alone)."""
    lead = lead_in(text, start, end)
    if lead == end:
        return end
    kept = trim_end(text, start, lead)
    cut = without_heading(text, start, kept)
    # a hit that starts before the lead-in (and its heading) matched what stays too
    inside = max((h.score for h in hits if h.start >= cut), default=None)
    if inside is not None:
        before = max((h.score for h in hits if h.start < cut), default=None)
        if before is None or inside >= before or cut == kept:
            return end
    return cut if has_words(text, start, cut) else end


_WORD_CUT = ", cut at words"
#: A context under 15 words because the whole budget is smaller than its 15-word form.
_SMALL = ", under 15 words: the budget holds no more"
_NONSPACE = re.compile(r"\S+")


def _words(text: str, start: int, end: int, fits: Callable[[Candidate], bool],
           piece: Callable[[int, int], Candidate]) -> Candidate | None:
    """The longest run of whole words from ``start`` that fits (binary search on word ends);
    when not even the first word fits (one unbreakable run), the longest run of characters."""
    ends = [m.end() for m in _NONSPACE.finditer(text, start, end)]
    found = _longest(ends, start, fits, piece)
    if found is None:
        found = _longest(range(start + 1, ends[0] if ends else end), start, fits, piece)
    return found


def _longest(ends: Sequence[int], start: int, fits: Callable[[Candidate], bool],
             piece: Callable[[int, int], Candidate]) -> Candidate | None:
    lo, hi, found = 0, len(ends) - 1, None
    while lo <= hi:
        mid = (lo + hi) // 2
        trial = piece(start, ends[mid])
        if fits(trial):
            found, lo = dataclasses.replace(trial, rule=trial.rule + _WORD_CUT), mid + 1
        else:
            hi = mid - 1
    return found


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
