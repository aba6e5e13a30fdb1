"""zoomrag serve end to end: a real server process on 127.0.0.1, called over HTTP."""

from __future__ import annotations

import inspect
import json
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from serve_support import build_index, running_server

from zoomrag.index import Index
from zoomrag.store import WriterLock

pytest.importorskip("fastapi", reason="needs the 'serve' extra")
httpx = pytest.importorskip("httpx")

ROOT = Path(__file__).resolve().parents[1]
pytestmark = pytest.mark.xdist_group("serve")


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    return build_index(tmp_path_factory.mktemp("serve"))


@pytest.fixture(scope="module")
def url(index):
    with running_server(index, "--lock-timeout", "0.2", "--max-body-mb", "0.05") as u:
        yield u


@pytest.fixture(scope="module")
def http(url):
    with httpx.Client(base_url=url, timeout=30) as c:
        yield c


def cli(*args: str, **kw) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "zoomrag", *args], capture_output=True, text=True,
                          timeout=120, **kw)


def without_extras(contexts: list[dict]) -> list[dict]:
    return [{k: v for k, v in c.items() if k not in ("level", "kind", "rule")} for c in contexts]


def test_query_answers_what_the_cli_prints(http, index):
    r = http.post("/query", json={"text": "Backups copy", "budget": 300, "top": 3})
    assert r.status_code == 200
    body = r.json()
    local = cli("query", "Backups copy", "--budget", "300", "--top", "3", "--json", "--no-server",
                "--index", str(index))
    assert local.returncode == 0, local.stderr
    printed = json.loads(local.stdout)
    assert (body["query"], body["budget"]) == (printed["query"], printed["budget"])
    assert without_extras(body["contexts"]) == printed["contexts"]
    assert body["contexts"][0]["source"].endswith("guide.md")
    assert all(c["rule"] for c in body["contexts"])


def test_contexts_carry_exact_spans(http, index):
    body = http.post("/query", json={"text": "cherries dark", "mode": "bm25", "expand": "none"}).json()
    c = body["contexts"][0]
    whole = http.get("/documents/text", params={"doc": c["doc_id"]}).json()
    assert whole["text"][c["start"]:c["end"]] == c["text"]
    part = http.get("/documents/text", params={"doc": c["source"], "start": c["start"], "end": c["end"]}).json()
    assert part["text"] == c["text"] and part["length"] == len(whole["text"])


def test_a_batch_answers_each_query_in_order(http):
    qs = [{"text": "Backups copy", "mode": "bm25", "top": 1}, {"text": "yellow bananas", "mode": "bm25", "top": 1}]
    results = http.post("/query/batch", json={"queries": qs}).json()["results"]
    assert [r["query"] for r in results] == ["Backups copy", "yellow bananas"]
    assert results[1]["contexts"][0]["source"].endswith("fruit.txt")


def test_add_list_tree_and_delete_a_document(http):
    doc = {"source": "notes/kiwi.md", "text": "# Kiwi\n\nKiwis are fuzzy brown fruit.\n", "format": "markdown",
           "metadata": {"year": 2024}}
    report = http.post("/documents", json={"documents": [doc]}).json()
    assert (report["added"], report["units"] > 0, report["embedder"]) == (1, True, "")  # the index existed
    again = http.post("/documents", json={"documents": [doc]}).json()
    assert (again["added"], again["unchanged"]) == (0, 1)
    listed = {d["source"] for d in http.get("/documents").json()["documents"]}
    assert "notes/kiwi.md" in listed
    hits = http.post("/query", json={"text": "fuzzy kiwis", "mode": "bm25", "top": 1}).json()["contexts"]
    assert hits[0]["source"] == "notes/kiwi.md"
    tree = http.get("/documents/tree", params={"doc": "notes/kiwi.md", "text": "true"}).json()
    assert tree["document"]["length"] == len(doc["text"])
    assert tree["nodes"][0]["level"] == 0 and tree["nodes"][0]["text"] == doc["text"]
    assert all(doc["text"][n["start"]:n["end"]] == n["text"] for n in tree["nodes"])
    assert http.delete("/documents", params={"doc": "notes/kiwi.md"}).json() == {"deleted": "notes/kiwi.md"}
    gone = http.delete("/documents", params={"doc": "notes/kiwi.md"})
    assert gone.status_code == 404 and "no document 'notes/kiwi.md'" in gone.json()["error"]


