"""The span model's values: nodes, stored documents with their text source, trees and their
leaf maps."""

from __future__ import annotations

import dataclasses
import inspect
import threading
from concurrent.futures import ThreadPoolExecutor

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import texts

from zoomrag.errors import SpanError
from zoomrag.model import Document, Node, StoredDocument, TextSource, Tree, node_id, node_ids
from zoomrag.parse import make_chunker


@settings(max_examples=100, deadline=None)
@given(st.text(max_size=12), st.lists(st.tuples(st.sampled_from(["line", "paragraph", "code"]), st.integers(0, 3),
                                                st.integers(0, 10**9), st.integers(0, 10**9)), max_size=20))
def test_node_ids_are_the_hash_of_the_whole_key(doc_id: str, spans: list) -> None:
    # ids are stored and exported: the hasher copied per kind and level must give the same ones
    import hashlib

    whole = [hashlib.blake2b(f"{doc_id}\x1f{k}\x1f{lv}\x1f{s}\x1f{e}".encode(), digest_size=8).hexdigest()
             for k, lv, s, e in spans]
    assert node_ids(doc_id, spans) == whole
    assert [node_id(doc_id, *span) for span in spans] == whole


def test_a_node_is_an_immutable_value_of_its_fields() -> None:
    args = ("id1", "doc", "chunk", 2, 10, 20, "p", ("c1", "c2"), ("A", "B"), None, "x" * 30)
    node = Node(*args)
    assert node == Node(*args) and hash(node) == hash(Node(*args)) and node != Node(*args[:-1], "y" * 30)
    assert list(node) == list(args) and node._fields[-1] == "doc_text"
    assert node.text == "x" * 10 and node.length == 10 and not node.is_leaf
    assert "xxx" not in repr(node) and repr(node).startswith("Node(id='id1', doc_id='doc'")
    with pytest.raises(AttributeError):
        node.start = 0  # type: ignore[misc]


@settings(max_examples=60, deadline=None)
@given(texts, st.sampled_from(["window", "hierarchical", "markdown", "fixed", "sentences"]))
def test_tree_builder_ids_are_node_id(text: str, strategy: str) -> None:
    # build_tree computes ids with node_id's key inline (hash state per kind, copied).
    doc = Document.from_text(text, id="d/1")
    tree = make_chunker(strategy, {"unit": "chars"}).chunk(doc)
    assert [n.id for n in tree] == [node_id(doc.id, n.kind, n.level, n.start, n.end) for n in tree]


def test_a_stored_document_reads_its_text_once_on_first_use() -> None:
    reads: list[int] = []

    def read() -> str:
        reads.append(1)
        return "hello world"

    doc = Document.deferred(id="d", source="d.txt", read=read, format="markdown", content_hash="h")
    assert isinstance(doc, StoredDocument) and isinstance(doc, Document)
    node = Node("n", "d", "line", 1, 6, 11, None, (), (), None, doc.text_source)
    assert (doc.id, doc.source, doc.format, doc.content_hash, dict(doc.metadata), reads) == (
        "d", "d.txt", "markdown", "h", {}, [])
    assert not doc.text_source.is_read
    assert node.text == "world" and reads == [1]
    assert doc.text == "hello world" and type(doc.text) is str and reads == [1]
    assert doc.blocks == () and len(doc.text_source) == 11 and str(doc.text_source) == "hello world"
    with pytest.raises(AttributeError):
        doc.text = "x"  # type: ignore[misc]


def test_threads_reading_a_text_source_at_once_read_it_once() -> None:
    reads: list[int] = []
    start = threading.Barrier(4)
    source = TextSource(lambda: reads.append(1) or "abc" * 1000)

    def ask(_: int) -> str:
        start.wait()
        return source[3:6]

    with ThreadPoolExecutor(4) as pool:
        assert list(pool.map(ask, range(4))) == ["abc"] * 4
    assert reads == [1]


def test_a_document_fills_its_content_hash_and_checks_its_blocks() -> None:
    from zoomrag.model import Block, content_hash

    doc = Document.from_text("abc")
    assert doc.content_hash == content_hash("abc")
    assert Document(id="d", source="s", text="abc", content_hash="given").content_hash == "given"
    assert [f.name for f in dataclasses.fields(doc) if f.compare] == [
        "id", "source", "text", "format", "content_hash", "metadata", "blocks"]
    assert dataclasses.replace(doc, source="e").text == "abc"
    with pytest.raises(SpanError, match="ends past the text"):
        Document(id="d", source="s", text="abc", blocks=(Block(0, 4, "text"),))


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
@given(texts, st.sampled_from(["window", "hierarchical", "markdown", "fixed", "sentences"]))
def test_the_leaf_maps_answer_from_the_nodes(text: str, strategy: str) -> None:
    tree = _tree_of(text, strategy)
    leaves, around = _expected_neighbours(tree)
    assert tree.leaves() == leaves
    assert [(tree.previous_leaf(n), tree.next_leaf(n)) for n in tree] == [around[n.id] for n in tree]
    assert [tree[n.id] for n in tree] == list(tree.nodes) and tree.get("nope") is None


def test_a_tree_compares_by_document_nodes_and_strategy() -> None:
    tree = _tree_of("One. Two three.\n\nFour five six. Seven.", "hierarchical")
    again = _tree_of("One. Two three.\n\nFour five six. Seven.", "hierarchical")
    assert tree == again and repr(tree) == repr(again)
    assert [f.name for f in dataclasses.fields(Tree) if f.compare] == ["document", "nodes", "strategy"]
    assert list(inspect.signature(Tree).parameters) == ["document", "nodes", "strategy"]
    assert Tree(tree.document, tree.nodes, tree.strategy) == tree
    assert Tree(tree.document, tree.nodes).strategy == ""
    other = dataclasses.replace(tree, strategy="other")
    assert other.strategy == "other" and other.leaves() == tree.leaves() and other != tree


def test_a_tree_with_two_nodes_of_one_id_is_refused() -> None:
    doc = Document.from_text("abc")
    root = Node("r", doc.id, "document", 0, 0, 3, None, ("a", "a"), (), None, doc.text)
    leaf = Node("a", doc.id, "line", 1, 0, 1, "r", (), (), None, doc.text)
    with pytest.raises(SpanError, match=r"^two nodes share an id \(same kind, level and span\)$"):
        Tree(document=doc, nodes=(root, leaf, leaf))
