"""Web addresses: which inputs are ones, the one spelling of each, and the part of a site a crawl
reads (its scope: the folder of the address given, on the same host)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeGuard
from urllib.parse import SplitResult, urljoin, urlsplit, urlunsplit

from ...errors import InputError

_URL = re.compile(r"https?://", re.IGNORECASE)
_DEFAULT_PORTS = {"http": 80, "https": 443}


def is_url(item: object) -> TypeGuard[str]:
    """Whether ``item`` is a web address (``http://`` or ``https://``) rather than a path."""
    return isinstance(item, str) and _URL.match(item) is not None


def normal(url: str) -> str:
    """``url`` as one spelling: scheme and host in lower case, no default port, no fragment, a
    bare host's path ``/``. The query stays (``?page=2`` is another page)."""
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError as e:
        raise InputError(f"{url}: not a web address ({e}); give one such as https://docs.example.com/") from None
    scheme = parts.scheme.lower()
    host = (parts.hostname or "").lower()
    if ":" in host:  # an IPv6 literal keeps its brackets
        host = f"[{host}]"
    netloc = host if port is None or port == _DEFAULT_PORTS.get(scheme) else f"{host}:{port}"
    if parts.username is not None:
        netloc = f"{parts.username}{':' + parts.password if parts.password else ''}@{netloc}"
    return urlunsplit(SplitResult(scheme, netloc, parts.path or "/", parts.query, ""))


def resolve(href: str, base: str) -> str | None:
    """The address a link ``href`` on the page at ``base`` points to, in its one spelling; None
    for what is not a web page (``mailto:``, ``javascript:``, a fragment of the same page is the
    page itself)."""
    href = href.strip()
    if not href or href.startswith("#"):
        return normal(base)
    try:
        target = urljoin(base, href)
    except ValueError:
        return None
    if not is_url(target):
        return None
    try:
        return normal(target)
    except InputError:
        return None


@dataclass(frozen=True)
class Scope:
    """The pages a crawl of ``start`` reads: those on its scheme, host and port whose path lies in
    the folder of its path (``https://x.org/docs/guide/intro.html`` → ``/docs/guide/``)."""

    origin: str
    folder: str

    @classmethod
    def of(cls, start: str) -> Scope:
        url = urlsplit(normal(start))
        return cls(f"{url.scheme}://{url.netloc}", url.path[: url.path.rfind("/") + 1])

    @property
    def url(self) -> str:
        return self.origin + self.folder

    def holds(self, url: str) -> bool:
        return url.startswith(self.url)

    def relative(self, url: str) -> str:
        """The path of ``url`` inside the scope, as the include and exclude patterns see it
        (``api/json.html``; a folder's page ``api/``)."""
        return urlsplit(url).path[len(self.folder):]


def under(url: str, addresses: Iterable[str]) -> bool:
    """Whether ``url`` lies in the folder of one of ``addresses`` (as a crawl's scope holds it)."""
    at = normal(url)
    return any(Scope.of(a).holds(at) for a in addresses)
