"""``zoomrag query --expand POLICY --set key=value --explain`` through click's CliRunner."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from test_index_support import write

from zoomrag import Index
from zoomrag.cli import main
from zoomrag.expand import expander_names

TEXT = ("Bananas grow in bunches. They are yellow when ripe. Monkeys like them a lot.\n\n"
        "Cherries are small and red. Their stones are hard. Birds eat cherries in June.\n")


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write(tmp_path / "docs" / "fruit.txt", TEXT)
    run("index", "docs", "--embedder", "hash", "--strategy", "window", "-q")
    return tmp_path


def run(*args: str, ok: int = 0):
    result = CliRunner().invoke(main, list(args))
    assert result.exit_code == ok, (result.stdout, result.stderr, result.exception)
    return result


def test_every_registered_policy_is_a_choice_and_runs(project):
    for name in expander_names():
        r = run("query", "yellow when ripe", "--mode", "bm25", "--expand", name, "--json", "--budget", "40")
        assert json.loads(r.stdout)["contexts"], name


def test_explain_shows_the_rule_and_each_hit(project):
    r = run("query", "yellow when ripe", "--mode", "bm25", "--expand", "window", "--set", "n=1", "--explain",
            "--top", "1")
    out = r.stdout
    assert "(window of 1" in out
    assert "   rule: window of 1" in out
    assert "   hit [25, 51) score" in out and ": They are yellow when ripe." in out
    assert "Bananas grow in bunches. They are yellow when ripe. Monkeys like them a lot." in out


def test_set_values_are_checked(project):
    r = run("query", "cherries", "--expand", "window", "--set", "n=-1", ok=1)
    assert "error: window: n=-1 is out of range; use at least 0 and at most 1000" in r.stderr
    r = run("query", "cherries", "--expand", "window", "--set", "width=3", ok=1)
    assert "has no parameter 'width'; its parameters are: n, within" in r.stderr


def test_auto_uses_a_pinned_policy(project):
    with Index.open(project / ".zoomrag" / "index.db", create=False) as ix:
        ix.pin_expansion("window", {"n": 0})
    r = run("query", "stones are hard", "--mode", "bm25", "--expand", "auto", "--explain", "--top", "1")
    assert "rule: auto (pinned window): window of 0" in r.stdout


def test_document_order(project):
    r = run("query", "cherries bananas", "--mode", "bm25", "--order", "document", "--json", "--budget", "60")
    starts = [c["start"] for c in json.loads(r.stdout)["contexts"]]
    assert starts == sorted(starts)
