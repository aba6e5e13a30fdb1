"""Judged answers (--judge) against a fake OpenAI-compatible chat server on 127.0.0.1."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from tests.fakes.openai_server import FakeChatServer, extractive_judge
from zoomrag.cli import main
from zoomrag.evaluate import Endpoint
from zoomrag.evaluate.judge import Judge, summarize

HTML = Path(__file__).parent / "fixtures" / "eval" / "html"
pytestmark = pytest.mark.xdist_group("fake-chat")


def endpoint(server: FakeChatServer) -> Endpoint:
    return Endpoint(server.base_url, "fake-model", max_retries=0)


def test_faithfulness_is_the_share_of_supported_claims():
    contexts = ["Dogs bark at the moon every night. Cats sleep all day."]

    def invent(body: dict) -> str:  # answers with one supported and one invented claim
        if "Question:" in body["messages"][-1]["content"] and "Answer to check" not in body["messages"][-1]["content"] \
                and "Does the answer" not in body["messages"][-1]["content"]:
            return json.dumps({"answer": "Dogs bark at the moon every night. Dogs bark at noon too."})
        return extractive_judge(body)

    with FakeChatServer(invent) as server:
        j = Judge(endpoint(server)).judge("When do dogs bark?", contexts)
        assert (j.claims, j.supported, j.faithfulness, j.relevancy, j.error) == (2, 1, 0.5, 1.0, None)
        assert len(server.requests) == 3
        first = server.requests[0]
        assert first["model"] == "fake-model" and first["temperature"] == 0.0
        assert "[1] Dogs bark at the moon every night." in first["messages"][1]["content"]

    with FakeChatServer() as server:
        j = Judge(endpoint(server)).judge("How old is Tom?", contexts)
    assert (j.answer, j.claims, j.faithfulness, j.relevancy) == ("I don't know", 0, None, 0.0)


def test_an_unusable_reply_costs_one_question_not_the_run():
    with FakeChatServer(lambda body: "Sure, here you go!") as server:
        j = Judge(endpoint(server)).judge("When do dogs bark?", ["Dogs bark."])
    assert j.error is not None and "not a JSON object" in j.error
    stats = summarize("x", 64, [j])
    assert (stats.judged, stats.failed, stats.faithfulness, stats.relevancy) == (1, 1, None, None)


def test_cli_judge_scores_answers_caches_them_and_shows_p95(tmp_path: Path):
    def run(server: FakeChatServer) -> tuple[dict, str]:
        out = tmp_path / "r.json"
        r = CliRunner().invoke(main, [
            "eval", "--data", str(HTML), "--config", "fixed-128,window", "--embedder", "hash", "--mode", "bm25",
            "--budgets", "64,128", "--cache", str(tmp_path / "c.db"), "--index-dir", str(tmp_path / "ix"),
            "--judge", server.base_url, "--judge-model", "fake-model", "-q", "--json", str(out),
            "--html", str(tmp_path / "r.html")],
            catch_exceptions=False)
        assert r.exit_code == 0, r.output
        return json.loads(out.read_text()), r.output

    with FakeChatServer() as server:
        report, output = run(server)
        calls = len(server.requests)
    assert calls == 3 * 2 * 4  # three calls per question (4) and configuration (2)
    judged = {j["config"]: j for j in report["judge"]}
    assert set(judged) == {"fixed-128", "window"}
    for j in judged.values():
        assert j["budget"] == 128 and j["judged"] == 4 and j["failed"] == 0
        # The fake answers by copying a context sentence: every claim it makes is supported.
        assert j["faithfulness"]["mean"] == 1.0
        assert 0.0 <= j["answer_relevancy"]["mean"] <= 1.0 and j["abstained"] >= 1  # "How old is Tom?"
    assert "answers judged at 128 tokens" in output and "faithfulness" in output and "p95 ms" in output
    assert "8 answers judged, 0 from the cache" in output
    assert "Answers judged at 128 tokens" in (tmp_path / "r.html").read_text()

    with FakeChatServer() as server:
        again, output = run(server)
        assert server.requests == []  # every judgment came from the cache
    assert again["judge"] == report["judge"]
    assert "0 answers judged, 8 from the cache" in output


def test_judge_needs_a_model(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.delenv("ZOOMRAG_LLM_MODEL", raising=False)
    r = CliRunner().invoke(main, ["eval", "--data", str(HTML), "--judge", "http://127.0.0.1:9/v1", "--embedder", "hash"])
    assert r.exit_code == 2 and "--judge needs a model name" in r.output


def test_the_prompts_in_the_docs_are_the_prompts_in_the_code():
    from zoomrag.evaluate import judge

    page = (Path(__file__).resolve().parents[1] / "docs" / "evaluation.md").read_text(encoding="utf-8")
    for name in ("ANSWER_SYSTEM", "ANSWER_USER", "FAITHFULNESS_SYSTEM", "FAITHFULNESS_USER",
                 "RELEVANCY_SYSTEM", "RELEVANCY_USER"):
        text = getattr(judge, name).replace("{{", "{").replace("}}", "}")
        assert text in page, f"docs/evaluation.md does not hold the {name} prompt as the code has it"
