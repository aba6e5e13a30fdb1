"""Question generation against a local fake OpenAI-compatible server."""

from __future__ import annotations

import json
import re
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from zoomrag.errors import EvalError
from zoomrag.evaluate import Endpoint, generate, load_dataset
from zoomrag.evaluate.generate import parse_reply

FIXTURES = Path(__file__).parent / "fixtures" / "eval"

Reply = Callable[[dict, int], tuple[int, str]]


def first_sentence(request: dict) -> str:
    passage = re.search(r"<<<\n(.*)\n>>>", request["messages"][1]["content"], re.DOTALL).group(1)
    return re.match(r"[^.]*\.", passage).group(0)


def good(request: dict, n: int) -> tuple[int, str]:
    # Re-wrapped whitespace on purpose: the evidence must still be located exactly.
    ev = first_sentence(request).replace(" ", "  ")
    return 200, json.dumps({"question": f"Question {n}?", "evidence": ev})


def mixed(request: dict, n: int) -> tuple[int, str]:
    kind = n % 4
    if kind == 0:
        return good(request, n)
    if kind == 1:
        return 200, "Sure! Here is a question about the passage."  # not JSON
    if kind == 2:
        return 200, json.dumps({"question": f"Q{n}?", "evidence": "A sentence that is nowhere in the text."})
    return 200, "```json\n" + json.dumps({"question": f"Q{n}?"}) + "\n```"  # no evidence


@pytest.fixture
def server() -> Iterator[Callable[[Reply], tuple[Endpoint, list[dict]]]]:
    started: list[ThreadingHTTPServer] = []

    def start(reply: Reply) -> tuple[Endpoint, list[dict]]:
        seen: list[dict] = []

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self):
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                body["_path"], body["_auth"] = self.path, self.headers.get("Authorization")
                seen.append(body)
                status, content = reply(body, len(seen) - 1)
                payload = (json.dumps({"choices": [{"message": {"role": "assistant", "content": content}}]})
                           if status == 200 else content).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            def log_message(self, *args):
                pass

        srv = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        started.append(srv)
        url = f"http://127.0.0.1:{srv.server_address[1]}/v1"
        return Endpoint(url, "fake-model", "sk-test", timeout=10, sleep=lambda s: None), seen

    yield start
    for srv in started:
        srv.shutdown()
        srv.server_close()


@pytest.fixture(scope="module")
def tiny():
    return load_dataset(FIXTURES / "tiny")


def test_generate_locates_every_evidence(server, tiny):
    endpoint, seen = server(good)
    res = generate(tiny, 3, endpoint, passage_chars=40)
    assert [q.id for q in res.queries] == ["gen-0000", "gen-0001", "gen-0002"]
    for q in res.queries:
        (ev,) = q.evidence
        text = tiny.evidence_text(ev)
        assert text.endswith(".") and "  " not in text.replace("Rain  falls", "")  # exact original span
    r = res.report
    assert (r.requested, r.kept, r.calls, r.rejected) == (3, 3, 3, ())
    assert r.exact + r.whitespace == 3
    first = seen[0]
    assert first["_path"] == "/v1/chat/completions" and first["_auth"] == "Bearer sk-test"
    assert first["model"] == "fake-model" and first["response_format"] == {"type": "json_object"}
    assert res.into(tiny).queries == res.queries


def test_bad_replies_are_dropped_and_counted(server, tiny):
    endpoint, seen = server(mixed)
    res = generate(tiny, 2, endpoint, passage_chars=40, max_calls=8)
    r = res.report
    # Calls 0 and 4 are good; 1 and 5 not JSON; 2 and 6 quote text not in the corpus; 3 and 7 lack
    # evidence. Two questions are kept after five calls (0..4).
    assert (r.kept, r.calls) == (2, 5)
    assert [x.reason for x in r.rejected] == ["reply is not JSON", "evidence not found in the document",
                                              "no evidence in the reply"]
    assert "dropped 3 replies" in r.summary()


def test_duplicate_questions_are_dropped(server, tiny):
    endpoint, _ = server(
        lambda req, n: (200, json.dumps({"question": "Same?", "evidence": first_sentence(req)})))
    res = generate(tiny, 2, endpoint, passage_chars=40, max_calls=3)
    assert res.report.kept == 1 and [x.reason for x in res.report.rejected] == ["duplicate question"] * 2


def test_http_errors_stop_with_the_servers_message(server, tiny):
    endpoint, _ = server(lambda req, n: (401, '{"error": "invalid api key"}'))
    with pytest.raises(EvalError, match=r"returned 401 .*: invalid api key; check OPENAI_API_KEY"):
        generate(tiny, 1, endpoint)
    endpoint, seen = server(lambda req, n: (500, "boom"))
    with pytest.raises(EvalError, match=r"returned 500 .*: boom \(gave up after 5 attempts\); "
                                        r"check ZOOMRAG_LLM_BASE_URL"):
        generate(tiny, 1, endpoint)
    assert len(seen) == 5  # 1 + max_retries


def test_transient_errors_are_retried(server, tiny):
    def reply(req, n):
        return (503, "busy") if n < 2 else (200, json.dumps({"question": "Q?", "evidence": "E."}))

    endpoint, seen = server(reply)
    assert endpoint.chat([{"role": "user", "content": "hi"}]) == '{"question": "Q?", "evidence": "E."}'
    assert len(seen) == 3


def test_malformed_response_and_unreachable_server(server, tiny):
    endpoint, _ = server(lambda req, n: (299, '{"nothing": 1}'))
    with pytest.raises(EvalError, match="did not answer in the chat-completions format"):
        generate(tiny, 1, endpoint)
    dead = Endpoint("http://127.0.0.1:9/v1", "m", timeout=2, max_retries=1, sleep=lambda s: None)
    with pytest.raises(EvalError, match="LLM endpoint: cannot reach .*gave up after 2 attempts.*check ZOOMRAG_LLM_BASE_URL"):
        generate(tiny, 1, dead)


def test_no_endpoint_configured(tiny, monkeypatch):
    for k in ("ZOOMRAG_LLM_BASE_URL", "ZOOMRAG_LLM_MODEL", "OPENAI_API_KEY"):
        monkeypatch.delenv(k, raising=False)
    with pytest.raises(EvalError, match="no LLM endpoint configured: set ZOOMRAG_LLM_BASE_URL and "
                                        "ZOOMRAG_LLM_MODEL"):
        generate(tiny, 3)
    monkeypatch.setenv("ZOOMRAG_LLM_BASE_URL", "http://127.0.0.1:1/v1")
    with pytest.raises(EvalError, match="set ZOOMRAG_LLM_MODEL "):
        Endpoint.from_env()
    monkeypatch.setenv("ZOOMRAG_LLM_MODEL", "m")
    ep = Endpoint.from_env()
    assert ep.api_key is None and "sk-" not in repr(ep)
    with pytest.raises(EvalError, match="must be a positive number"):
        generate(tiny, 0, ep)


def test_parse_reply_variants():
    assert parse_reply('```json\n{"question": "Q?", "evidence": "E."}\n```') == ("Q?", "E.")
    assert parse_reply('Here: {"question": " Q? ", "evidence": "E."} done') == ("Q?", "E.")
    with pytest.raises(ValueError, match="no question"):
        parse_reply('{"evidence": "E."}')
    with pytest.raises(ValueError, match="not a JSON object|not JSON"):
        parse_reply("[1, 2]")
