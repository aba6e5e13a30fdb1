"""One request of a crawl: streamed within the size and time limits, a site asking to wait asked
again once, requests spaced as ``robots.txt`` asks, none outside the hosts a server may read."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from email.utils import parsedate_to_datetime
from http import HTTPStatus
from importlib import metadata
from typing import Any

from ..base import file_size_text, reader_module
from .urls import normal

#: Seconds to connect, or between two reads of a response; a page taking longer in all is left.
TIMEOUT = 20.0
PAGE_SECONDS = 120.0
#: Seconds a site may ask to wait (``Retry-After``, ``Crawl-delay``) that a crawl honours.
MAX_WAIT = 30.0
AGENT = "zoomrag"


@dataclass(frozen=True)
class Answer:
    """What one request gave: the address asked and the one answering (after redirects), the
    status, type and body, or why there is none."""

    url: str
    final: str = ""
    status: int = 0
    content_type: str = ""
    body: bytes = b""
    #: Why no page came back (a network error, too large, too slow); "" when one did.
    error: str = ""
    retry_after: float | None = None


def open_client(start: str, *, workers: int, timeout: float, origins: set[str],
                headers: dict[str, str] | None = None) -> Any:
    """An HTTP client for a crawl from ``start`` (httpx, the ``web`` extra): redirects followed,
    ``workers`` connections; given ``origins``, no request to another host; ``headers`` on the
    requests to ``start``'s host alone (a redirect elsewhere does not carry a token there)."""
    httpx = reader_module("httpx", start, "a web site", "web")
    hooks: list[Callable[[Any], None]] = [_kept_to(origins, httpx)] if origins else []
    if headers:
        hooks.append(_headers_for(_origin(start), headers))
    return httpx.Client(follow_redirects=True, timeout=timeout, headers={"User-Agent": _user_agent()},
                        limits=httpx.Limits(max_connections=workers), event_hooks={"request": hooks})


def _origin(url: Any) -> str:
    """``scheme://host[:port]`` of a URL (a string or httpx's), in its one spelling."""
    return "/".join(normal(str(url)).split("/", 3)[:3])


def _headers_for(origin: str, headers: dict[str, str]) -> Callable[[Any], None]:
    def add(request: Any) -> None:
        if _origin(request.url) == origin:
            request.headers.update(headers)
        else:  # a redirect's request starts as a copy of the one before it
            for name in headers:
                request.headers.pop(name, None)

    return add


def _kept_to(origins: set[str], httpx: Any) -> Callable[[Any], None]:
    """A request hook refusing any request, a redirect's too, to a host outside ``origins``: a
    server told which sites it may read is never made to fetch another (an address inside its
    network, behind a redirect or a sitemap a page names)."""

    def check(request: Any) -> None:
        if _origin(request.url) not in origins:
            raise httpx.RequestError(f"{request.url} is outside the addresses this server may read",
                                     request=request)

    return check


def _user_agent() -> str:
    try:
        version = metadata.version("zoomrag")
    except metadata.PackageNotFoundError:
        version = "0"
    return f"{AGENT}/{version} (retrieval index; +https://pypi.org/project/zoomrag/)"


class Fetcher:
    """Requests through ``client``: bodies over ``max_bytes`` not read whole, ``delay`` seconds
    between two requests when a site asks for it."""

    def __init__(self, client: Any, max_bytes: int | None) -> None:
        self.client = client
        self.max_bytes = max_bytes
        self.delay = 0.0
        self._last = 0.0
        self._pace = threading.Lock()

    def get(self, url: str, *, limit: int | None = -1) -> Answer:
        """One request, streamed so that a page over the size limit is not read whole; a site
        asking to wait (429, 503 with ``Retry-After``) is asked once more."""
        cap = self.max_bytes if limit == -1 else limit
        a = self._request(url, cap)
        if a.status in (429, 503) and a.retry_after is not None:
            time.sleep(a.retry_after)
            a = self._request(url, cap)
        return a

    def _request(self, url: str, cap: int | None) -> Answer:
        self._wait_turn()
        import httpx  # the client in use came from it

        deadline = time.monotonic() + PAGE_SECONDS
        try:
            with self.client.stream("GET", url) as r:
                final = normal(str(r.url))
                ctype = r.headers.get("content-type", "")
                if r.status_code >= 400:
                    return Answer(url, final, r.status_code, ctype, retry_after=_retry_after(r.headers))
                declared = r.headers.get("content-length", "")
                if cap is not None and declared.isdigit() and int(declared) > cap:
                    return Answer(url, final, error=_too_large(int(declared), cap))
                body = bytearray()
                for chunk in r.iter_bytes():
                    body += chunk
                    if cap is not None and len(body) > cap:
                        return Answer(url, final, error=_too_large(len(body), cap))
                    if time.monotonic() > deadline:
                        return Answer(url, final, error=f"took over {PAGE_SECONDS:.0f} seconds to arrive")
                return Answer(url, final, r.status_code, ctype, bytes(body))
        except httpx.TimeoutException:
            return Answer(url, error=f"no answer within {self.client.timeout.read or TIMEOUT:g} seconds")
        except httpx.TooManyRedirects:
            return Answer(url, error="too many redirects")
        except (httpx.HTTPError, httpx.InvalidURL, ValueError, UnicodeError) as e:
            return Answer(url, error=f"{type(e).__name__}: {e}" if str(e) else type(e).__name__)

    def _wait_turn(self) -> None:
        if not self.delay:
            return
        with self._pace:
            pause = self._last + self.delay - time.monotonic()
            if pause > 0:
                time.sleep(pause)
            self._last = time.monotonic()


def status_text(code: int) -> str:
    try:
        return f"{code} {HTTPStatus(code).phrase}"
    except ValueError:
        return f"HTTP {code}"


def _too_large(size: int, cap: int) -> str:
    return (f"larger than {file_size_text(cap)} ({file_size_text(size)}); raise --max-file-size to read it "
            "(0 for no limit)")


def _retry_after(headers: Any) -> float | None:
    said = headers.get("retry-after")
    if said is None:
        return None
    if said.strip().isdigit():
        wait_s = float(said.strip())
    else:
        try:
            wait_s = parsedate_to_datetime(said).timestamp() - time.time()
        except (TypeError, ValueError):
            return None
    return max(0.0, wait_s) if wait_s <= MAX_WAIT else None
