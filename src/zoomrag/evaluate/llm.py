"""A minimal client for an OpenAI-compatible chat-completions endpoint (standard library only).

Configured from the environment: ``ZOOMRAG_LLM_BASE_URL`` (e.g. ``https://api.openai.com/v1`` or
a local server's ``http://127.0.0.1:8080/v1``), ``ZOOMRAG_LLM_MODEL`` and, when the server wants
one, ``OPENAI_API_KEY``. Used by question generation and (later) LLM-judged answer quality.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import EvalError

ENV_BASE_URL = "ZOOMRAG_LLM_BASE_URL"
ENV_MODEL = "ZOOMRAG_LLM_MODEL"
ENV_KEY = "OPENAI_API_KEY"


@dataclass(frozen=True)
class Endpoint:
    base_url: str
    model: str
    api_key: str | None = field(default=None, repr=False)
    timeout: float = 120.0

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
        headers = {"Content-Type": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(self.url, data=json.dumps(body).encode("utf-8"), headers=headers,
                                     method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as e:
            detail = e.read().decode("utf-8", "replace")[:300]
            hint = f"; check {ENV_KEY}" if e.code in (401, 403) else f"; check {ENV_MODEL} and the server"
            raise EvalError(f"LLM endpoint {self.url} answered HTTP {e.code}: {detail}{hint}") from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as e:
            reason = getattr(e, "reason", e)
            raise EvalError(f"cannot reach the LLM endpoint {self.url} ({reason}); "
                            f"check {ENV_BASE_URL}") from None
        try:
            data = json.loads(raw)
            content = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise EvalError(f"LLM endpoint {self.url} did not answer in the chat-completions format: "
                            f"{raw[:200]!r}") from None
        if not isinstance(content, str):
            raise EvalError(f"LLM endpoint {self.url} returned no text content")
        return content
