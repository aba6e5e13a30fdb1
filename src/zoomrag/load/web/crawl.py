"""A web site read as its pages: the folder of the address given, on its host, followed link by
link and by its sitemaps, as its ``robots.txt`` allows.

A crawl reads what a reader of the site reads: the pages (and the PDFs, office files and text
they link to) under the address's folder, not what the site's generator derives from them (an
index, a search page, a copy of a source), not what its name says is no document (a picture, an
archive, a script), not what the user's include and exclude patterns leave out, not a page that
asks not to be indexed (``<meta name="robots" content="noindex">``). The same text under two
addresses (``/docs/`` and ``/docs/index.html``) is one document, under the shorter address.

Every address not read is reported with the reason; a page that could not be fetched this time
(a timeout, a server error) is kept as it was by prune, one the site says is gone (404, 410) is
not.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Mapping
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any
from urllib import robotparser
from urllib.parse import urlsplit

from ...errors import InputError, ZoomragError
from ...model import Document
from ..base import MAX_FILE_BYTES
from ..given import read_given
from ..ignore import FileRules
from .fetch import AGENT, MAX_WAIT, TIMEOUT, Answer, Fetcher, open_client, status_text
from .pages import derived, media_type, not_a_document, page_links, page_text, read_fetched
from .sitemaps import MAX_SITEMAP_BYTES, read_sitemap
from .urls import Scope, normal, under

#: Pages a crawl reads at most unless told (``--max-pages``): a documentation site is hundreds.
MAX_PAGES = 5000
#: Requests in flight at once (to one host); one when ``robots.txt`` asks for a delay.
WORKERS = 4
#: Sitemaps read at most (an index may list thousands, each of 50,000 addresses).
MAX_SITEMAPS = 50
#: Answers that say a page is gone for good, so prune removes it.
GONE = frozenset({404, 410})

Progress = Callable[[int, "int | None"], None]


@dataclass(frozen=True)
class CrawlOptions:
    """How a crawl reads a site, besides the include and exclude patterns (docs/web.md)."""

    max_pages: int = MAX_PAGES
    #: Headers sent with every request to the start's host and to no other (a private site's
    #: token: ``{"Authorization": "Bearer …"}``); never stored.
    headers: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))
    #: The addresses a crawl may read at all (a server's ``--crawl``); empty: any.
    within: tuple[str, ...] = ()


@dataclass(frozen=True)
class CrawlResult:
    """What one crawl read, and what it did not."""

    scope: Scope
    documents: tuple[Document, ...] = ()
    #: ``(address, reason)`` of every address found and not read.
    skipped: tuple[tuple[str, str], ...] = ()
    #: Addresses that could not be fetched this time (kept by prune).
    failed: frozenset[str] = frozenset()
    #: Addresses the site answered are gone (404, 410).
    gone: frozenset[str] = frozenset()
    #: Every address in the scope found (read or not), and those whose answer was a document
    #: (also one read under another address: a redirect's, a copy's).
    found: frozenset[str] = frozenset()
    read: frozenset[str] = frozenset()
    #: Requests made (pages, files, sitemaps and robots.txt not counted).
    fetched: int = 0
    #: Why the crawl stopped before reading every page it found; "" when it read them all.
    stopped: str = ""


def crawl(start: str, *, rules: FileRules = FileRules(), max_pages: int = MAX_PAGES,
          max_bytes: int | None = MAX_FILE_BYTES, progress: Progress | None = None, workers: int = WORKERS,
          timeout: float = TIMEOUT, client: Any = None, within: tuple[str, ...] = (),
          headers: Mapping[str, str] | None = None) -> CrawlResult:
    """Read the site at ``start`` (see the module). Errors about the start address itself (it
    cannot be reached, it is not found, robots.txt disallows it) are an :class:`InputError`
    naming it; every other address not read is in the result's ``skipped``. ``within``: the
    addresses the crawl may read at all (a server's ``--crawl``), redirects included; a start
    outside them is refused. ``headers`` go with every request to the start's host only."""
    if max_pages < 1:
        raise InputError(f"max_pages={max_pages}: give at least 1")
    start = normal(start)
    bounds = tuple(Scope.of(w) for w in within)
    if within and not under(start, within):
        raise InputError(f"{start}: not under the addresses this server may read ({', '.join(within)}); "
                         "ask its operator to add it with zoomrag serve --crawl")
    if "@" in urlsplit(start).netloc:
        raise InputError(f"{urlsplit(start).hostname}: the address holds a user name or password, which every "
                         "page's id would keep; zoomrag does not log in: save the pages to a folder and index it")
    own = client is None
    if own:
        client = open_client(start, workers=workers, timeout=timeout, origins={b.origin for b in bounds},
                             headers=dict(headers or {}))
    try:
        return _Crawl(Fetcher(client, max_bytes), rules, max_pages, max_bytes,
                      progress or (lambda done, total: None), workers, bounds).run(start)
    finally:
        if own:
            client.close()


@dataclass
class _Found:
    """A crawl while it runs."""

    queued: set[str] = field(default_factory=set)
    frontier: deque[str] = field(default_factory=deque)
    documents: dict[str, Document] = field(default_factory=dict)
    skipped: dict[str, str] = field(default_factory=dict)
    failed: set[str] = field(default_factory=set)
    gone: set[str] = field(default_factory=set)
    read: set[str] = field(default_factory=set)
    #: The page that first linked each address, to name with a broken link.
    linked_from: dict[str, str] = field(default_factory=dict)


class _Crawl:
    def __init__(self, fetcher: Fetcher, rules: FileRules, max_pages: int, max_bytes: int | None,
                 progress: Progress, workers: int, bounds: tuple[Scope, ...] = ()) -> None:
        self.fetcher = fetcher
        self.bounds = bounds
        self.rules = rules
        self.max_pages = max_pages
        self.max_bytes = max_bytes
        self.progress = progress
        self.workers = workers
        self.found = _Found()

    def run(self, start: str) -> CrawlResult:
        origin = Scope.of(start).origin
        self.robots = self._robots(origin)
        self._allowed(start, start)
        first = self.fetcher.get(start)
        if first.error:
            raise InputError(f"{start}: cannot read it ({first.error}); check the address, and that this "
                             "machine reaches the site (through a proxy: set HTTPS_PROXY)")
        if first.status >= 400:
            raise InputError(f"{start}: cannot read it ({status_text(first.status)}); check the address")
        scope = Scope.of(first.final)
        if self.bounds:  # a folder above the bounds (``/docs`` read as ``/``) narrows to them
            inside = [b for b in self.bounds if b.holds(first.final)]
            if not inside:
                raise InputError(f"{start}: redirected to {first.final}, outside the addresses this server "
                                 "may read")
            scope = max([scope, *inside], key=lambda s: len(s.url))  # prefixes of one address: the narrowest
        self.scope = scope
        if scope.origin != origin:  # redirected to another host: its rules apply
            self.robots = self._robots(scope.origin)
            self._allowed(first.final, start)
        delay = self.robots.crawl_delay(AGENT)
        if delay:
            self.fetcher.delay, self.workers = min(float(delay), MAX_WAIT), 1
        f = self.found
        f.queued.update({start, first.final})
        fetched = 1
        self._take(first)
        for page in self._sitemap_pages(scope):
            self._queue(page, "")
        total = lambda: fetched + len(f.frontier)  # noqa: E731
        self.progress(fetched, total())
        pool = ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="zoomrag-crawl")
        try:
            running: set[Future[Answer]] = set()
            while f.frontier or running:
                while f.frontier and len(running) < self.workers and fetched < self.max_pages:
                    running.add(pool.submit(self.fetcher.get, f.frontier.popleft()))
                    fetched += 1
                if not running:
                    break
                done, running = wait(running, return_when=FIRST_COMPLETED)
                for future in done:
                    self._take(future.result())
                self.progress(fetched - len(running), total())
        finally:  # interrupted (Ctrl-C): requests not yet sent are dropped, nothing was written
            pool.shutdown(wait=False, cancel_futures=True)
        stopped = ""
        if f.frontier:
            stopped = (f"stopped after {self.max_pages} pages, {len(f.frontier)} more found and not read; "
                       "raise --max-pages to read them")
        docs = _distinct(f.documents)
        return CrawlResult(scope, tuple(docs), tuple(f.skipped.items()), frozenset(f.failed), frozenset(f.gone),
                           frozenset(f.queued), frozenset(f.read), fetched, stopped)

    def _allowed(self, url: str, start: str) -> None:
        if not self.robots.can_fetch(AGENT, url):
            raise InputError(f"{start}: the site's robots.txt does not allow crawlers to read it; "
                             "save its pages to a folder and index the folder instead")

    def _take(self, a: Answer) -> None:
        """Keep what one answer gave: its document, its links; or why it gave none."""
        f = self.found
        if a.error or a.status >= 400:
            why = a.error or status_text(a.status)
            if a.status in GONE:
                f.gone.add(a.url)
            else:
                f.failed.add(a.url)
            came = f.linked_from.get(a.url)
            f.skipped[a.url] = f"{a.url}: {why}" + (f" (linked from {came})" if came else "")
            return
        url = a.final
        if url != a.url:
            if not self.scope.holds(url):
                f.skipped[a.url] = f"{a.url}: redirected to {url}, outside {self.scope.url}"
                return
            if url in f.documents:
                f.read.add(a.url)
                return  # another address of a page already read
            f.queued.add(url)
        mime = media_type(a.content_type)
        try:
            if mime in ("text/html", "application/xhtml+xml"):
                text = page_text(a.body, a.content_type, url)
                links = page_links(text, url)
                if links.follow:
                    for link in (*links.links, *([links.canonical] if links.canonical else [])):
                        self._queue(link, url, links.generator)
                if not links.index:  # read, and not to be kept: prune removes what was stored of it
                    f.skipped[url] = f"{url}: the page asks not to be indexed (meta robots noindex)"
                    f.read.add(url)
                    return
                doc = read_given(text, id=url, source=url, format="html")
                if not doc.text.strip():
                    f.skipped[url] = (f"{url}: the page holds no text (one a script draws in the browser: "
                                      "zoomrag runs no scripts; save the page from a browser and index the file)")
                    f.read.add(url)
                    return
            else:
                doc = read_fetched(a.body, a.content_type, url, max_bytes=self.max_bytes)
        except ZoomragError as e:
            f.failed.add(url)
            f.skipped[url] = str(e)
            return
        f.documents[url] = doc
        f.read.update({a.url, url})

    def _queue(self, url: str, came_from: str, generator: str = "") -> None:
        f = self.found
        if url in f.queued or not self.scope.holds(url):
            return
        f.queued.add(url)
        why = self._left_out(url, generator)
        if why:
            f.skipped[url] = f"{url}: {why}"
            return
        if came_from:
            f.linked_from[url] = came_from
        f.frontier.append(url)

    def _left_out(self, url: str, generator: str) -> str | None:
        if not_a_document(url):
            return "its name says a file no reader reads (a picture, an archive, a script)"
        if (why := derived(url, generator)) is not None:
            return why
        if (why := self.rules.path_left_out(self.scope.relative(url) or "/")) is not None:
            return why
        if not self.robots.can_fetch(AGENT, url):
            return "the site's robots.txt does not allow crawlers to read it"
        return None

    def _robots(self, origin: str) -> robotparser.RobotFileParser:
        rp = robotparser.RobotFileParser(origin + "/robots.txt")
        a = self.fetcher.get(origin + "/robots.txt", limit=512 * 1024)
        if a.status in (401, 403):  # robots.txt kept from crawlers: so is the site (as urllib reads it)
            rp.parse(["User-agent: *", "Disallow: /"])
        elif a.error or a.status >= 400 or not media_type(a.content_type).startswith("text/plain"):
            rp.parse([])  # none, or a page answered for every address: all allowed
        else:
            rp.parse(a.body.decode("utf-8", "replace").splitlines())
        return rp

    def _sitemap_pages(self, scope: Scope) -> list[str]:
        """The pages the site's sitemaps list (those robots.txt names, else ``sitemap.xml`` at the
        site's root and in the scope's folder), in the scope."""
        named = [m for m in self.robots.site_maps() or [] if m.startswith(scope.origin + "/")]  # this host's
        maps = deque(named or [scope.origin + "/sitemap.xml", scope.url + "sitemap.xml"])
        seen: set[str] = set()
        pages: list[str] = []
        while maps and len(seen) < MAX_SITEMAPS:
            where = maps.popleft()
            if where in seen:
                continue
            seen.add(where)
            a = self.fetcher.get(where, limit=MAX_SITEMAP_BYTES)
            if a.error or a.status >= 400:
                continue
            found = read_sitemap(a.body)
            maps.extend(found.sitemaps)
            for page in found.pages:
                try:
                    url = normal(page)
                except InputError:
                    continue
                if scope.holds(url):
                    pages.append(url)
        return pages

def _distinct(documents: dict[str, Document]) -> list[Document]:
    """The documents in address order, one per text: the same page under two addresses
    (``/docs/`` and ``/docs/index.html``) keeps the shorter."""
    by_text: dict[str, Document] = {}
    for url in sorted(documents, key=lambda u: (len(u), u)):
        by_text.setdefault(documents[url].content_hash, documents[url])
    return sorted(by_text.values(), key=lambda d: d.id)


