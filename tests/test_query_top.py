"""``top`` counts contexts as they are returned: the rows of one table, under its header row,
are one context, in ``Index.query``, ``query --json`` and the terminal view alike."""

from __future__ import annotations

import json
import re

import pytest
from test_index_support import run_cli, write

from zoomrag.index import Index

HEADER = "code,name,description"
ROW_418 = ("418,I'm a teapot,The server refuses to brew coffee because it is a teapot; "
           "the code began as an April Fools' joke.")
ROW_505 = ("505,HTTP Version Not Supported,The server does not support the HTTP version that the "
           "request used, so HTTP clients must retry.")
STATUS = "\n".join([
    HEADER,
    "200,OK,The request succeeded and the server sent the resource that the client asked for in its body.",
    "301,Moved Permanently,The resource now lives at the address in the Location header and links "
    "should be updated.",
    "404,Not Found,The server cannot find anything at the requested address and says nothing about "
    "whether it ever will.",
    ROW_418,
    "500,Internal Server Error,The server met an unexpected condition that kept it from finishing the request.",
    "503,Service Unavailable,The server is overloaded or down for maintenance and cannot handle the "
    "request for now.",
    ROW_505,
]) + "\n"
INTRO = ("# Status codes\n\nEvery HTTP response starts with a status code, and what the code means is "
         "told by its first digit.")
CODES = INTRO + ("\n\n# Methods\n\nA GET request asks for a resource and a POST request sends data to the "
                 "server for processing.\n")


def span(text: str, part: str) -> tuple[int, int]:
    start = text.index(part)
    return start, start + len(part)


#: The table's context: its header row, then the rows the question matched (BM25 ranks the 505
#: row first, the markdown's first paragraph second, the 418 row third).
TABLE = ("status.csv", (span(STATUS, HEADER), span(STATUS, ROW_418), span(STATUS, ROW_505)),
         f"{HEADER}\n{ROW_418}\n{ROW_505}")
MARKDOWN = ("codes.md", (span(CODES, INTRO),), INTRO)


@pytest.fixture
def docs(tmp_path):
    write(tmp_path / "docs" / "status.csv", STATUS)
    write(tmp_path / "docs" / "codes.md", CODES)
    return tmp_path / "docs"


def query(tmp_path, docs, text: str, top: int):
    with Index.open(tmp_path / "ix" / "index.db", embedder="hash") as ix:
        ix.add(docs)
        return ix.query(text, top=top, mode="bm25", expand="none")


@pytest.mark.parametrize(("top", "expected"), [(1, [TABLE]), (2, [TABLE, MARKDOWN]), (3, [TABLE, MARKDOWN])])
def test_a_row_ranked_below_another_document_joins_its_tables_context(tmp_path, docs, top, expected):
    contexts = query(tmp_path, docs, "What does HTTP 418 mean?", top)
    assert [(c.source.rsplit("/", 1)[-1], c.parts(), c.text) for c in contexts] == expected


def test_two_rows_of_one_table_take_one_place_of_top(tmp_path, docs):
    # the 418 row, then the 505 row, then the markdown: at top 2 both the table and the markdown
    contexts = query(tmp_path, docs, "HTTP teapot", 2)
    assert [(c.source.rsplit("/", 1)[-1], c.parts(), c.text) for c in contexts] == [TABLE, MARKDOWN]


def test_the_cli_shows_and_prints_the_same_contexts_as_index_query(tmp_path, docs, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run_cli("index", "docs", "--embedder", "hash", "--no-probe", "-q")
    args = ("query", "What does HTTP 418 mean?", "--mode", "bm25", "--expand", "none", "--top", "2")
    printed = json.loads(run_cli(*args, "--json").stdout)["contexts"]
    assert [(c["source"].rsplit("/", 1)[-1], tuple((s["start"], s["end"]) for s in c["spans"]), c["text"])
            for c in printed] == [TABLE, MARKDOWN]
    with Index.open(tmp_path / ".zoomrag" / "index.db", create=False) as ix:
        assert printed == [c.to_dict() for c in ix.query(args[1], top=2, mode="bm25", expand="none")]
    shown = run_cli(*args).stdout
    assert re.findall(r"^\d+\. \S+ .*?\)(?=  score)", shown, re.M) == [
        "1. docs/status.csv [0, 21) + [351, 465) + [684, 810)",
        "2. docs/codes.md [0, 114)",
    ]
