"""``http``: any server that speaks the OpenAI ``POST /v1/embeddings`` API.

OpenAI, Ollama, TEI, vLLM, LiteLLM and llama.cpp all do. Uses only the standard library
(``urllib``). Settings come from arguments or the environment:

    ZOOMRAG_EMBED_BASE_URL   e.g. http://localhost:11434/v1 (required; ``/embeddings`` is appended)
    ZOOMRAG_EMBED_MODEL      the model name the server knows (required)
    ZOOMRAG_EMBED_API_KEY    bearer token; falls back to OPENAI_API_KEY; optional

Requests are batched; 429, 5xx, timeouts and refused connections are retried with exponential
back-off (honouring ``Retry-After``); any other failure is an :class:`EmbedError` that names the
URL, the HTTP status and the server's own message, and never the key.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..errors import ConfigError, EmbedError
from ..httpjson import JsonClient
from ..text.tokens import ApproxCounter
from .base import checked_vectors

ENV_BASE_URL = "ZOOMRAG_EMBED_BASE_URL"
ENV_MODEL = "ZOOMRAG_EMBED_MODEL"
ENV_API_KEY = "ZOOMRAG_EMBED_API_KEY"

_HINTS = {
    401: f"check the API key in {ENV_API_KEY} or OPENAI_API_KEY",
    403: f"check the API key in {ENV_API_KEY} or OPENAI_API_KEY and its permissions",
    404: f"check {ENV_BASE_URL} (it usually ends in /v1) and the model name",
    400: "check the model name and that every text fits the model's window",
    413: "lower batch_size or the size of the embedded units",
    422: "check the model name and that every text fits the model's window",
}


class HTTPEmbedder:
    """Embeddings from an OpenAI-compatible HTTP endpoint."""

    name = "http"
    multilingual = True  # the remote model decides; zoomrag cannot tell

    def __init__(
        self,
        base_url: str | None = None,
        model: str | None = None,
        api_key: str | None = None,
        *,
        dimension: int | None = None,
        dimensions: int | None = None,
        max_tokens: int = 512,
        batch_size: int = 64,
        timeout: float = 60.0,
        max_retries: int = 4,
        backoff: float = 0.5,
        max_backoff: float = 30.0,
        sleep: Callable[[float], None] = time.sleep,
    ):
        base_url = base_url or os.environ.get(ENV_BASE_URL)
        model = model or os.environ.get(ENV_MODEL)
        if not base_url:
            raise ConfigError(
                f"http embedder: no server URL; set {ENV_BASE_URL} (e.g. http://localhost:11434/v1) "
                "or pass base_url="
            )
        if not model:
            raise ConfigError(f"http embedder: no model name; set {ENV_MODEL} or pass model=")
        if batch_size < 1:
            raise ConfigError(f"http embedder: batch_size={batch_size} is out of range; use at least 1")
        if max_retries < 0:
            raise ConfigError(f"http embedder: max_retries={max_retries} is out of range; use at least 0")
        self.url = base_url.rstrip("/") + "/embeddings"
        self.model = model
        #: Sent as the API's ``dimensions`` field (models that can shorten their vectors).
        self.dimensions = dimensions
        self._dimension = dimension if dimension is not None else dimensions
        self.max_tokens = int(max_tokens)
        self.batch_size = int(batch_size)
        self._client = JsonClient(
            "http embedder", self.url, EmbedError,
            api_key=api_key or os.environ.get(ENV_API_KEY) or os.environ.get("OPENAI_API_KEY"),
            timeout=timeout, max_retries=int(max_retries), backoff=backoff, max_backoff=max_backoff,
            hints=_HINTS, sleep=sleep,
        )
        self._counter = ApproxCounter()
        self.version = model if dimensions is None else f"{model}/d{dimensions}"

    @property
    def requests(self) -> int:
        """HTTP requests sent, retries included (for tests and progress reports)."""
        return self._client.requests

    @property
    def dimension(self) -> int:
        if self._dimension is None:
            # Unknown until the server answers once; the index needs it before the first write.
            self._dimension = len(self._post(["dimension probe"])[0])
        return self._dimension

    # -- the protocol ------------------------------------------------------------------
    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        rows: list[list[float]] = []
        for i in range(0, len(texts), self.batch_size):
            rows.extend(self._post(texts[i:i + self.batch_size]))
        dim = self.dimension if rows or self._dimension is not None else 0
        if not rows:
            return np.zeros((0, dim), dtype=np.float32)
        for k, row in enumerate(rows):
            if len(row) != dim:
                raise EmbedError(
                    f"http embedder: {self.url} returned a vector of dimension {len(row)} for text "
                    f"#{k}, expected {dim}; check {ENV_MODEL} (the index was built with {self.model!r})"
                )
        return checked_vectors(self.name, np.asarray(rows, dtype=np.float32), len(texts), dim)

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]

    def count_tokens(self, text: str) -> int:
        """An estimate (the server's tokenizer is unknown): word pieces plus two specials."""
        return len(self._counter.token_starts(text)) + 2

    # -- transport ---------------------------------------------------------------------
    def _post(self, batch: list[str]) -> list[list[float]]:
        body: dict[str, Any] = {"model": self.model, "input": batch, "encoding_format": "float"}
        if self.dimensions is not None:
            body["dimensions"] = self.dimensions
        return self._parse(self._client.post(body), len(batch))

    def _parse(self, raw: bytes, count: int) -> list[list[float]]:
        try:
            doc = json.loads(raw)
        except ValueError:
            snippet = raw[:200].decode("utf-8", "replace")
            raise EmbedError(
                f"http embedder: {self.url} did not return JSON: {snippet!r}; is {ENV_BASE_URL} "
                "an OpenAI-compatible /v1 endpoint?"
            ) from None
        data = doc.get("data") if isinstance(doc, dict) else None
        if not isinstance(data, list):
            raise EmbedError(
                f"http embedder: {self.url} returned JSON without a 'data' list; is {ENV_BASE_URL} "
                "an OpenAI-compatible /v1 endpoint?"
            )
        if len(data) != count:
            raise EmbedError(f"http embedder: {self.url} returned {len(data)} vectors for {count} texts")
        try:
            items = sorted(data, key=lambda d: d.get("index", 0))
            rows = [[float(x) for x in d["embedding"]] for d in items]
        except (AttributeError, KeyError, TypeError, ValueError):
            raise EmbedError(
                f"http embedder: {self.url} returned items without a numeric 'embedding' list"
            ) from None
        if self._dimension is None and rows:
            self._dimension = len(rows[0])
        return rows
