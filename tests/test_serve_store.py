"""zoomrag serve and zoomrag mcp over a PostgreSQL store (``--store``), end to end: a real server
process over a real PostgreSQL server, called over HTTP and through the MCP SDK's client."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys

import pytest
from serve_support import DOCS, SPLIT, running_store_server

from zoomrag.index import Index
from zoomrag.model import Document
from zoomrag.serve.query import QueryRequest, query_payload, run_query

pytest.importorskip("fastapi", reason="needs the 'serve' extra")
httpx = pytest.importorskip("httpx")
pytestmark = pytest.mark.xdist_group("postgres")

YEARS = {"guide.md": 2024, "fruit.txt": 2019, "evil.md": 2021}


@pytest.fixture
def store(pg_url: str) -> str:
    """The three documents of serve_support in a PostgreSQL database, each with a year."""
    with Index.open(pg_url, embedder="hash", strategy="hierarchical", params=SPLIT) as ix:
        ix.add([Document.from_text(text, id=name, source=name, metadata={"year": YEARS[name]})
                for name, text in DOCS.items()])
    return pg_url


def cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "zoomrag", *args], capture_output=True, text=True, timeout=120)


def test_the_http_api_adds_queries_with_a_filter_and_deletes(store):
    with running_store_server(store) as url, httpx.Client(base_url=url, timeout=60) as http:
        health = http.get("/health").json()
        assert health["status"] == "ok" and health["index"].startswith("postgresql://")
        added = http.post("/documents", json={"documents": [
            {"text": "Kiwis are green and fuzzy.\n\nKiwis grow on vines.", "id": "kiwi.txt",
             "source": "kiwi.txt", "metadata": {"year": 2025}},
            {"text": "Figs are purple and sweet.\n\nFigs grow on trees.", "id": "fig.txt",
             "source": "fig.txt", "metadata": {"year": 2018}},
        ]}).json()
        assert added["added"] == 2
        body = {"text": "kiwis figs grow on vines", "budget": 300, "top": 5, "mode": "bm25",
                "where": {"year": {"$gte": 2024}}}
        answer = http.post("/query", json=body).json()
        assert answer["contexts"] and {c["doc_id"] for c in answer["contexts"]} <= {"kiwi.txt", "guide.md"}
        assert "kiwi.txt" in {c["doc_id"] for c in answer["contexts"]}
        with Index.open(store, create=False) as ix:  # the same contexts as the library on the same store
            req = QueryRequest(text=body["text"], budget=300, top=5, mode="bm25", where=body["where"])
            assert answer == json.loads(json.dumps(query_payload(req, run_query(ix, req))))
        printed = cli("query", "kiwis figs grow on vines", "--store", store, "--server", url, "--budget", "300",
                      "--top", "5", "--mode", "bm25", "--where", "year>=2024", "--json")
        assert printed.returncode == 0, printed.stderr
        assert [c["text"] for c in json.loads(printed.stdout)["contexts"]] == [c["text"] for c in answer["contexts"]]

        assert http.delete("/documents", params={"doc": "kiwi.txt"}).json() == {"deleted": "kiwi.txt"}
        gone = http.delete("/documents", params={"doc": "kiwi.txt"})
        assert gone.status_code == 404 and "no document 'kiwi.txt'" in gone.json()["error"]
        assert "kiwi.txt" not in {d["id"] for d in http.get("/documents").json()["documents"]}
        after = http.post("/query", json=body).json()
        assert "kiwi.txt" not in {c["doc_id"] for c in after["contexts"]}
        tree = http.get("/documents/tree", params={"doc": "fig.txt"}).json()
        assert tree["document"]["id"] == "fig.txt" and tree["nodes"][0]["start"] == 0
    with Index.open(store, create=False) as ix:
        assert {d.id for d in ix.documents()} == {*DOCS, "fig.txt"}
        assert ix.check().ok


def test_serve_refuses_a_store_it_cannot_open(pg_url):
    bad = pg_url.replace("/zr_", "/missing_")
    done = cli("serve", "--store", bad, "--port", "0")
    assert done.returncode == 1
    assert done.stderr.startswith("error: postgresql://") and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1
    empty = cli("serve", "--store", pg_url, "--port", "0")  # a database without an index
    assert empty.returncode == 1 and "no index here; build one with: zoomrag index --store" in empty.stderr


def test_mcp_searches_a_postgres_store(store):
    pytest.importorskip("mcp", reason="needs the 'mcp' extra")
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    params = StdioServerParameters(command=sys.executable, args=["-m", "zoomrag", "mcp", "--store", store],
                                   env=dict(os.environ))

    async def run():
        async with Client(params, read_timeout_seconds=60) as client:
            found = await client.call_tool("search", {"query": "Backups copy", "budget": 200, "top": 2,
                                                      "mode": "bm25", "where": {"year": 2024}})
            read = await client.call_tool("read", {"document": "fruit.txt", "start": 0, "end": 6})
            return found, read

    found, read = asyncio.run(asyncio.wait_for(run(), 120))
    assert not found.is_error and not read.is_error
    contexts = found.structured_content["contexts"]
    assert contexts and {c["doc_id"] for c in contexts} == {"guide.md"}
    assert read.structured_content["text"] == "Apples"