def test_posted_text_is_read_by_its_format_as_a_file_is(http):
    page = ("<html><head><title>Plums</title></head><body><nav><a href='/'>Home</a></nav><main><h1>Plums</h1>"
            "<p>Plums are <em>purple</em> stone fruit.</p></main><script>track()</script></body></html>")
    docs = [{"source": "https://example.com/plums.html", "text": page},  # no format: the name says HTML
            {"source": "notes/setup.md", "text": "---\nyear: 2024\n---\n# Setup\n\nRun it with make demo.\n"}]
    assert http.post("/documents", json={"documents": docs}).json()["added"] == 2
    try:
        text = http.get("/documents/text", params={"doc": docs[0]["source"]}).json()["text"]
        assert "Plums are purple stone fruit." in text and "<p>" not in text and "track()" not in text
        # Markdown's front matter is metadata, not text
        assert http.get("/documents/text", params={"doc": "notes/setup.md"}).json()["text"].startswith("# Setup")
        hit = http.post("/query", json={"text": "run it with make demo", "mode": "bm25", "top": 1}).json()["contexts"][0]
        assert hit["source"] == "notes/setup.md" and hit["metadata"]["year"] == 2024
        bad = http.post("/documents", json={"documents": [{"source": "scan.pdf", "text": "x", "format": "pdf"}]})
        assert bad.status_code == 400 and "POST /documents/upload" in bad.json()["error"]
        unknown = http.post("/documents", json={"documents": [{"source": "a.txt", "text": "x", "format": "wiki"}]})
        assert unknown.status_code == 400 and unknown.json()["error"].startswith("a.txt: ")
    finally:
        for d in docs:
            http.delete("/documents", params={"doc": d["source"]})


def test_posted_pages_are_one_document_whose_contexts_say_their_pages(http):
    pages = [f"Handbook\nChapter {n}. The kiln on page {n} fires at {900 + n} degrees.\n{n}" for n in range(1, 5)]
    doc = {"source": "kiln-handbook.pdf", "pages": pages, "metadata": {"year": 2022}}
    assert http.post("/documents", json={"documents": [doc]}).json()["added"] == 1
    try:
        hit = http.post("/query", json={"text": "fires at 903 degrees", "mode": "bm25", "top": 1,
                                        "budget": 20}).json()["contexts"][0]
        assert (hit["doc_id"], hit["pages"], hit["metadata"]["year"]) == ("kiln-handbook.pdf", [3, 3], 2022)
        assert "Handbook" not in hit["text"]  # the running head
        both = http.post("/documents", json={"documents": [{"source": "x.pdf", "text": "x", "pages": ["x"]}]})
        assert both.status_code == 400 and "text or its pages" in both.json()["error"]
    finally:
        http.delete("/documents", params={"doc": "kiln-handbook.pdf"})


def test_a_pasted_log_line_finds_where_it_is_written(http):
    docs = [{"source": "logs/backup.log", "format": "text",
             "text": "12:00 backup started\n12:04 quota exceeded on /srv\n12:05 backup stopped\n"},
            {"source": "notes/quota.md", "format": "markdown",
             "text": "# Quotas\n\nWhen a quota on /srv is exceeded, backups stop; raise the quota.\n"}]
    assert http.post("/documents", json={"documents": docs}).json()["added"] == 2
    try:
        got = http.post("/query", json={"text": "quota exceeded on /srv", "mode": "bm25",
                                        "explain": True}).json()["contexts"]
        assert got[0]["source"] == "logs/backup.log" and "12:04 quota exceeded on /srv" in got[0]["text"]
        assert "holds the question word for word" in got[0]["rule"]
    finally:
        for d in docs:
            http.delete("/documents", params={"doc": d["source"]})


