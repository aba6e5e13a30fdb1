"""Reciprocal rank fusion: exact scores, weights, and every ranker's score and rank kept."""

from __future__ import annotations

import pytest

from zoomrag.errors import ConfigError
from zoomrag.search.fusion import reciprocal_rank_fusion, single_ranking


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
