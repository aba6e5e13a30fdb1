"""split_range and split_recursive: the size core shared by fixed, recursive, hierarchical, ..."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from invariants import texts

from zoomrag.errors import ConfigError
from zoomrag.load.spans import skip_space, trim_end
from zoomrag.parse.boundaries import (
    REACH,
    SENTENCE_STOPS,
    TIERS,
    WIDE_SENTENCE_STOPS,
    best_cut,
    can_cut,
    first_gap,
    grapheme_cut,
    is_glued,
    joins,
)
from zoomrag.parse.sizing import link_spans, split_range, split_recursive
from zoomrag.text.sentences import sentence_spans
from zoomrag.text.tokens import CharCounter, Measure, get_counter


def chars(text: str) -> Measure:
    return Measure(text, CharCounter())


def cut(text: str, **kw) -> list[str]:
    return [text[a:b] for a, b in split_range(text, chars(text), 0, len(text), **kw)]


def rcut(text: str, **kw) -> list[str]:
    return [text[a:b] for a, b in split_recursive(text, chars(text), 0, len(text), **kw)]


# -- exact pieces ----------------------------------------------------------------------------
def test_text_that_fits_is_one_trimmed_piece():
    assert split_range("  Hello world.  \n", chars("  Hello world.  \n"), 0, 17, size=50) == [(2, 14)]


@pytest.mark.parametrize("text", ["", "   ", "\n\n\t "])
def test_empty_or_blank_text_has_no_pieces(text: str):
    assert split_range(text, chars(text), 0, len(text), size=5) == []
    assert split_recursive(text, chars(text), 0, len(text), size=5) == []


def test_paragraph_break_beats_a_later_sentence_end():
    text = "aaaa bbbb cc.\n\ndd eeee. ffff gggg"
    # window for size 20: cuts at 14..20; the paragraph break (cut 14) wins over ". " (cut 23 is out).
    assert cut(text, size=20) == ["aaaa bbbb cc.", "dd eeee. ffff gggg"]


def test_sentence_end_beats_a_later_space():
    assert cut("one two three. four five six seven", size=20) == ["one two three.", "four five six seven"]


def test_line_break_beats_a_later_space():
    # The piece before a cut is what counts: "one two threes" keeps 14 of 20 units.
    assert cut("one two threes\nfour five six seven", size=20) == ["one two threes", "four five six seven"]


def test_cuts_at_the_last_space_when_nothing_better_is_in_the_window():
    assert cut("aa bb cc dd ee ff gg hh", size=10) == ["aa bb cc", "dd ee ff", "gg hh"]


# The window of size 10 with lookback 0.3 holds the cuts that keep at least 7 units: 7..10.
def test_a_sentence_end_just_inside_the_window_is_used():
    text = "abcd. fgh ijklmnop"  # ". " ends at 5: too early; see the next test for 7
    assert cut(text, size=10) == ["abcd. fgh", "ijklmnop"]
    inside = "abcdef. h ijklmnop"  # the sentence cut is at 7: inside the window
    assert cut(inside, size=10) == ["abcdef.", "h ijklmnop"]


def test_a_sentence_end_just_outside_the_window_loses_to_a_space():
    outside = "abcde. gh ijklmnop"  # the sentence cut is at 6: one unit outside
    assert cut(outside, size=10) == ["abcde. gh", "ijklmnop"]


def test_lookback_zero_cuts_only_at_the_limit_and_one_allows_the_whole_window():
    text = "ab. cdefgh ijk"
    assert cut(text, size=10, lookback=0.0) == ["ab. cdefgh", "ijk"]  # a space at 10: the limit
    assert cut(text, size=10, lookback=1.0) == ["ab.", "cdefgh ijk"]


def test_no_gap_in_the_window_falls_back_to_the_last_gap_before_it():
    # Nothing at 7..10 ("defghijklm" is one word), so the cut is the space at 2.
    assert cut("ab defghijklmnop qr", size=10) == ["ab", "defghijklmnop", "qr"]


def test_a_single_word_longer_than_size_is_one_piece_in_fixed_and_cut_in_recursive():
    word = "x" * 25
    assert cut(f"ab {word} cd", size=10) == ["ab", word, "cd"]
    # recursive packs greedily: the end of the long word and the next word share a piece
    assert rcut(f"ab {word} cd", size=10) == ["ab", "x" * 10, "x" * 10, "xxxxx cd"]


def test_a_markdown_link_is_one_word_to_the_fixed_splitter_and_not_to_the_recursive_one():
    link = "[Code review guidelines](Wiki%209f1c/Code%20review%200b1c.md)"
    assert cut(f"See the {link} page.", size=30) == ["See the", link, "page."]
    assert cut(f"{link} and more words here", size=20) == [link, "and more words here"]
    assert all(len(p) <= 20 for p in rcut(f"See the {link} page.", size=20))


def test_a_short_piece_without_words_joins_a_neighbour_that_has_room():
    # pydoc's gutter before a rule of dashes: the "|" would be a unit of its own
    text = "One two three four five six.\n |\n" + "-" * 40 + "\n | Seven eight nine ten."
    assert cut(text, size=36, lookback=0.6) == [
        "One two three four five six.\n |", "-" * 40, "| Seven eight nine ten."]
    # no room on either side: it stays apart; with min_size the tail rule places the cuts
    assert cut("A" * 30 + " | " + "B" * 30, size=30) == ["A" * 30, "|", "B" * 30]
    assert "|" in cut(text, size=36, lookback=0.6, min_size=5)


def test_chinese_without_spaces_cuts_after_the_full_stop():
    text = "我们今天去了公园。然后回家吃晚饭，很开心。"
    assert cut(text, size=12) == ["我们今天去了公园。", "然后回家吃晚饭，很开心。"]


def test_chinese_with_no_punctuation_in_the_window_cuts_between_characters():
    text = "一二三四五六七八九十甲乙丙丁戊"
    assert cut(text, size=10) == ["一二三四五六七八九十", "甲乙丙丁戊"]


@pytest.mark.parametrize("mark", ["！", "？", "；", "。"])
def test_full_width_sentence_punctuation_is_a_sentence_end(mark: str):
    text = f"一二三四五六七八{mark}十甲乙丙丁戊"
    assert cut(text, size=10)[0] == f"一二三四五六七八{mark}"


def test_japanese_cuts_at_the_full_stop():
    text = "日本語の文です。次の文もあります。"
    assert cut(text, size=10) == ["日本語の文です。", "次の文もあります。"]


def test_a_full_width_point_between_digits_is_a_decimal_point_not_a_sentence_end():
    # The windows hold "2．|8": the clause mark before it and the full stop after it are cut.
    text = "苹果3．5元，梨子2．8元。香蕉很便宜。"
    pieces = ["苹果3．5元，", "梨子2．8元。", "香蕉很便宜。"]
    assert cut(text, size=12, lookback=1.0) == pieces
    assert rcut(text, size=12) == pieces
    assert [text[a:b] for a, b in sentence_spans(text)] == ["苹果3．5元，梨子2．8元。", "香蕉很便宜。"]


@pytest.mark.parametrize("text, first", [
    ("编号3411。2012年入学", "编号3411。"),  # 。 ends a sentence even between digits
    ("约3；5个人到了", "约3；"),
    ("跑了3．之后休息", "跑了3．"),          # ． before a non-digit
    ("下雨了．3号晴天", "下雨了．"),          # ． after a non-digit
    ("价格是3．”5元", "价格是3．”"),          # a quote closes the sentence: not a decimal
])
def test_other_full_width_stops_next_to_digits_still_end_a_sentence(text: str, first: str):
    assert cut(text, size=len(text) - 1, lookback=1.0)[0] == first
    assert rcut(text, size=len(text) - 1)[0] == first


def test_never_cuts_between_a_letter_and_its_combining_marks():
    text = "\u4e00" * 9 + "e\u0301\u0316" + "\u4e00" * 5  # the limit falls after "e"
    pieces = cut(text, size=10)
    assert pieces[0] == "\u4e00" * 9 and pieces[1].startswith("e\u0301\u0316")


def test_never_cuts_after_a_zero_width_joiner():
    family = "\U0001F468\u200d\U0001F469\u200d\U0001F467"
    text = "\u4e00" * 8 + family + "\u4e00" * 3
    assert all(family in p or "\u200d" not in p for p in cut(text, size=10))


def test_overlap_starts_the_next_piece_at_a_word_about_overlap_units_back():
    text = "one two three four five six seven eight nine ten"
    assert cut(text, size=20, overlap=6) == [
        "one two three four", "four five six seven", "seven eight nine ten",
    ]


def test_min_size_moves_the_last_cut_back_so_the_tail_is_not_tiny():
    text = "aaaa bbbb cccc dd"
    assert cut(text, size=16) == ["aaaa bbbb cccc", "dd"]
    assert cut(text, size=16, min_size=4) == ["aaaa bbbb", "cccc dd"]
    # A better boundary inside the shortened window is still preferred.
    assert cut("aaa. bbbb cccc dd", size=16, min_size=4, lookback=0.8) == ["aaa.", "bbbb cccc dd"]


def test_min_size_only_touches_the_last_cut():
    text = "aa bb cc dd ee ff gg h"
    assert cut(text, size=9) == ["aa bb cc", "dd ee ff", "gg h"]
    assert cut(text, size=9, min_size=5) == ["aa bb cc", "dd ee", "ff gg h"]


def test_min_size_cannot_grow_a_text_that_is_small_anyway():
    assert cut("ab", size=9, min_size=5) == ["ab"]


def test_an_overlapping_piece_always_brings_new_text():
    # Found by hypothesis: the cut after "\r\r" once gave a piece inside the previous one.
    text = "0" * 300 + " 000000000\r\r00"
    pieces = split_recursive(text, chars(text), 10, len(text), size=12, overlap=9)
    assert all(a0 < a1 and b0 < b1 for (a0, b0), (a1, b1) in zip(pieces, pieces[1:]))
    assert pieces[-3:] == [(298, 310), (301, 313), (312, 314)]


def test_a_range_is_split_in_document_offsets():
    text = "IGNORED. one two three four five. IGNORED"
    m = chars(text)
    pieces = split_range(text, m, 9, 33, size=15)
    assert [text[a:b] for a, b in pieces] == ["one two three", "four five."]
    assert pieces[0][0] == 9


def test_sizes_are_counted_in_the_measure_unit():
    text = "alpha beta gamma delta omega zeta"
    m = Measure(text, get_counter("approx"))  # one token per word of up to six letters
    assert [text[a:b] for a, b in split_range(text, m, 0, len(text), size=2)] == [
        "alpha beta", "gamma delta", "omega zeta",
    ]


def test_recursive_prefers_paragraph_then_line_then_sentence():
    text = "Para one.\n\nLine two a\nline two b. More here"
    assert rcut(text, size=40) == ["Para one.", "Line two a\nline two b. More here"]
    assert rcut(text, size=25) == ["Para one.", "Line two a", "line two b. More here"]
    assert rcut(text, size=15) == ["Para one.", "Line two a", "line two b.", "More here"]


def test_recursive_packs_small_paragraphs_up_to_the_size():
    text = "a1.\n\nb2.\n\nc3.\n\nd4."
    assert rcut(text, size=9) == ["a1.\n\nb2.", "c3.\n\nd4."]


def test_recursive_overlap_reaches_back_to_a_word():
    text = "one two three four five six seven eight"
    assert rcut(text, size=20, overlap=6) == ["one two three four", "four five six seven", "seven eight"]


@pytest.mark.parametrize("kw, msg", [
    ({"size": 0}, "size=0 must be"),
    ({"size": 10, "overlap": 10}, "overlap=10 must be at least 0 and less than size=10"),
    ({"size": 10, "min_size": 11}, "min_size=11 must be between 0 and size=10"),
    ({"size": 10, "lookback": 1.5}, "lookback=1.5 must be between 0 and 1"),
])
def test_bad_sizes_are_config_errors(kw, msg):
    with pytest.raises(ConfigError, match=msg):
        split_range("abc", chars("abc"), 0, 3, **kw)


# -- boundaries ----------------------------------------------------------------------------
@pytest.mark.parametrize("text, c, ok", [
    ("ab cd", 2, True), ("ab cd", 3, True), ("ab cd", 1, False),  # inside a word
    ("中文", 1, True), ("a中", 1, True),                            # continuous scripts
    ("e\u0301x", 1, False), ("\u4e00\u0301", 1, False),            # before a combining mark
    ("a\u200d b", 2, False), ("a\u200d b", 3, True), ("\u4e00\u200d\u4e00", 2, False),      # after a joiner
    ("10\xa0km", 2, False), ("10\xa0km", 3, False),                # a no-break space glues
    ('走吧。"0', 4, True), ('走吧。")Tom', 5, True), ('a."0', 3, False),  # after a wide stop's quotes
    ("走吧。\\n", 4, False),                                     # a backslash is not a quote
])
def test_can_cut(text: str, c: int, ok: bool):
    assert can_cut(text, c) is ok


def test_best_cut_is_the_rightmost_of_the_best_tier():
    text = "a. b. c\nd e"
    assert best_cut(text, 0, len(text) - 1) == 5  # the later of two sentence ends
    assert best_cut("abc def", 4, 6) == -1  # nothing in [4, 6]
    assert first_gap("abc def ghi", 4, 10) == 4  # after a space is a gap too
    assert first_gap("abc def ghi", 5, 10) == 7


def test_skip_space_and_trim_end_handle_long_runs():
    text = "a" + " " * 300 + "b" + " " * 200
    assert skip_space(text, 1, len(text)) == 301
    assert trim_end(text, 0, len(text)) == 302
    assert trim_end(text, 1, 301) == 1


# -- properties ------------------------------------------------------------------------------
units = st.sampled_from(["chars", "approx", "tokens"])


def check_pieces(text: str, m: Measure, start: int, end: int, pieces: list[tuple[int, int]], *,
                 size: int, overlap: int, words_whole: bool) -> None:
    """The contract of both splitters (see sizing's docstring)."""
    links = link_spans(text) if words_whole else []

    def allowed(text: str, p: int) -> bool:  # a Markdown link is one word to the fixed splitter
        return (can_cut(text, p) and not any(x < p < y for x, y in links)) if words_whole else grapheme_cut(text, p)

    for a, b in pieces:
        assert start <= a < b <= end
        assert not text[a].isspace() and not text[b - 1].isspace()
        if m.size(a, b) > size:  # only one unbreakable unit may exceed the size
            assert not any(allowed(text, p) for p in range(a + 1, b)), (text[a:b], size)
        lo_edge = a == skip_space(text, start, end)
        hi_edge = b == trim_end(text, start, end)
        assert lo_edge or text[a - 1].isspace() or allowed(text, a), (a, text[a - 1:a + 1])
        assert hi_edge or text[b].isspace() or allowed(text, b), (b, text[b - 1:b + 1])
        if not hi_edge and not text[b].isspace():
            assert not is_glued(text[b])
    for (a0, b0), (a1, b1) in zip(pieces, pieces[1:]):
        assert a0 < a1 and b0 < b1
        if overlap == 0:
            assert b0 <= a1
        else:
            assert m.size(a1, b0) <= overlap
    covered = bytearray(len(text))
    for a, b in pieces:
        covered[a:b] = b"\x01" * (b - a)
    lost = [i for i in range(start, end) if not text[i].isspace() and not covered[i]]
    assert not lost, lost[:5]


@st.composite
def sized(draw):
    text = draw(texts)
    start = draw(st.integers(0, len(text)))
    end = draw(st.integers(start, len(text)))
    size = draw(st.integers(1, 60))
    overlap = draw(st.one_of(st.just(0), st.integers(0, size - 1)))
    return text, start, end, size, overlap, draw(units)


@settings(max_examples=200, deadline=None)
@given(sized(), st.floats(0.0, 1.0), st.integers(0, 60))
def test_split_range_contract(case, lookback, min_size):
    text, start, end, size, overlap, unit = case
    m = Measure(text, get_counter(unit))
    min_size = min(min_size, size)
    pieces = split_range(text, m, start, end, size=size, overlap=overlap, min_size=min_size,
                         lookback=lookback)
    check_pieces(text, m, start, end, pieces, size=size, overlap=overlap, words_whole=True)
    if min_size and len(pieces) > 1 and overlap == 0 and m.size(*pieces[-1]) < min_size:
        # A tail smaller than min_size only when no gap in the piece before could leave it more.
        a, b = pieces[-2]
        tail_end = pieces[-1][1]
        for p in range(a + 1, b + 1):
            if can_cut(text, p) or text[p].isspace():
                assert m.size(skip_space(text, p, tail_end), tail_end) < min_size, (p, pieces)
    again = split_range(text, m, start, end, size=size, overlap=overlap, min_size=min_size,
                        lookback=lookback)
    assert again == pieces


@settings(max_examples=200, deadline=None)
@given(sized())
def test_split_recursive_contract(case):
    text, start, end, size, overlap, unit = case
    m = Measure(text, get_counter(unit))
    pieces = split_recursive(text, m, start, end, size=size, overlap=overlap)
    check_pieces(text, m, start, end, pieces, size=size, overlap=overlap, words_whole=False)
    assert split_recursive(text, m, start, end, size=size, overlap=overlap) == pieces


@settings(max_examples=150, deadline=None)
@given(st.lists(st.sampled_from(["[a b](x%20y.md)", "![c d](i.png)", "[e](f)", "word", "two words", " ", "\n",
                                 "](", "[", ". ", "長い"]), max_size=30).map("".join), st.integers(1, 30),
       st.sampled_from(["chars", "approx"]), st.integers(0, 3))
def test_split_range_contract_with_markdown_links(text, size, unit, overlap):
    m = Measure(text, get_counter(unit))
    overlap = min(overlap, size - 1)
    pieces = split_range(text, m, 0, len(text), size=size, overlap=overlap)
    check_pieces(text, m, 0, len(text), pieces, size=size, overlap=overlap, words_whole=True)


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab \u0301\u0316\u200d\u4e00。\n"), max_size=80),
       st.integers(1, 8))
