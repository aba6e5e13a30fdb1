"""``recursive``: paragraph -> line -> sentence -> word -> character, packed up to ``size``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import check_flat_sized, check_tree, texts

from zoomrag.errors import ConfigError
from zoomrag.model import Document, node_id
from zoomrag.parse import make_chunker
from zoomrag.parse.base import measure_for
from zoomrag.parse.boundaries import grapheme_cut
from zoomrag.text.wordpiece import minilm_counter

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def doc(text: str) -> Document:
    return Document(id="d", source="t.txt", text=text)


def leaves(text: str, **params) -> list[str]:
    return [n.text for n in make_chunker("recursive", params).chunk(doc(text)).leaves()]


def test_exact_tree_for_a_small_document():
    text = "Title\n\nFirst para line one.\nLine two here.\n\nLast."
    tree = make_chunker("recursive", {"size": 30, "unit": "chars"}).chunk(doc(text))
    root = node_id("d", "document", 0, 0, len(text))
    assert [(n.kind, n.level, n.text, n.parent_id) for n in tree] == [
        ("document", 0, text, None),
        ("chunk", 1, "Title", root),
        ("chunk", 1, "First para line one.", root),
        ("chunk", 1, "Line two here.\n\nLast.", root),
    ]


def test_separators_from_coarse_to_fine():
    text = "Para one.\n\nLine two a\nline two b. More here"
    assert leaves(text, size=40, unit="chars") == ["Para one.", "Line two a\nline two b. More here"]
    assert leaves(text, size=25, unit="chars") == ["Para one.", "Line two a", "line two b. More here"]
    assert leaves(text, size=15, unit="chars") == ["Para one.", "Line two a", "line two b.", "More here"]
    assert leaves("abcdefghij klm", size=4, unit="chars") == ["abcd", "efgh", "ij", "klm"]


def test_a_long_word_is_cut_between_characters_not_marks():
    text = "e\u0301" * 6  # six accented letters, two code points each
    assert leaves(text, size=3, unit="chars") == ["e\u0301"] * 6
    assert leaves(text, size=4, unit="chars") == ["e\u0301e\u0301"] * 3


def test_chinese_goes_sentence_then_clause_then_character():
    text = "这是第一句。这是第二句！我们今天去公园玩，然后回家吃饭。"
    assert leaves(text, size=10, unit="chars") == [
        "这是第一句。", "这是第二句！", "我们今天去公园玩，", "然后回家吃饭。",
    ]


def test_overlap_reaches_back_a_few_words():
    text = "one two three four five six seven eight"
    assert leaves(text, size=20, unit="chars", overlap=6) == [
        "one two three four", "four five six seven", "seven eight",
    ]



def test_overlap_is_dropped_when_it_leaves_no_grapheme_gap_before_the_limit():
    # Found by hypothesis: reaching back one character would make "\u0e00" + "0\u0300" a
    # three-character leaf over size 2, since the accented 0 cannot be cut.
    text = "0\u0e000\u0300"
    assert leaves(text, size=2, unit="chars", overlap=1) == ["0\u0e00", "0\u0300"]

@pytest.mark.parametrize("params, msg", [
    ({"size": -1}, r"recursive: size=-1 is out of range; use at least 1"),
    ({"size": 8, "overlap": 8}, r"recursive: overlap=8 is out of range; use at least 0 and at most 7"),
    ({"unit": 3}, r"recursive: unit must be a name such as 'tokens' or 'chars', got 3"),
])
def test_bad_parameters(params, msg):
    with pytest.raises(ConfigError, match=msg):
        make_chunker("recursive", params)


@settings(max_examples=150, deadline=None)
@given(texts, st.integers(1, 80), st.sampled_from(["chars", "approx", "tokens"]), st.data())
def test_invariants_on_random_text(text, size, unit, data):
    overlap = data.draw(st.integers(0, size - 1)) if data.draw(st.booleans()) else 0
    check_flat_sized("recursive", text, size, unit, overlap, grapheme_cut)  # an over-size leaf is one character with its marks


def test_real_prose_from_chroma_general():
    path = DATA / "chroma_general" / "corpus.jsonl"
    if not path.exists():
        pytest.skip("shared data not present")
    with path.open(encoding="utf-8") as f:
        row = json.loads(f.readline())
    d = Document(id=row["id"], source=row["id"], text=row["text"][:60_000])
    tree = make_chunker("recursive", {"size": 200}).chunk(d)
    check_tree(tree)
    m = measure_for(d, "tokens")
    sizes = [m.size(n.start, n.end) for n in tree.leaves()]
    assert max(sizes) <= 200
    # Paragraphs are packed: chunks are not paragraph-sized crumbs.
    assert sum(sizes) / len(sizes) >= 100


def test_a_character_of_more_units_than_the_size_is_a_piece_of_its_own():
    # MiniLM's tokenizer reads a Hangul syllable as two word pieces: with size=1 the splitter
    # found no cut and looped for ever.
    if minilm_counter() is None:
        pytest.skip("the MiniLM tokenizer is not installed here")
    chunker = make_chunker("recursive", {"size": 1, "unit": "tokens"})
    tree = chunker.chunk(Document.from_text("가나 다라", id="ko"))
    assert [(n.start, n.end) for n in tree.leaves()] == [(0, 1), (1, 2), (3, 4), (4, 5)]
