"""A minimal client for an OpenAI-compatible chat-completions endpoint.

The transport (retries with back-off on 429, 5xx and network errors; the server's own message
in errors) is :class:`zoomrag.httpjson.JsonClient`, shared with the HTTP embedder and reranker.

Configured from the environment: ``ZOOMRAG_LLM_BASE_URL`` (e.g. ``https://api.openai.com/v1`` or
a local server's ``http://127.0.0.1:8080/v1``), ``ZOOMRAG_LLM_MODEL`` and, when the server wants
one, ``OPENAI_API_KEY``. Used by question generation and (later) LLM-judged answer quality.
"""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import EvalError
from ..httpjson import JsonClient

ENV_BASE_URL = "ZOOMRAG_LLM_BASE_URL"
ENV_MODEL = "ZOOMRAG_LLM_MODEL"
ENV_KEY = "OPENAI_API_KEY"

_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.MULTILINE)


def reply_object(reply: str) -> dict[str, Any] | None:
    """The JSON object in a model's reply (code fences and words around it ignored), or None."""
    s = _FENCE.sub("", reply.strip())
    a, b = s.find("{"), s.rfind("}")
    try:
        obj = json.loads(s[a:b + 1]) if 0 <= a < b else None
    except json.JSONDecodeError:
        return None
    return obj if isinstance(obj, dict) else None


@dataclass(frozen=True)
class Endpoint:
    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 120.0
    #: Attempts after the first on 429, 5xx, timeouts and refused connections.
    max_retries: int = 4
    backoff: float = 1.0
    sleep: Callable[[float], None] = field(default=time.sleep, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not self.base_url.startswith(("http://", "https://")):
            raise EvalError(f"LLM base URL {self.base_url!r} must start with http:// or https:// "
                            "(e.g. https://api.openai.com/v1)")
        if not self.model:
            raise EvalError(f"no LLM model given; set {ENV_MODEL} (e.g. gpt-4o-mini)")

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Endpoint:
        """The endpoint the environment describes; a clear error when it is not configured."""
        env = os.environ if env is None else env
        base, model = env.get(ENV_BASE_URL, "").strip(), env.get(ENV_MODEL, "").strip()
        missing = [k for k, v in ((ENV_BASE_URL, base), (ENV_MODEL, model)) if not v]
        if missing:
            raise EvalError(
                f"no LLM endpoint configured: set {' and '.join(missing)} (an OpenAI-compatible "
                f"chat-completions server, e.g. {ENV_BASE_URL}=https://api.openai.com/v1 "
                f"{ENV_MODEL}=gpt-4o-mini, plus {ENV_KEY} if the server needs a key)")
        return cls(base, model, env.get(ENV_KEY) or None)

    @property
    def url(self) -> str:
        return self.base_url.rstrip("/") + "/chat/completions"

    def chat(self, messages: Sequence[Mapping[str, str]], *, temperature: float = 0.0,
             json_mode: bool = True) -> str:
        """The assistant's reply text for ``messages``."""
        body: dict[str, Any] = {"model": self.model, "messages": list(messages), "temperature": temperature}
        if json_mode:
            body["response_format"] = {"type": "json_object"}
        client = JsonClient(
            "LLM endpoint", self.url, EvalError, api_key=self.api_key, timeout=self.timeout,
            max_retries=self.max_retries, backoff=self.backoff, sleep=self.sleep,
            hints={401: f"check {ENV_KEY}", 403: f"check {ENV_KEY}", 404: f"check {ENV_BASE_URL} and {ENV_MODEL}",
                   400: f"check {ENV_MODEL} and the server"},
            retry_hint=f"check {ENV_BASE_URL} and that the server is up",
        )
        raw = client.post(body)
        try:
            data = json.loads(raw)
            content = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise EvalError(f"LLM endpoint {self.url} did not answer in the chat-completions format: "
                            f"{raw[:200]!r}") from None
        if not isinstance(content, str):
            raise EvalError(f"LLM endpoint {self.url} returned no text content")
        return content
