"""The span model's values: the fast Node constructor used by tree builders."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import texts

from zoomrag.model import Document, Node, new_node, node_id
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
