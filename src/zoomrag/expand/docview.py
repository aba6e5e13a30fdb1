"""What assembly knows of one document, and where a context's edges go in it.

A :class:`DocView` is built once per tree (:mod:`.pertree`): the document's text, its tables,
sections, code blocks and footnotes, and its headings when first asked. The edge rules work on
it: a short context grows to its small section (:func:`small_section`); in prose, given its hits,
a context leaves out a piece of a code block its hits lie outside of, a dangling lead-in, a glance
into the next section, the tail of the section before and lines of bare markup
(:func:`context_edges`); a lead-in comes with what it leads to (:func:`led_end`) and a context a
little way into its section may start at its heading (:func:`heading_start`).
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..load.base import is_lined
from ..load.readers.asciidoc import asciidoc_blocks
from ..load.readers.configfile import ini_blocks, toml_blocks
from ..load.readers.latex import latex_blocks
from ..load.readers.org import org_blocks
from ..load.readers.transcript import is_conversation, lead_before, turn_leads
from ..load.readers.xmldata import xml_data_blocks
from ..load.readers.yamldata import yaml_blocks
from ..load.spans import line_end, skip_space, trim_end
from ..model import CODE_KINDS, Block, Document, Hit, Tree
from ..parse.headings import find_headings
from ..store import fts
from .base import TreeSource
from .bounds import (
    MIN_WORDS,
    grow,
    has_words,
    heading_starts,
    is_markup,
    lead_in,
    leads_on,
    led_to,
    markup_edge,
    without_heading,
    without_markup_edges,
    word_count,
)
from .footnotes import Footnotes, find_footnotes
from .heads import DEFINITIONS
from .pertree import per_tree
from .references import References, find_references

#: The ``|---|`` line under a pipe table's header row.
_DELIMITER_LINE = re.compile(r"[ \t]*\|?[ \t]*:?-+:?[ \t]*(\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*")


@dataclass
class DocView:
    """What assembly needs of one document: its text, whether it is line-structured, its tables."""

    text: str
    lines: bool
    #: ``(start, end, header_end)`` of every table node.
    tables: list[tuple[int, int, int]]
    #: Fewer than MIN_WORDS words in all: a short context is then the whole document.
    tiny: bool
    #: ``(start, end, kind)`` of a candidate -> its shaped ``(start, end)``: kept with the tree
    #: (:mod:`.pertree`), since a probe or an evaluation shapes the same spans in every call.
    shapes: dict[tuple[int, int, str, bool], tuple[int, int]] = field(default_factory=dict)
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
    #: ``(start, end)`` of the lead (time and speaker) of each turn of a conversation (a
    #: transcript, a chat export), by start; empty in any other document.
    turns: list[tuple[int, int]] = field(default_factory=list)
    #: The document, for its headings.
    document: Document | None = None
    #: The definitions its spans refer to by name: a schema's types, an API's components.
    refs: References = field(default_factory=References)
    #: ``(start, end, lines, hits, question terms)`` of a shaped span -> its edges
    #: (:func:`context_edges`, :func:`section_edges`), kept as :attr:`shapes` is.
    edges: dict[tuple[int, int, bool, tuple[tuple[int, int, float], ...], tuple[str, ...]], tuple[int, int]] = \
        field(default_factory=dict)


def doc_view(trees: TreeSource, doc_id: str) -> DocView:
    return per_tree(trees.tree(doc_id), "assembly", _view_of)


def _view_of(tree: Tree) -> DocView:
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
    document = tree.document
    return DocView(text, is_lined(document.format), tables,
                not has_words(text, 0, len(text)), sections=sections, notes=find_footnotes(text),
                definitions=definitions, code=outermost,
                turns=turn_leads(text) if is_conversation(document) else [], document=document,
                refs=find_references(tree))


def turn_lead(d: DocView, start: int) -> tuple[int, int] | None:
    """The lead of the turn ``start`` lies inside of (after its lead), if any."""
    return lead_before(d.text, d.turns, start)


#: A section of at most this many words (and characters) is what a too-short context grows
#: to, whole.
SMALL_SECTION = 4 * MIN_WORDS


SMALL_CHARS = 2000


def section_holding(d: DocView, start: int, end: int, reach: int) -> tuple[int, int] | None:
    """The innermost of ``d``'s sections holding ``[start, end)`` that starts at most ``reach``
    characters before ``start``: the latest-starting one that reaches ``end``, as sections nest."""
    i = bisect_right(d.sections, (start, len(d.text)))
    while i > 0 and d.sections[i - 1][0] >= start - reach:
        i -= 1
        if end <= d.sections[i][1]:
            return d.sections[i]
    return None


def small_section(d: DocView, start: int, end: int) -> tuple[int, int] | None:
    """The innermost section holding ``[start, end)`` when it is small (every section around it
    is larger) and has MIN_WORDS."""
    got = section_holding(d, start, end, SMALL_CHARS)
    if got is None or got[1] - got[0] > SMALL_CHARS or not has_words(d.text, *got) \
            or has_words(d.text, *got, SMALL_SECTION + 1):
        return None
    return got


def worded_section(d: DocView, start: int, end: int) -> tuple[int, int] | None:
    """The innermost section holding ``[start, end)`` that has MIN_WORDS words, when it is small
    (SMALL_CHARS): a key of a configuration file too short to read alone (``healthcheck:`` and
    three lines) is read with the keys beside it, whole, not with lines of the next key."""
    i = bisect_right(d.sections, (start, len(d.text)))
    while i > 0 and d.sections[i - 1][0] >= start - SMALL_CHARS:  # one starting further back is larger
        i -= 1
        s, e = d.sections[i]
        if end <= e and has_words(d.text, s, e):
            return (s, e) if e - s <= SMALL_CHARS else None
    return None


def headings_in(d: DocView, start: int, end: int) -> list[int]:
    """The headings that begin in ``(start, end)``, found once per document, not read from the
    tree: a partial tree (hits and their ancestors) holds no section the hits are not in."""
    if d.headings is None:
        d.headings = _heading_positions(d.document) if d.document is not None else heading_starts(d.text)
    return d.headings[bisect_right(d.headings, start):bisect_left(d.headings, end)]


#: Formats whose titles only their reader's scan finds.
_BLOCK_SCANS: dict[str, Callable[[str], Sequence[Block]]] = {
    "asciidoc": lambda text: asciidoc_blocks(text)[0],
    "latex": lambda text: latex_blocks(text)[0],
    "org": lambda text: org_blocks(text)[0],
    "yaml": lambda text: yaml_blocks(text)[0],
    "toml": toml_blocks,
    "ini": ini_blocks,
    "xmldata": xml_data_blocks,
}


def _heading_positions(document: Document) -> list[int]:
    """Where ``document``'s headings begin. A stored document has no reader blocks, so they are
    read from its text, cheaply: Markdown's and RST's titles by their lines
    (:func:`~.bounds.heading_starts`, not a markdown-it parse per document), AsciiDoc's,
    LaTeX's, Org's and configuration files' by their readers' scans, and plain text's and a PDF's by the parser's rules
    (``DESCRIPTION`` in help() output, ``= = Works = =``, ``2.3 Limitations``)."""
    text = document.text
    scan = _BLOCK_SCANS.get(document.format)
    if scan is not None:
        blocks = document.blocks or scan(text)
        return [b.start for b in blocks if b.type == "heading"]
    found = heading_starts(text)
    if document.format in ("text", "pdf"):  # a PDF's text is plain text with its titles as lines
        found = sorted({*found, *(h.start for h in find_headings(document))})
    return found


#: A hit scoring under this share of the best one in its context does not hold another
#: section's text in it: a row of the sheet before that names the same person.
STRONG_HIT = 0.5


def _strong(hits: Sequence[Hit]) -> list[Hit]:
    best = max(h.score for h in hits)
    return [h for h in hits if h.score >= STRONG_HIT * best] if best > 0 else list(hits)


def _before_entered_section(d: DocView, start: int, end: int, hits: Sequence[Hit]) -> int:
    """``end``, or the end of the text before a section that ``[start, end)`` only enters past its
    last hit: a heading and a sentence or two of another topic, fewer than SMALL_SECTION words,
    when MIN_WORDS words remain before it. A hit on the entered section's heading line alone
    does not hold it: its title without its text tells a reader nothing."""
    if not hits:
        return end
    text = d.text
    heads = headings_in(d, start, end)

    def bare(h: Hit) -> bool:  # a hit on a heading's line alone: a title, no word of its section
        return any(p <= h.start and h.end <= line_end(text, p) for p in heads)

    bodied = [h for h in _strong(hits) if not bare(h)]
    if not bodied:
        return end
    last = max(h.end for h in bodied)
    entered = next((h for h in heads if h >= last), None)
    if entered is None or has_words(text, entered, end, SMALL_SECTION):
        return end
    cut = trim_end(text, start, entered)
    return cut if has_words(text, start, cut) else end


def _from_own_section(d: DocView, start: int, end: int, hits: Sequence[Hit]) -> int:
    """``start``, or where the section of the first hit begins when ``[start, end)`` opens with
    the tail of the section before it: fewer than SMALL_SECTION words and no hit ("Check out the
    next page for all of the above." over a heading)."""
    if not hits:
        return start
    text = d.text
    first = min(end, min(h.start for h in _strong(hits)) + 1)  # a hit may begin with its heading
    before = headings_in(d, start, first)
    heading = before[-1] if before else None  # the last heading up to the first hit
    if heading is None or has_words(text, start, heading, SMALL_SECTION) or not has_words(text, heading, end):
        return start
    return heading


def in_code(d: DocView, pos: int) -> bool:
    """Whether ``pos`` lies inside one of ``d``'s code blocks."""
    i = bisect_right(d.code, (pos, len(d.text))) - 1
    return i >= 0 and d.code[i][0] <= pos < d.code[i][1]


def _outside_code(d: DocView, start: int, end: int, hits: Sequence[Hit]) -> tuple[int, int]:
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


def _past_header(d: DocView, start: int, end: int, hits: Sequence[Hit]) -> int:
    """``end``, unless ``[start, end)`` enters a table only as far as its header row: column
    names without a row under them say nothing. Then the end of the text before the table, or,
    when a strong hit lies in the header, the end of enough rows under it to read."""
    if not hits or not d.tables:
        return end
    i = bisect_left(d.tables, (end, -1, -1)) - 1
    if i < 0:
        return end
    t0, t1, header = d.tables[i]
    if not start < t0 < end <= header < t1:
        return end
    if any(h.end > t0 for h in _strong(hits)):
        words = MIN_WORDS + word_count(d.text, t0, header)
        return max(end, grow(d.text, header, header, True, words, within=(t0, t1))[1])
    cut = trim_end(d.text, start, t0)
    return cut if has_words(d.text, start, cut) else end


def context_edges(d: DocView, s: int, e: int, hits: Sequence[Hit],
                  words: tuple[str, ...] = ()) -> tuple[int, int]:
    """A shaped prose span's edges, given its hits: no piece of a code block its hits lie
    outside of, no table's header row without its rows, no lead-in left without what it leads
    to (unless it holds a term of the question, ``words``, that the rest does not), no glance
    into the next section nor tail of the one before, no line of bare markup."""
    s, e = _outside_code(d, s, e, hits)
    e = _past_header(d, s, e, hits)
    e = _without_lead_in(d.text, s, e, hits, words)
    s, e = section_edges(d, s, e, hits)
    # a hit's own markup lines go too (a MyST label matched), as long as some of every other
    # hit stays
    worded = [h for h in hits if not is_markup(d.text, h.start, h.end)] if markup_edge(d.text, s, e) else []
    if worded:
        s, e = without_markup_edges(d.text, s, e, min(h.end for h in worded) - 1, max(h.start for h in worded) + 1)
    return s, e


def section_edges(d: DocView, s: int, e: int, hits: Sequence[Hit]) -> tuple[int, int]:
    """``[s, e)`` without a glance into the next section nor the tail of the one before, for
    prose and for the lines of a table, list or code block in prose alike: a table's last rows
    over the next sheet's title are another table's rows without their header."""
    e = _before_entered_section(d, s, _past_header(d, s, e, hits), hits)
    return _from_own_section(d, s, e, hits), e


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


def table_of(doc: DocView, start: int, end: int) -> tuple[int, int, int] | None:
    for t in doc.tables:
        if t[0] <= start and end <= t[1]:
            return t
    return None


def table_read_under(doc: DocView, start: int, end: int) -> tuple[int, int, int] | None:
    """The table whose header row the span ``[start, end)`` reads under: the one holding it, or
    the one it starts in past the header row (rows and the text after the table: the rows still
    need their header)."""
    for t in doc.tables:
        if t[0] <= start and (end <= t[1] or t[2] < start < t[1]):
            return t
    return None


#: A span that starts at most this far (characters) into its section may start at its heading.
HEAD_REACH = 400


def led_end(text: str, start: int, end: int) -> int:
    """``end``, or the end of the block a last sentence leads to (:func:`leads_on`,
    :func:`led_to`), also when that sentence is all of the span."""
    if not leads_on(text, start, end):
        return end
    to = led_to(text, end)
    return end if to is None else to


def heading_start(d: DocView, start: int) -> int:
    """``start``, or the start of the innermost section holding it (which may start there
    already) when that is at most HEAD_REACH characters back; a heading in the text between them
    (one the tree did not split at) is that section's start instead."""
    got = section_holding(d, start, start + 1, HEAD_REACH)
    if got is None:
        return start
    between = headings_in(d, got[0], start + 1)
    return between[-1] if between else got[0]


def _without_lead_in(text: str, start: int, end: int, hits: Sequence[Hit],
                     words: tuple[str, ...] = ()) -> int:
    """``end``, or the end of the sentence before a last one that leads on (:func:`lead_in`)
    when MIN_WORDS words remain: a lead-in without what it leads to is a dangling fragment. A
    heading right over it goes with it. A hit that starts in the lead-in keeps it, unless hits
    before it score higher and it opens a section the context only enters (heading and lead-in
    alone). So does a term of the question (``words``: BM25's, :func:`~zoomrag.store.fts.query_terms`)
    that only the lead-in holds:
    "…is an `IndexMismatchError` that says how to rebuild:" is what a question naming the error
    matched, and assembly then grows it to what it leads to when that fits."""
    lead = lead_in(text, start, end)
    if lead == end:
        return end
    if words and set(fts.frequencies(text[lead:end], words)) - set(fts.frequencies(text[start:lead], words)):
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
