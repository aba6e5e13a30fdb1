"""POST JSON with retries: the one transport behind the HTTP embedder and reranker.

Standard library only (``urllib``). 429, 5xx, timeouts and refused connections are retried with
exponential back-off, honouring ``Retry-After``; any other failure raises the caller's error
class with the URL, the status, the server's own message and a hint — never the key.
"""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import ZoomragError


@dataclass
class JsonClient:
    """One endpoint: ``post(body) -> bytes`` of a successful answer."""

    #: Who speaks in messages, e.g. ``"http embedder"``.
    what: str
    url: str
    error: type[ZoomragError]
    api_key: str | None = None
    timeout: float = 60.0
    max_retries: int = 4
    backoff: float = 0.5
    max_backoff: float = 30.0
    #: Advice per HTTP status, appended to the error message.
    hints: Mapping[int, str] = field(default_factory=dict)
    #: Advice appended when the retries are used up (server down, rate limit that never ends).
    retry_hint: str | None = None
    sleep: Callable[[float], None] = time.sleep
    #: HTTP requests sent, retries included.
    requests: int = 0

    def post(self, body: Mapping[str, Any]) -> bytes:
        payload = json.dumps(body, ensure_ascii=False).encode("utf-8")
        attempt = 0
        while True:
            attempt += 1
            try:
                return self._send(payload)
            except _Retryable as e:
                if attempt > self.max_retries:
                    hint = f"; {self.retry_hint}" if self.retry_hint else ""
                    raise self.error(f"{e} (gave up after {attempt} attempts){hint}") from None
                delay = min(self.max_backoff, self.backoff * 2 ** (attempt - 1))
                if e.retry_after is not None:
                    delay = min(self.max_backoff, max(delay, e.retry_after))
                self.sleep(delay)

    def _send(self, payload: bytes) -> bytes:
        headers = {"Content-Type": "application/json", "User-Agent": "zoomrag"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(self.url, data=payload, headers=headers, method="POST")
        self.requests += 1
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return resp.read()
        except urllib.error.HTTPError as e:
            text = f"{self.what}: POST {self.url} returned {e.code} {e.reason}: {server_message(e.read())}"
            if e.code == 429 or e.code >= 500:
                raise _Retryable(text, _retry_after(e.headers.get("Retry-After"))) from None
            hint = self.hints.get(e.code)
            raise self.error(text + (f"; {hint}" if hint else "")) from None
        except (urllib.error.URLError, TimeoutError, ConnectionError) as e:
            raise _Retryable(f"{self.what}: cannot reach {self.url}: {getattr(e, 'reason', e)}") from None


class _Retryable(Exception):
    """A failure worth another attempt (rate limit, server error, network)."""

    def __init__(self, message: str, retry_after: float | None = None):
        super().__init__(message)
        self.retry_after = retry_after


def server_message(raw: bytes) -> str:
    """The error text a server put in its body (OpenAI, Ollama, TEI and vLLM shapes)."""
    text = raw.decode("utf-8", "replace").strip()
    try:
        doc = json.loads(text)
    except ValueError:
        return text[:300] or "(empty body)"
    if isinstance(doc, dict):
        err = doc.get("error", doc.get("message", doc.get("detail")))
        if isinstance(err, dict):
            err = err.get("message", err)
        if err is not None:
            return str(err)[:300]
    return text[:300]


def _retry_after(value: str | None) -> float | None:
    try:
        return None if value is None else max(0.0, float(value))
    except ValueError:
        return None  # an HTTP date; the exponential delay is used instead
