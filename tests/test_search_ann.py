"""The approximate index against exact search: recall, persistence, staleness."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from test_index_support import CountingEmbedder, ParagraphLines

from zoomrag.index import Index
from zoomrag.model import Document
from zoomrag.search.ann import AnnIndex, available_backend
from zoomrag.search.dense import ExactSearch

pytest.importorskip("usearch.index", reason="the optional 'ann' extra (usearch) is not installed")


def clustered(n: int, d: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Unit vectors around n/100 random centres, and queries near random points (like embeddings)."""
    rng = np.random.default_rng(seed)
    centres = rng.standard_normal((max(n // 100, 10), d)).astype(np.float32)
    x = centres[rng.integers(0, len(centres), n)] + 0.4 * rng.standard_normal((n, d)).astype(np.float32)
    q = x[rng.integers(0, n, 100)] + 0.3 * rng.standard_normal((100, d)).astype(np.float32)
    return x / np.linalg.norm(x, axis=1, keepdims=True), q / np.linalg.norm(q, axis=1, keepdims=True)


def test_recall_at_10_against_exact_search(tmp_path):
    x, queries = clustered(5000, 64)
    ids = np.arange(5000, dtype=np.int64) * 7 - 100  # node ids are arbitrary int64

    def vectors(found: np.ndarray) -> np.ndarray:
        return x[(found + 100) // 7]

    exact = ExactSearch(ids, x)
    ann = AnnIndex.build("usearch", ids, x, generation=1, rescore=vectors)
    ann.save(tmp_path / "i.db")
    loaded = AnnIndex.load_if_fresh(tmp_path / "i.db", generation=1, dimension=64, rescore=vectors)
    assert loaded is not None
    raw = AnnIndex.load_if_fresh(tmp_path / "i.db", generation=1, dimension=64)  # graph scores only
    for index in (ann, loaded, raw):
        recall = np.mean([
            len({i for i, _ in index.search(q, 10)} & {i for i, _ in exact.search(q, 10)}) / 10 for q in queries
        ])
        assert recall >= 0.98
    q = queries[0]
    [(top_id, top_score)] = exact.search(q, 1)
    assert dict(loaded.search(q, 10))[top_id] == pytest.approx(top_score, abs=1e-6)  # rescored: exact cosines
    assert dict(raw.search(q, 10))[top_id] == pytest.approx(top_score, abs=2e-3)  # half-precision graph


def test_rescored_results_are_exact_search_among_the_candidates():
    x, queries = clustered(2000, 32, seed=3)
    ids = np.arange(2000, dtype=np.int64)
    ann = AnnIndex.build("usearch", ids, x, generation=1, rescore=lambda found: x[found])
    exact = ExactSearch(ids, x)
    for q in queries[:20]:
        got = ann.search(q, 10)
        assert [s for _, s in got] == sorted((s for _, s in got), reverse=True)
        truth = dict(exact.search(q, 2000))
        assert all(s == pytest.approx(truth[i], abs=1e-6) for i, s in got)
    assert ann.search(queries[0], 0) == []


def test_a_stale_or_missing_graph_is_not_used(tmp_path):
    x, _ = clustered(300, 16)
    AnnIndex.build("usearch", np.arange(300), x, generation=5).save(tmp_path / "i.db")
    assert AnnIndex.load_if_fresh(tmp_path / "i.db", generation=6, dimension=16) is None
    assert AnnIndex.load_if_fresh(tmp_path / "none.db", generation=5, dimension=16) is None
    (tmp_path / "i.db.ann.json").write_text("{broken")
    assert AnnIndex.load_if_fresh(tmp_path / "i.db", generation=5, dimension=16) is None
    AnnIndex.remove(tmp_path / "i.db")
    assert not list(tmp_path.iterdir())


def test_handles_on_one_graph_file_share_it_until_it_is_replaced_or_removed(tmp_path):
    x, queries = clustered(400, 16, seed=5)
    AnnIndex.build("usearch", np.arange(400), x, generation=5).save(tmp_path / "i.db")
    a = AnnIndex.load_if_fresh(tmp_path / "i.db", generation=5, dimension=16)
    b = AnnIndex.load_if_fresh(tmp_path / "i.db", generation=5, dimension=16, rescore=lambda found: x[found])
    assert a is not None and b is not None and a is not b
    assert b.backend is a.backend and b.ids is a.ids and b.rescore is not None and a.rescore is None
    # threads searching the shared graph at once get what one thread gets
    want = [a.search(q, 10) for q in queries]
    with ThreadPoolExecutor(4) as pool:
        got = list(pool.map(lambda q: a.search(q, 10), list(queries) * 3))
    assert got == want * 3
    AnnIndex.build("usearch", np.arange(400), x, generation=5).save(tmp_path / "i.db")  # replaced
    c = AnnIndex.load_if_fresh(tmp_path / "i.db", generation=5, dimension=16)
    assert c is not None and c.backend is not a.backend
    AnnIndex.remove(tmp_path / "i.db")
    assert AnnIndex.load_if_fresh(tmp_path / "i.db", generation=5, dimension=16) is None


def test_the_index_builds_the_graph_above_its_threshold_and_rebuilds_it_when_stale(tmp_path):
    docs = [Document.from_text(f"line {i} about topic {i % 7}\nsecond {i} line", id=f"d{i}") for i in range(30)]
    path = tmp_path / "i.db"
    with Index.open(path, embedder=CountingEmbedder(), strategy=ParagraphLines(), ann_threshold=20) as ix:
        ix.add(docs)
        assert ix.stats().ann == "usearch, fresh"
        g = ix.store.generation()
        assert AnnIndex.load_if_fresh(path, g, 32) is not None
        dense = [h.node_id for h in ix.search("topic 3", mode="dense", k=5)]
        ix.delete("d0")
        assert ix.stats().ann == "usearch, fresh"  # rebuilt after the write
    with Index.open(path, embedder=CountingEmbedder(), ann="off") as exact:
        assert [h.node_id for h in exact.search("topic 3", mode="dense", k=5)] == dense
    assert available_backend() == "usearch"


@pytest.mark.parametrize("share", [0.002, 0.05, 0.3, 0.9])
def test_filtered_search_returns_k_results_inside_the_filter_and_finds_the_exact_ones(share):
    x, queries = clustered(5000, 64, seed=2)
    ids = np.arange(5000, dtype=np.int64) + 10

    def vectors(found: np.ndarray) -> np.ndarray:
        return x[found - 10]

    ann = AnnIndex.build("usearch", ids, x, generation=1, rescore=vectors)
    rng = np.random.default_rng(1)
    within = np.sort(rng.choice(5000, size=max(1, int(share * 5000)), replace=False))
    exact = ExactSearch(ids, x)
    recalls = []
    for q in queries[:30]:
        got = ann.search_within(q, 10, within)
        truth = exact.search(q, 10, within=within)
        assert len(got) == min(10, len(within))  # a selective filter still gives k results
        assert {i for i, _ in got} <= set((ids[within]).tolist())
        recalls.append(len({i for i, _ in got} & {i for i, _ in truth}) / len(truth))
    assert np.mean(recalls) >= 0.95
