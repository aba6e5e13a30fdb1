"""Report outputs: the exact JSON shape, a self-contained HTML page, the terminal table."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from rich.console import Console

from zoomrag.evaluate import (
    BuildStats,
    gate0,
    load_dataset,
    recommend,
    render_html,
    run_eval,
    to_json_dict,
    write_html,
    write_json,
)
from zoomrag.evaluate.report import REPORT_KEYS, RESULT_KEYS
from zoomrag.evaluate.terminal import print_run
from zoomrag.text.tokens import CharCounter

FIXTURES = Path(__file__).parent / "fixtures" / "eval"
METRICS = ["evidence_recall", "precision", "iou", "full_evidence_rate", "mrr"]


class Fixed:
    """A stand-in for a fixed-size configuration: returns ``size`` characters from the evidence start."""

    embedder = "fake"
    settings: dict = {}

    def __init__(self, name: str, size: int, lead: int = 0):
        self.name, self.size, self.lead = name, size, lead

    def build(self, dataset):
        return BuildStats(seconds=0.25, units_embedded=3, storage_bytes=2048)

    def retrieve(self, query, budget):
        e = query.evidence[0]
        s = max(0, e.start - self.lead)
        return [(e.doc_id, s, s + self.size)]


@pytest.fixture(scope="module")
def run():
    tiny = load_dataset(FIXTURES / "tiny")
    return run_eval(tiny, [Fixed("fixed-128", 10), Fixed("fixed-256", 20), Fixed("window", 30)], [16, 32],
                    counter=CharCounter())


def test_json_shape_is_exact(run, tmp_path):
    p = write_json(run, tmp_path / "r.json")
    data = json.loads(p.read_text())
    assert tuple(data) == REPORT_KEYS
    assert data["budgets"] == [16, 32]
    assert data["verdict"] == {}
    assert len(data["results"]) == 6
    for row in data["results"]:
        assert tuple(row) == RESULT_KEYS
        assert list(row["ci"]) == METRICS
        for m in METRICS:
            lo, hi = row["ci"][m]
            assert lo <= row[m] <= hi
    assert data["results"][0]["config"] == "fixed-128" and data["results"][0]["budget"] == 16
    assert data["build"]["window"] == {"seconds": 0.25, "units_embedded": 3, "storage_bytes": 2048, "index": None}
    assert data["judge"] == []
    assert set(data["latency"]["window"]) == {"p50_ms", "p95_ms", "mean_ms", "calls"}
    assert data["dataset"]["name"] == "tiny" and data["dataset"]["token_counter"] == "chars"


def test_json_values_for_a_hand_checked_row(run):
    # fixed-128 returns 10 chars from each evidence start; budget 16 leaves them whole.
    # q1: 10 of 23 evidence chars; q2: 10 of 43 (two spans in b). Precision 1 for both.
    row = to_json_dict(run)["results"][0]
    assert row["evidence_recall"] == round((10 / 23 + 10 / 43) / 2, 4)
    assert row["precision"] == 1.0 and row["mrr"] == 1.0 and row["full_evidence_rate"] == 0.0


def test_verdict_lands_in_the_json(run):
    v = gate0(run.results)
    data = to_json_dict(run.with_verdict(v))
    assert data["verdict"]["gate"] == 0 and data["verdict"]["sentence"] == v.sentence
    r = recommend(run.results)
    data = to_json_dict(run.with_verdict(r))
    assert data["verdict"]["recommended"] == r.config
    assert set(data["verdict"]) == {"gate", "recommended", "choice", "metric", "sentence", "gate0",
                                    "comparison", "notes", "resolution"}
    json.dumps(data, allow_nan=False)


def test_html_is_self_contained(run, tmp_path):
    page = write_html(run.with_verdict(recommend(run.results)), tmp_path / "r.html").read_text()
    assert page.startswith("<!doctype html>")
    assert "<script" not in page.lower()
    assert not re.search(r"""(src|href)\s*=""", page)
    urls = set(re.findall(r"https?://[^\s\"'<>]+", page))
    assert urls <= {"http://www.w3.org/2000/svg"}  # the SVG namespace only, never fetched
    # Gate-2 forest, recall, IoU, one Gate-0 frontier per budget (2), latency.
    assert page.count("<svg") == 6
    assert "Does multi-scale pay?" in page and "Gate 0 frontier" in page
    for name in ("fixed-128", "fixed-256", "window", "Recommended: "):
        assert name in page


def test_html_without_fixed_sizes_or_verdict_still_renders(run):
    alone = run_eval(load_dataset(FIXTURES / "tiny"), [Fixed("window", 30)], [16, 32], counter=CharCounter())
    page = render_html(alone)
    assert page.count("<svg") == 3 and "frontier" not in page.split("<h2>All numbers")[0].lower()


def test_terminal_table(run):
    console = Console(record=True, width=160)
    print_run(run.with_verdict(gate0(run.results)), console)
    out = console.export_text()
    assert "fixed-256" in out and "recall" in out and "verdict" in out
    assert re.search(r"\b16\b", out) and "±" in out
