"""The span model's values: the fast Node constructor used by tree builders, deferred documents,
trees and their leaf maps made on first use."""

from __future__ import annotations

import copy
import dataclasses
import inspect
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import texts

from zoomrag.errors import SpanError
from zoomrag.model import DeferredText, Document, Node, Tree, new_node, node_id
from zoomrag.parse import make_chunker


def test_new_node_is_the_node_the_constructor_makes() -> None:
    args = ("id1", "doc", "chunk", 2, 10, 20, "p", ("c1", "c2"), ("A", "B"), None, "x" * 30)
    node = new_node(*args)
    assert type(node) is Node
    assert node == Node(*args) and hash(node) == hash(Node(*args))
    assert [getattr(node, f.name) for f in dataclasses.fields(Node)] == list(args)
    assert node.text == "x" * 10
    with pytest.raises(dataclasses.FrozenInstanceError):
        node.start = 0  # type: ignore[misc]


@settings(max_examples=60, deadline=None)
@given(texts, st.sampled_from(["window", "hierarchical", "markdown", "fixed", "sentences"]))
def test_tree_builder_ids_are_node_id(text: str, strategy: str) -> None:
    # build_tree computes ids with node_id's key inline (hash state per kind, copied).
    doc = Document.from_text(text, id="d/1")
    tree = make_chunker(strategy, {"unit": "chars"}).chunk(doc)
    assert [n.id for n in tree] == [node_id(doc.id, n.kind, n.level, n.start, n.end) for n in tree]


def test_a_deferred_document_reads_its_text_once_on_first_use() -> None:
    reads: list[int] = []

    def read() -> str:
        reads.append(1)
        return "hello world"

    doc = Document.deferred(id="d", source="d.txt", read=read, format="markdown", content_hash="h")
    node = new_node("n", "d", "line", 1, 6, 11, None, (), (), None, DeferredText(doc))
    assert (doc.id, doc.source, doc.format, doc.content_hash, dict(doc.metadata), reads) == (
        "d", "d.txt", "markdown", "h", {}, [])
    assert node.text == "world" and reads == [1]
    assert doc.text == "hello world" and type(doc.text) is str and reads == [1]
    assert doc == Document(id="d", source="d.txt", text="hello world", format="markdown", content_hash="h")
    assert dataclasses.replace(doc, source="e").text == "hello world"
    with pytest.raises(dataclasses.FrozenInstanceError):
        doc.text = "x"  # type: ignore[misc]
    with pytest.raises(AttributeError, match="'Document' object has no attribute 'nope'"):
        doc.nope  # type: ignore[attr-defined]  # noqa: B018


def test_an_ordinary_document_has_nothing_left_to_read() -> None:
    doc = Document.from_text("abc")
    assert doc._read is None and doc.text == "abc"
    assert [f.name for f in dataclasses.fields(doc) if f.compare] == [
        "id", "source", "text", "format", "content_hash", "metadata", "blocks"]


def _tree_of(text: str, strategy: str) -> Tree:
    return make_chunker(strategy, {"unit": "chars"}).chunk(Document.from_text(text, id="d/1"))


def _expected_neighbours(tree: Tree) -> tuple[list[Node], dict[str, tuple[Node | None, Node | None]]]:
    """leaves(), and each node's (previous_leaf, next_leaf), from the nodes alone."""
    leaves = [n for n in tree.nodes if not n.children and n.level > 0]
    around: dict[str, tuple[Node | None, Node | None]] = {n.id: (None, None) for n in tree.nodes}
    for k, leaf in enumerate(leaves):
        around[leaf.id] = (leaves[k - 1] if k else None, leaves[k + 1] if k + 1 < len(leaves) else None)
    return leaves, around


@settings(max_examples=60, deadline=None)
@given(texts, st.sampled_from(["window", "hierarchical", "markdown", "fixed", "sentences"]), st.booleans())
def test_the_leaf_maps_made_on_first_use_answer_from_the_nodes(text: str, strategy: str,
                                                              neighbour_first: bool) -> None:
    # _leaf_ids and _leaf_pos are made on first use, whichever accessor comes first.
    tree = _tree_of(text, strategy)
    assert "_leaf_ids" not in vars(tree) and "_leaf_pos" not in vars(tree)
    leaves, around = _expected_neighbours(tree)
    if neighbour_first:
        assert [(tree.previous_leaf(n), tree.next_leaf(n)) for n in tree] == [around[n.id] for n in tree]
        assert tree.leaves() == leaves
    else:
        assert tree.leaves() == leaves
        assert "_leaf_pos" not in vars(tree)
        assert [(tree.previous_leaf(n), tree.next_leaf(n)) for n in tree] == [around[n.id] for n in tree]
    assert tree._leaf_ids == tuple(n.id for n in leaves)
    assert dict(tree._leaf_pos) == {n.id: k for k, n in enumerate(leaves)}
    assert [tree[n.id] for n in tree] == list(tree.nodes) and tree.get("nope") is None


def test_a_tree_is_the_same_value_before_and_after_its_leaf_maps_are_made() -> None:
    tree = _tree_of("One. Two three.\n\nFour five six. Seven.", "hierarchical")
    again = _tree_of("One. Two three.\n\nFour five six. Seven.", "hierarchical")
    before = (repr(tree), tree.to_dict())
    assert tree == again
    tree.next_leaf(tree.leaves()[0])
    assert "_leaf_pos" in vars(tree) and "_leaf_pos" not in vars(again)
    assert tree == again and (repr(tree), tree.to_dict()) == before
    assert [f.name for f in dataclasses.fields(Tree) if f.compare] == ["document", "nodes", "strategy"]
    assert list(inspect.signature(Tree).parameters) == ["document", "nodes", "strategy"]
    assert Tree(tree.document, tree.nodes, tree.strategy) == tree == Tree(document=tree.document, nodes=tree.nodes,
                                                                      strategy=tree.strategy)
    assert Tree(tree.document, tree.nodes).strategy == ""
    assert copy.copy(again).leaves() == again.leaves()
    other = dataclasses.replace(tree, strategy="other")
    assert other.strategy == "other" and other.leaves() == tree.leaves()
    with pytest.raises(dataclasses.FrozenInstanceError):
        tree._leaf_ids = ()  # type: ignore[misc]
    with pytest.raises(TypeError):
        tree._leaf_pos["x"] = 0  # type: ignore[index]
    with pytest.raises(AttributeError, match="'Tree' object has no attribute 'nope'"):
        tree.nope  # type: ignore[attr-defined]  # noqa: B018


def test_threads_asking_a_new_tree_for_neighbours_at_once_get_the_same_answers() -> None:
    tree = _tree_of("A b c. " * 400, "hierarchical")
    leaves, around = _expected_neighbours(tree)
    start = threading.Barrier(4)

    def ask(_: int) -> list[tuple[Node | None, Node | None]]:
        start.wait()
        return [(tree.previous_leaf(n), tree.next_leaf(n)) for n in tree]

    with ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(ask, range(4)))
    assert answers == [[around[n.id] for n in tree]] * 4 and tree.leaves() == leaves


def test_a_tree_with_two_nodes_of_one_id_is_refused() -> None:
    doc = Document.from_text("abc")
    root = new_node("r", doc.id, "document", 0, 0, 3, None, ("a", "a"), (), None, doc.text)
    leaf = new_node("a", doc.id, "line", 1, 0, 1, "r", (), (), None, doc.text)
    with pytest.raises(SpanError, match=r"^two nodes share an id \(same kind, level and span\)$"):
        Tree(document=doc, nodes=(root, leaf, leaf))