def test_a_text_in_two_documents_comes_back_once_naming_the_other(http):
    licence = ("Permission is hereby granted, free of charge, to any person obtaining a copy of this software "
               "to deal in it without restriction, provided this notice is kept in every copy of it.\n")
    docs = [{"source": f"vendor/{name}/LICENSE", "text": f"Copyright {name} authors\n\n{licence}"}
            for name in ("left", "right")]
    assert http.post("/documents", json={"documents": docs}).json()["added"] == 2
    try:
        found = http.post("/query", json={"text": "permission granted free of charge notice kept", "mode": "bm25",
                                          "budget": 300}).json()["contexts"]
        [ctx] = [c for c in found if c["doc_id"].startswith("vendor/")]
        assert sorted([ctx["doc_id"], *ctx["copies"]]) == ["vendor/left/LICENSE", "vendor/right/LICENSE"]
    finally:
        for d in docs:
            http.delete("/documents", params={"doc": d["source"]})


def test_uploaded_files_go_through_the_readers(http):
    html = b"<html><body><h1>Plums</h1><p>Plums are <em>purple</em> stone fruit.</p><script>x()</script></body></html>"
    r = http.post("/documents/upload", files=[("files", ("plums.html", html, "text/html")),
                                              ("files", ("blob.bin", b"\x00\x01\x02\xff" * 64, "application/octet-stream"))])
    assert r.status_code == 200, r.text
    report = r.json()
    assert report["added"] == 1
    assert [name for name, _ in report["skipped"]] == ["blob.bin"]
    text = http.get("/documents/text", params={"doc": "plums.html"}).json()["text"]
    assert "Plums are purple stone fruit." in text and "x()" not in text
    http.delete("/documents", params={"doc": "plums.html"})


def test_an_uploaded_workflow_and_dockerfile_are_read_by_their_names(http):
    ci = (b"jobs:\n  test:\n    steps:\n      - name: Publish the wheel to PyPI\n        run: twine upload dist/*\n"
          b"        env:\n          TWINE_PASSWORD: secret\n")
    r = http.post("/documents/upload", files=[("files", ("ci.yml", ci, "application/yaml")),
                                              ("files", ("Dockerfile", b"FROM python:3.11\nRUN pip install x\n", "text/plain"))])
    assert r.status_code == 200 and r.json()["added"] == 2, r.text
    try:
        found = http.post("/query", json={"text": "twine upload wheel PyPI", "mode": "bm25", "budget": 200}).json()
        ctx = next(c for c in found["contexts"] if c["doc_id"] == "ci.yml")
        assert ctx["section_path"] == ["jobs", "test", "steps", "Publish the wheel to PyPI"]
        # a step too short to read alone comes with the keys it is under, whole
        assert ctx["text"].startswith("test:") and ctx["text"].endswith("TWINE_PASSWORD: secret")
    finally:
        for name in ("ci.yml", "Dockerfile"):
            http.delete("/documents", params={"doc": name})


def test_an_uploaded_docbook_manual_is_read_as_the_manual_it_means(http):
    manual = (b"<?xml version='1.0'?><book><title>Frob Manual</title><chapter><title>Upgrading</title>"
              b"<para>Stop the frob daemon before you install the new package.</para></chapter></book>")
    r = http.post("/documents/upload", files=[("files", ("manual.dbk", manual, "application/docbook+xml"))])
    assert r.status_code == 200 and r.json()["added"] == 1, r.text
    try:
        found = http.post("/query", json={"text": "stop the daemon", "mode": "bm25", "budget": 200}).json()
        ctx = next(c for c in found["contexts"] if c["doc_id"] == "manual.dbk")
        assert ctx["section_path"] == ["Frob Manual", "Upgrading"] and "<para>" not in ctx["text"]
    finally:
        http.delete("/documents", params={"doc": "manual.dbk"})


