"""build_tree: the tree of a draft, and the error of a bad draft, are those of a plain reference.

The reference below is build_tree written the obvious way (recursive, model.node_id per node,
each check where its docstring puts it); build_tree's fast walk must agree with it exactly,
node for node and message for message, on valid drafts and on drafts with several faults.
"""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zoomrag.errors import SpanError
from zoomrag.model import Document, Node, Tree, node_id
from zoomrag.parse.base import Span, build_tree


def reference_tree(document: Document, spans: list[Span]) -> Tree:
    text, n = document.text, len(document.text)
    nodes: list[Node] = []

    def outside(s: Span) -> SpanError:
        return SpanError(f"{s.kind} span [{s.start}, {s.end}) lies outside the text of "
                         f"{document.source!r} (length {n})")

    def visit(span: Span, level: int, parent_id: str | None, path: tuple[str, ...]) -> None:
        nid = node_id(document.id, span.kind, level, span.start, span.end)
        path = span.section_path or path
        prev = None
        for c in span.children:  # every child's place first ...
            if c.start < span.start or c.end > span.end:
                raise SpanError(f"{c.kind} [{c.start}, {c.end}) is not inside its parent {span.kind} "
                                f"[{span.start}, {span.end}) in {document.source!r}")
            if prev is not None and (c.start < prev.start or c.end < prev.end):
                raise SpanError(f"siblings out of order in {document.source!r}: {prev.kind} "
                                f"[{prev.start}, {prev.end}) then {c.kind} [{c.start}, {c.end})")
            prev = c
        ids = tuple(node_id(document.id, c.kind, level + 1, c.start, c.end) for c in span.children)
        nodes.append(Node(nid, document.id, span.kind, level, span.start, span.end, parent_id, ids,
                          path, span.embed_text, text))
        for c in span.children:  # ... then each child, its own span and below, in pre-order
            if not 0 <= c.start <= c.end <= n:
                raise outside(c)
            visit(c, level + 1, nid, path)

    visit(Span("document", 0, n, list(spans)), 0, None, ())
    return Tree(document=document, nodes=tuple(nodes))


def outcome(build, document: Document, spans: list[Span]):
    try:
        tree = build(document, spans)
    except SpanError as e:
        return str(e)
    # every field, the text shared with the document, and the tree's own answers
    return ([(n.id, n.doc_id, n.kind, n.level, n.start, n.end, n.parent_id, n.children, n.section_path,
              n.embed_text, n.doc_text is document.text, type(n) is Node) for n in tree],
            [n.id for n in tree.leaves()], tree.to_dict())


_KINDS = st.sampled_from(["chunk", "section", "sentence"])


@st.composite
def drafts(draw, start: int, end: int, depth: int = 0) -> list[Span]:
    """Mostly valid nested drafts over [start, end); now and then a span anywhere (a fault)."""
    k = draw(st.integers(0, 4 if depth < 3 else 0))
    cuts = sorted(draw(st.lists(st.integers(start, end), min_size=2 * k, max_size=2 * k)))
    out = []
    for i in range(k):
        s, e = cuts[2 * i], cuts[2 * i + 1]
        if draw(st.integers(0, 12)) == 0:
            s, e = draw(st.integers(-2, 14)), draw(st.integers(-2, 14))
        kids = draw(drafts(max(s, 0), max(min(e, 12), s, 0), depth + 1)) if draw(st.booleans()) else []
        out.append(Span(draw(_KINDS), s, e, kids, draw(st.sampled_from([(), ("A",), ("A", "B")])),
                        draw(st.sampled_from([None, "embedded"]))))
    return out


@settings(max_examples=400, deadline=None)
@given(st.integers(0, 12).flatmap(lambda n: st.tuples(st.just(n), drafts(0, n))))
def test_build_tree_is_the_reference_tree_or_raises_its_error(case) -> None:
    n, spans = case
    doc = Document(id="d/1", source="d.txt", text="x" * n)
    assert outcome(build_tree, doc, spans) == outcome(reference_tree, doc, spans)


def test_a_deep_draft_does_not_reach_the_recursion_limit() -> None:
    span = leaf = Span("chunk", 0, 1)
    for _ in range(3000):
        span = Span("chunk", 0, 1, [span])
    tree = build_tree(Document(id="d", source="d.txt", text="x"), [span])
    assert len(tree) == 3002 and tree.nodes[-1].level == 3001 and tree.leaves()[0].end == leaf.end


DOC = Document(id="d", source="d.txt", text="x" * 10)


@pytest.mark.parametrize(("spans", "message"), [
    ([Span("chunk", 0, 11)], "chunk [0, 11) is not inside its parent document [0, 10) in 'd.txt'"),
    ([Span("chunk", 4, 6), Span("chunk", 2, 8)],
     "siblings out of order in 'd.txt': chunk [4, 6) then chunk [2, 8)"),
    ([Span("chunk", 5, 3)], "chunk span [5, 3) lies outside the text of 'd.txt' (length 10)"),
    # a bad leaf waits for its turn in pre-order: an earlier sibling's subtree is checked first
    ([Span("section", 0, 4, [Span("chunk", 3, 5)]), Span("chunk", 6, 5)],
     "chunk [3, 5) is not inside its parent section [0, 4) in 'd.txt'"),
    # but every child's place is checked before any child is visited
    ([Span("section", 0, 4, [Span("chunk", 3, 5)]), Span("chunk", 6, 5), Span("chunk", 11, 12)],
     "chunk [11, 12) is not inside its parent document [0, 10) in 'd.txt'"),
    ([Span("chunk", 0, 2), Span("chunk", 0, 2)], "two nodes share an id (same kind, level and span)"),
])
def test_a_bad_draft_gets_its_exact_error(spans: list[Span], message: str) -> None:
    assert outcome(reference_tree, DOC, spans) == message
    with pytest.raises(SpanError, match=f"^{re.escape(message)}$"):
        build_tree(DOC, spans)
