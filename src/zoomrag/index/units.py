"""What each leaf of a parsed document embeds (and the full-text index holds).

A leaf is embedded as its own text, cut into pieces first when one unbreakable run is longer
than the model's window. With ``headings`` (every new index), a leaf embeds its trail before its
text: the document's title (metadata ``title``: a Markdown file's first ``#`` heading, an HTML
``<title>``, a PDF's title, a dataset's title field; else what its file's name says,
:mod:`zoomrag.load.names`, for a document of up to about 25 pages) and the headings above the leaf,
``Guide > Install > Linux`` and a newline, stored as the node's ``embed_text``; Markdown is
embedded as it reads, a link as its text and inline HTML without its tags
(:mod:`zoomrag.text.markup`). A paragraph that
says "run the script" is then found by a question about installing on Linux, and a short
article's paragraph by a question naming the article, by dense search and by BM25 alike. The
trail may take at most half of the unit's tokens (:func:`~zoomrag.embed.with_prefix`); the
title is left out when the first heading already says it, and headings the leaf's first line
shows are not repeated. In a transcript or a chat, a leaf from inside a turn ends its trail
with who is speaking (``Billing sync > Sofia Alvarez``), so "what did Sofia say about …" finds
it. The span, and so every context returned, stays the source text.
"""

from __future__ import annotations

from ..embed import check_language, check_window, fit_derived, with_prefix
from ..embed.base import Embedder
from ..embed.language import LANG_KEY
from ..load.names import LONGEST_NAMED, name_title
from ..load.readers.transcript import is_conversation, lead_before, speaker_of, turn_leads
from ..model import CODE_KINDS, Document, Node, Tree
from ..parse.oversize import split_leaves
from ..parse.strategies.code import DEFINITIONS
from ..store import unit_text
from ..text import comments
from ..text.markup import reading

#: Between the headings of a trail.
TRAIL_SEP = " > "
#: Characters of a leaf's start searched for headings it already shows.
_FIRST_LINE = 200


def units_to_embed(tree: Tree, emb: Embedder, doc: Document, *, headings: bool) -> tuple[Tree, list[str]]:
    """The tree with leaves that fit the model's window, and the text each leaf embeds;
    a text the model cannot take raises (the document is skipped with the reason)."""
    tree = _fit_window(tree, emb)
    units = tree.leaves()
    texts = [unit_text(u) for u in units]
    # the language is told as the document is read (index.ingest.with_language): none is code
    check_language(emb, texts, label=doc.source, language=doc.metadata.get(LANG_KEY), tell=False)
    trails: dict[str, str] = {}
    title = doc_title(doc) if headings else ""
    # Code whose definitions name its units (``core.py``'s classes) does without its file's
    # name, which says less than they do; a Dockerfile's or a script's is what says what it is.
    if headings and not title and len(doc.text) <= LONGEST_NAMED and not any(
            n.kind in DEFINITIONS for n in tree.nodes):
        title = name_title(doc.id, folders=doc.format != "code")
    leads = turn_leads(doc.text) if headings and is_conversation(doc) else []
    read_as = reading(doc.format)
    for i, (u, t) in enumerate(zip(units, texts)):
        label = f"{doc.source} [{u.start}:{u.end}] ({u.kind})"
        if u.embed_text is not None:
            texts[i] = fit_derived(emb, t, label=label)
            continue
        check_window(emb, t, label=label)
        trail = heading_trail(u, title) if headings else ""
        if leads:
            trail = TRAIL_SEP.join(p for p in (trail, _speaker(doc.text, leads, u.start)) if p)
        read = read_as(t) if u.kind not in CODE_KINDS else comments.as_read(t)  # code keeps its words
        if trail:
            texts[i] = trails[u.id] = with_prefix(emb, trail, read, label=label, warn=False)
        elif read != t:
            texts[i] = trails[u.id] = read
    if not trails:
        return tree, texts
    nodes = tuple(n._replace(embed_text=trails[n.id]) if n.id in trails else n for n in tree.nodes)
    return Tree(document=tree.document, nodes=nodes, strategy=tree.strategy), texts


def _speaker(text: str, leads: list[tuple[int, int]], start: int) -> str:
    """Who speaks in the turn a unit starting at ``start`` lies inside of, after its lead (a
    unit holding the lead shows it already)."""
    lead = lead_before(text, leads, start)
    return speaker_of(text[lead[0]:lead[1]]) if lead else ""


def doc_title(doc: Document) -> str:
    """The document's title from its metadata, or ''."""
    title = doc.metadata.get("title")
    return " ".join(title.split()) if isinstance(title, str) else ""


def heading_trail(node: Node, title: str = "") -> str:
    """``title`` and the headings above ``node`` joined by :data:`TRAIL_SEP`, less those its
    first line shows (a heading line); the title is left out when the first heading holds it or
    it holds that."""
    path = list(node.section_path)
    if title:
        first_heading = path[0].casefold() if path else ""
        if not first_heading or (title.casefold() not in first_heading and first_heading not in title.casefold()):
            path.insert(0, title)
    first = node.text.lstrip()[:_FIRST_LINE].split("\n", 1)[0]
    while path and path[-1] in first and len(first) <= 2 * len(path[-1]) + 8:  # a heading line, not prose
        path.pop()
    return TRAIL_SEP.join(p for p in path if p.strip())


def _fit_window(tree: Tree, emb: Embedder) -> Tree:
    """The tree with every leaf too long for the embedder's window (one unbreakable run: a data
    URI, a minified line) split by characters into pieces that fit, not the document skipped."""
    window = emb.max_tokens
    over = {u.id for u in tree.leaves() if u.embed_text is None and u.length > window // 8
            and emb.count_tokens(u.text) > window}
    if not over:
        return tree
    return split_leaves(tree, over, lambda t: emb.count_tokens(t) <= window, max(1, window - 2))
