"""A name asked alone comes back with its whole definition.

Pasting ``usage`` or ``res.cookie`` into ``zoomrag query`` asks what that function is: its
doc comment, its signature and its body. Search puts the unit that defines the name first
(:mod:`zoomrag.search.names`, which marks the hit's ``ranks["name"]``), but a policy grows a
context by where the hits are, and the body of a function holds no other hit: the context
would stop at its first leaf, or take in the end of the function before it. So the candidate
holding such a hit becomes the innermost definition or section around it (a method, not its
class; a ``help()`` page's entry, not its neighbours), whole and nothing else, when that fits
the budget; the policy's own candidate stays its fallback.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Sequence
from dataclasses import replace

from ..model import Hit, Node, Tree, TreeSource
from .base import Candidate
from .heads import DEFINITIONS
from .pertree import per_tree

#: Why such a candidate was proposed (``--explain``).
RULE = "the whole definition of the name asked"


def _has_body(text: str, start: int, end: int) -> bool:
    """Whether a section holds more than its title line: one of two signatures written one above
    the other (``bisect_right``, then ``bisect`` and their description) is a title alone."""
    nl = text.find("\n", start, end)
    return nl >= 0 and not text[nl:end].isspace()


def whole_definitions(candidates: Sequence[Candidate], trees: TreeSource, budget: int,
                      sizes: Callable[[str, int, int], int], name: str) -> list[Candidate]:
    """``candidates`` with each one holding hits that define the name asked made those hits'
    innermost definitions (from the first's start to the last's end: a getter and its setter;
    a hit in no definition of its own counts as its unit), when that fits ``budget``: a function, method or class of code, or a section whose title
    holds ``name`` (the name asked, unqualified; not the section around an option's line or an
    assignment)."""
    out = []
    for c in candidates:
        tree = trees.tree(c.doc_id)
        named = [(h, _innermost(tree, h, name)) for h in c.hits if "name" in h.ranks]
        nodes = [n for _, n in named if n is not None]
        if not nodes:
            out.append(c)
            continue
        # a defining hit with no definition node of its own (a getter merged with its
        # neighbours into one unit) stays in, as its unit
        start = min(n.start if n is not None else h.start for h, n in named)
        end = max(n.end if n is not None else h.end for h, n in named)
        if (c.start, c.end) == (start, end):
            out.append(replace(c, whole=True))
            continue
        if sizes(c.doc_id, start, end) > budget:
            out.append(c)
            continue
        # the definitions alone: what the policy took beside them (the end of the function
        # before) is not what was asked for
        first = min(nodes, key=lambda n: n.start)
        hits = tuple(h for h in c.hits if h.start < end and start < h.end)
        out.append(replace(c, start=start, end=end, hits=hits, section_path=first.section_path,
                           level=first.level, kind=first.kind, rule=f"{RULE}; {c.rule}" if c.rule else RULE,
                           fallback=(c,), whole=True))
    return out


def _wholes(tree: Tree) -> tuple[list[tuple[int, int]], list[Node]]:
    """The tree's definitions and sections by start (a child after its parent), with their keys."""
    nodes = sorted((n for n in tree.nodes if n.kind in DEFINITIONS or n.kind == "section"),
                   key=lambda n: (n.start, -n.end))
    return [(n.start, -n.end) for n in nodes], nodes


def _innermost(tree: Tree, hit: Hit, name: str) -> Node | None:
    """The innermost definition, or section titled by ``name`` with a body, holding ``hit``."""
    keys, nodes = per_tree(tree, "wholes", _wholes)
    text = tree.document.text
    # the latest-starting node that reaches the hit's end is the innermost (nodes nest)
    i = bisect_right(keys, (hit.start, 1))
    while i > 0:
        i -= 1
        n = nodes[i]
        if n.end < hit.end:
            continue
        if n.kind in DEFINITIONS or (n.section_path and name in n.section_path[-1]
                                     and _has_body(text, n.start, n.end)):
            return n
    return None
