"""Crawl benchmark: pages a second of ``zoomrag.load.web.crawl`` over a site served on 127.0.0.1
(run by hand).

    .venv/bin/python bench/crawl.py --latency 0,0.05 --workers 1,4

The site is wikitext_md's and chroma_general's text (``../shared/data``, again past its end) cut
into pages of about 8,000 characters between paragraphs, each under its own heading, rendered to
HTML by markdown-it in the theme a generator gives (a header, a nav listing every page, a
footer), each page linking to the next ten. A latency per answer stands for a real server's
distance (a site across the internet answers in 30–200 ms); 0 measures zoomrag's own cost:
parsing each page for its links and reading it into its document. Each cell is the median of ``--repeat`` crawls: pages/s and
MB of HTML/s. ``--memory`` adds one crawl under tracemalloc: the peak of Python's allocations,
and what the documents hold when it returns (they are kept until indexed).
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import subprocess
import sys
import threading
import time
import tracemalloc
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from itertools import cycle
from pathlib import Path

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent / "src"))

from markdown_it import MarkdownIt  # noqa: E402

from zoomrag.load.web import crawl  # noqa: E402

#: Characters of Markdown a page holds (a documentation page is 3–20 KB of text).
PAGE_CHARS = 8000


def site_pages(data: Path, limit: int) -> dict[str, bytes]:
    md = MarkdownIt("commonmark").enable("table")
    paragraphs = [p for name in ("wikitext_md", "chroma_general") for line in (data / name / "corpus.jsonl").open()
                  for p in json.loads(line)["text"].split("\n\n") if p.strip()]
    docs: list[dict[str, str]] = []
    page: list[str] = []
    for p in cycle(paragraphs):  # pages of about PAGE_CHARS, cut between paragraphs; the text again past its end
        page.append(p)
        if sum(map(len, page)) >= PAGE_CHARS:
            title = f"Page {len(docs)}"  # its own heading: no two pages are one text
            docs.append({"title": title, "text": f"# {title}\n\n" + "\n\n".join(page)})
            page = []
        if len(docs) == limit:
            break
    names = [f"/site/p{i}.html" for i in range(len(docs))]
    nav = "".join(f'<li><a href="{n}">{d["title"]}</a></li>' for n, d in zip(names, docs))
    pages = {}
    for i, (name, d) in enumerate(zip(names, docs)):
        links = "".join(f'<a href="{names[(i + k) % len(names)]}">next</a> ' for k in range(1, 11))
        pages[name] = (f"<!doctype html><html><head><title>{d['title']}</title></head><body>"
                       f"<header>Site</header><nav><ul>{nav}</ul></nav><main>{md.render(d['text'])}"
                       f"<p>{links}</p></main><footer>© site</footer></body></html>").encode()
    pages["/site/"] = pages[names[0]]
    return pages


def serve(pages: dict[str, bytes], latency: float) -> ThreadingHTTPServer:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802
            time.sleep(latency)
            body = pages.get(self.path)
            self.send_response(200 if body is not None else 404)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body or b"")))
            self.end_headers()
            self.wfile.write(body or b"")

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=ROOT.parent.parent / "shared" / "data")
    ap.add_argument("--pages", type=int, default=200)
    ap.add_argument("--latency", default="0,0.05", help="seconds per answer, comma-separated")
    ap.add_argument("--workers", default="1,4", help="requests at once, comma-separated")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--memory", action="store_true",
                    help="also one crawl (no latency, 4 requests at once) under tracemalloc: peak MB")
    args = ap.parse_args()
    pages = site_pages(args.data, args.pages)
    mb = sum(len(v) for k, v in pages.items() if k != "/site/") / 1e6
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=ROOT).stdout.strip()
    print(f"{len(pages) - 1} pages, {mb:.1f} MB of HTML; {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}, commit {commit}\n")
    print("| latency per answer | workers | pages/s | MB/s |\n| --- | --- | --- | --- |")
    for latency in (float(x) for x in args.latency.split(",")):
        server = serve(pages, latency)
        url = f"http://127.0.0.1:{server.server_address[1]}/site/"
        for workers in (int(x) for x in args.workers.split(",")):
            times = []
            for _ in range(args.repeat):
                t0 = time.perf_counter()
                result = crawl(url, workers=workers)
                times.append(time.perf_counter() - t0)
                assert len(result.documents) == len(pages) - 1, (len(result.documents), result.skipped[:3])
            t = statistics.median(times)
            print(f"| {latency * 1000:.0f} ms | {workers} | {len(result.documents) / t:,.1f} | {mb / t:.2f} |",
                  flush=True)
        server.shutdown()
    if args.memory:
        server = serve(pages, 0.0)
        tracemalloc.start()
        result = crawl(f"http://127.0.0.1:{server.server_address[1]}/site/", workers=4)
        held, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        server.shutdown()
        text = sum(len(d.text) for d in result.documents) / 1e6
        print(f"\nmemory: peak {peak / 1e6:.0f} MB of Python allocations while crawling, {held / 1e6:.0f} MB "
              f"held by the {len(result.documents)} documents ({text:.1f} M characters of text)")


if __name__ == "__main__":
    main()
