"""Hybrid search through the index, the CLI and the HTTP request: how the two rankings are joined."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from test_index_support import CharWindows, CountingEmbedder

from zoomrag.cli import main
from zoomrag.errors import ConfigError
from zoomrag.index import Index
from zoomrag.model import Document
from zoomrag.serve.query import QueryRequest, run_query

LINES = ["the red fox jumps over the lazy dog", "a red apple and a green pear", "blue whales sing at night",
         "the quick brown fox naps", "green grass grows in spring", "foxes hunt mice in red fields"]


@pytest.fixture
def ix(tmp_path):
    with Index.open(tmp_path / "h.db", embedder=CountingEmbedder(), strategy=CharWindows(200)) as index:
        index.add([Document.from_text(line, id=f"d{i}") for i, line in enumerate(LINES)])
        yield index


def _scaled(hits, ranker, floor=None):
    """Each hit's score in ``ranker`` scaled between that ranker's first and ``floor`` (default:
    its last, in a list under 100)."""
    scores = [h.ranks[ranker][0] for h in hits if ranker in h.ranks]
    top, floor = max(scores), min(scores) if floor is None else floor
    return {h.node_id: (h.ranks[ranker][0] - floor) / (top - floor) if ranker in h.ranks else 0.0 for h in hits}


def test_a_hybrid_score_is_the_weighted_sum_of_the_scaled_scores(ix):
    question = "red fox in the green fields"
    hits = ix.search(question, mode="hybrid", k=10)
    assert {h.node_id for h in hits} == {h.node_id for h in ix.search(question, mode="dense", k=10)} | {
        h.node_id for h in ix.search(question, mode="bm25", k=10)}
    # BM25 found every unit holding a word of the question (fewer than it was asked for): any
    # other unit scores 0 there, which is BM25's floor
    dense, bm25 = _scaled(hits, "dense"), _scaled(hits, "bm25", floor=0.0)
    assert min(h.ranks["bm25"][0] for h in hits if "bm25" in h.ranks) > 0
    for h in hits:
        assert h.score == pytest.approx(0.7 * dense[h.node_id] + 0.3 * bm25[h.node_id])
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_the_bm25_weight_moves_hybrid_between_the_two_rankings(ix):
    question = "green fox"
    order = {m: [h.node_id for h in ix.search(question, mode=m, k=10)] for m in ("dense", "bm25")}
    only_bm25 = ix.search(question, mode="hybrid", k=10, weights={"dense": 0.0, "bm25": 1.0})
    only_dense = ix.search(question, mode="hybrid", k=10, weights={"dense": 1.0, "bm25": 0.0})
    assert [h.node_id for h in only_bm25][:len(order["bm25"])] == order["bm25"]
    assert [h.node_id for h in only_dense][:len(order["dense"])] == order["dense"]
    rrf = ix.search(question, mode="hybrid", k=10, fusion="rrf")
    assert rrf[0].score == pytest.approx(sum(1 / (60 + r) for _, r in rrf[0].ranks.values()))
    with pytest.raises(ConfigError, match="unknown fusion 'sum'; choose one of: convex, rrf"):
        ix.search(question, fusion="sum")


def test_a_request_gives_bm25_its_share_in_hybrid_mode_only(ix):
    by_weight = {w: run_query(ix, QueryRequest(text="green fox", budget=40, top=3, expand="none", bm25_weight=w))
                 for w in (0.0, 1.0)}
    assert by_weight[1.0] and by_weight[0.0] != by_weight[1.0]
    with pytest.raises(ConfigError, match="bm25_weight applies to hybrid mode, not 'dense'"):
        run_query(ix, QueryRequest(text="green fox", mode="dense", bm25_weight=0.5))
    with pytest.raises(ConfigError, match="bm25 weight 2 must be between 0 and 1"):
        run_query(ix, QueryRequest(text="green fox", bm25_weight=2))


def test_the_cli_takes_a_bm25_weight(tmp_path):
    for i, line in enumerate(LINES):
        (tmp_path / f"d{i}.txt").write_text(line + "\n", encoding="utf-8")
    path = str(tmp_path / "i.db")
    built = CliRunner().invoke(main, ["index", str(tmp_path), "--index", path, "--embedder", "hash", "-q"])
    assert built.exit_code == 0, built.output

    def ask(*extra: str) -> list[str]:
        got = CliRunner().invoke(main, ["query", "green fox", "--index", path, "--json", "--expand", "none",
                                        "--top", "3", "--no-server", *extra])
        assert got.exit_code == 0, got.output
        return [c["doc_id"] for c in json.loads(got.output)["contexts"]]

    assert ask("--mode", "bm25") != ask("--mode", "dense")  # so the two checks below can fail
    assert ask("--bm25-weight", "1") == ask("--mode", "bm25")
    assert ask("--bm25-weight", "0") == ask("--mode", "dense")
    bad = CliRunner().invoke(main, ["query", "green fox", "--index", path, "--bm25-weight", "1.5"])
    assert bad.exit_code == 2 and "1.5 is not in the range 0<=x<=1" in bad.output
    wrong = CliRunner().invoke(main, ["query", "green fox", "--index", path, "--no-server", "--mode", "bm25",
                                      "--bm25-weight", "0.5"])
    assert wrong.exit_code != 0 and "bm25_weight applies to hybrid mode, not 'bm25'" in wrong.output
    assert "Traceback" not in wrong.output


def test_explain_says_where_each_ranker_placed_the_best_hit(ix):
    contexts = ix.query("red fox", budget=60, top=3, expand="none", explain=True)
    hits = {h.node_id: h for h in ix.search("red fox", k=50)}
    best = max(hits.values(), key=lambda h: h.score)
    first = next(c for c in contexts if c.start == best.start)
    said = ", ".join(f"{name} #{rank}" for name, (_, rank) in best.ranks.items())
    assert f"; best hit {said}" in first.rule
    assert "best hit" not in ix.query("red fox", budget=60, top=3, expand="none")[0].rule
