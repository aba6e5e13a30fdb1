"""The results cache is keyed on everything that changes a result (defect: bm25 figures for dense)."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

import zoomrag
from zoomrag.cli import main
from zoomrag.evaluate import Dataset, ResultCache, load_dataset
from zoomrag.evaluate.cache import RunKey, source_digest
from zoomrag.evaluate.reading import read_dataset
from zoomrag.evaluate.retriever import IndexPool, IndexRetriever, resolve
from zoomrag.evaluate.runner import run_key
from zoomrag.text.tokens import get_counter

TINY = Path(__file__).parent / "fixtures" / "eval" / "tiny"
SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "chroma_general"


def base_key() -> RunKey:
    return RunKey("c" * 64, "window", "hash@1", "tokens", 512, {"mode": "hybrid", "policy_params": {"n": 2}})


@pytest.mark.parametrize("change", [
    {"corpus": "d" * 64}, {"config": "density"}, {"embedder": "hash@2"}, {"embedder": "minilm@1"},
    {"counter": "chars"}, {"budget": 1024}, {"version": "9.9.9"},
    {"settings": {"mode": "dense", "policy_params": {"n": 2}}},
    {"settings": {"mode": "hybrid", "policy_params": {"n": 3}}},
    {"settings": {"mode": "hybrid", "policy_params": {"n": 2}, "reranker": "http://127.0.0.1:1/rerank"}},
])
def test_each_field_changes_the_key(change):
    assert dataclasses.replace(base_key(), **change).digest != base_key().digest


def test_a_key_is_stable_and_the_build_key_ignores_only_the_budget():
    a, b = base_key(), base_key()
    assert a.digest == b.digest
    assert dataclasses.replace(a, budget=64).build_digest == a.build_digest
    assert dataclasses.replace(a, settings={"mode": "dense"}).build_digest != a.build_digest
    assert base_key().version.startswith(zoomrag.__version__ + "+")


def test_the_version_follows_the_source_not_only_the_release(tmp_path: Path):
    pkg = tmp_path / "pkg"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "a.py").write_text("x = 1\n")
    (pkg / "sub" / "b.py").write_text("y = 2\n")
    (pkg / "notes.txt").write_text("not code")
    before = source_digest(pkg)
    assert source_digest(pkg) == before
    (pkg / "notes.txt").write_text("other")
    assert source_digest(pkg) == before  # only code changes what a run returns
    (pkg / "sub" / "b.py").write_text("y = 3\n")
    edited = source_digest(pkg)
    assert edited != before
    (pkg / "sub" / "b.py").rename(pkg / "b.py")
    assert source_digest(pkg) != edited  # a moved module is another layout


def test_retriever_settings_reach_the_key(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    ds = read_dataset(load_dataset(TINY))
    counter = get_counter("tokens")

    def key(name, mode="hybrid", spec=None, data=ds):
        with IndexPool(tmp_path, "hash", mode=mode) as pool:
            return run_key(data, IndexRetriever(spec or resolve(name), pool), counter, 256).digest

    base = key("window")
    assert key("window") == base
    assert key("window", mode="bm25") != base and key("window", mode="dense") != key("window", mode="bm25")
    assert key("density") != key("density-sharp")  # one policy, other parameters
    wider = dataclasses.replace(resolve("window"), policy_params={"n": 3})
    assert key("window", spec=wider) != base
    bigger = dataclasses.replace(resolve("fixed-128"), strategy_params={"size": 128, "overlap": 0})
    assert key("fixed-128", spec=bigger) != key("fixed-128")
    edited = Dataset(ds.name, (dataclasses.replace(ds.documents[0], text=ds.documents[0].text + " More."),
                               *ds.documents[1:]), ds.queries)
    assert key("window", data=edited) != base
    monkeypatch.setattr(zoomrag, "__version__", "0.0.0-other")
    assert key("window") != base


def test_an_old_cache_file_is_emptied_not_misread(tmp_path: Path):
    import sqlite3

    path = tmp_path / "old.db"
    db = sqlite3.connect(path)
    db.executescript("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);"
                     "INSERT INTO meta VALUES ('schema', '1');"
                     "CREATE TABLE results (corpus TEXT, config TEXT, embedder TEXT, counter TEXT, budget INT,"
                     " query_id TEXT, query_hash TEXT, returned TEXT, seconds REAL);"
                     "INSERT INTO results VALUES ('c','window','e','tokens',1,'q','h','[]',0.1);")
    db.commit()
    db.close()
    with ResultCache(path) as cache:
        assert cache.count() == 0


@pytest.fixture(scope="module")
def chroma_slice(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One chroma_general corpus, cut to the evidence of its first 10 queries."""
    from zoomrag.evaluate import write_dataset

    if not (SHARED / "corpus.jsonl").exists():
        pytest.skip(f"shared data not found at {SHARED}")
    full = load_dataset(SHARED)
    doc = full.documents[0]
    qs = [q for q in full.queries if all(e.doc_id == doc.id for e in q.evidence)][:10]
    end = max(e.end for q in qs for e in q.evidence) + 2000
    out = tmp_path_factory.mktemp("chroma") / "slice"
    write_dataset(Dataset("slice", (dataclasses.replace(doc, text=doc.text[:end]),), tuple(qs)), out)
    return out


def test_cli_dense_after_bm25_is_not_served_bm25_figures(chroma_slice: Path, tmp_path: Path):
    """The reproduced bug: `eval --mode bm25` then `--mode dense` printed the bm25 figures."""
    def run(mode: str, cache: Path) -> tuple[dict, str]:
        out = tmp_path / f"{mode}-{cache.stem}.json"
        r = CliRunner().invoke(main, ["eval", "--data", str(chroma_slice), "--config", "fixed-128",
                                      "--embedder", "hash", "--limit-queries", "10", "--mode", mode,
                                      "--budgets", "256", "--cache", str(cache), "--index-dir",
                                      str(tmp_path / "ix"), "-q", "--json", str(out)], catch_exceptions=False)
        assert r.exit_code == 0, r.output
        return json.loads(out.read_text())["results"][0], r.output

    shared = tmp_path / "shared.db"
    bm25, _ = run("bm25", shared)
    dense, output = run("dense", shared)
    assert "10 of 10 results computed, 0 from the cache" in output
    fresh, _ = run("dense", tmp_path / "fresh.db")
    assert dense == fresh
    assert dense != bm25  # the hash embedder and bm25 rank these differently