@pytest.mark.parametrize(("method", "path", "body", "status", "starts"), [
    ("post", "/query", {"text": "x", "budget": 0}, 400, "budget: Input should be greater than or equal to 1"),
    ("post", "/query", {"text": "x", "expand": "zoom"}, 400, "unknown expansion 'zoom'"),
    ("post", "/query", {"text": "x", "mode": "fuzzy"}, 400, "mode: Input should be"),
    ("post", "/query", {"text": "x", "colour": "red"}, 400, "colour: Extra inputs are not permitted"),
    ("post", "/query", {"text": "x", "bm25_weight": 1.5}, 400, "bm25_weight: Input should be less than or equal to 1"),
    ("post", "/query", {"text": "x", "mode": "dense", "bm25_weight": 0.5}, 400,
     "bm25_weight applies to hybrid mode, not 'dense'"),
    ("post", "/query", {"text": "   "}, 400, "the query text is empty"),
    ("post", "/query", {"text": "x", "expand": "window", "params": {"n": -3}}, 400, ""),
    ("post", "/query", "{not json", 400, "the request body is not valid JSON"),
    ("post", "/query/batch", {"queries": []}, 400, "queries: List should have at least 1 item"),
    ("get", "/documents/tree?doc=nothing.md", None, 404, "/"),
    ("get", "/documents/text?doc=fruit.txt&start=5&end=100000", None, 400, "span [5, 100000) is not inside"),
    ("get", "/nowhere", None, 404, "no route GET /nowhere"),
])
def test_bad_requests_get_a_one_line_error_and_a_4xx(http, index, method, path, body, status, starts):
    if "fruit.txt" in path:
        path = path.replace("fruit.txt", str(index.parent / "docs" / "fruit.txt"))
    if isinstance(body, str):
        r = http.request(method, path, content=body, headers={"content-type": "application/json"})
    else:
        r = http.request(method, path, json=body)
    assert r.status_code == status, r.text
    err = r.json()
    assert set(err) == {"error", "type", "status"} and err["status"] == status
    assert "\n" not in err["error"] and "Traceback" not in err["error"]
    assert err["error"].startswith(starts)


def test_a_body_over_the_limit_is_413(http):
    big = {"documents": [{"source": "big.txt", "text": "word " * 20_000}]}
    r = http.post("/documents", json=big)
    assert r.status_code == 413
    assert "larger than the server's limit of 52,428 bytes" in r.json()["error"]
    assert "big.txt" not in {d["source"] for d in http.get("/documents").json()["documents"]}


def test_a_write_while_another_process_writes_is_423(http, index):
    with WriterLock(index, timeout=1):
        r = http.post("/documents", json={"documents": [{"source": "late.txt", "text": "Late text."}]})
    assert r.status_code == 423, r.text
    assert r.json()["type"] == "IndexLockedError"


def test_where_and_doc_reach_the_index_query_or_are_refused_plainly(http):
    r = http.post("/query", json={"text": "red", "mode": "bm25", "where": {"year": {"$gte": 2020}}})
    if "where" in inspect.signature(Index.query).parameters:
        assert r.status_code == 200, r.text
    else:
        assert r.status_code == 400 and "no 'where' filter" in r.json()["error"]


def test_stats_check_and_health(http, index):
    stats = http.get("/stats").json()
    assert stats["path"] == str(index) and stats["documents"] >= 3 and stats["embedder"].startswith("hash")
    assert stats["older_readings"] == 0 and [k for k, _ in stats["metadata_keys"]][:1] == ["title"]
    assert http.get("/check").json()["ok"] is True
    health = http.get("/health").json()
    assert health["status"] == "ok" and "auto" in health["policies"] and health["defaults"]["expand"] == "auto"


