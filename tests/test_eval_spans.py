"""Interval arithmetic and span metrics against a brute-force character-set reference."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from zoomrag.evaluate import spans as sp
from zoomrag.evaluate.metrics import score_query

intervals = st.lists(st.tuples(st.integers(0, 60), st.integers(0, 60)).map(lambda t: (min(t), max(t))),
                     max_size=8)
doc_spans = st.lists(st.tuples(st.sampled_from(["a", "b"]), st.integers(0, 60), st.integers(0, 60))
                     .map(lambda t: (t[0], min(t[1:]), max(t[1:]))), max_size=8)


def chars(spans) -> set[int]:
    return {i for s, e in spans for i in range(s, e)}


def doc_chars(spans) -> set[tuple[str, int]]:
    return {(d, i) for d, s, e in spans for i in range(s, e)}


@settings(max_examples=200)
@given(intervals)
def test_union_is_sorted_disjoint_and_covers_the_same_characters(a):
    u = sp.union(a)
    assert chars(u) == chars(a)
    assert sp.length(u) == len(chars(a))
    assert all(s < e for s, e in u)
    assert all(x[1] < y[0] for x, y in zip(u, u[1:]))  # disjoint and not even touching


@settings(max_examples=200)
@given(intervals, intervals)
def test_intersect_matches_set_intersection(a, b):
    ua, ub = sp.union(a), sp.union(b)
    assert chars(sp.intersect(ua, ub)) == chars(a) & chars(b)
    assert sp.length(sp.intersect(ua, ub)) == len(chars(a) & chars(b))


def test_overlaps_needs_a_shared_character():
    assert sp.overlaps((0, 5), (4, 9))
    assert not sp.overlaps((0, 5), (5, 9))  # touching ends share nothing
    assert not sp.overlaps((3, 3), (0, 9))  # an empty span overlaps nothing


@settings(max_examples=200)
@given(st.lists(st.tuples(st.sampled_from(["a", "b"]), st.integers(0, 59), st.integers(1, 20))
                .map(lambda t: (t[0], t[1], t[1] + t[2])), min_size=1, max_size=5), doc_spans)
def test_metrics_match_brute_force(evidence, returned):
    e = doc_chars(evidence)
    r = doc_chars(returned)
    hit = len(e & r)
    paid = sum(end - s for _, s, end in returned)
    rr = 0.0
    for rank, span in enumerate(returned, 1):
        if doc_chars([span]) & e:
            rr = 1 / rank
            break
    got = score_query("q", returned, evidence)
    assert got.evidence_recall == hit / len(e)
    assert got.precision == (hit / paid if paid else 0.0)
    assert got.iou == hit / (paid + len(e - r))
    assert got.full_evidence == (1.0 if e <= r else 0.0)
    assert got.reciprocal_rank == rr
    assert got.returned_chars == paid and got.evidence_chars == len(e)