def test_no_piece_starts_with_a_mark_glued_to_the_previous_piece(text, size):
    m = chars(text)
    for split in (split_range, split_recursive):
        for a, b in split(text, m, 0, len(text), size=size):
            if a > 0 and is_glued(text[a]):
                assert text[a - 1].isspace()
            assert unicodedata.category(text[a])[0] != "M" or a == 0 or text[a - 1].isspace()


CLOSERS = "”)"


def is_sentence_cut(text: str, c: int) -> bool:
    """The sentence tier's rule, written plainly: a stop and its closing quotes before ``c``; a
    space after them for ``.!?``-like stops, anything but a digit after ``3．`` for wide ones."""
    if not 0 < c < len(text) or joins(text, c):
        return False
    k = c - 1
    while k >= 0 and text[k] in CLOSERS:  # the closing marks of the alphabet below
        k -= 1
    if k < 0 or k < c - REACH:  # the search looks back REACH characters for the stop
        return False
    if text[k] in SENTENCE_STOPS:
        return text[c].isspace()
    decimal = text[k] == "．" and k == c - 1 and k > 0 and text[k - 1] in "0123456789" and text[c] in "0123456789"
    return text[k] in WIDE_SENTENCE_STOPS and not decimal


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("35５．。.！”)a中 \n\u0301"), max_size=30))
@example("价格3．5元。3.5 元！”5")
def test_the_sentence_tier_cuts_where_its_plain_rule_does(text: str):
    sentence_only = ((TIERS["sentence"], False),)
    for c in range(1, len(text)):
        assert (best_cut(text, c, c, sentence_only) == c) is is_sentence_cut(text, c), (text, c)


@settings(max_examples=200, deadline=None)
@given(sized(), st.floats(0.0, 1.0), st.integers(0, 60))
def test_known_token_positions_and_marks_change_nothing(case, lookback, min_size):
    # hierarchical passes the token positions of a trimmed range it already knows and reads
    # each piece's size from the marks: same pieces, and marks that are the pieces' sizes.
    text, start, end, size, overlap, unit = case
    m = Measure(text, get_counter(unit))
    min_size = min(min_size, size)
    s = skip_space(text, start, end)
    e = trim_end(text, s, end)
    kw = dict(size=size, overlap=overlap, min_size=min_size, lookback=lookback)
    pieces = split_range(text, m, s, e, **kw)
    marks: list[int] = []
    assert split_range(text, m, s, e, tokens=(m.index(s), m.index(e)), marks=marks, **kw) == pieces
    if marks:
        assert m.spaceless and overlap == 0
        assert marks == [m.index(a) for a, _ in pieces] + [m.index(e)]
        assert [y - x for x, y in zip(marks, marks[1:])] == [m.size(a, b) for a, b in pieces]
    else:
        assert not pieces or not m.spaceless or overlap
