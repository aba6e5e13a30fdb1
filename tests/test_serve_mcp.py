"""zoomrag mcp through the MCP SDK's own stdio client: the server runs as a child process."""

from __future__ import annotations

import asyncio
import json
import sys

import pytest
from serve_support import build_index

mcp = pytest.importorskip("mcp", reason="needs the 'mcp' extra")
from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from zoomrag.index import Index  # noqa: E402
from zoomrag.serve.query import QueryRequest, query_payload, run_query  # noqa: E402

pytestmark = pytest.mark.xdist_group("serve")


def call(index, *calls: tuple[str, dict]) -> tuple[list[str], list]:
    """Start ``zoomrag mcp --index INDEX``, list its tools, make the calls, stop it."""
    params = StdioServerParameters(command=sys.executable, args=["-m", "zoomrag", "mcp", "--index", str(index)])

    async def run():
        async with Client(params, read_timeout_seconds=60) as client:
            tools = await client.list_tools()
            results = [await client.call_tool(name, args) for name, args in calls]
            return sorted(t.name for t in tools.tools), results

    return asyncio.run(asyncio.wait_for(run(), 120))


def payload(result) -> dict:
    if result.structured_content is not None:
        return result.structured_content
    return json.loads(result.content[0].text)


def test_search_and_read_through_the_sdk_client(tmp_path):
    index = build_index(tmp_path)
    names, (found, read, bad, listed, weighted, refused) = call(
        index,
        ("search", {"query": "Backups copy", "budget": 200, "top": 2, "mode": "bm25"}),
        ("read", {"document": str(tmp_path / "docs" / "guide.md"), "start": 0, "end": 9}),
        ("read", {"document": "nothing.md"}),
        ("documents", {}),
        ("search", {"query": "Backups copy", "budget": 200, "top": 3, "bm25_weight": 1.0}),
        ("search", {"query": "Backups copy", "mode": "dense", "bm25_weight": 0.5}),
    )
    assert names == ["documents", "read", "search"]
    assert not found.is_error
    with Index.open(index, create=False) as ix:
        req = QueryRequest(text="Backups copy", budget=200, top=2, mode="bm25")
        expected = query_payload(req, run_query(ix, req))
    assert payload(found) == expected
    c = payload(found)["contexts"][0]
    assert c["source"].endswith("guide.md") and c["hits"] and c["section_path"] == ["Storage"]
    assert payload(read)["text"] == "# Install"
    assert bad.is_error and "no document 'nothing.md'" in bad.content[0].text
    assert len(payload(listed)["documents"]) == 3
    # BM25 alone in hybrid mode: the order BM25 gives, with hybrid's scores
    with Index.open(index, create=False) as ix:
        req = QueryRequest(text="Backups copy", budget=200, top=3, bm25_weight=1.0)
        assert payload(weighted) == query_payload(req, run_query(ix, req))
    assert refused.is_error and "hybrid" in refused.content[0].text
