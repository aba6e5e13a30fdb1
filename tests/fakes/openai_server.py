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
