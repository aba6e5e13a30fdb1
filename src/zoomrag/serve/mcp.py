"""``zoomrag mcp``: the index as Model Context Protocol tools, over stdio (the official SDK).

Tools:

- ``search(query, budget, top, mode, where, doc, bm25_weight)``: contexts as the HTTP API returns them (source,
  exact span, section path, score, hits), through :func:`zoomrag.serve.query.run_query`;
- ``read(document, start, end)``: the exact text of a span, to read around a context;
- ``documents()``: what the index holds.

The SDK runs tools on worker threads of its choosing, and a store is one per thread, so every
call goes to one thread that owns the Index. A zoomrag error comes back as a tool error with
the CLI's one-line message (the agent reads it); anything else is the SDK's crash report.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any, Literal

from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError

from ..defaults import is_server
from ..errors import ConfigError, ZoomragError
from ..index import Index
from .query import DEFAULT_EXPAND, QueryRequest, query_payload, run_query

INSTRUCTIONS = (
    "Search a zoomrag index: `search` returns the passages that best answer a question, within a "
    "token budget, each with its source document and exact character span; `read` returns any "
    "span of a document, to see more around a passage."
)


class _Owner:
    """The Index and the one thread allowed to touch it."""

    def __init__(self, location: Path | str):
        self._thread = ThreadPoolExecutor(1, thread_name_prefix="zoomrag-mcp")
        self._index: Index = self._thread.submit(Index.open, location, create=False).result()

    async def call(self, job: Any) -> Any:
        loop = asyncio.get_running_loop()
        try:
            return await loop.run_in_executor(self._thread, job, self._index)
        except ZoomragError as e:
            raise ToolError(f"error: {e}") from None

    def close(self) -> None:
        self._thread.submit(self._index.close).result()
        self._thread.shutdown()


def build_server(location: Path | str) -> tuple[MCPServer, _Owner]:
    """The MCP server over an index file or a server store's URL (``postgresql://``, ``milvus://``)."""
    owner = _Owner(location if is_server(location) else Path(location))
    server = MCPServer("zoomrag", instructions=INSTRUCTIONS)

    @server.tool()
    async def search(query: str, budget: int = 1024, top: int = 10,
                     mode: Literal["dense", "bm25", "hybrid"] = "hybrid",
                     where: dict[str, Any] | None = None, doc: str | None = None,
                     bm25_weight: float | None = None) -> dict[str, Any]:
        """Find the passages that best answer `query`, at most `budget` tokens in all.

        Each context has `source` (the document), `link` (where to open it, at the section of
        its best match when the page names one), `start`/`end` (its exact character span),
        `section_path`, `score`, `hits` (the matched units inside it), `copies` (ids of other
        documents holding the same text, left out for it) and, in a PDF or a slide deck, `pages`
        (its first and last page or slide, to cite). `where` filters on
        document metadata, e.g. {"year": {"$gte": 2020}}; `doc` searches one document only.
        A name alone (`parse_args`, `Cache.write`) finds where it is defined first, the whole
        definition when it fits; text pasted from a document (an error message, a log line)
        finds where it is written word for word; in hybrid mode `bm25_weight` (0 to 1, default
        0.3) gives exact words more say, e.g. 0.6 for a query made of names or error codes.
        """
        if budget < 1 or top < 1:
            raise ToolError("error: budget and top must be at least 1")
        req = QueryRequest(text=query, budget=budget, top=top, mode=mode, expand=DEFAULT_EXPAND,
                           where=where, doc=doc, bm25_weight=bm25_weight)
        return query_payload(req, await owner.call(lambda ix: run_query(ix, req)))

    @server.tool()
    async def read(document: str, start: int = 0, end: int | None = None) -> dict[str, Any]:
        """The exact text of `document` from character `start` to `end` (the end of the text when left out).

        `document` is a source or id as `search` returns them.
        """
        def job(ix: Index) -> dict[str, Any]:
            doc = ix.tree(document).document
            stop = len(doc.text) if end is None else end
            if not 0 <= start <= stop <= len(doc.text):
                raise ConfigError(f"span [{start}, {stop}) is not inside {doc.source!r}, which has "
                                  f"{len(doc.text)} characters")
            return {"source": doc.source, "doc_id": doc.id, "start": start, "end": stop,
                    "length": len(doc.text), "text": doc.text[start:stop]}

        return await owner.call(job)

    @server.tool()
    async def documents() -> dict[str, Any]:
        """Every document in the index: id, source and length in characters."""
        rows = await owner.call(lambda ix: ix.documents())
        return {"documents": [{"id": d.id, "source": d.source, "length": d.length} for d in rows]}

    return server, owner


def run_stdio(location: Path | str) -> None:
    server, owner = build_server(location)
    try:
        server.run("stdio")
    finally:
        owner.close()
