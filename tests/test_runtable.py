"""The run table: token counts of word runs looked up by hashes of their code points."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from invariants import texts

from zoomrag.text import runtable
from zoomrag.text.codes import code_points
from zoomrag.text.runtable import MAX_HASHED, RunTable


def _edges(text: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Code points and the begin and end of each item of ``text.split()``, found in Python."""
    begins, ends, pos = [], [], 0
    for run in text.split():
        pos = text.index(run, pos)
        begins.append(pos)
        pos += len(run)
        ends.append(pos)
    return code_points(text), np.array(begins, dtype=np.int64), np.array(ends, dtype=np.int64)


class _Counter:
    """A stand-in for the memo: a run's count is a function of its text, and every run asked
    for is recorded."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    def __call__(self, runs: list[str]) -> list[int]:
        self.asked.extend(runs)
        return [self.count(r) for r in runs]

    @staticmethod
    def count(run: str) -> int:
        return len(run) + sum(map(ord, run)) % 7


def _counts(table: RunTable, text: str, counter: _Counter) -> list[int]:
    return table.counts(text, *_edges(text), counter).tolist()


# Words that recur, so that the table is asked for runs it holds, beside new ones.
_words = st.sampled_from(["a", "the", "Café", "naïve", "中文", "x" * MAX_HASHED,
                          "y" * (MAX_HASHED + 1), "😀", "e\u0301", "3.14", "[SEP]"])
_prose = st.lists(st.one_of(_words, st.text(min_size=1, max_size=12)), max_size=60).map(" ".join)


@settings(max_examples=200, deadline=None)
@given(first=st.one_of(texts, _prose), second=st.one_of(texts, _prose))
def test_counts_are_the_memos_whatever_the_table_held(first: str, second: str) -> None:
    table, counter = RunTable(), _Counter()
    for text in (first, second, first):
        assert _counts(table, text, counter) == [counter.count(r) for r in text.split()]


@settings(max_examples=100, deadline=None)
@given(text=_prose)
def test_a_run_is_asked_for_once_unless_it_is_too_long(text: str) -> None:
    table, counter = RunTable(), _Counter()
    _counts(table, text, counter)
    assert set(counter.asked) == set(text.split())
    counter.asked.clear()
    _counts(table, text, counter)
    assert counter.asked == [r for r in text.split() if len(r) > MAX_HASHED]


def test_a_run_has_one_key_wherever_it_stands(monkeypatch) -> None:
    # The text is hashed in blocks; a run's key must not depend on its block or its offset.
    monkeypatch.setattr(runtable, "_BLOCK", 8)
    table = RunTable()
    text = "word " * 3 + "  x word\tword\n" + "ab word " * 5
    codes, begins, ends = _edges(text)
    h1, h2 = table._keys(codes, begins, ends, ends - begins)
    words = [i for i, r in enumerate(text.split()) if r == "word"]
    assert len(words) == 10
    assert len({int(h1[i]) for i in words}) == len({int(h2[i]) for i in words}) == 1
    assert len(set(zip(h1.tolist(), h2.tolist()))) == len(set(text.split()))


def test_keys_are_the_polynomials_of_the_code_points() -> None:
    table = RunTable()
    codes, begins, ends = _edges("ab 中")
    h1, h2 = table._keys(codes, begins, ends, ends - begins)
    mod = 1 << 64
    for h, base, mix in zip((h1, h2), runtable._BASES, runtable._LENGTH_MIX):
        ab = (ord("a") + ord("b") * base + 2 * int(mix)) % mod
        zh = (ord("中") + int(mix)) % mod
        assert h.tolist() == [ab, zh]


def test_the_table_grows_and_empties_itself_without_losing_counts(monkeypatch) -> None:
    monkeypatch.setattr(runtable, "_FIRST_BITS", 2)
    monkeypatch.setattr(runtable, "_LIMIT", 50)
    table, counter = RunTable(), _Counter()

    def check(words: list[str], asked: list[str]) -> None:
        counter.asked.clear()
        assert _counts(table, " ".join(words), counter) == [counter.count(w) for w in words]
        assert sorted(counter.asked) == sorted(asked)
        assert len(table) <= 50

    a = [f"a{i}" for i in range(40)]
    b = [f"b{i}" for i in range(20)]
    check(a, a)  # 40 keys grow a table of four slots
    check(a, [])
    check(b, b)  # 60 would pass the limit: the table is emptied, then holds b
    check(b, [])
    check(a, a)
    c = [f"c{i}" for i in range(60)]
    check(c, c)  # more new runs than the limit at once: 50 of them are held
    assert len(table) == 50


def test_keys_that_find_no_free_slot_are_counted_each_time(monkeypatch) -> None:
    # With one probe and a table of four slots, most keys collide; those left out must still
    # get their own counts, through the memo.
    monkeypatch.setattr(runtable, "_FIRST_BITS", 2)
    monkeypatch.setattr(runtable, "_PROBES", 1)
    table, counter = RunTable(), _Counter()
    text = " ".join(f"w{i}" for i in range(40))
    for _ in range(2):
        assert _counts(table, text, counter) == [counter.count(r) for r in text.split()]
    assert len(table) < 40


@pytest.mark.parametrize("text", ["", "   \n ", "one", " lead and trail "])
def test_texts_of_no_or_few_runs(text: str) -> None:
    counter = _Counter()
    assert _counts(RunTable(), text, counter) == [counter.count(r) for r in text.split()]
