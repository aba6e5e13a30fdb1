"""The span model's values: the fast Node constructor used by tree builders, deferred documents."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import texts

from zoomrag.model import DeferredText, Document, Node, new_node, node_id
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
