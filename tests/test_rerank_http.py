"""The reranker protocol and the HTTP reranker, against a fake rerank server on 127.0.0.1."""

from __future__ import annotations

import json
import threading
from collections import deque
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Self

import pytest
from test_expand_support import Trees, build, hit

from zoomrag.errors import ConfigError, RerankError
from zoomrag.expand import assemble, get_expander
from zoomrag.rerank import HTTPReranker, Reranker, rerank_hits


class FakeRerankServer:
    """Scores each document by how many query words it contains; scripted replies go first."""

    def __init__(self, shape: str = "cohere"):
        self.shape = shape
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.replies: deque[tuple[int, Any, dict[str, str]]] = deque()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                doc = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                server.requests.append(doc)
                server.headers.append(dict(self.headers))
                if server.replies:
                    status, body, headers = server.replies.popleft()
                else:
                    status, body, headers = 200, server.answer(doc), {}
                raw = body if isinstance(body, bytes) else json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)

    def answer(self, doc: dict[str, Any]) -> Any:
        words = set(doc["query"].lower().split())
        texts = doc["texts"] if self.shape == "tei" else doc["documents"]
        scored = [(i, len(words & set(t.lower().rstrip(".").split())) / 10) for i, t in enumerate(texts)]
        scored.sort(key=lambda p: -p[1])  # servers answer best first; "index" says which text
        if self.shape == "tei":
            return [{"index": i, "score": s} for i, s in scored]
        return {"results": [{"index": i, "relevance_score": s} for i, s in scored]}

    @property
    def url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1/rerank"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()


@pytest.fixture
def server():
    with FakeRerankServer() as s:
        yield s


def no_sleep(seconds: float) -> None:
    pass


TREE = build([["red apples", "green pears", "red cherries grow", "blue plums"]])


def test_http_reranker_scores_in_text_order_and_sends_the_cohere_shape(server):
    r = HTTPReranker(server.url, "rerank-mini", api_key="sk-test", batch_size=3)
    assert isinstance(r, Reranker)
    scores = r.score("red cherries", ["red apples", "green pears", "red cherries grow", "blue plums"])
    assert scores == [0.1, 0.0, 0.2, 0.0]
    assert [len(q["documents"]) for q in server.requests] == [3, 1]  # batches of 3
    assert server.requests[0] == {"query": "red cherries", "documents": ["red apples", "green pears",
                                  "red cherries grow"], "top_n": 3, "model": "rerank-mini"}
    assert server.headers[0]["Authorization"] == "Bearer sk-test"


def test_tei_shape():
    with FakeRerankServer("tei") as s:
        r = HTTPReranker(s.url, api="tei")
        assert r.score("blue plums", ["blue plums", "red apples"]) == [0.2, 0.0]
        assert s.requests[0] == {"query": "blue plums", "texts": ["blue plums", "red apples"], "raw_scores": False}


def test_rerank_hits_reorders_and_keeps_earlier_ranks(server):
    hits = [hit(TREE, "red apples", 0.9), hit(TREE, "blue plums", 0.8), hit(TREE, "red cherries grow", 0.7)]
    out = rerank_hits(HTTPReranker(server.url, "m"), "red cherries grow", hits, Trees(TREE))
    assert [TREE.document.text[h.start:h.end] for h in out] == ["red cherries grow", "red apples", "blue plums"]
    assert [h.score for h in out] == [0.3, 0.1, 0.0]
    assert out[0].ranks["rerank"] == (0.3, 1)
    assert rerank_hits(HTTPReranker(server.url, "m"), "x", hits, Trees(TREE), depth=1) == [
        type(hits[0])(hits[0].node_id, "d", hits[0].start, hits[0].end, 0.0, {"rerank": (0.0, 1)})]


def test_reranked_hits_feed_any_policy(server):
    hits = [hit(TREE, "red apples", 0.9), hit(TREE, "red cherries grow", 0.7)]
    ranked = rerank_hits(HTTPReranker(server.url, "m"), "red cherries grow", hits, Trees(TREE))
    out = assemble(get_expander("none").expand(ranked, Trees(TREE), 100), Trees(TREE), 100, len, shape=False)
    assert [(c.text, c.score) for c in out] == [("red cherries grow", 0.3), ("red apples", 0.1)]


