"""Hybrid fusion (convex and reciprocal rank): exact scores, weights, and every ranker's score and rank kept."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from zoomrag.errors import ConfigError
from zoomrag.search.fusion import (
    DEPTH,
    bm25_weights,
    convex_fusion,
    fuse,
    reciprocal_rank_fusion,
    single_ranking,
)


def test_rrf_scores_are_the_sum_of_reciprocal_ranks():
    fused = reciprocal_rank_fusion({"dense": [("a", 0.9), ("b", 0.8)], "bm25": [("b", 12.0), ("c", 3.0)]})
    assert [f.key for f in fused] == ["b", "a", "c"]
    assert fused[0].score == pytest.approx(1 / 62 + 1 / 61)
    assert fused[1].score == pytest.approx(1 / 61)
    assert dict(fused[0].ranks) == {"dense": (0.8, 2), "bm25": (12.0, 1)}
    assert dict(fused[2].ranks) == {"bm25": (3.0, 2)}


def test_ties_go_to_the_better_single_rank():
    fused = reciprocal_rank_fusion({"dense": [("a", 1.0), ("b", 0.5)], "bm25": [("b", 2.0), ("a", 1.0)]})
    assert fused[0].score == fused[1].score
    assert [f.key for f in fused] == ["a", "b"]  # both have a best rank of 1: first seen wins


def test_weights_and_k():
    fused = reciprocal_rank_fusion({"dense": [("a", 1.0)], "bm25": [("b", 1.0)]}, k=0, weights={"bm25": 3})
    assert [(f.key, f.score) for f in fused] == [("b", 3.0), ("a", 1.0)]
    with pytest.raises(ConfigError, match=r"weights for unknown rankers \['sparse'\]"):
        reciprocal_rank_fusion({"dense": []}, weights={"sparse": 1.0})
    with pytest.raises(ConfigError, match="rrf k=-1 must be >= 0"):
        reciprocal_rank_fusion({"dense": []}, k=-1)


def test_single_ranking_keeps_its_own_scores():
    assert [(f.key, f.score, dict(f.ranks)) for f in single_ranking("bm25", [(7, 2.5), (3, 1.0)])] == [
        (7, 2.5, {"bm25": (2.5, 1)}), (3, 1.0, {"bm25": (1.0, 2)})]


def test_convex_scales_each_ranker_between_its_top_and_its_depth():
    dense = [("a", 0.9), ("b", 0.7), ("c", 0.5)]
    bm25 = [("c", 12.0), ("d", 6.0), ("a", 2.0)]
    fused = convex_fusion({"dense": dense, "bm25": bm25})
    got = {f.key: f.score for f in fused}
    # dense: a 1, b 0.5, c 0; bm25: c 1, d 0.4, a 0
    assert got == pytest.approx({"a": 0.7, "b": 0.35, "c": 0.3, "d": 0.12})
    assert [f.key for f in fused] == ["a", "b", "c", "d"]
    assert dict(fused[2].ranks) == {"dense": (0.5, 3), "bm25": (12.0, 1)}


def test_convex_keeps_a_clear_dense_first_where_ranks_would_not():
    # The dense ranking's first is far ahead; BM25's first holds common words only and is dense's
    # second. Reciprocal ranks put the unit both lists hold first; scores keep the gap.
    dense = [("answer", 0.80), ("words", 0.40), *[(f"x{i}", 0.39 - i / 1000) for i in range(60)]]
    bm25 = [("words", 9.0), ("y", 8.9), ("answer", 1.0)]
    assert convex_fusion({"dense": dense, "bm25": bm25})[0].key == "answer"
    assert reciprocal_rank_fusion({"dense": dense, "bm25": bm25})[0].key == "words"


def test_convex_scale_does_not_change_with_the_list_length():
    dense = [(f"d{i}", 1.0 - i / 500) for i in range(400)]
    short = {f.key: f.score for f in convex_fusion({"dense": dense[:DEPTH]})}
    long = {f.key: f.score for f in convex_fusion({"dense": dense})}
    assert all(long[k] == pytest.approx(v) for k, v in short.items())
    assert all(long[f"d{i}"] == 0 for i in range(DEPTH, 400))


def test_a_ranker_that_found_everything_scales_down_to_its_own_floor():
    # a rare name in two units: without BM25's floor the second would count as holding none of it
    dense = [("a", 0.62), ("b", 0.60), ("c", 0.55), ("d", 0.30)]
    bm25 = [("c", 9.0), ("d", 6.0)]
    plain = {f.key: f.score for f in convex_fusion({"dense": dense, "bm25": bm25})}
    floored = {f.key: f.score for f in convex_fusion({"dense": dense, "bm25": bm25}, floors={"bm25": 0.0})}
    assert plain["d"] == pytest.approx(0.0)
    assert floored["d"] == pytest.approx(0.3 * 6 / 9)
    assert floored["c"] == plain["c"] and floored["a"] == plain["a"]
    # a list as long as the depth keeps its score there; a floor above the last is not used
    full = [(f"u{i}", 100.0 - i) for i in range(DEPTH)]
    assert convex_fusion({"bm25": full}, floors={"bm25": 0.0})[-1].score == 0
    assert convex_fusion({"bm25": bm25}, floors={"bm25": 7.0})[-1].score == 0


def test_convex_weights_and_edges():
    fused = convex_fusion({"dense": [("a", 0.5)], "bm25": [("b", 3.0)]}, weights={"dense": 0.2, "bm25": 0.8})
    assert [(f.key, f.score) for f in fused] == [("b", 0.8), ("a", pytest.approx(0.2))]
    # one entry, or equal scores: each is its ranker's top
    assert [f.score for f in convex_fusion({"dense": [("a", 0.3), ("b", 0.3)], "bm25": []})] == [0.7, 0.7]
    assert convex_fusion({"dense": [], "bm25": []}) == []
    assert bm25_weights(0.25) == {"dense": 0.75, "bm25": 0.25}
    with pytest.raises(ConfigError, match=r"bm25 weight 1.5 must be between 0 and 1"):
        bm25_weights(1.5)
    with pytest.raises(ConfigError, match=r"weight bm25=-1 must be a number >= 0"):
        convex_fusion({"dense": [], "bm25": []}, weights={"bm25": -1})
    with pytest.raises(ConfigError, match=r"unknown fusion 'max'; choose one of: convex, rrf"):
        fuse({"dense": []}, "max")


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 30), st.floats(-5, 5)), max_size=40),
       st.lists(st.tuples(st.integers(0, 30), st.floats(0, 50)), max_size=40),
       st.floats(0, 1))
def test_convex_scores_lie_in_zero_one_and_follow_each_ranker(dense, bm25, w):
    dense = sorted(dict(dense).items(), key=lambda kv: -kv[1])
    bm25 = sorted(dict(bm25).items(), key=lambda kv: -kv[1])
    fused = convex_fusion({"dense": dense, "bm25": bm25}, weights=bm25_weights(w))
    assert {f.key for f in fused} == {k for k, _ in dense} | {k for k, _ in bm25}
    assert all(-1e-9 <= f.score <= 1 + 1e-9 for f in fused)
    assert [f.score for f in fused] == sorted((f.score for f in fused), reverse=True)
    if w == 0 and dense:  # BM25 weighs nothing: dense search's first is first
        assert fused[0].score == pytest.approx(1.0) and dense[0][0] in {f.key for f in fused if f.score == fused[0].score}
