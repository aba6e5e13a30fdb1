"""Strategy ``window``: sentence leaves under paragraphs; windows computed at query time."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_tree, has_break, texts

from zoomrag.errors import ConfigError
from zoomrag.model import Document
from zoomrag.parse.registry import make_chunker
from zoomrag.parse.strategies.window import SentenceWindow, window_span
from zoomrag.text.sentences import sentence_spans
from zoomrag.text.tokens import Measure, get_counter

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
TEXT = "Para one. Second sentence here.\n\nPara two.\n \nThird para! Last one?"


def test_sentences_under_paragraphs() -> None:
    tree = make_chunker("window", {}).chunk(Document.from_text(TEXT))
    assert [(n.kind, n.level, n.text) for n in tree] == [
        ("document", 0, TEXT),
        ("paragraph", 1, "Para one. Second sentence here."),
        ("sentence", 2, "Para one."),
        ("sentence", 2, "Second sentence here."),
        ("paragraph", 1, "Para two."),
        ("sentence", 2, "Para two."),
        ("paragraph", 1, "Third para! Last one?"),
        ("sentence", 2, "Third para!"),
        ("sentence", 2, "Last one?"),
    ]
    check_tree(tree)


def test_flat_sentences_without_paragraphs() -> None:
    tree = make_chunker("window", {"paragraphs": "false"}).chunk(Document.from_text(TEXT))
    assert [(n.kind, n.level, n.start, n.end) for n in tree][1:] == [
        ("sentence", 1, 0, 9), ("sentence", 1, 10, 31), ("sentence", 1, 33, 42),
        ("sentence", 1, 45, 56), ("sentence", 1, 57, 66)]


def test_an_over_long_sentence_becomes_several_leaves() -> None:
    text = "Short. This sentence is rather long for the limit. End."
    tree = make_chunker("window", {"max_size": 20, "unit": "chars"}).chunk(Document.from_text(text))
    assert [n.text for n in tree.leaves()] == [
        "Short.", "This sentence is", "rather long for the", "limit.", "End."]
    assert {n.kind for n in tree.leaves()} == {"sentence"}


@pytest.mark.parametrize(("k", "window", "expected"), [
    (0, 0, "Para one."),
    (0, 1, "Para one. Second sentence here."),
    (1, 1, "Para one. Second sentence here.\n\nPara two."),  # windows cross paragraphs
    (2, 2, TEXT),
    (4, 1, "Third para! Last one?"),
    (4, 9, TEXT),
])
def test_window_span(k: int, window: int, expected: str) -> None:
    tree = make_chunker("window", {}).chunk(Document.from_text(TEXT))
    leaf = tree.leaves()[k]
    s, e = window_span(tree, leaf, window)
    assert TEXT[s:e] == expected



def test_empty_document_has_no_leaves() -> None:
    tree = make_chunker("window", {}).chunk(Document.from_text("\n\n  "))
    assert len(tree) == 1 and tree.leaves() == []


def test_defaults() -> None:
    assert make_chunker("window", {}).describe() == (
        "window(window=2, max_size=256, unit='tokens', paragraphs=True)")


@pytest.mark.parametrize(("params", "message"), [
    ({"window": -1}, "window: window=-1 is out of range; use at least 0"),
    ({"window": "two"}, "window: window='two' is not a valid int"),
    ({"max_size": 0}, "window: max_size=0 is out of range; use at least 1"),
    ({"unit": "words"}, "window: unknown length unit 'words'; choose one of: tokens, approx, chars"),
    ({"paragraphs": "maybe"}, "window: paragraphs='maybe' is not a valid bool"),
    ({"size": 3}, ("strategy 'window' has no parameter 'size'; its parameters are: "
                   "max_size, paragraphs, unit, window")),
])
def test_parameter_errors(params: dict, message: str) -> None:
    with pytest.raises(ConfigError, match="^" + message):
        make_chunker("window", params)


def test_paragraphs_must_be_a_bool() -> None:
    with pytest.raises(ConfigError, match=r"^window: paragraphs must be true or false, got 'yes'$"):
        SentenceWindow(paragraphs="yes")


def test_chinese_fixture_from_cmrc2018() -> None:
    path = DATA / "cmrc2018_trial" / "corpus.jsonl"
    if not path.exists():
        pytest.skip("../shared/data is not here")
    with open(path, encoding="utf-8") as f:
        row = next(d for d in map(json.loads, f) if d["id"] == "TRIAL_154")
    doc = Document(id=row["id"], source="cmrc2018_trial", text=row["text"])
    tree = make_chunker("window", {"unit": "approx"}).chunk(doc)
    check_tree(tree)
    leaves = tree.leaves()
    assert len(leaves) == 7 and len(tree.at_level(1)) == 1
    assert leaves[1].text == "尤金袋鼠分布在澳洲南部岛屿及西岸地区。"
    s, e = window_span(tree, leaves[1], 1)
    assert doc.text[s:e] == leaves[0].text + leaves[1].text + leaves[2].text


# -- properties on random text ---------------------------------------------------------------
@settings(max_examples=150, deadline=None)
@given(texts, st.sampled_from([8, 40, 256]), st.sampled_from(["chars", "approx", "tokens"]),
       st.booleans())
def test_tree_invariants(text: str, max_size: int, unit: str, paragraphs: bool) -> None:
    doc = Document.from_text(text)
    chunker = SentenceWindow(max_size=max_size, unit=unit, paragraphs=paragraphs)
    tree = chunker.chunk(doc)
    check_tree(tree)
    measure = Measure(doc.text, get_counter(unit))
    leaves = tree.leaves()
    assert all(n.kind == "sentence" and n.level == (2 if paragraphs else 1) for n in leaves)
    # Counting only the long sentences gives the tree that counting everything would give:
    # a sentence within the limit is one leaf, a bigger one is cut inside its span.
    pos = 0
    for s, e in sentence_spans(doc.text):
        if measure.size(s, e) <= max_size:
            assert (leaves[pos].start, leaves[pos].end) == (s, e)
            pos += 1
        else:
            while pos < len(leaves) and leaves[pos].end <= e:
                assert leaves[pos].start >= s
                assert (measure.size(leaves[pos].start, leaves[pos].end) <= max_size
                        or not has_break(leaves[pos].text))
                pos += 1
    assert pos == len(leaves)
    assert [n.id for n in chunker.chunk(doc)] == [n.id for n in tree]
