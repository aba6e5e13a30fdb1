"""``http``: a rerank endpoint, ``POST {model, query, documents} -> {results: [{index, relevance_score}]}``.

That is the shape of Cohere (``/v2/rerank``), Jina (``/v1/rerank``), vLLM and LocalAI; Text
Embeddings Inference (``/rerank``) takes ``texts`` instead of ``documents`` and answers a bare
list of ``{index, score}``: ``api="tei"`` selects it. Standard library only. Settings come from
arguments or the environment:

    ZOOMRAG_RERANK_URL       the full endpoint URL, e.g. https://api.jina.ai/v1/rerank (required)
    ZOOMRAG_RERANK_MODEL     the model name (required for the Cohere shape)
    ZOOMRAG_RERANK_API_KEY   bearer token (optional)

Texts go in batches of ``batch_size``; 429, 5xx, timeouts and refused connections are retried
with exponential back-off (honouring ``Retry-After``); anything else is a :class:`RerankError`
naming the URL, the status and the server's message, never the key.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

from ..errors import ConfigError, RerankError
from ..httpjson import JsonClient

ENV_URL = "ZOOMRAG_RERANK_URL"
ENV_MODEL = "ZOOMRAG_RERANK_MODEL"
ENV_API_KEY = "ZOOMRAG_RERANK_API_KEY"
APIS = ("cohere", "tei")

_HINTS = {
    401: f"check the API key in {ENV_API_KEY}",
    403: f"check the API key in {ENV_API_KEY} and its permissions",
    404: f"check {ENV_URL} (the full URL of the rerank endpoint) and the model name",
    400: "check the model name, and api='tei' for Text Embeddings Inference",
    413: "lower batch_size",
    422: "check the model name, and api='tei' for Text Embeddings Inference",
}


class HTTPReranker:
    """Scores from a rerank endpoint (Cohere/Jina shape, or TEI with ``api="tei"``)."""

    name = "http"

    def __init__(self, url: str | None = None, model: str | None = None, api_key: str | None = None, *,
                 api: str = "cohere", batch_size: int = 100, timeout: float = 60.0, max_retries: int = 4,
                 backoff: float = 0.5, max_backoff: float = 30.0, sleep: Callable[[float], None] = time.sleep):
        url = url or os.environ.get(ENV_URL)
        model = model or os.environ.get(ENV_MODEL)
        if not url:
            raise ConfigError(f"http reranker: no endpoint; set {ENV_URL} (e.g. https://api.jina.ai/v1/rerank) "
                              "or pass url=")
        if api not in APIS:
            raise ConfigError(f"http reranker: api={api!r} is not allowed; choose one of: {', '.join(APIS)}")
        if api == "cohere" and not model:
            raise ConfigError(f"http reranker: no model name; set {ENV_MODEL} or pass model=")
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size < 1:
            raise ConfigError(f"http reranker: batch_size={batch_size!r} is out of range; use at least 1")
        if isinstance(max_retries, bool) or not isinstance(max_retries, int) or max_retries < 0:
            raise ConfigError(f"http reranker: max_retries={max_retries!r} is out of range; use at least 0")
        self.url = url
        self.model = model
        self.api = api
        self.batch_size = batch_size
        self._client = JsonClient(
            "http reranker", url, RerankError, api_key=api_key or os.environ.get(ENV_API_KEY),
            timeout=timeout, max_retries=max_retries, backoff=backoff, max_backoff=max_backoff,
            hints=_HINTS, sleep=sleep,
        )

    @property
    def requests(self) -> int:
        """HTTP requests sent, retries included."""
        return self._client.requests

    def score(self, query: str, texts: Sequence[str]) -> list[float]:
        texts = list(texts)
        out: list[float] = []
        for i in range(0, len(texts), self.batch_size):
            out.extend(self._post(query, texts[i:i + self.batch_size]))
        return out

    # -- transport ---------------------------------------------------------------------
    def _body(self, query: str, batch: list[str]) -> dict[str, Any]:
        if self.api == "tei":
            return {"query": query, "texts": batch, "raw_scores": False}
        body: dict[str, Any] = {"query": query, "documents": batch, "top_n": len(batch)}
        if self.model:
            body["model"] = self.model
        return body

    def _post(self, query: str, batch: list[str]) -> list[float]:
        return self._parse(self._client.post(self._body(query, batch)), len(batch))

    def _parse(self, raw: bytes, count: int) -> list[float]:
        try:
            doc = json.loads(raw)
        except ValueError:
            snippet = raw[:200].decode("utf-8", "replace")
            raise RerankError(f"http reranker: {self.url} did not return JSON: {snippet!r}") from None
        items = doc.get("results") if isinstance(doc, dict) else doc
        if not isinstance(items, list):
            raise RerankError(f"http reranker: {self.url} returned JSON without a 'results' list; "
                              "is it a rerank endpoint (Cohere/Jina shape, or api='tei')?")
        scores: list[float | None] = [None] * count
        try:
            for item in items:
                i = int(item["index"])
                value = item["relevance_score"] if "relevance_score" in item else item["score"]
                if not 0 <= i < count:
                    raise RerankError(f"http reranker: {self.url} returned index {i} for {count} texts")
                scores[i] = float(value)
        except (KeyError, TypeError, ValueError):
            raise RerankError(f"http reranker: {self.url} returned results without a numeric index and "
                              "relevance_score (or score)") from None
        missing = [i for i, s in enumerate(scores) if s is None]
        if missing:
            raise RerankError(f"http reranker: {self.url} returned no score for {len(missing)} of {count} texts "
                              f"(first: #{missing[0]})")
        return [float(s) for s in scores]  # type: ignore[arg-type]
