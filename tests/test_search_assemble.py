"""Expansion policies (none, parent) and assembly into a token budget."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st
from test_index_support import ParagraphLines

from zoomrag.expand import Candidate, NoExpansion, ParentExpansion, assemble, get_expander
from zoomrag.model import Document, Hit, Tree

TEXT = "aaaa\nbbbb\n\ncccc\ndddd\n\neeee"


class Trees:
    def __init__(self, *docs: Document):
        self._trees = {d.id: ParagraphLines().chunk(d) for d in docs}

    def tree(self, doc_id: str) -> Tree:
        return self._trees[doc_id]


TREES = Trees(Document.from_text(TEXT, id="d"))
LEAVES = {n.text: n for n in TREES.tree("d").leaves()}


def hit(text: str, score: float) -> Hit:
    n = LEAVES[text]
    return Hit(node_id=n.id, doc_id="d", start=n.start, end=n.end, score=score)


def chars(s: str) -> int:
    return len(s)


def spans(contexts):
    return [(c.text, c.score, c.hits) for c in contexts]


def test_none_returns_units_best_first():
    hits = [hit("cccc", 0.9), hit("aaaa", 0.5)]
    out = assemble(NoExpansion().expand(hits, TREES, 100), TREES, 100, chars, shape=False)
    assert spans(out) == [("cccc", 0.9, ((11, 15, 0.9),)), ("aaaa", 0.5, ((0, 4, 0.5),))]
    assert out[0].kind == "line" and out[0].rule == "unit"


def test_adjacent_and_overlapping_units_merge_into_one_context():
    hits = [hit("aaaa", 0.9), hit("bbbb", 0.5)]
    [c] = assemble(NoExpansion().expand(hits, TREES, 100), TREES, 100, chars, shape=False)
    assert (c.text, c.score, c.hits) == ("aaaa\nbbbb", 0.9, ((0, 4, 0.9), (5, 9, 0.5)))


def test_parent_groups_hits_of_one_parent():
    hits = [hit("dddd", 0.8), hit("cccc", 0.6), hit("eeee", 0.1)]
    out = assemble(ParentExpansion().expand(hits, TREES, 100), TREES, 100, chars, shape=False)
    # the two spans are only whitespace apart, so they become one context with the best score
    assert spans(out) == [("cccc\ndddd\n\neeee", 0.8, ((11, 15, 0.6), (16, 20, 0.8), (22, 26, 0.1)))]
    assert out[0].rule == "parent of 2 hits" and out[0].kind == "paragraph"
    out = assemble(ParentExpansion().expand(hits[:2], TREES, 100), TREES, 100, chars, shape=False)
    assert spans(out) == [("cccc\ndddd", 0.8, ((11, 15, 0.6), (16, 20, 0.8)))]


def test_budget_is_never_exceeded_and_parents_fall_back_to_units():
    hits = [hit("dddd", 0.8), hit("aaaa", 0.6)]
    out = assemble(ParentExpansion().expand(hits, TREES, 9), TREES, 9, chars, shape=False)
    # "cccc\ndddd" (9) fits; then "aaaa\nbbbb" does not, nor does "aaaa": the budget is spent
    assert [c.text for c in out] == ["cccc\ndddd"]
    out = assemble(ParentExpansion().expand(hits, TREES, 14), TREES, 14, chars, shape=False)
    assert [c.text for c in out] == ["cccc\ndddd", "aaaa"]


def test_top_caps_the_number_of_contexts_but_merges_still_happen():
    hits = [hit("aaaa", 0.9), hit("cccc", 0.8), hit("bbbb", 0.7)]
    out = assemble(NoExpansion().expand(hits, TREES, 100), TREES, 100, chars, top=1, shape=False)
    assert [c.text for c in out] == ["aaaa\nbbbb"]


def test_get_expander_accepts_objects():
    e = ParentExpansion()
    assert get_expander(e) is e and get_expander("none").name == "none"


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, len(TEXT)), st.integers(0, 8), st.floats(0, 1)), max_size=12),
       st.integers(1, 30), st.one_of(st.none(), st.integers(1, 4)))
def test_assembly_never_repeats_a_character(raw, budget, top):
    cands = [Candidate("d", s, min(len(TEXT), s + n), score, ()) for s, n, score in raw]
    out = assemble(cands, TREES, budget, chars, top=top, shape=False)
    covered = [i for c in out for i in range(c.start, c.end)]
    assert len(covered) == len(set(covered))
    assert len(covered) <= budget
    assert top is None or len(out) <= top
    assert all(c.text == TEXT[c.start:c.end] for c in out)
