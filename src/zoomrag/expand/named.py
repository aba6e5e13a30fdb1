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

import re
from collections.abc import Callable, Sequence
from dataclasses import replace

from ..model import TreeSource
from .base import Candidate
from .heads import DEFINITIONS

#: Why such a candidate was proposed (``--explain``).
RULE = "the whole definition of the name asked"
_PARTS = re.compile(r"\.|::|#")


def last_part(query: str) -> str:
    """The name a query asks for without its qualifiers (``cookie`` of ``res.cookie()``)."""
    return _PARTS.split(query.strip().strip("`").removesuffix("()"))[-1]


def _has_body(text: str, start: int, end: int) -> bool:
    """Whether a section holds more than its title line: one of two signatures written one above
    the other (``bisect_right``, then ``bisect`` and their description) is a title alone."""
    nl = text.find("\n", start, end)
    return nl >= 0 and not text[nl:end].isspace()


def whole_definitions(candidates: Sequence[Candidate], trees: TreeSource, budget: int,
                      sizes: Callable[[str, int, int], int], name: str) -> list[Candidate]:
    """``candidates`` with each one holding a hit that defines the name asked made that hit's
    innermost definition, when it fits ``budget``: a function, method or class of code, or a
    section whose title holds ``name`` (:func:`last_part`; not the section around an option's
    line or an assignment)."""
    out = []
    for c in candidates:
        named = [h for h in c.hits if "name" in h.ranks]
        node = None
        if named:
            tree = trees.tree(c.doc_id)
            text = tree.document.text
            node = min((n for n in tree.nodes
                        if (n.kind in DEFINITIONS or (n.kind == "section" and n.section_path
                                                      and name in n.section_path[-1]
                                                      and _has_body(text, n.start, n.end)))
                        and n.start <= named[0].start and named[0].end <= n.end),
                       key=lambda n: n.end - n.start, default=None)
        if node is None:
            out.append(c)
            continue
        if (c.start, c.end) == (node.start, node.end):
            out.append(replace(c, whole=True))
            continue
        if sizes(c.doc_id, node.start, node.end) > budget:
            out.append(c)
            continue
        # the definition alone: what the policy took beside it (the end of the function before)
        # is not what was asked for
        hits = tuple(h for h in c.hits if h.start < node.end and node.start < h.end)
        out.append(replace(c, start=node.start, end=node.end, hits=hits, section_path=node.section_path,
                           level=node.level, kind=node.kind, rule=f"{RULE}; {c.rule}" if c.rule else RULE,
                           fallback=(c,), whole=True))
    return out
