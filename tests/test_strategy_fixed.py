"""``fixed``: flat chunks of at most ``size`` units cut at the best nearby boundary."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_flat_sized, check_tree, texts

from zoomrag.errors import ConfigError
from zoomrag.model import Document, node_id
from zoomrag.parse import make_chunker
from zoomrag.parse.base import measure_for
from zoomrag.parse.boundaries import can_cut

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def doc(text: str) -> Document:
    return Document(id="d", source="t.txt", text=text)


def leaves(chunker, text: str) -> list[str]:
    return [n.text for n in chunker.chunk(doc(text)).leaves()]


def test_exact_tree_for_a_small_document():
    text = "One two three. Four five six.\n\nSeven eight nine ten."
    tree = make_chunker("fixed", {"size": 30, "unit": "chars"}).chunk(doc(text))
    root = node_id("d", "document", 0, 0, 52)
    assert [(n.kind, n.level, n.start, n.end, n.parent_id) for n in tree] == [
        ("document", 0, 0, 52, None),
        ("chunk", 1, 0, 29, root),
        ("chunk", 1, 31, 52, root),
    ]
    assert [n.text for n in tree.leaves()] == ["One two three. Four five six.", "Seven eight nine ten."]
    assert tree.depth() == 1
    assert tree.strategy == "fixed(size=30, unit='chars', overlap=0, min_size=0, lookback=0.3)"


def test_overlap_is_shared_by_neighbours():
    chunker = make_chunker("fixed", {"size": 20, "unit": "chars", "overlap": 6})
    assert leaves(chunker, "one two three four five six seven eight nine ten") == [
        "one two three four", "four five six seven", "seven eight nine ten",
    ]


def test_defaults_are_256_tokens_without_overlap():
    chunker = make_chunker("fixed")
    assert (chunker.size, chunker.unit, chunker.overlap, chunker.min_size, chunker.lookback) == (
        256, "tokens", 0, 0, 0.3)
    text = "word " * 600
    sizes = [measure_for(doc(text), "tokens").size(n.start, n.end) for n in chunker.chunk(doc(text)).leaves()]
    assert max(sizes) <= 256 and sum(sizes) == 600


def test_chinese_text_is_cut_at_the_full_stop():
    text = "我们今天去了公园。然后回家吃晚饭，很开心。"
    chunker = make_chunker("fixed", {"size": 12, "unit": "chars"})
    assert leaves(chunker, text) == ["我们今天去了公园。", "然后回家吃晚饭，很开心。"]


def test_a_full_width_decimal_point_is_not_cut_as_a_sentence_end():
    text = "苹果3．5元，梨子2．8元。香蕉很便宜。"
    chunker = make_chunker("fixed", {"size": 12, "unit": "chars", "lookback": 1.0})
    assert leaves(chunker, text) == ["苹果3．5元，", "梨子2．8元。", "香蕉很便宜。"]


def test_empty_and_blank_documents_have_no_leaves():
    chunker = make_chunker("fixed", {"size": 10})
    for text in ("", " \n\t "):
        tree = chunker.chunk(doc(text))
        assert len(tree) == 1 and tree.leaves() == []


def test_cli_strings_are_coerced():
    chunker = make_chunker("fixed", {"size": "64", "unit": "chars", "overlap": "8", "lookback": "0.5"})
    assert (chunker.size, chunker.overlap, chunker.lookback) == (64, 8, 0.5)


@pytest.mark.parametrize("params, msg", [
    ({"size": 0}, r"fixed: size=0 is out of range; use at least 1"),
    ({"size": 10, "overlap": 10}, r"fixed: overlap=10 is out of range; use at least 0 and at most 9"),
    ({"min_size": 300}, r"fixed: min_size=300 is out of range; use at least 0 and at most 256"),
    ({"lookback": 2.0}, r"fixed: lookback=2.0 is out of range; use 0.0 to 1.0"),
    ({"unit": "bytes"}, r"fixed: unknown length unit 'bytes'"),
    ({"size": "big"}, r"fixed: size='big' is not a valid int"),
    ({"sise": 3}, r"strategy 'fixed' has no parameter 'sise'; its parameters are: lookback, min_size"),
])
def test_bad_parameters_name_the_value_and_the_range(params, msg):
    with pytest.raises(ConfigError, match=msg):
        make_chunker("fixed", params)


@settings(max_examples=150, deadline=None)
@given(texts, st.integers(1, 80), st.sampled_from(["chars", "approx", "tokens"]), st.data())
def test_invariants_on_random_text(text, size, unit, data):
    overlap = data.draw(st.integers(0, size - 1)) if data.draw(st.booleans()) else 0
    check_flat_sized("fixed", text, size, unit, overlap, can_cut)  # an over-size leaf is one unbreakable word


def test_real_prose_from_chroma_general():
    path = DATA / "chroma_general" / "corpus.jsonl"
    if not path.exists():
        pytest.skip("shared data not present")
    with path.open(encoding="utf-8") as f:
        row = json.loads(f.readline())
    d = Document(id=row["id"], source=row["id"], text=row["text"][:60_000])
    chunker = make_chunker("fixed", {"size": 256, "overlap": 32})
    tree = chunker.chunk(d)
    check_tree(tree, max_overlap=10_000)
    m = measure_for(d, "tokens")
    sizes = [m.size(n.start, n.end) for n in tree.leaves()]
    assert max(sizes) <= 256
    # The look-back keeps chunks full: all but the last hold at least 70 % of the size.
    assert min(sizes[:-1]) >= 0.7 * 256 - 32
    # Most chunks end at a sentence end in prose.
    ends = sum(n.text.rstrip("\"'”’)").endswith((".", "!", "?")) for n in tree.leaves())
    assert ends >= 0.8 * len(sizes)


def test_real_chinese_from_cmrc2018_cuts_at_punctuation():
    path = DATA / "cmrc2018_trial" / "corpus.jsonl"
    if not path.exists():
        pytest.skip("shared data not present")
    with path.open(encoding="utf-8") as f:
        rows = [json.loads(line) for _, line in zip(range(40), f)]
    chunker = make_chunker("fixed", {"size": 100, "unit": "chars"})
    ends = []
    for row in rows:
        d = Document(id=row["id"], source=row["id"], text=row["text"])
        tree = chunker.chunk(d)
        check_tree(tree)
        assert all(n.length <= 100 for n in tree.leaves())
        ends += [n.text[-1] for n in tree.leaves()[:-1]]
    # Chinese has no spaces: the cut still lands after punctuation nearly always.
    at_punct = sum(unicodedata.category(c).startswith("P") for c in ends)
    assert at_punct >= 0.9 * len(ends)


def test_a_wide_stop_and_its_quote_are_a_gap_when_the_piece_must_be_cut():
    # '！"' ends a sentence before any character: a piece that starts at the quote may be cut
    # right after it rather than run past its size.
    text = '00㐀！"00'
    tree = make_chunker("fixed", {"size": 2, "unit": "chars"}).chunk(
        Document(id="d", source="x", text=text, format="text"))
    assert [(n.start, n.end) for n in tree.leaves()] == [(0, 2), (2, 4), (4, 5), (5, 7)]
