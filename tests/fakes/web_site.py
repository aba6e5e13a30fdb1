"""A web site on 127.0.0.1, in a thread, for the crawler's tests.

Pages are set by path: a body with its type, or a status with headers (a redirect, a gone page,
a server asking to wait). Every request is recorded with the time it came.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Page:
    body: bytes = b""
    content_type: str = "text/html; charset=utf-8"
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    #: Answers left before the page answers as set: each earlier one is ``first`` (a 503 that
    #: asks to wait, then the page).
    first: Page | None = None
    times: int = 0
    #: Seconds to wait before answering (a slow server).
    delay: float = 0.0


class FakeSite:
    def __init__(self) -> None:
        self.pages: dict[str, Page] = {}
        self.requests: list[tuple[str, float]] = []
        #: The headers of each request, with its path and the host it was sent to.
        self.headers: list[tuple[str, str, dict[str, str]]] = []
        site = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802 (the standard library's name)
                site.requests.append((self.path, time.monotonic()))
                site.headers.append((self.headers.get("Host", ""), self.path, dict(self.headers)))
                page = site.pages.get(self.path)
                if page is None:
                    page = Page(b"<html><body><h1>Not here</h1></body></html>", status=404)
                elif page.first is not None and page.times > 0:
                    page.times -= 1
                    page = page.first
                if page.delay:
                    time.sleep(page.delay)
                self.send_response(page.status)
                self.send_header("Content-Type", page.content_type)
                self.send_header("Content-Length", str(len(page.body)))
                for k, v in page.headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(page.body)

            def log_message(self, *args: object) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def html(self, path: str, body: str, **kw) -> None:
        self.pages[path] = Page(body.encode("utf-8"), **kw)

    def file(self, path: str, body: bytes, content_type: str, **kw) -> None:
        self.pages[path] = Page(body, content_type, **kw)

    def redirect(self, path: str, to: str, status: int = 301) -> None:
        self.pages[path] = Page(status=status, headers={"Location": to})

    def fetched(self) -> list[str]:
        return [p for p, _ in self.requests]

    def __enter__(self) -> FakeSite:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


def page(title: str, text: str, *links: str, head: str = "") -> str:
    """An HTML page with a title, a paragraph and a list of links."""
    anchors = "".join(f'<li><a href="{href}">{href}</a></li>' for href in links)
    return (f"<!doctype html><html><head><title>{title}</title>{head}</head><body><main><h1>{title}</h1>"
            f"<p>{text}</p><ul>{anchors}</ul></main></body></html>")
