"""Server benchmark: warm query latency over HTTP for 1, 4 and 16 clients, alone and beside a
writer, and the CLI through a running server (bounded; run by hand).

    .venv/bin/python bench/serve.py                               # chroma_general, MiniLM
    nohup .venv/bin/python bench/serve.py --synthetic 1000000 &   # + 1M synthetic units

``zoomrag serve`` runs in a child process on 127.0.0.1; this process is the load: N client
threads, each with one keep-alive connection, POST ``/query`` (hybrid, ``auto``, budget 2048,
top 10) back to back for ``--seconds``; latency is the wall time of each request as the client
sees it. "+ writer" adds one more client that POSTs a new document (a passage of the corpus,
embedded by the server's model) to ``/documents`` back to back for the whole run. An error is
any answer other than 200 or a failed connection.

- real text: ../shared/data/chroma_general indexed once with the default profile and the default
  embedder (MiniLM) into bench/out/serve-chroma.db; its 472 questions in turn.
- ``--synthetic N``: the index of bench/filters.py (bench/out/filters-N.db, built there when
  missing), served with its synthetic vectors and a real MiniLM ``embed_query`` per question, so
  a query costs what the model, hybrid search and expansion cost at N units.
- the CLI: ``zoomrag query`` wall time as a shell user sees it, through the running server and
  with ``--no-server`` (which loads the model).

Results are printed as Markdown and saved to bench/out/serve.json.
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import platform
import random
import subprocess
import sys
import threading
import time
from contextlib import contextmanager
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent / "src"))
sys.path.insert(0, str(ROOT))

OUT = ROOT / "out"
DATA = ROOT.parent.parent / "shared" / "data" / "chroma_general"
CLIENTS = (1, 4, 16)


def build_real() -> tuple[Path, list[str], list[str]]:
    """The chroma_general index (built once) with its questions and passages for the writer."""
    from zoomrag.index import Index
    from zoomrag.model import Document

    docs = [json.loads(line) for line in (DATA / "corpus.jsonl").open(encoding="utf-8")]
    questions = [json.loads(line)["query"] for line in (DATA / "queries.jsonl").open(encoding="utf-8")]
    passages = [p for d in docs for p in d["text"].split("\n\n") if len(p) > 400]
    path = OUT / "serve-chroma.db"
    if not path.exists():
        OUT.mkdir(parents=True, exist_ok=True)
        t0 = time.perf_counter()
        with Index.open(path) as ix:
            ix.add([Document.from_text(d["text"], id=d["id"], source=d["id"]) for d in docs])
        print(f"built {path} in {time.perf_counter() - t0:.0f} s", flush=True)
    return path, questions, passages


def build_synthetic(units: int) -> tuple[Path, list[str], list[str]]:
    from filters import build

    path, docs = build(units)
    rng = np.random.default_rng(7)
    questions = [" ".join(docs[rng.integers(len(docs))].text.split()[:rng.integers(4, 12)]) for _ in range(200)]
    passages = [d.text[:3000] for d in docs[:500]]
    return path, questions, passages


def serve_synthetic(path: Path) -> None:
    """The child for ``--synthetic``: ``zoomrag serve`` with the synthetic embedder plus MiniLM."""
    import uvicorn
    from index_speed import Lines, SyntheticEmbedder

    from zoomrag.embed import get_embedder
    from zoomrag.parse.registry import register
    from zoomrag.serve.app import ServeConfig, create_app
    from zoomrag.serve.client import remove_discovery, write_discovery
    from zoomrag.serve.pool import IndexPool
    from zoomrag.serve.run import bind, url_of

    register(Lines)  # the writer's documents are chunked as the index was built
    config = ServeConfig(index=path)
    app = create_app(config, IndexPool(path, embedder=SyntheticEmbedder(query_model=get_embedder("minilm"))))
    sock = bind("127.0.0.1", 0)
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", access_log=False, lifespan="on"))
    write_discovery(path, url_of(sock))
    try:
        server.run(sockets=[sock])
    finally:
        remove_discovery(path)


@contextmanager
def server(path: Path, synthetic: bool):
    from zoomrag.serve.client import stop_server, wait_for_server

    Path(str(path) + ".serve.json").unlink(missing_ok=True)
    cmd = ([sys.executable, __file__, "--child", str(path)] if synthetic else
           [sys.executable, "-m", "zoomrag", "serve", "--index", str(path), "--port", "0"])
    proc = subprocess.Popen(cmd, stderr=subprocess.PIPE, text=True)
    try:
        yield wait_for_server(path, proc, 600)
    finally:
        stop_server(proc, 30)


class Client:
    """One keep-alive connection; ``post`` returns the HTTP status (0 when the connection failed)."""

    def __init__(self, url: str):
        host, port = url.removeprefix("http://").rsplit(":", 1)
        self.host, self.port = host, int(port)
        self.conn = http.client.HTTPConnection(self.host, self.port, timeout=600)

    first_error: str | None = None

    def post(self, route: str, body: dict) -> int:
        data = json.dumps(body).encode()
        try:
            self.conn.request("POST", route, data, {"Content-Type": "application/json"})
            resp = self.conn.getresponse()
            answer = resp.read()
            if resp.status != 200 and Client.first_error is None:
                Client.first_error = f"{route} {resp.status}: {answer[:300].decode(errors='replace')}"
            return resp.status
        except (OSError, http.client.HTTPException):
            self.conn.close()
            self.conn = http.client.HTTPConnection(self.host, self.port, timeout=600)
            return 0


def load(url: str, questions: list[str], clients: int, seconds: float,
         passages: list[str] | None) -> dict:
    """``clients`` threads querying for ``seconds`` (and a writer when ``passages``)."""
    stop = time.monotonic() + seconds
    latencies: list[list[float]] = [[] for _ in range(clients)]
    errors = [0] * (clients + 1)
    writes = [0]

    def reader(i: int) -> None:
        c, n = Client(url), i * 37
        while time.monotonic() < stop:
            q = questions[n % len(questions)]
            n += 1
            t0 = time.perf_counter()
            status = c.post("/query", {"text": q, "budget": 2048, "top": 10, "mode": "hybrid", "expand": "auto"})
            latencies[i].append(time.perf_counter() - t0)
            if status != 200:
                errors[i] += 1

    def writer() -> None:
        c, rnd, n = Client(url), random.Random(5), 0
        while time.monotonic() < stop:
            text = rnd.choice(passages)
            name = f"bench-write-{os.getpid()}-{n}"
            status = c.post("/documents", {"documents": [{"id": name, "source": name, "text": f"Note {n}.\n\n{text}"}]})
            n += 1
            writes[0] += status == 200
            if status != 200:
                errors[clients] += 1

    threads = [threading.Thread(target=reader, args=(i,)) for i in range(clients)]
    if passages is not None:
        threads.append(threading.Thread(target=writer))
    t0 = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - t0
    ms = np.array([x for row in latencies for x in row]) * 1000
    return {"clients": clients, "writer": passages is not None, "seconds": round(wall, 1),
            "queries": int(ms.size), "qps": round(ms.size / wall, 1),
            "p50_ms": round(float(np.percentile(ms, 50)), 1), "p95_ms": round(float(np.percentile(ms, 95)), 1),
            "errors": sum(errors), "writes": writes[0]}


def cli_times(path: Path, question: str, runs: int) -> dict:
    """Wall seconds of ``zoomrag query`` through the running server and with ``--no-server``."""
    out = {}
    for label, extra in (("server", []), ("no-server", ["--no-server"])):
        walls = []
        for _ in range(runs if label == "server" else 2):
            t0 = time.perf_counter()
            subprocess.run([str(Path(sys.executable).parent / "zoomrag"), "query", question, "--index", str(path),
                            "--budget", "2048", "--json", *extra], check=True, capture_output=True)
            walls.append(time.perf_counter() - t0)
        out[label] = {"median_s": round(float(np.median(walls)), 2), "max_s": round(max(walls), 2)}
    return out


def run(label: str, path: Path, questions: list[str], passages: list[str], args: argparse.Namespace,
        synthetic: bool) -> dict:
    rows = []
    print(f"\n### {label}\n\n| clients | writer | queries | queries/s | p50 ms | p95 ms | errors | documents written |")
    print("|---|---|---|---|---|---|---|---|")
    with server(path, synthetic) as url:
        load(url, questions, 1, 3, None)  # warm the page cache and every reader handle
        plan = [(c, False, args.seconds) for c in CLIENTS] + [(1, True, args.seconds), (16, True, args.long)]
        for clients, writing, secs in plan:
            r = load(url, questions, clients, secs, passages if writing else None)
            r["load"] = round(os.getloadavg()[0], 1)
            rows.append(r)
            print(f"| {clients} | {'yes, ' + format(r['seconds'], 'g') + ' s' if writing else '-'} | "
                  f"{r['queries']:,} | {r['qps']} | {r['p50_ms']} | {r['p95_ms']} | {r['errors']} | "
                  f"{r['writes'] if writing else '-'} |", flush=True)
        cli = None if synthetic else cli_times(path, questions[0], args.cli_runs)
    if Client.first_error:
        print(f"\nfirst error: {Client.first_error}", flush=True)
    if cli:
        print(f"\n`zoomrag query` wall time: through the server median {cli['server']['median_s']} s "
              f"(max {cli['server']['max_s']} s over {args.cli_runs}); with --no-server "
              f"{cli['no-server']['median_s']} s", flush=True)
    return {"label": label, "rows": rows, "cli": cli}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--synthetic", type=int, default=0, metavar="N", help="also N synthetic units (bench/filters.py)")
    ap.add_argument("--no-real", action="store_true", help="skip chroma_general")
    ap.add_argument("--seconds", type=float, default=20.0, help="length of each run")
    ap.add_argument("--long", type=float, default=60.0, help="length of the 16 clients + writer run")
    ap.add_argument("--cli-runs", type=int, default=10)
    ap.add_argument("--child", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        serve_synthetic(args.child)
        return
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=ROOT).stdout.strip()
    print(f"{os.cpu_count()} cores, {platform.processor() or platform.machine()}, commit {commit}", flush=True)
    results = []
    if not args.no_real:
        path, questions, passages = build_real()
        results.append(run("chroma_general, MiniLM", path, questions, passages, args, synthetic=False))
    if args.synthetic:
        path, questions, passages = build_synthetic(args.synthetic)
        results.append(run(f"{args.synthetic:,} synthetic units, MiniLM query", path, questions, passages,
                           args, synthetic=True))
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "serve.json").write_text(json.dumps({"commit": commit, "results": results}, indent=2))


if __name__ == "__main__":
    main()
