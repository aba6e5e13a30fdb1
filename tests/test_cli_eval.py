"""``zoomrag eval | sweep | compare | recommend`` and ``eval generate | import`` through the CLI.

Every run uses the deterministic ``hash`` embedder: these tests check the wiring (JSON shape,
cache, pinning, error messages), not retrieval quality.
"""

from __future__ import annotations

import csv
import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from zoomrag import Index
from zoomrag.cli import main
from zoomrag.cli.evaluate import EVAL_META_KEY
from zoomrag.errors import EvalError
from zoomrag.evaluate import METRICS, Dataset, EvalQuery, Evidence, load_dataset, run_eval, write_dataset
from zoomrag.evaluate.report import REPORT_KEYS, RESULT_KEYS
from zoomrag.evaluate.retriever import IndexPool, IndexRetriever, resolve
from zoomrag.expand.auto import PIN_KEY, pinned_policy
from zoomrag.model import Document

TINY = Path(__file__).parent / "fixtures" / "eval" / "tiny"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
SLICE_CHARS = 12_000
SLICE_QUERIES = 6


def invoke(*args: str | Path) -> object:
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


@pytest.fixture(scope="module")
def wiki_slice(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The first characters of wikitext_md and the queries whose evidence lies in them."""
    src = SHARED / "wikitext_md"
    if not (src / "corpus.jsonl").exists():
        pytest.skip(f"shared data not found at {src}")
    full = load_dataset(src)
    doc = full.documents[0]
    cut = dataclasses.replace(doc, text=doc.text[:SLICE_CHARS])
    queries = [q for q in full.queries if all(e.doc_id == doc.id and e.end <= SLICE_CHARS for e in q.evidence)]
    assert len(queries) >= SLICE_QUERIES
    out = tmp_path_factory.mktemp("wiki") / "wikitext_slice"
    write_dataset(Dataset("wikitext_slice", (cut,), tuple(queries[:SLICE_QUERIES])), out)
    return out


def common(tmp: Path) -> list[str | Path]:
    return ["--embedder", "hash", "--budgets", "128,256", "--cache", tmp / "cache.db",
            "--index-dir", tmp / "indexes", "-q"]


def check_shape(report: dict, configs: list[str], budgets: list[int]) -> None:
    assert tuple(report) == REPORT_KEYS
    assert report["budgets"] == budgets
    assert [(r["config"], r["budget"]) for r in report["results"]] == [(c, b) for c in configs for b in budgets]
    for r in report["results"]:
        assert tuple(r) == RESULT_KEYS
        assert set(r["ci"]) == set(METRICS)
        for m in METRICS:
            low, high = r["ci"][m]
            assert 0.0 <= low <= r[m] + 1e-9 and r[m] <= high + 1e-9 and high <= 1.0
    assert list(report["build"]) == configs
    for b in report["build"].values():
        assert set(b) == {"seconds", "units_embedded", "storage_bytes", "index"}
        assert b["units_embedded"] > 0 and b["storage_bytes"] > 0
    assert list(report["latency"]) == configs
    for lat in report["latency"].values():
        assert set(lat) == {"p50_ms", "p95_ms", "mean_ms", "calls"}
        assert lat["calls"] == len(budgets) * report["dataset"]["queries"]
    assert [(r["config"], r["budget"]) for r in report["shape"]] == [(c, b) for c in configs for b in budgets]
    for r in report["shape"]:
        assert 0 <= r["fragment_rate"] <= 1 and 0 <= r["mid_start_rate"] <= 1 and 0 <= r["mid_end_rate"] <= 1
        assert r["contexts_per_query"] >= 0 and r["contexts"] >= 0


# -- eval, sweep, recommend end to end -------------------------------------------------------

def test_eval_then_recommend_pin_on_a_slice_of_shared_data(wiki_slice: Path, tmp_path: Path):
    configs = ["fixed-128", "fixed-512", "window", "merge"]
    out = tmp_path / "eval.json"
    r = invoke("eval", "--data", wiki_slice, "--config", "fixed-128,fixed-512", "--config", "window",
               "--config", "merge", "--json", out, "--html", tmp_path / "eval.html", *common(tmp_path))
    assert r.exit_code == 0, r.output
    assert "evidence" in r.output.lower() or "recall" in r.output
    report = json.loads(out.read_text())
    check_shape(report, configs, [128, 256])
    assert report["verdict"] == {}
    assert report["dataset"]["name"] == "wikitext_slice" and report["dataset"]["queries"] == SLICE_QUERIES
    assert (tmp_path / "eval.html").read_text().startswith("<!doctype html>")
    assert "Context shape" in (tmp_path / "eval.html").read_text() and "context shape" in r.output

    # An index of other documents: the verdict is not pinned into it without --force.
    other = tmp_path / "other.db"
    with Index.open(other, embedder="hash", strategy="hierarchical") as ix:
        ix.add([Document(id="note", text="# Notes\n\nThe cat sat on the mat. It was warm.\n", source="note.md",
                         format="markdown")])
    r = CliRunner().invoke(main, ["recommend", "--data", str(wiki_slice), "--policy", "window", "--pin", str(other),
                                  *map(str, common(tmp_path))])
    assert r.exit_code == 1
    assert "not pinning: 0 of the dataset's 1 documents are in" in r.output and "--force" in r.output
    with Index.open(other, create=False) as ix:
        assert pinned_policy(ix.store.meta()) is None
    # The user's index of the dataset's own documents (as `zoomrag index` reads them).
    index = tmp_path / "mine.db"
    text = load_dataset(wiki_slice).documents[0].text
    with Index.open(index, embedder="hash", strategy="hierarchical") as ix:
        ix.add([Document(id="/home/me/wiki.md", text=text, source="wiki.md", format="markdown")])
    rec_json = tmp_path / "rec.json"
    r = invoke("recommend", "--data", wiki_slice, "--policy", "window,merge", "--pin", index, "--json", rec_json,
               *common(tmp_path))
    assert r.exit_code == 0, r.output
    rec = json.loads(rec_json.read_text())
    check_shape(rec, ["fixed-128", "fixed-256", "fixed-512", "fixed-1024", "fixed-2048", "window", "merge",
                      "your-index"], [128, 256])
    verdict = rec["verdict"]
    assert set(verdict) == {"gate", "recommended", "choice", "metric", "sentence", "gate0", "comparison",
                            "notes", "resolution"}
    assert verdict["choice"] in ("policy", "fixed")
    assert verdict["recommended"] in {x["config"] for x in rec["results"]}
    with Index.open(index, create=False) as ix:
        meta = ix.store.meta()
    if verdict["recommended"] != "your-index":
        assert pinned_policy(meta) == resolve(verdict["recommended"]).pin()
    stored = json.loads(meta[EVAL_META_KEY])
    assert stored["config"] == verdict["recommended"] and stored["dataset"] == "wikitext_slice"
    assert "pinned" in r.output

    # `query --expand auto` now follows the pin.
    r = invoke("query", "cat on the mat", "--index", index, "--expand", "auto", "--explain")
    assert r.exit_code == 0, r.output
    assert f"auto (pinned {pinned_policy(meta)[0]})" in r.output


def test_recommend_pins_a_winning_policy_so_auto_uses_it(tmp_path: Path):
    from zoomrag.cli.evaluate import _pin

    class Won:  # the shape of a Recommendation that chose a policy
        config, choice = "window", "policy"

        def to_pin(self) -> dict:
            return {"config": "window", "choice": "policy", "metric": "evidence_recall", "gains": []}

    index = tmp_path / "mine.db"
    with Index.open(index, embedder="hash", strategy="window") as ix:
        ix.add([Document(id="d", text="One sentence here. Another one there.", source="d.txt")])
    _pin(index, Won(), load_dataset(TINY))
    with Index.open(index, create=False) as ix:
        meta = ix.store.meta()
    assert pinned_policy(meta) == ("window", {"n": 2})
    assert json.loads(meta[PIN_KEY]) == {"policy": "window", "params": {"n": 2}}


def test_sweep_gives_the_gate0_verdict(tmp_path: Path):
    out = tmp_path / "sweep.json"
    r = invoke("sweep", "--data", TINY, "--json", out, *common(tmp_path))
    assert r.exit_code == 0, r.output
    report = json.loads(out.read_text())
    check_shape(report, [f"fixed-{n}" for n in (128, 256, 512, 1024, 2048)], [128, 256])
    v = report["verdict"]
    assert v["gate"] == 0 and v["action"] in ("pin", "try multi-scale") and v["sentence"]
    assert "verdict" in r.output


def test_compare_gives_the_gate2_comparison(tmp_path: Path):
    out = tmp_path / "compare.json"
    r = invoke("compare", "--data", TINY, "--policy", "density", "--json", out, *common(tmp_path))
    assert r.exit_code == 0, r.output
    v = json.loads(out.read_text())["verdict"]
    assert v["gate"] == 2 and set(v["baselines"]) == {"128", "256"}
    assert {d["config"] for d in v["differences"]} == {"density"}
    assert v["structure"]["gate"] == 1


def test_a_rerun_computes_nothing_and_the_cache_defaults_under_dot_zoomrag(tmp_path: Path,
                                                                         monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)
    args = ["eval", "--data", TINY, "--config", "fixed-128,window", "--embedder", "hash", "--budgets", "64,128",
            "-q"]
    first = invoke(*args)
    assert first.exit_code == 0, first.output
    assert "8 of 8 results computed, 0 from the cache" in first.output
    assert (tmp_path / ".zoomrag" / "eval-cache.db").exists()
    second = invoke(*args)
    assert "0 of 8 results computed, 8 from the cache" in second.output
    # A new budget computes only that budget.
    third = invoke(*args[:-3], "--budgets", "64,128,256", "-q")
    assert "4 of 12 results computed, 8 from the cache" in third.output


def test_unknown_configuration_is_named_before_any_work(tmp_path: Path):
    r = CliRunner().invoke(main, ["eval", "--data", str(TINY), "--config", "fixed-128,zoom", *map(str, common(tmp_path))])
    assert r.exit_code == 1
    assert "unknown configuration 'zoom'" in r.output and "fixed-256" in r.output
    assert not (tmp_path / "indexes").exists()


def test_eval_needs_data(tmp_path: Path):
    r = CliRunner().invoke(main, ["eval", "--embedder", "hash"])
    assert r.exit_code == 2 and "--data is required" in r.output


# -- the retriever ---------------------------------------------------------------------------

def test_doc_scope_keeps_contexts_inside_the_scoped_document(tmp_path: Path):
    ds = load_dataset(TINY)
    scoped = [q for q in ds.queries if q.doc_scope is not None]
    assert scoped  # q2 is scoped to document b
    # The same question scoped to the other document must answer from that document only.
    other = EvalQuery("q-a", scoped[0].query, (Evidence("a", 0, 5),), doc_scope="a")
    ds = ds.with_queries([*ds.queries, other])
    with IndexPool(tmp_path, "hash", mode="hybrid") as pool:
        for name in ("fixed-128", "window", "merge"):
            r = IndexRetriever(name, pool)
            r.build(ds)
            for q in (scoped[0], other):
                contexts = r.retrieve(q, 256)
                assert contexts and {c.doc_id for c in contexts} == {q.doc_scope}


def test_resolve_names_trees_and_policies():
    s = resolve("fixed-256")
    assert (s.strategy, dict(s.strategy_params), s.policy) == ("fixed", {"size": 256, "overlap": 38}, "none")
    assert (resolve("density").strategy, resolve("merge").strategy) == ("window", "hierarchical")
    assert resolve("multilevel").levels and not resolve("merge").levels
    sharp = resolve("density-sharp")  # a named variant: its own name, another policy's code
    assert (sharp.name, sharp.strategy, sharp.pin()) == ("density-sharp", "window", ("density", {"score_decay": 1.0}))
    with pytest.raises(EvalError, match="unknown configuration 'nope'"):
        resolve("nope")
    with pytest.raises(EvalError, match="at least 16 tokens"):
        resolve("fixed-8")


def test_run_eval_over_index_retrievers_shares_one_index_per_tree(tmp_path: Path):
    ds = load_dataset(TINY)
    with IndexPool(tmp_path, "hash") as pool:
        run = run_eval(ds, [IndexRetriever(n, pool) for n in ("parent", "merge")], [64], resamples=50)
    assert run.build["parent"] == run.build["merge"]
    assert len(list(tmp_path.rglob("*.db"))) == 1


# -- making a dataset ------------------------------------------------------------------------

def test_generate_without_an_endpoint_says_what_to_set(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    for var in ("ZOOMRAG_LLM_BASE_URL", "ZOOMRAG_LLM_MODEL", "OPENAI_API_KEY"):
        monkeypatch.delenv(var, raising=False)
    r = CliRunner().invoke(main, ["eval", "generate", "--n", "3", "--data", str(TINY), "--out", str(tmp_path / "g")])
    assert r.exit_code == 1
    assert "no LLM endpoint configured: set ZOOMRAG_LLM_BASE_URL and ZOOMRAG_LLM_MODEL" in r.output
    assert not (tmp_path / "g").exists()


def test_import_lists_the_unlocatable_evidence(tmp_path: Path):
    questions = tmp_path / "qa.csv"
    with questions.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["id", "question", "evidence"])
        w.writerow(["k1", "Where did the cat sit?", "The cat  sat on\nthe mat."])
        w.writerow(["k2", "Who flew?", "The pig flew over the moon."])
    out = tmp_path / "ds"
    r = invoke("eval", "import", "--csv", questions, "--corpus", TINY / "corpus.jsonl", "--out", out)
    assert r.exit_code == 0, r.output
    assert "imported 1 of 2 questions" in r.output
    assert "1 evidence passage(s) not found:" in r.output
    assert "k2" in r.output and "The pig flew over the moon." in r.output
    ds = load_dataset(out)
    assert [q.id for q in ds.queries] == ["k1"]
    assert ds.evidence_text(ds.queries[0].evidence[0]) == "The cat sat on the mat."


def test_import_needs_exactly_one_source(tmp_path: Path):
    r = CliRunner().invoke(main, ["eval", "import", "--corpus", str(TINY), "--out", str(tmp_path / "o")])
    assert r.exit_code == 2 and "exactly one of --csv, --jsonl, --llamaindex" in r.output


def test_piped_output_keeps_intervals_and_a_shared_build_is_counted_once(tmp_path: Path):
    r = invoke("eval", "--data", TINY, "--config", "parent,merge,fixed-128", "--html", tmp_path / "r.html",
               *common(tmp_path))
    assert r.exit_code == 0, r.output
    assert (tmp_path / "r.html").read_text().count("the index of parent (built once)") == 1
    assert "± = half the 95 % interval" in r.output and "±." in r.output  # CliRunner output is not a tty
    merge_row = next(line for line in r.output.splitlines() if line.strip().startswith("merge ") and "=" in line)
    assert "= parent" in merge_row
    assert "shares the index of X (built once" in r.output


def test_recommend_pin_force_pins_into_other_documents_with_a_warning_and_stats_shows_it(tmp_path: Path):
    index = tmp_path / "other.db"
    with Index.open(index, embedder="hash", strategy="window") as ix:
        ix.add([Document(id="d", text="One sentence here. Another one there.", source="d.txt")])
    r = invoke("stats", "--index", index)
    assert "auto (nothing pinned" in r.output
    r = invoke("recommend", "--data", TINY, "--policy", "window", "--pin", index, "--force", *common(tmp_path))
    assert r.exit_code == 0, r.output
    assert "warning: 0 of the dataset's 2 documents are in" in r.output and "pinning anyway (--force)" in r.output
    with Index.open(index, create=False) as ix:
        pinned = pinned_policy(ix.store.meta())
    assert pinned is not None
    r = invoke("stats", "--index", index)
    assert f"{pinned[0]}" in r.output and "pinned: `--expand auto` uses it" in r.output
    r = invoke("stats", "--index", index, "--json")
    assert json.loads(r.output)["expansion"]["policy"] == pinned[0]