def test_retries_server_errors_and_rate_limits_then_succeeds(server):
    server.replies.extend([(503, {"error": "warming up"}, {}), (429, {"error": {"message": "slow down"}},
                                                                   {"Retry-After": "2"})])
    slept: list[float] = []
    r = HTTPReranker(server.url, "m", sleep=slept.append, backoff=0.5)
    assert r.score("red", ["red apples"]) == [0.1]
    assert slept == [0.5, 2.0] and r.requests == 3


def test_gives_up_after_max_retries(server):
    server.replies.extend([(500, {"error": "boom"}, {})] * 3)
    r = HTTPReranker(server.url, "m", max_retries=2, sleep=no_sleep)
    with pytest.raises(RerankError, match=r"returned 500 Internal Server Error: boom \(gave up after 3 attempts\)"):
        r.score("red", ["red apples"])


@pytest.mark.parametrize(("status", "body", "message"), [
    (401, {"error": "bad key"}, r"returned 401 Unauthorized: bad key; check the API key in ZOOMRAG_RERANK_API_KEY"),
    (404, b"not here", r"returned 404 Not Found: not here; check ZOOMRAG_RERANK_URL"),
    (200, b"<html>", r"did not return JSON: '<html>'"),
    (200, {"data": []}, r"returned JSON without a 'results' list"),
    (200, {"results": [{"index": 0}]}, r"without a numeric index and relevance_score"),
    (200, {"results": [{"index": 5, "relevance_score": 1}]}, r"returned index 5 for 1 texts"),
    (200, {"results": []}, r"returned no score for 1 of 1 texts \(first: #0\)"),
])
def test_error_paths_name_the_url_and_the_problem(server, status, body, message):
    server.replies.append((status, body, {}))
    with pytest.raises(RerankError, match=message) as e:
        HTTPReranker(server.url, "m", api_key="sk-secret", sleep=no_sleep).score("red", ["red apples"])
    assert "sk-secret" not in str(e.value)


def test_unreachable_server_is_retried_then_reported():
    r = HTTPReranker("http://127.0.0.1:9/rerank", "m", max_retries=1, sleep=no_sleep, timeout=2)
    with pytest.raises(RerankError, match=r"cannot reach http://127.0.0.1:9/rerank.*gave up after 2 attempts"):
        r.score("q", ["t"])


def test_configuration_errors(monkeypatch):
    monkeypatch.delenv("ZOOMRAG_RERANK_URL", raising=False)
    monkeypatch.delenv("ZOOMRAG_RERANK_MODEL", raising=False)
    with pytest.raises(ConfigError, match="no endpoint; set ZOOMRAG_RERANK_URL"):
        HTTPReranker()
    with pytest.raises(ConfigError, match="no model name; set ZOOMRAG_RERANK_MODEL"):
        HTTPReranker("http://x/rerank")
    with pytest.raises(ConfigError, match="api='grpc' is not allowed; choose one of: cohere, tei"):
        HTTPReranker("http://x/rerank", "m", api="grpc")
    with pytest.raises(ConfigError, match="batch_size=0 is out of range"):
        HTTPReranker("http://x/rerank", "m", batch_size=0)
    monkeypatch.setenv("ZOOMRAG_RERANK_URL", "http://y/rerank")
    monkeypatch.setenv("ZOOMRAG_RERANK_MODEL", "jina-reranker")
    r = HTTPReranker()
    assert (r.url, r.model) == ("http://y/rerank", "jina-reranker")


def test_a_reranker_returning_the_wrong_count_is_an_error():
    class Short:
        name = "short"

        def score(self, query, texts):
            return [1.0]

    hits = [hit(TREE, "red apples", 0.9), hit(TREE, "blue plums", 0.8)]
    with pytest.raises(RerankError, match="reranker 'short' returned 1 scores for 2 texts"):
        rerank_hits(Short(), "q", hits, Trees(TREE))


def test_index_query_reranks_before_expanding(server, tmp_path):
    from zoomrag import Index
    from zoomrag.model import Document

    text = "red apples. green pears. red cherries grow. blue plums."
    with Index.open(tmp_path / "ix.db", embedder="hash", strategy="window", params={"paragraphs": False}) as ix:
        ix.add(Document.from_text(text, id="fruit"))
        plain = ix.query("red", mode="bm25", budget=100, top=None)
        ranked = ix.query("red cherries grow", mode="bm25", budget=100, top=None,
                          rerank=HTTPReranker(server.url, "m"), expand="none", order="score")
    assert plain and ranked[0].text == "red cherries grow." and ranked[0].score == 0.3
    assert [c.text for c in ranked] == ["red cherries grow.", "red apples."]
