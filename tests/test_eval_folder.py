"""From a folder of files and a CSV of questions to a recommendation pinned into their index."""

from __future__ import annotations

import csv
import json
from pathlib import Path

from click.testing import CliRunner

from zoomrag import Index
from zoomrag.cli import main
from zoomrag.evaluate import load_dataset
from zoomrag.evaluate.retriever import INDEX_CONFIG, index_config
from zoomrag.expand.auto import pin_value, pinned_policy


def invoke(*args: str | Path):
    return CliRunner().invoke(main, [str(a) for a in args], catch_exceptions=False)


def make_folder(root: Path) -> Path:
    docs = root / "docs"
    (docs / "sub").mkdir(parents=True)
    (docs / "notes.md").write_text("# Backups\n\nBackups run every night at two.\nThey keep thirty days.\n\n"
                                   "## Restore\n\nRestore with the restore command and a date.\n")
    (docs / "sub" / "page.html").write_text(
        "<!DOCTYPE html><html><head><title>x</title></head><body><h1>Office</h1>"
        "<p>The office opens at <b>nine</b> and closes at five.</p>"
        "<p>Visitors sign in at the front desk.</p></body></html>")
    (docs / "blob.bin").write_bytes(b"\x00\x01\x02" * 100)
    (docs / ".hidden.md").write_text("never read")
    return docs


def questions(root: Path) -> Path:
    path = root / "qa.csv"
    with path.open("w", newline="", encoding="utf-8") as f:
        w = csv.writer(f)
        w.writerow(["question", "evidence", "answer"])
        w.writerow(["When do backups run?", "Backups run every night at two.", "at two"])
        w.writerow(["When does the office open?", "The office opens at nine and closes at five.", "nine"])
        w.writerow(["How do I restore?", "Restore  with the restore command\nand a date.", ""])
        w.writerow(["Where is the gym?", "The gym is in the basement.", ""])
    return path


def test_three_commands_from_a_folder_to_a_pinned_recommendation(tmp_path: Path):
    docs = make_folder(tmp_path)
    data = tmp_path / "ds"
    r = invoke("eval", "import", "--folder", docs, "--csv", questions(tmp_path), "--out", data)
    assert r.exit_code == 0, r.output
    assert "2 documents read, 1 skipped:" in r.output and "blob.bin" in r.output
    assert "imported 3 of 4 questions" in r.output and "The gym is in the basement." in r.output
    ds = load_dataset(data)
    assert [d.id for d in ds.documents] == ["notes.md", "sub/page.html"]
    page = ds.document("sub/page.html")
    assert page.format == "markdown" and "<" not in page.text and page.text.startswith("# Office")
    assert ds.evidence_text(ds.queries[1].evidence[0]) == "The office opens at nine and closes at five."

    index = tmp_path / "index.db"
    r = invoke("index", docs, "--index", index, "--embedder", "hash", "-q")
    assert r.exit_code == 0, r.output
    out = tmp_path / "rec.json"
    r = invoke("recommend", "--data", data, "--pin", index, "--policy", "window,default", "--budgets", "64,128",
               "--cache", tmp_path / "c.db", "--index-dir", tmp_path / "ix", "-q", "--json", out)
    assert r.exit_code == 0, r.output  # the dataset's documents are the index's: no refusal
    report = json.loads(out.read_text())
    configs = {x["config"] for x in report["results"]}
    assert {"default", INDEX_CONFIG, "window", "fixed-128"} <= configs
    # The index was built with the default profile: it is the default configuration's index, built once.
    assert report["build"][INDEX_CONFIG]["index"] == report["build"]["default"]["index"] == "default-profile"
    assert "= default" in r.output or "= your-index" in r.output


def test_index_config_follows_the_pins_of_an_index(tmp_path: Path):
    index = tmp_path / "i.db"
    with Index.open(index, embedder="hash", strategy="window", params={"max_size": 64}) as ix:
        ix.add([tmp_path / "x.txt"] if (tmp_path / "x.txt").write_text("One. Two. Three.") else [])
        meta = ix.store.meta()
    spec = index_config(meta)
    assert (spec.chunking, spec.strategy, spec.strategy_params["max_size"], spec.policy) == \
        ("strategy", "window", 64, "auto")
    spec = index_config({**meta, **pin_value("window", {"n": 1})})
    assert (spec.policy, dict(spec.policy_params)) == ("window", {"n": 1})
    assert pinned_policy({}) is None


def test_eval_index_measures_the_index_beside_the_sweep(tmp_path: Path):
    docs = make_folder(tmp_path)
    data = tmp_path / "ds"
    assert invoke("eval", "import", "--folder", docs, "--csv", questions(tmp_path), "--out", data).exit_code == 0
    index = tmp_path / "index.db"
    assert invoke("index", docs, "--index", index, "--embedder", "hash", "--strategy", "sentences", "-q").exit_code == 0
    out = tmp_path / "e.json"
    r = invoke("eval", "--index", index, "--data", data, "--config", "fixed-128", "--budgets", "64",
               "--cache", tmp_path / "c.db", "--index-dir", tmp_path / "ix", "-q", "--json", out)
    assert r.exit_code == 0, r.output
    report = json.loads(out.read_text())
    assert [x["config"] for x in report["results"]] == ["fixed-128", INDEX_CONFIG]
    assert report["build"][INDEX_CONFIG]["index"] == "index-strategy-sentences"
    assert INDEX_CONFIG in r.output


def test_a_folder_indexed_with_exclusions_is_evaluated_with_the_same_files(tmp_path: Path):
    docs = make_folder(tmp_path)
    (docs / "drafts").mkdir()
    (docs / "drafts" / "old.md").write_text("# Old\n\nBackups used to run at noon.\n")
    data, index = tmp_path / "ds", tmp_path / "index.db"
    r = invoke("eval", "import", "--folder", docs, "--exclude", "drafts/", "--csv", questions(tmp_path), "--out", data)
    assert r.exit_code == 0, r.output
    assert "drafts: matches an exclude pattern (drafts/)" in " ".join(r.output.split())
    assert [d.id for d in load_dataset(data).documents] == ["notes.md", "sub/page.html"]
    assert invoke("index", docs, "--exclude", "drafts/", "--index", index, "--embedder", "hash", "-q").exit_code == 0
    r = invoke("recommend", "--data", data, "--pin", index, "--policy", "window", "--budgets", "64",
               "--cache", tmp_path / "c.db", "--index-dir", tmp_path / "ix", "-q")
    assert r.exit_code == 0, r.output  # the same documents: pinned, not refused
