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
from zoomrag.parse.base import build_tree
from zoomrag.parse.registry import make_chunker
from zoomrag.parse.strategies.sentences import LazySizes, SentenceChunks, group_bounds
from zoomrag.text.sentences import sentence_bounds, sentence_spans
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


class CountingChars:
    """A chars counter that records which texts it counted."""

    name = "spy"

    def __init__(self) -> None:
        self.counted: list[str] = []

    def token_starts(self, text: str) -> range:
        self.counted.append(text)
        return range(len(text))

    def at_most_one_per_char(self, text: str) -> bool:
        return True


def test_short_spans_are_never_counted() -> None:
    spy = CountingChars()
    text = "One. Two. Three. Four."
    sizes = LazySizes(text, spy, 100)
    assert group_bounds(*sentence_bounds(text), sizes, per_chunk=3, overlap=0) == [(0, 16), (17, 22)]
    assert spy.counted == []
    sizes = LazySizes(text, spy, 8)  # now "One. Two." (9 characters) must be counted
    assert group_bounds(*sentence_bounds(text), sizes, per_chunk=3, overlap=0) == [
        (0, 4), (5, 9), (10, 16), (17, 22)]
    assert spy.counted == [text]  # once, as a whole


def test_a_counter_without_the_bound_is_always_asked() -> None:
    class Plain:
        name = "plain"

        def token_starts(self, text: str) -> list[int]:
            return list(range(len(text)))

    sizes = LazySizes("Hi. There.", Plain(), 100)
    assert sizes.fits(0, 3) and sizes._measure is not None


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


@settings(max_examples=100, deadline=None)
@given(texts, st.integers(1, 4), st.sampled_from(["chars", "tokens"]))
def test_chunk_is_the_tree_of_the_drafts(text: str, n: int, unit: str) -> None:
    # chunk() builds the tree straight from the chunk offsets; it must be build_tree's.
    doc = Document.from_text(text, id="d/1")
    chunker = SentenceChunks(sentences=n, max_size=20, unit=unit)
    drafts = build_tree(doc, chunker.split(doc), strategy=chunker.describe())
    tree = chunker.chunk(doc)
    assert tree == drafts and [n.children for n in tree] == [n.children for n in drafts]


def _grouped_by_fits(spans: list[tuple[int, int]], sizes: LazySizes, per_chunk: int,
                     overlap: int) -> list[tuple[int, int]]:
    """The grouping as it was written before its size test was inlined: the reference."""
    out: list[tuple[int, int]] = []
    n, i, done = len(spans), 0, 0
    while i < n:
        first = spans[i][0]
        j = i
        while j < n and j - i < per_chunk and sizes.fits(first, spans[j][1]):
            j += 1
        if j == i:
            out.extend(sizes.cut(*spans[i]))
            i = done = i + 1
            continue
        if j <= done:
            i = done
            continue
        out.append((first, spans[j - 1][1]))
        done = j
        i = max(i + 1, j - overlap)
        if j == n:
            break
    return out


@settings(max_examples=150, deadline=None)
@given(texts, st.integers(1, 4), st.integers(0, 3), st.sampled_from([4, 12, 40, 256]),
       st.sampled_from(["chars", "approx", "tokens"]))
def test_grouping_matches_the_plain_fits_loop(text: str, n: int, overlap: int, limit: int,
                                              unit: str) -> None:
    # The inlined loop (token indices looked up once, the length shortcut only until the text
    # is counted) must choose the same chunks as asking sizes.fits for every sentence.
    overlap = min(overlap, n - 1)
    spans = sentence_spans(text)
    counter = get_counter(unit)
    fast = group_bounds(*sentence_bounds(text), LazySizes(text, counter, limit), per_chunk=n,
                            overlap=overlap)
    assert fast == _grouped_by_fits(spans, LazySizes(text, counter, limit), n, overlap)


@settings(max_examples=150, deadline=None)
@given(texts, st.integers(1, 4), st.integers(0, 3), st.sampled_from([4, 12, 40, 256]),
       st.sampled_from(["chars", "approx", "tokens"]))
def test_grouping_with_numpy_run_lengths_matches_the_plain_fits_loop(
        text: str, n: int, overlap: int, limit: int, unit: str) -> None:
    # The same, with run_lengths taking its numpy path however few the sentences.
    from zoomrag.parse.strategies import sentences as strategy

    overlap = min(overlap, n - 1)
    spans = sentence_spans(text)
    counter = get_counter(unit)
    saved = strategy.NUMPY_MIN
    strategy.NUMPY_MIN = 0
    try:
        fast = group_bounds(*sentence_bounds(text), LazySizes(text, counter, limit), per_chunk=n,
                            overlap=overlap)
    finally:
        strategy.NUMPY_MIN = saved
    assert fast == _grouped_by_fits(spans, LazySizes(text, counter, limit), n, overlap)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 30), max_size=80), st.lists(st.integers(0, 30), max_size=80),
       st.integers(0, 60), st.integers(1, 5))
def test_run_lengths_numpy_equals_the_loop(gaps: list[int], sizes: list[int], limit: int,
                                           per_chunk: int) -> None:
    # Token bounds of consecutive sentences: each starts at or after the previous one's end.
    from zoomrag.parse.strategies import sentences as strategy

    starts, ends, at = [], [], 0
    for gap, size in zip(gaps, sizes):
        starts.append(at + gap)
        ends.append(at + gap + size)
        at = ends[-1]
    saved = strategy.NUMPY_MIN
    try:
        strategy.NUMPY_MIN = 0
        vector = strategy.run_lengths(starts, ends, limit, per_chunk)
        strategy.NUMPY_MIN = len(starts) + 1
        loop = strategy.run_lengths(starts, ends, limit, per_chunk)
    finally:
        strategy.NUMPY_MIN = saved
    assert vector == loop
    for i, k in enumerate(loop):  # the greedy run: as many sentences as fit, up to per_chunk
        assert k <= per_chunk and i + k <= len(starts)
        assert all(ends[j] - starts[i] <= limit for j in range(i, i + k))
        assert k == per_chunk or i + k == len(starts) or ends[i + k] - starts[i] > limit


@settings(max_examples=150, deadline=None)
@given(st.one_of(texts, st.lists(st.sampled_from(["Word.", "two words.", "中文。", " ", "\n", "\n\n",
                                                  "x" * 30, "end.\u3000", "tab\t."]), max_size=60)
                 .map("".join)), st.sampled_from(["chars", "approx", "tokens"]))
def test_token_bounds_are_the_token_indices_of_the_sentences(text: str, unit: str) -> None:
    # One lookup per sentence (its end; the next one starts there), by whitespace offsets when
    # every sentence ends before whitespace: the same as the Measure's index of each bound.
    starts, ends = sentence_bounds(text)
    if not starts:
        return
    sizes = LazySizes(text, get_counter(unit), 1)
    measure = Measure(text, get_counter(unit))
    assert sizes.token_bounds(starts, ends) == (
        [measure.index(s) for s in starts], [measure.index(e) for e in ends])