def test_readers_keep_answering_while_a_writer_writes(http, url):
    errors: list[str] = []
    stop = threading.Event()

    def writer() -> None:
        with httpx.Client(base_url=url, timeout=60) as c:
            for n in range(6):
                docs = [{"source": f"bulk/{n}-{i}.txt", "text": f"Bulk note {n} {i}: pears and quinces.\n" * 3}
                        for i in range(5)]
                r = c.post("/documents", json={"documents": docs})
                if r.status_code != 200:
                    errors.append(f"add {r.status_code} {r.text}")
        stop.set()

    def reader(_: int) -> int:
        done = 0
        with httpx.Client(base_url=url, timeout=60) as c:
            while not stop.is_set() and done < 40:
                r = c.post("/query", json={"text": "Backups copy", "mode": "bm25", "top": 1})
                if r.status_code != 200 or not r.json()["contexts"][0]["source"].endswith("guide.md"):
                    errors.append(f"query {r.status_code} {r.text[:200]}")
                done += 1
        return done

    w = threading.Thread(target=writer)
    w.start()
    with ThreadPoolExecutor(4) as pool:
        answered = sum(pool.map(reader, range(4)))
    w.join(timeout=120)
    assert errors == []
    assert answered > 0
    listed = {d["source"] for d in http.get("/documents").json()["documents"]}
    assert {f"bulk/{n}-{i}.txt" for n in range(6) for i in range(5)} <= listed


def test_the_cli_query_uses_the_running_server(http, index):
    before = http.get("/health").json()["served"].get("query", 0)
    via = cli("query", "yellow bananas", "--mode", "bm25", "--json", "--index", str(index))
    assert via.returncode == 0, via.stderr
    assert http.get("/health").json()["served"].get("query", 0) == before + 1
    local = cli("query", "yellow bananas", "--mode", "bm25", "--json", "--no-server", "--index", str(index))
    assert json.loads(via.stdout) == json.loads(local.stdout)
    shown = cli("query", "yellow bananas", "--mode", "bm25", "--explain", "--index", str(index))
    assert "fruit.txt" in shown.stdout and "rule:" in shown.stdout


@pytest.mark.parametrize("view", [[], ["--json"], ["--explain"]])
def test_the_cli_query_through_a_server_imports_neither_numpy_nor_the_index(http, index, view):
    code = ("import sys\nfrom zoomrag.cli import main\n"
            "try:\n    main(['query', 'yellow bananas', '--index', sys.argv[1], *sys.argv[2:]])\n"
            "except SystemExit as e:\n    assert not e.code, e.code\n"
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'numpy' or m.startswith(\n"
            "    ('zoomrag.index', 'zoomrag.store', 'zoomrag.expand', 'zoomrag.embed', 'zoomrag.search'))))\n")
    r = subprocess.run([sys.executable, "-c", code, str(index), *view], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "fruit.txt" in r.stdout
    assert r.stdout.splitlines()[-1] == "[]"


def test_an_explicit_server_that_is_down_is_a_clear_error(index):
    r = cli("query", "x", "--server", "http://127.0.0.1:9", "--index", str(index))
    assert r.returncode == 1
    assert r.stderr.startswith("error: no zoomrag server answered at http://127.0.0.1:9")


def test_the_openapi_schema_is_served_and_the_checked_in_copy_is_current(http):
    served = http.get("/openapi.json").json()
    checked_in = json.loads((ROOT / "docs" / "openapi.json").read_text(encoding="utf-8"))
    assert served == checked_in, "docs/openapi.json is out of date; run: python -m zoomrag.serve.openapi"
    assert {"/query", "/query/batch", "/documents", "/documents/upload", "/documents/tree",
            "/documents/text", "/stats", "/check", "/health"} <= set(served["paths"])


def test_the_listening_socket_says_it_is_tcp_so_answers_leave_at_once():
    # asyncio turns Nagle's algorithm off only on sockets whose protocol is IPPROTO_TCP; with
    # it on, an answer written as head then body waited 40 ms for the client's delayed ACK
    import socket

    from zoomrag.serve.run import bind

    sock = bind("127.0.0.1", 0)
    try:
        assert sock.proto == socket.IPPROTO_TCP
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
    finally:
        sock.close()
