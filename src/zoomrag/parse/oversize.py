"""Leaves too long for the embedder's window, split by characters into pieces that fit.

Strategies cut at word gaps and never inside a word, so one unbreakable run (a base64 data URI,
a minified line, a megabyte of letters) leaves a leaf the embedder cannot take whole. Rather
than skip the document, such a leaf becomes the parent of ``piece`` nodes that each fit: cut at
the last whitespace of a window when there is one in its second half, else between characters.
The leaf keeps its span, so every ancestor, and every span returned, is unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection

from ..model import Node, Tree, node_id

#: The kind of the nodes a too-long leaf is split into.
PIECE = "piece"
_SPACE_RUN = re.compile(r"\s+")


def split_leaves(tree: Tree, leaves: Collection[str], fits: Callable[[str], bool],
                 max_chars: int) -> Tree:
    """``tree`` with each leaf whose id is in ``leaves`` split into pieces of text that ``fits``.

    ``max_chars`` is the most characters a piece is first tried at (the window in tokens is a
    safe start: a token is at least one character); it shrinks until the piece fits.
    """
    if not leaves:
        return tree
    doc = tree.document
    text = doc.text
    nodes: list[Node] = []
    for n in tree.nodes:
        if n.id not in leaves or n.children:
            nodes.append(n)
            continue
        spans = _pieces(text, n.start, n.end, fits, max(1, max_chars))
        ids = tuple(node_id(doc.id, PIECE, n.level + 1, s, e) for s, e in spans)
        nodes.append(Node(n.id, n.doc_id, n.kind, n.level, n.start, n.end, n.parent_id, ids,
                              n.section_path, n.embed_text, n.doc_text))
        nodes.extend(Node(i, n.doc_id, PIECE, n.level + 1, s, e, n.id, (), n.section_path, None,
                              n.doc_text) for i, (s, e) in zip(ids, spans))
    return Tree(document=doc, nodes=tuple(nodes), strategy=tree.strategy)


def _pieces(text: str, start: int, end: int, fits: Callable[[str], bool], max_chars: int) -> list[tuple[int, int]]:
    out: list[tuple[int, int]] = []
    s = start
    size = max_chars
    while s < end:
        m = _SPACE_RUN.match(text, s, end)
        if m:  # a piece never starts with whitespace
            s = m.end()
            if s >= end:
                break
        e = min(end, s + size)
        while True:
            cut = e
            if e < end:
                gap = text.rfind(" ", s + (e - s) // 2, e)
                if gap > s:
                    cut = gap
            if cut - s <= 1 or fits(text[s:cut]):
                break
            e = s + max(1, (e - s) // 2)
        stop = cut
        while stop > s + 1 and text[stop - 1].isspace():
            stop -= 1
        out.append((s, stop))
        s = cut
    return out
