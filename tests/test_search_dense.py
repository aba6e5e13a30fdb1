"""Exact dense search: top-k against a plain argsort, and the generation-keyed matrix cache."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from zoomrag.search.dense import ExactSearch, MatrixCache, top_k


@settings(max_examples=200, deadline=None)
@given(scores=arrays(np.float32, st.integers(0, 60), elements=st.floats(-1, 1, width=32)), k=st.integers(0, 70))
def test_top_k_matches_a_stable_argsort(scores, k):
    expected = np.argsort(-scores, kind="stable")[:k]
    assert top_k(scores, k).tolist() == expected.tolist()


def test_exact_search_returns_ids_and_cosines():
    m = np.array([[1, 0], [0, 1], [0.6, 0.8]], dtype=np.float32)
    s = ExactSearch(np.array([10, 20, 30]), m)
    assert s.search(np.array([0, 1], dtype=np.float32), 2) == [(20, 1.0), (30, np.float32(0.8).item())]
    assert ExactSearch(np.zeros(0, dtype=np.int64), np.zeros((0, 2), np.float32)).search(np.ones(2), 3) == []


def test_matrix_cache_reloads_only_when_the_generation_changes():
    loads = []

    def load():
        loads.append(1)
        return np.array([1]), np.ones((1, 2), np.float32)

    cache = MatrixCache(load)
    a = cache.get(3)
    assert cache.get(3) is a and len(loads) == 1
    assert cache.get(4) is not a and len(loads) == 2
