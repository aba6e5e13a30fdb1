"""Strategy ``sentences``: N sentences per chunk, bounded by max_size."""

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
from zoomrag.parse.strategies.sentences import SentenceChunks
from zoomrag.text.sentences import sentence_spans
from zoomrag.text.tokens import Measure, get_counter

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def leaves(text: str, **params) -> list[str]:
    tree = make_chunker("sentences", params).chunk(Document.from_text(text))
    return [n.text for n in tree.leaves()]


FIVE = "One. Two. Three. Four. Five."


@pytest.mark.parametrize(("params", "expected"), [
    ({"sentences": 2, "unit": "chars"}, ["One. Two.", "Three. Four.", "Five."]),
    ({"sentences": 3, "unit": "chars"}, ["One. Two. Three.", "Four. Five."]),
    ({"sentences": 2, "overlap": 1, "unit": "chars"},
     ["One. Two.", "Two. Three.", "Three. Four.", "Four. Five."]),
    ({"sentences": 3, "overlap": 2, "unit": "chars"},
     ["One. Two. Three.", "Two. Three. Four.", "Three. Four. Five."]),
    # "Three. Four." is 12 characters: over max_size, so "Three." goes alone.
    ({"sentences": 3, "max_size": 10, "unit": "chars"}, ["One. Two.", "Three.", "Four.", "Five."]),
])
def test_chunks_of_n_sentences(params: dict, expected: list[str]) -> None:
    assert leaves(FIVE, **params) == expected


def test_an_over_long_sentence_is_cut_into_chunks_of_its_own() -> None:
    text = "A short one. This sentence is rather long for the limit. End."
    expected = ["A short one.", "This sentence is", "rather long for the", "limit.", "End."]
    assert leaves(text, sentences=3, max_size=20, unit="chars") == expected
    # Overlap never repeats a piece of a cut sentence, nor makes a chunk of shared sentences only.
    assert leaves(text, sentences=2, overlap=1, max_size=20, unit="chars") == expected


def test_tree_is_depth_one_with_chunk_leaves() -> None:
    tree = make_chunker("sentences", {"sentences": 2}).chunk(Document.from_text(FIVE))
    assert tree.depth() == 1
    assert [(n.kind, n.level, n.start, n.end) for n in tree.leaves()] == [
        ("chunk", 1, 0, 9), ("chunk", 1, 10, 22), ("chunk", 1, 23, 28)]


def test_empty_and_blank_documents_have_no_leaves() -> None:
    assert leaves("") == []
    assert leaves(" \n\n\t") == []


def test_defaults() -> None:
    chunker = make_chunker("sentences", {})
    assert chunker.describe() == "sentences(sentences=3, overlap=0, max_size=256, unit='tokens')"


def test_cli_strings_are_coerced() -> None:
    chunker = make_chunker("sentences", {"sentences": "2", "overlap": "1"})
    assert chunker == SentenceChunks(sentences=2, overlap=1)


@pytest.mark.parametrize(("params", "message"), [
    ({"sentences": 0}, "sentences: sentences=0 is out of range; use at least 1"),
    ({"sentences": 2.5}, "sentences: sentences must be a whole number, got 2.5"),
    ({"overlap": 3}, "sentences: overlap=3 is out of range; use at least 0 and at most 2"),
    ({"overlap": -1}, "sentences: overlap=-1 is out of range; use at least 0 and at most 2"),
    ({"max_size": 0}, "sentences: max_size=0 is out of range; use at least 1"),
    ({"max_size": "big"}, "sentences: max_size='big' is not a valid int"),
    ({"unit": "words"}, "sentences: unknown length unit 'words'; choose one of: tokens, approx, chars"),
    ({"size": 3}, ("strategy 'sentences' has no parameter 'size'; its parameters are: "
                   "max_size, overlap, sentences, unit")),
])
def test_parameter_errors(params: dict, message: str) -> None:
    with pytest.raises(ConfigError, match="^" + message.replace("(", r"\(").replace(")", r"\)")):
        make_chunker("sentences", params)


def test_chinese_fixture_from_cmrc2018() -> None:
    path = DATA / "cmrc2018_trial" / "corpus.jsonl"
    if not path.exists():
        pytest.skip("../shared/data is not here")
    with open(path, encoding="utf-8") as f:
        row = next(d for d in map(json.loads, f) if d["id"] == "TRIAL_800")
    doc = Document(id=row["id"], source="cmrc2018_trial", text=row["text"])
    tree = make_chunker("sentences", {"sentences": 3, "unit": "approx"}).chunk(doc)
    check_tree(tree)
    chunks = [n.text for n in tree.leaves()]
    assert len(chunks) == 4  # 10 sentences: 3 + 3 + 3 + 1
    assert chunks[0] == ("基于《跑跑卡丁车》与《泡泡堂》上所开发的游戏，由韩国Nexon开发与发行。"
                         "中国大陆由盛大游戏运营，这是Nexon时隔6年再次授予盛大网络其游戏运营权。台湾由游戏橘子运营。")
    assert all(c.endswith("。") for c in chunks)


# -- properties on random text ---------------------------------------------------------------
@settings(max_examples=150, deadline=None)
@given(texts, st.integers(1, 4), st.integers(0, 3), st.sampled_from([8, 40, 256]),
       st.sampled_from(["chars", "approx", "tokens"]))
def test_tree_invariants(text: str, n: int, overlap: int, max_size: int, unit: str) -> None:
    overlap = min(overlap, n - 1)
    chunker = SentenceChunks(sentences=n, overlap=overlap, max_size=max_size, unit=unit)
    doc = Document.from_text(text)
    tree = chunker.chunk(doc)
    check_tree(tree, max_overlap=len(doc.text) if overlap else 0)
    assert tree.depth() <= 1
    measure = Measure(doc.text, get_counter(unit))
    starts = {s for s, _ in sentence_spans(doc.text)}
    for leaf in tree.leaves():
        # Over the limit only when one word cannot be cut.
        assert measure.size(leaf.start, leaf.end) <= max_size or not has_break(leaf.text)
        if overlap == 0 and measure.size(leaf.start, leaf.end) <= max_size:
            assert leaf.start in starts or _inside_a_cut_sentence(doc.text, leaf.start)
    again = chunker.chunk(doc)
    assert [n.id for n in again] == [n.id for n in tree]


def _inside_a_cut_sentence(text: str, pos: int) -> bool:
    return any(s < pos < e for s, e in sentence_spans(text))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 30), max_size=80), st.lists(st.integers(0, 30), max_size=80),
       st.integers(0, 60), st.integers(1, 5))
def test_run_lengths_are_the_greedy_runs(gaps: list[int], sizes: list[int], limit: int,
                                         per_chunk: int) -> None:
    # Token bounds of consecutive sentences: each starts at or after the previous one's end.
    from zoomrag.parse.strategies.sentences import run_lengths

    starts, ends, at = [], [], 0
    for gap, size in zip(gaps, sizes):
        starts.append(at + gap)
        ends.append(at + gap + size)
        at = ends[-1]
    loop = run_lengths(starts, ends, limit, per_chunk)
    assert len(loop) == len(starts)
    for i, k in enumerate(loop):  # the greedy run: as many sentences as fit, up to per_chunk
        assert k <= per_chunk and i + k <= len(starts)
        assert all(ends[j] - starts[i] <= limit for j in range(i, i + k))
        assert k == per_chunk or i + k == len(starts) or ends[i + k] - starts[i] > limit
