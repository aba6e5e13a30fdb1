"""SpanMeasure: sizes counted over a span's own lines equal sizes from the whole document."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import texts

from zoomrag.expand import measure
from zoomrag.expand.measure import MAX_TOKEN_CHARS, SpanMeasure, _bounded
from zoomrag.text.tokens import ApproxCounter, CharCounter, Measure
from zoomrag.text.wordpiece import minilm_counter

_MINILM = minilm_counter()
COUNTERS = [ApproxCounter(), CharCounter(), *([_MINILM] if _MINILM is not None else [])]


@settings(max_examples=60, deadline=None)
@given(text=texts, cuts=st.lists(st.tuples(st.integers(-3, 450), st.integers(-3, 450)), max_size=12),
       which=st.integers(0, len(COUNTERS) - 1))
def test_span_sizes_equal_a_whole_document_measure(text, cuts, which):
    counter = COUNTERS[which]
    full, lazy = Measure(text, _Bounded(counter)), SpanMeasure(text, counter)
    for start, end in [*cuts, *cuts]:  # twice: remembered sizes too
        assert lazy.size(start, end) == full.size(start, end)


class _Bounded:
    """The whole-document reference: the counter's tokens, long ones cut as the budget cuts them."""

    def __init__(self, counter):
        self.counter, self.name = counter, counter.name

    def token_starts(self, text):
        return _bounded(text, list(self.counter.token_starts(text)), len(text))


@pytest.mark.skipif(_MINILM is None, reason="the MiniLM vocabulary is not installed")
def test_a_word_longer_than_wordpiece_takes_is_one_budget_token_per_100_characters():
    text = "intro " + "a" * 1000 + " end"
    assert MAX_TOKEN_CHARS == 100
    assert _MINILM.token_starts(text) == [0, 6, 1007]  # WordPiece: the long word is one [UNK]
    m = SpanMeasure(text, _MINILM)
    assert m.size(6, 1006) == 10
    assert m.size(0, len(text)) == 12


class _Spy(ApproxCounter):
    """ApproxCounter that records each text it tokenizes."""

    def __init__(self, seen: list[str]):
        self.seen = seen

    def token_starts(self, text):
        self.seen.append(text)
        return super().token_starts(text)


def test_only_the_lines_of_a_span_are_tokenized(monkeypatch):
    monkeypatch.setattr(measure, "NEAR", 0)
    seen: list[str] = []
    text = "one two\nthree four five\nsix\n" * 3
    m = SpanMeasure(text, ApproxCounter())
    m.counter = _Spy(seen)
    assert m.size(10, 16) == 1  # "ree fo" lies in "three four five"; one token starts in it
    assert seen == ["three four five"]
    assert m.size(10, 16) == 1 and len(seen) == 1  # remembered
    assert m.size(0, len(text)) == 18
    assert seen == ["three four five", "one two", text[24:]]  # the new lines, in consecutive runs
    assert m.size(8, 13) == Measure(text, ApproxCounter()).size(8, 13) and len(seen) == 3


def test_the_lines_near_a_span_are_tokenized_with_it_in_one_call(monkeypatch):
    monkeypatch.setattr(measure, "NEAR", 10)
    seen: list[str] = []
    text = "one two\nthree four five\nsix\n" * 3
    m = SpanMeasure(text, ApproxCounter())
    m.counter = _Spy(seen)
    assert m.size(10, 16) == 1
    assert seen == ["one two\nthree four five\nsix"]  # the lines within 10 characters, whole
    assert m.size(0, 7) == 2 and m.size(24, 27) == 1 and len(seen) == 1
    assert m.size(0, len(text)) == 18 and seen[1:] == [text[28:]]


def test_a_counter_not_known_to_be_line_local_measures_the_whole_text():
    class Other:
        name = "other"

        def token_starts(self, text):
            return [0] if text else []  # one token for any text: not line-local

    m = SpanMeasure("ab\ncd", Other())
    assert m.size(3, 5) == 0  # counted over the line "cd" alone it would be 1


def test_remembered_sizes_are_bounded_and_stay_exact(monkeypatch):
    monkeypatch.setattr(measure, "MEMO_SPANS", 3)
    text = "one two\nthree four five\nsix\n" * 4
    m, ref = SpanMeasure(text, ApproxCounter()), Measure(text, ApproxCounter())
    spans = [(a, b) for a in range(0, len(text), 7) for b in range(a, len(text), 11)]
    for a, b in spans + spans[::-1]:
        assert m.size(a, b) == ref.size(a, b)
    assert len(m._sizes) <= 3
