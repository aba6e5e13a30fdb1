"""Definition heads: the signature a context from inside a function, method or class lacks.

A context cut from the middle of a long method (``adapter = self.get_adapter(url=…)``) reads
without the names its code uses: which parameters there are, what the method returns. Assembly
(:mod:`zoomrag.expand.assemble`) therefore gives such a context the first line of the definition
it starts inside (its whole signature, when that runs over several lines; decorators and comments
above it left out), as an extra exact span when the budget has room, as a table context gets its
header row.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from ..model import Tree
from ..parse.strategies.code import (
    DEFINITIONS,
    LEAD_LINE,
    MACRO_DEFINITION,
    in_block_comment,
    in_description,
    template_head,
)
from .pertree import per_tree

__all__ = ["DEFINITIONS", "declared_after", "enclosing", "enclosing_head", "head_cut", "head_of", "head_span"]

#: A signature is looked for over at most this many lines from its node's start, or from the end
#: of its decorators and comments, which may take up to MAX_LEAD_LINES (a command-line tool's
#: options, a JSDoc comment).
MAX_LINES = 12
MAX_LEAD_LINES = 400
#: String literals on one line: their brackets are text (``help="(default: 1)"``).
_STRINGS = re.compile(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'')
#: Openers and closers a signature's lines must balance (not braces: ``{`` opens a body).
_PAIRS = {"(": ")", "[": "]"}
_CLOSERS = frozenset(_PAIRS.values())


def _balance(line: str, depth: int) -> int:
    """``depth`` after the brackets of ``line`` (round and square: a decorator's arguments)."""
    for ch in line:
        if ch in _PAIRS:
            depth += 1
        elif ch in _CLOSERS:
            depth = max(0, depth - 1)
    return depth


def _definitions(tree: Tree) -> list[tuple[int, int]]:
    """The definition nodes of one tree as ``(start, end)``, by start (nested ones after their parent)."""
    return sorted((n.start, n.end) for n in tree.nodes if n.kind in DEFINITIONS)


def head_of(text: str, start: int, end: int) -> tuple[int, int]:
    """The signature of the definition spanning ``[start, end)``: from its first line that is no
    decorator (nor a line of a decorator's arguments), comment or blank, over the lines after it
    until its brackets balance, without the line break after it; ``(start, start)`` when none is
    found."""
    pos = start
    lines = depth = angles = 0
    decorated = quoted = commented = False
    while True:  # over comments, blank lines and decorators with the lines their brackets span
        if pos >= end or lines >= (MAX_LEAD_LINES if decorated else MAX_LINES):
            return start, start
        nl = text.find("\n", pos, end)
        line = text[pos:end if nl < 0 else nl]
        stripped = line.strip()
        described, quoted = in_description(stripped, quoted)  # GraphQL's, above what it describes
        in_comment, commented = in_block_comment(stripped, commented)
        if in_comment or described:
            decorated = True
        elif (inside := template_head(line, angles)) >= 0:  # a C++ template's head, maybe of many lines
            angles, decorated = inside, True
        elif not depth and stripped and (not LEAD_LINE.match(line) or MACRO_DEFINITION.match(line)):
            break
        if line.lstrip().startswith(("/*", "//", "*")):  # a doc comment may run long (JSDoc, Rust, Go, C)
            decorated = True
        if depth or line.lstrip().startswith("@"):  # ``@click.option(`` opens lines of arguments
            decorated = True
            depth = _balance(_STRINGS.sub("", line).split("#")[0], depth)
        pos = end if nl < 0 else nl + 1
        lines += 1
    s, depth = pos, 0
    while text[s] in " \t":  # a context starts at its first character, and so does a head
        s += 1
    for _ in range(MAX_LINES):
        nl = text.find("\n", pos, end)
        line_end = end if nl < 0 else nl
        depth = _balance(text[pos:line_end], depth)
        if depth == 0 or nl < 0:
            e = line_end
            while e > s and text[e - 1].isspace():
                e -= 1
            return s, e
        pos = nl + 1
    return start, start


def enclosing(tree: Tree, start: int, end: int) -> tuple[int, int] | None:
    """The span of the innermost definition that holds ``[start, end)``, or None."""
    spans = per_tree(tree, "definitions", _definitions)
    i = bisect_right(spans, (start, len(tree.document.text) + 1))
    # the latest-starting definition that reaches the end is the innermost (definitions nest)
    while i > 0:
        i -= 1
        if spans[i][1] >= end and spans[i][1] > start:
            return spans[i]
    return None


def head_span(tree: Tree, definition: tuple[int, int]) -> tuple[int, int]:
    """:func:`head_of` a definition of ``tree``, worked out once per tree: assembly asks about
    the same few definitions for every candidate, and a decorator stack may take hundreds of
    lines to pass."""
    heads: dict[tuple[int, int], tuple[int, int]] = per_tree(tree, "heads", lambda _: {})
    got = heads.get(definition)
    if got is None:
        got = heads[definition] = head_of(tree.document.text, *definition)
    return got


def enclosing_head(tree: Tree, pos: int) -> tuple[int, int] | None:
    """The head of the innermost definition that holds ``pos`` past its head, or None (no
    definition holds it, or ``pos`` is inside the head already)."""
    best = enclosing(tree, pos, pos + 1)
    if best is None:
        return None
    hs, he = head_span(tree, best)
    return (hs, he) if hs < he <= pos else None


def declared_after(tree: Tree, start: int, end: int) -> tuple[int, int] | None:
    """The head of the innermost definition that holds ``[start, end)`` in the comment above
    its head, or None: a C header's declaration comes after the comment that documents it."""
    best = enclosing(tree, start, end)
    if best is None:
        return None
    hs, he = head_span(tree, best)
    return (hs, he) if end <= hs < he else None


def head_cut(tree: Tree, start: int, end: int) -> int | None:
    """Where the head begins that ``[start, end)`` ends inside of, or with, or None: a piece that
    ends with ``def confirm(`` (or, after other code, all of ``def confirm(self):``) holds a
    definition's first line and nothing it says. The head alone is a piece of its own."""
    best = enclosing(tree, max(start, end - 1), end)
    if best is None:
        return None
    hs, he = head_span(tree, best)
    return hs if start <= hs < end and (end < he or (end == he and start < hs)) else None
