"""The approximate index against exact search: recall, persistence, staleness."""

from __future__ import annotations

import json
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from test_index_support import CountingEmbedder, ParagraphLines

from zoomrag.index import Index
from zoomrag.model import Document
from zoomrag.search.ann import AnnIndex, available_backend
from zoomrag.search.dense import ExactSearch
from zoomrag.search.filters import row_ranges

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


@pytest.mark.parametrize("way", ["scan", "graph"])
@pytest.mark.parametrize("share", [0.002, 0.05, 0.3, 0.9])
def test_filtered_search_returns_k_results_inside_the_filter_and_finds_the_exact_ones(share, way, monkeypatch):
    from zoomrag.search import ann as ann_module

    # the int8 scan answers filters up to SCAN_WITHIN, the graph above: each way on every share
    monkeypatch.setattr(ann_module, "SCAN_WITHIN", 10**9 if way == "scan" else 0)
    x, queries = clustered(5000, 64, seed=2)
    ids = np.arange(5000, dtype=np.int64) + 10

    def vectors(found: np.ndarray) -> np.ndarray:
        return x[found - 10]

    ann = AnnIndex.build("usearch", ids, x, generation=1, rescore=vectors)
    rng = np.random.default_rng(1)
    within = np.sort(rng.choice(5000, size=max(1, int(share * 5000)), replace=False))
    exact = ExactSearch(ids, x)
    rows = row_ranges(ids[within], np.ones(len(within), dtype=np.int64), ids)
    assert np.array_equal(rows.positions(), within)
    recalls = []
    for q in queries[:30]:
        got = ann.search_within(q, 10, rows)
        truth = exact.search(q, 10, within=within)
        assert len(got) == min(10, len(within))  # a selective filter still gives k results
        assert {i for i, _ in got} <= set((ids[within]).tolist())
        recalls.append(len({i for i, _ in got} & {i for i, _ in truth}) / len(truth))
    assert np.mean(recalls) >= 0.95


def _docs(n: int, start: int = 0, tag: str = "") -> list[Document]:
    return [Document.from_text(f"line {i} about topic {i % 7}{tag}\nsecond {i} line{tag}", id=f"d{i}")
            for i in range(start, start + n)]


def _matches_exact(path, query: str, got) -> bool:
    """Whether graph hits ``got`` are exact search's best, as an approximate graph finds them:
    every hit's score is its exact one, and at most one of exact search's best is missed (by
    score: the hash embedder ties). A graph walk may miss a node now and then; a wrong graph
    misses many."""
    with Index.open(path, embedder=CountingEmbedder(), ann="off") as exact:
        truth = exact.search(query, mode="dense", k=1000)
    score = {h.node_id: round(h.score, 5) for h in truth}
    if any(score.get(h.node_id) != round(h.score, 5) for h in got):
        return False
    best = Counter(round(h.score, 5) for h in truth[:len(got)])
    found = Counter(round(h.score, 5) for h in got)
    return len(got) == min(len(truth), len(got)) and sum((best & found).values()) >= len(got) - 1


def test_a_write_updates_the_graph_instead_of_rebuilding_it(tmp_path):
    path = tmp_path / "i.db"
    with Index.open(path, embedder=CountingEmbedder(), strategy=ParagraphLines(), ann_threshold=20) as ix:
        assert ix.add(_docs(40)).ann == "built over 80 units"
        built = AnnIndex.paths(path)[0].stat().st_mtime_ns
        report = ix.add(_docs(5, start=40))
        assert report.ann == "updated: 10 units added, 0 removed"
        assert ix.stats().ann == "usearch, fresh"
        assert AnnIndex.paths(path)[0].stat().st_mtime_ns >= built
        got = ix.search("topic 3", mode="dense", k=8)
    assert _matches_exact(path, "topic 3", got)


