"""Shared checks and generators for span-producing code (used by every strategy's tests)."""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import strategies as st

from zoomrag.model import Document, Tree, normalize_newlines

# Pieces that stress span code: CJK with its punctuation, emoji (astral), combining marks,
# CRLF and lone CR, very long words, abbreviations, markdown-ish lines, whitespace runs.
_PIECES = [
    "Hello world.", "Dr. Smith paid $3.50 for it.", "e.g. this, i.e. that.", "U.S. policy",
    "这是第一句。这是第二句！", "真的吗？", "一、总则", "第一章 概述", "日本語の文です。",
    "😀🚀", "e\u0301", "a\u0300\u0316", "\r\n", "\r", "\n", "\n\n", "   ", "\t",
    "x" * 300, "supercalifragilisticexpialidocious" * 5, "# Title", "## Sub", "- item",
    "| a | b |", "|---|---|", "| 1 | 2 |", "```", "def f(x):", "    return x", "1.1 Scope",
    "= = Heading = =", "\"Quoted.\" he said.", "3.14159", "end", "",
]

texts = st.one_of(
    st.text(max_size=400),
    st.lists(st.sampled_from(_PIECES), max_size=60).map(" ".join),
    st.lists(st.sampled_from(_PIECES), max_size=60).map("".join),
    st.lists(st.one_of(st.sampled_from(_PIECES), st.text(max_size=20)), max_size=40).map(" ".join),
)


def check_tree(tree: Tree, *, partition: bool = True, max_overlap: int = 0) -> None:
    """Every invariant of DESIGN.md for one tree.

    partition: every non-whitespace character of the text lies in some leaf.
    max_overlap: how many characters adjacent siblings may share (the configured overlap).
    """
    text = tree.document.text
    n = len(text)
    assert tree.root.level == 0 and tree.root.start == 0 and tree.root.end == n
    for node in tree:
        assert 0 <= node.start <= node.end <= n
        assert node.text == text[node.start:node.end]
        kids = tree.children(node)
        for k in kids:
            assert k.parent_id == node.id and k.level == node.level + 1
            assert node.start <= k.start and k.end <= node.end
        for a, b in zip(kids, kids[1:]):
            assert a.start <= b.start and a.end <= b.end
            assert a.end - b.start <= max_overlap, (a, b)
    if partition:
        covered = bytearray(n)
        for leaf in tree.leaves():
            covered[leaf.start:leaf.end] = b"\x01" * leaf.length
        lost = [i for i, c in enumerate(text) if not c.isspace() and not covered[i]]
        assert not lost, f"characters lost at {lost[:10]}: {[text[i] for i in lost[:10]]}"


#: Spaces that join words (no-break, figure and narrow no-break space): never a place to cut.
NON_BREAKING = "\xa0\u2007\u202f"


def has_break(text: str) -> bool:
    """Whether ``text`` holds a space a splitter may cut at (so a chunk over the limit is a bug)."""
    return any(c.isspace() and c not in NON_BREAKING for c in text)


def check_flat_sized(strategy: str, text: str, size: int, unit: str, overlap: int,
                     can_cut_at: Callable[[str, int], bool]) -> Tree:
    """The properties shared by the flat, size-bounded strategies with overlap (fixed, recursive).

    One level of leaves that lose no character; neighbours share at most ``overlap`` units; a
    leaf is over ``size`` only when ``can_cut_at`` finds no place inside it; the same text gives
    the same ids.
    """
    from zoomrag.parse import make_chunker
    from zoomrag.parse.base import measure_for

    chunker = make_chunker(strategy, {"size": size, "unit": unit, "overlap": overlap})
    d = Document(id="d", source="d", text=text)
    tree = chunker.chunk(d)
    m = measure_for(d, unit)
    # check_tree counts overlap in characters; the overlap in units is checked just below.
    check_tree(tree, partition=True, max_overlap=len(text) if overlap else 0)
    assert tree.depth() <= 1
    leaves = tree.leaves()
    for a, b in zip(leaves, leaves[1:]):
        if b.start < a.end:
            assert m.size(b.start, a.end) <= overlap
    for leaf in leaves:
        if m.size(leaf.start, leaf.end) > size:
            assert not any(can_cut_at(text, p) for p in range(leaf.start + 1, leaf.end))
    again = chunker.chunk(Document(id="d", source="d", text=text))
    assert [n.id for n in again] == [n.id for n in tree]
    return tree


def check_rendered_blocks(doc) -> None:
    """A reader that writes a rendering (HTML, Word, JSON …): blocks in order, inside the text,
    starting at text (code may start with its indentation), levelled only when headings."""
    prev = 0
    for b in doc.blocks:
        assert prev <= b.start < b.end <= len(doc.text), (b, prev)
        assert not doc.text[b.start].isspace() or b.type == "code", b
        assert (b.level > 0) == (b.type == "heading"), b
        prev = b.end


def check_blocks(doc, text: str, *, code_may_indent: bool = False) -> None:
    """A reader that keeps the text as it is: blocks in order, inside the text, trimmed, and
    levelled only when they are headings."""
    assert doc.text == normalize_newlines(text)
    prev = 0
    for b in doc.blocks:
        assert prev <= b.start < b.end <= len(doc.text), (b, prev)
        piece = doc.text[b.start:b.end]
        assert not piece[-1].isspace()
        assert (code_may_indent and b.type == "code") or not piece[0].isspace(), b
        assert (b.level > 0) == (b.type == "heading")
        prev = b.end
