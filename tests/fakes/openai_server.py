"""A fake OpenAI-compatible ``/v1/embeddings`` server on 127.0.0.1, in a thread.

By default every request succeeds with deterministic vectors (``dimension`` floats per input,
derived from the text). Tests queue scripted replies with :meth:`FakeEmbeddingServer.reply`;
each queued reply answers one request, then the default resumes. Every request is recorded.
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import deque
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


def fake_vector(text: str, dimension: int) -> list[float]:
    digest = hashlib.sha256(text.encode()).digest()
    return [(digest[i % len(digest)] - 127.5) / 128.0 + 0.01 * i for i in range(dimension)]


@dataclass
class Reply:
    status: int = 200
    body: bytes | None = None  # None: the default success body for the request
    headers: dict[str, str] = field(default_factory=dict)
    dimension: int | None = None  # success with vectors of another size


@dataclass
class Request:
    path: str
    headers: dict[str, str]
    json: Any


class FakeEmbeddingServer:
    def __init__(self, dimension: int = 8):
        self.dimension = dimension
        self.requests: list[Request] = []
        self._replies: deque[Reply] = deque()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                raw = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                try:
                    doc = json.loads(raw)
                except ValueError:
                    doc = None
                server.requests.append(Request(self.path, dict(self.headers), doc))
                reply = server._replies.popleft() if server._replies else Reply()
                body = reply.body
                if body is None:
                    dim = reply.dimension or server.dimension
                    texts = doc["input"] if isinstance(doc["input"], list) else [doc["input"]]
                    data = [{"object": "embedding", "index": i, "embedding": fake_vector(t, dim)}
                            for i, t in enumerate(texts)]
                    data.reverse()  # servers may answer out of order; "index" says where each goes
                    body = json.dumps({"object": "list", "data": data, "model": doc["model"]}).encode()
                self.send_response(reply.status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                for k, v in reply.headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def reply(self, status: int = 200, body: bytes | str | dict | None = None,
              headers: dict[str, str] | None = None, dimension: int | None = None) -> None:
        if isinstance(body, dict):
            body = json.dumps(body)
        if isinstance(body, str):
            body = body.encode()
        self._replies.append(Reply(status, body, dict(headers or {}), dimension))

    def __enter__(self) -> FakeEmbeddingServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()


class FakeChatServer:
    """A fake OpenAI-compatible ``/v1/chat/completions`` server on 127.0.0.1, in a thread.

    ``respond(body)`` gives the assistant's content for each request body (or a ``(status,
    body)`` pair for an error); the default is :func:`extractive_judge`. Every body is recorded.
    """

    def __init__(self, respond: Any = None):
        self.respond = respond or extractive_judge
        self.requests: list[Any] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                doc = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))
                server.requests.append(doc)
                out = server.respond(doc)
                status, body = (out if isinstance(out, tuple) else
                                (200, json.dumps({"choices": [{"message": {"role": "assistant",
                                                                           "content": out}}]})))
                raw = body.encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            def log_message(self, *args: Any) -> None:
                pass

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.02,), daemon=True)

    @property
    def base_url(self) -> str:
        host, port = self._httpd.server_address[:2]
        return f"http://{host}:{port}/v1"

    def __enter__(self) -> FakeChatServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()


def _section(text: str, start: str, end: str) -> str:
    a = text.index(start) + len(start)
    return text[a:text.index(end, a)].strip()


def extractive_judge(body: dict) -> str:
    """A deterministic stand-in for a model, readable by the judge's prompts.

    Answer: the first context sentence sharing a word of 4+ letters with the question, else "I
    don't know". Claims: the answer's sentences, supported when they occur in the contexts.
    Relevancy: "yes" when the answer shares such a word with the question.
    """
    import re

    user = body["messages"][-1]["content"]
    words = lambda s: {w.lower() for w in re.findall(r"\w{4,}", s)}  # noqa: E731
    if user.startswith("Context passages:") and "Question:" in user:
        contexts = _section(user, "Context passages:", "\n\nQuestion:")
        question = _section(user, "Question:", "\n\nReply")
        sentences = re.findall(r"[^.!?\n]+[.!?]", re.sub(r"\[\d+\] ", "", contexts))
        hit = next((s.strip() for s in sentences if words(s) & words(question)), "I don't know")
        return json.dumps({"answer": hit})
    if user.startswith("Context passages:") and "Answer to check:" in user:
        contexts = _section(user, "Context passages:", "\n\nAnswer to check:")
        answer = _section(user, "Answer to check:", "\n\nSplit")
        if answer == "I don't know":
            return json.dumps({"claims": []})
        claims = [c.strip() for c in re.findall(r"[^.!?]+[.!?]?", answer) if c.strip()]
        flat = " ".join(contexts.split())
        return json.dumps({"claims": [{"claim": c, "supported": " ".join(c.split()) in flat} for c in claims]})
    question = _section(user, "Question:", "\n\nAnswer:")
    answer = _section(user, "Answer:", "\n\nDoes")
    return json.dumps({"verdict": "yes" if words(answer) & words(question) else "no"})