def test_a_write_adding_a_few_units_leaves_the_graph_and_they_are_still_found(tmp_path, monkeypatch):
    from zoomrag.index import dense

    monkeypatch.setattr(dense, "DEFER_SHARE", 0.1)
    path = tmp_path / "i.db"
    with Index.open(path, embedder=CountingEmbedder(), strategy=ParagraphLines(), ann_threshold=20) as ix:
        ix.add(_docs(40))
        graph = AnnIndex.paths(path)[0]
        before = graph.stat().st_mtime_ns, graph.read_bytes()
        report = ix.add(_docs(2, start=40, tag=" zebra"))  # 4 units: within a tenth of 80
        assert report.ann == "deferred: 4 units added since the graph, searched exactly beside it"
        assert ix.stats().ann == "4 units added since the graph, searched exactly beside it"
        assert (graph.stat().st_mtime_ns, graph.read_bytes()) == before
        got = ix.search("line 41 about topic 1 zebra", mode="dense", k=8)
        assert _matches_exact(path, "line 41 about topic 1 zebra", got)
        assert "d41" in {h.doc_id for h in got}  # a new unit, found beside the graph
        assert ix.add(_docs(2, start=42)).ann == "deferred: 8 units added since the graph, searched exactly beside it"
        assert ix.add(_docs(1, start=44)).ann == "updated: 10 units added, 0 removed"  # past the share
        assert ix.stats().ann == "usearch, fresh"
        ix.add(_docs(1, start=45))
        ix.delete("d44")  # a removal is never deferred: the graph must not return what is gone
        assert ix._dense.last_change == "updated: 2 units added, 2 removed"


def test_deleted_and_replaced_units_leave_the_graph_and_are_never_returned(tmp_path):
    path = tmp_path / "i.db"
    with Index.open(path, embedder=CountingEmbedder(), strategy=ParagraphLines(), ann_threshold=20) as ix:
        ix.add(_docs(40))
        rows_before = set(ix.store.unit_rows().tolist())
        removed = {n.id for n in ix.tree("d39").nodes}
        ix.delete("d39")  # the last document: its rows must not be given out again
        assert ix._dense.last_change == "updated: 0 units added, 2 removed"
        report = ix.add(_docs(1, start=39, tag=" changed"))
        assert report.ann == "updated: 2 units added, 0 removed"
        new_rows = set(ix.store.unit_rows().tolist()) - rows_before
        assert len(new_rows) == 2 and min(new_rows) > max(rows_before)
        assert ix.stats().ann == "usearch, fresh"
        for query in ("line 39 about topic 4", "line 39 about topic 4 changed", "second 39 line", "topic 4"):
            hits = ix.search(query, mode="dense", k=100)  # as many as there are: all, exactly
            assert len({h.node_id for h in hits}) == len(hits) == 80  # the live units, none removed
            assert _matches_exact(path, query, hits[:8])
            graph_hits = ix.search(query, mode="dense", k=8)  # a few of 80: through the graph
            assert len(graph_hits) == 8 and not removed & {h.node_id for h in graph_hits}


def test_a_metadata_update_or_pinned_policy_keeps_the_graph_without_touching_it(tmp_path):
    path = tmp_path / "i.db"
    with Index.open(path, embedder=CountingEmbedder(), strategy=ParagraphLines(), ann_threshold=20) as ix:
        ix.add(_docs(40))
        graph = AnnIndex.paths(path)[0]
        before = graph.stat().st_mtime_ns, graph.read_bytes()
        ix.update_metadata("d3", {"year": 2024})
        ix.pin_expansion("window", {})
        assert ix.stats().ann == "usearch, fresh"
        assert ix._dense.last_change == ""
        assert (graph.stat().st_mtime_ns, graph.read_bytes()) == before


def test_the_graph_is_rebuilt_once_a_quarter_of_it_was_removed(tmp_path):
    path = tmp_path / "i.db"
    with Index.open(path, embedder=CountingEmbedder(), strategy=ParagraphLines(), ann_threshold=20) as ix:
        ix.add(_docs(40))
        for i in range(8):
            ix.delete(f"d{i}")
            assert ix._dense.last_change == "updated: 0 units added, 2 removed"
        ix.delete("d8")  # 18 removed against 62 live rows: past a quarter
        assert ix._dense.last_change == "built over 62 units"
        assert ix.stats().ann == "usearch, fresh"
        got = ix.search("topic 3", mode="dense", k=8)
    assert _matches_exact(path, "topic 3", got)


