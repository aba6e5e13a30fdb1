"""Who may call the server and how much they may send: ASGI middleware, no framework needed.

- :class:`BearerAuth`: with an API key, every API route wants ``Authorization: Bearer KEY``
  (compared in constant time); the inspector's page and assets stay public, they hold no data.
- :class:`BodyLimit`: a request body over the limit is refused with 413, whether it announces
  its length or streams.
- :func:`check_bind`: a server reachable from other machines must have a key.
"""

from __future__ import annotations

import hmac
import ipaddress
import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from ..errors import ConfigError
from .errors import TooLarge, error_body

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

#: Paths served without a key: the inspector page and its assets.
PUBLIC_PATHS = ("/", "/favicon.ico")
PUBLIC_PREFIXES = ("/static/",)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def check_bind(host: str, api_key: str | None) -> None:
    if not is_loopback(host) and not api_key:
        raise ConfigError(f"--host {host} is reachable from other machines; give --api-key KEY "
                          "(or set $ZOOMRAG_API_KEY), or bind to 127.0.0.1")


async def _send_error(send: Send, status: int, message: str, kind: str,
                      headers: list[tuple[bytes, bytes]] | None = None) -> None:
    body = json.dumps(error_body(message, kind, status)).encode()
    await send({"type": "http.response.start", "status": status,
                "headers": [(b"content-type", b"application/json"),
                            (b"content-length", str(len(body)).encode()), *(headers or [])]})
    await send({"type": "http.response.body", "body": body})


class BearerAuth:
    def __init__(self, app: ASGIApp, api_key: str):
        self.app = app
        self._expected = f"Bearer {api_key}".encode()

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") == "OPTIONS" or _public(scope["path"]):
            await self.app(scope, receive, send)
            return
        given = dict(scope.get("headers", [])).get(b"authorization", b"")
        if not hmac.compare_digest(given, self._expected):
            await _send_error(send, 401, "missing or wrong API key; send the header "
                              "'Authorization: Bearer KEY' with the server's --api-key",
                              "Unauthorized", [(b"www-authenticate", b"Bearer")])
            return
        await self.app(scope, receive, send)


def _public(path: str) -> bool:
    return path in PUBLIC_PATHS or path.startswith(PUBLIC_PREFIXES)


class BodyLimit:
    def __init__(self, app: ASGIApp, max_bytes: int):
        self.app = app
        self.max_bytes = max_bytes

    def _message(self) -> str:
        return (f"the request body is larger than the server's limit of {self.max_bytes:,} bytes; "
                "send less at once or restart the server with a larger --max-body-mb")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        length = dict(scope.get("headers", [])).get(b"content-length")
        if length is not None and length.isdigit() and int(length) > self.max_bytes:
            await _send_error(send, 413, self._message(), "TooLarge")
            return
        seen = 0
        started = False

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > self.max_bytes:
                    raise TooLarge(self._message())
            return message

        async def tracked(message: Message) -> None:
            nonlocal started
            if message["type"] == "http.response.start":
                started = True
            await send(message)

        try:
            await self.app(scope, counted, tracked)
        except TooLarge:  # the app's own handler answers 413 when the error passes through it
            if not started:
                await _send_error(send, 413, self._message(), "TooLarge")
