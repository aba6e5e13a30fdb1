"""The innermost node holding a span (assembly's gap filling) against a plain scan of the nodes,
and the per-tree memo it is kept in."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from zoomrag.expand.innermost import innermost
from zoomrag.expand.pertree import per_tree
from zoomrag.model import Document, Node, Tree
from zoomrag.parse import make_chunker

WORDS = st.sampled_from(["alpha", "beta", "gamma", "delta.", "Epsilon", "# Head", "\n", "\n\n", "- item"])


def scan(tree: Tree, start: int, end: int) -> Node | None:
    """The reference: the first of the deepest nodes below the root holding [start, end)."""
    best = None
    for n in tree.nodes:
        if n.level > 0 and n.start <= start and end <= n.end and (best is None or n.level > best.level):
            best = n
    return best


@settings(max_examples=60, deadline=None)
@given(words=st.lists(WORDS, min_size=1, max_size=80), strategy=st.sampled_from(["markdown", "fixed", "sentences"]),
       data=st.data())
def test_innermost_is_the_deepest_holding_node(words, strategy, data):
    text = " ".join(words)
    params = {"size": 8, "overlap": 2} if strategy == "fixed" else {}
    tree = make_chunker(strategy, params).chunk(Document(id="d", source="d.md", text=text, format="markdown"))
    for _ in range(5):
        start = data.draw(st.integers(0, len(text)))
        end = data.draw(st.integers(start, len(text)))
        assert innermost(tree, start, end) == scan(tree, start, end)
        assert innermost(tree, start, end) == scan(tree, start, end)  # the remembered answer too


def test_per_tree_builds_once_per_tree_object():
    text = "One sentence here. Another one there.\n\nA second paragraph.\n"
    built: list[Tree] = []

    def build(tree: Tree) -> int:
        built.append(tree)
        return len(built)

    a = make_chunker("sentences", {}).chunk(Document(id="d", source="d.txt", text=text))
    b = make_chunker("sentences", {}).chunk(Document(id="d", source="d.txt", text=text))
    assert per_tree(a, "test", build) == per_tree(a, "test", build) == 1
    assert per_tree(b, "test", build) == 2  # an equal tree loaded again is derived again
    assert built == [a, b]