def test_a_graph_saved_before_rows_were_never_reused_is_rebuilt_once(tmp_path):
    path = tmp_path / "i.db"
    with Index.open(path, embedder=CountingEmbedder(), strategy=ParagraphLines(), ann_threshold=20) as ix:
        ix.add(_docs(40))
        meta = AnnIndex.paths(path)[2]
        info = json.loads(meta.read_text())
        del info["rows"]
        meta.write_text(json.dumps(info))
        assert ix.add(_docs(1, start=40)).ann == "built over 82 units"
        assert ix.add(_docs(1, start=41)).ann == "updated: 2 units added, 0 removed"


def test_an_updated_and_saved_graph_agrees_with_exact_search(tmp_path):
    x, queries = clustered(3000, 32, seed=4)
    ids = np.arange(3000, dtype=np.int64)
    ann = AnnIndex.build("usearch", ids[:2000], x[:2000], generation=1, rescore=lambda r: x[r])
    alive = np.setdiff1d(ids, np.arange(100, 300))
    assert ann.update(alive, lambda r: x[r], generation=2) == (1000, 200)
    ann.save(tmp_path / "i.db")
    loaded = AnnIndex.load_if_fresh(tmp_path / "i.db", 2, 32, rescore=lambda r: x[r])
    assert loaded is not None and loaded.dead == 200
    exact = ExactSearch(alive, x[alive])
    recalls = []
    for q in queries[:30]:
        got = {i for i, _ in loaded.search(q, 10)}
        assert not got & set(range(100, 300))
        recalls.append(len(got & {i for i, _ in exact.search(q, 10)}) / 10)
    assert np.mean(recalls) >= 0.95
    # a row below the graph's last one that it does not hold: rebuilt instead, left unchanged
    assert loaded.update(np.sort(np.append(alive, 150)), lambda r: x[r], 3) is None
    assert loaded.generation == 2 and loaded.dead == 200


def test_while_the_saved_graph_is_behind_readers_search_it_and_the_new_units_exactly(tmp_path):
    """A writer commits, then saves the updated graph: in between, readers search the graph as
    last saved beside the units added since, never a removed unit, and never the whole matrix."""
    path = tmp_path / "i.db"
    with Index.open(path, embedder=CountingEmbedder(), strategy=ParagraphLines(), ann_threshold=20) as ix:
        ix.add(_docs(40))
        saved = {p: p.read_bytes() for p in AnnIndex.paths(path)}
        ix.add(_docs(3, start=40, tag=" fresh"))
        ix.delete("d5")
    for p, data in saved.items():  # the graph as it was before those writes
        p.write_bytes(data)
    with Index.open(path, embedder=CountingEmbedder(), ann_threshold=20) as reader:
        assert reader.stats().ann == "stale (updated by the next write)"
        # (not a line word for word: pasted text would lead with it, scores scaled by the list)
        for query in ("fresh line 41 topic 6", "second 5 line", "topic 3"):
            hits = reader.search(query, mode="dense", k=8)
            assert all(h.doc_id != "d5" for h in hits)
            assert _matches_exact(path, query, hits)
        assert reader._dense._matrix._search is None  # the whole matrix was never loaded
        where = {"$doc": ["d41", "d6"]}
        got = reader.search("second line", mode="dense", k=4, where=where)
        assert {h.doc_id for h in got} == {"d41", "d6"}


def test_a_graph_saved_without_int8_vectors_gets_them_at_the_next_write_without_a_rebuild(tmp_path):
    path = tmp_path / "i.db"
    with Index.open(path, embedder=CountingEmbedder(), strategy=ParagraphLines(), ann_threshold=20) as ix:
        ix.add(_docs(40))
        _, _, meta, codes = AnnIndex.paths(path)
        info = json.loads(meta.read_text())
        del info["codes_crc32"]  # as an older zoomrag saved it
        meta.write_text(json.dumps(info))
        codes.unlink()
        assert ix.stats().ann == "stale (updated by the next write)"
        assert ix.add(_docs(1, start=40)).ann == "updated: 2 units added, 0 removed"
        assert codes.exists() and ix.stats().ann == "usearch, fresh"
        got = ix.search("topic 3", mode="dense", k=6, where={"$doc": ["d3", "d10", "d40"]})
        assert {h.doc_id for h in got} == {"d3", "d10", "d40"}
