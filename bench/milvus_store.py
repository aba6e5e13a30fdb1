"""The Milvus store against the SQLite file on the same corpora (docs/benchmarks.md, "Milvus").

Starts Milvus standalone from the ``milvus`` package in a temporary folder (or uses a running
server: ``--address HOST:PORT``) and, for each corpus of ``../shared/data`` (default profile,
the ``hash`` embedder unless ``--embedder`` says otherwise, so that the store's cost is not
hidden behind a model's):

- **build**: wall-clock seconds of ``Index.add`` into a new SQLite file, and into a new
  collection with its index file (the same file work plus one upsert and one delete per
  document);
- **dense query**: p50 / p95 milliseconds of ``Index.query`` (budget 1024, expansion ``auto``,
  mode ``dense``) over the corpus's questions, after one warm-up pass;
- **agreement**: recall@10 of Milvus' HNSW top 10 against the file's exact top 10, and the share
  of questions whose contexts are identical.

    python bench/milvus_store.py
    python bench/milvus_store.py --corpora wikitext_md --embedder minilm
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from zoomrag.index import Index
from zoomrag.model import Document

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
COMPONENTS = ("rootCoord", "proxy", "queryCoord", "queryNode", "indexNode", "dataCoord", "dataNode")


def load(corpus: str) -> tuple[list[Document], list[str]]:
    docs = [Document(id=r["id"], source=f"{corpus}/{r['id']}", text=r["text"], format=r.get("format", "text"))
            for r in map(json.loads, (DATA / corpus / "corpus.jsonl").open(encoding="utf-8"))]
    queries = [q for q in (json.loads(line)["query"] for line in (DATA / corpus / "queries.jsonl").open(encoding="utf-8"))
               if q.strip()]  # a few questions of cmrc2018_trial are empty
    return docs, queries


def percentiles(samples: list[float]) -> tuple[float, float]:
    cuts = statistics.quantiles(samples, n=20, method="inclusive")
    return statistics.median(samples), cuts[18]


def start_server(folder: Path) -> tuple[object, str]:
    from milvus import MilvusServer, MilvusServerConfig

    config = MilvusServerConfig(data_dir=str(folder))
    for component in COMPONENTS:
        config.extra_configs[f"{component}.ip"] = "127.0.0.1"
    srv = MilvusServer(config)
    srv.start()
    return srv, f"127.0.0.1:{srv.listen_port}"


def build(location: str, docs: list[Document], embedder: str) -> float:
    t0 = time.perf_counter()
    with Index.open(location, embedder=embedder) as ix:
        ix.add(docs)
    return time.perf_counter() - t0


def latency(location: str, queries: list[str]) -> tuple[float, float]:
    with Index.open(location, create=False) as ix:
        for q in queries:  # warm-up: caches, the model, the server's segments
            ix.query(q, budget=1024, mode="dense")
        samples = []
        for q in queries:
            t0 = time.perf_counter()
            ix.query(q, budget=1024, mode="dense")
            samples.append(1000 * (time.perf_counter() - t0))
    return percentiles(samples)


def agreement(file: str, url: str, queries: list[str]) -> tuple[float, float]:
    with Index.open(file, create=False) as a, Index.open(url, create=False) as b:
        recalls, same = [], 0
        for q in queries:
            exact = {h.node_id for h in a.search(q, mode="dense", k=10)}
            ann = {h.node_id for h in b.search(q, mode="dense", k=10)}
            recalls.append(len(exact & ann) / max(len(exact), 1))
            ctx = [[(c.doc_id, c.start, c.end) for c in ix.query(q, budget=1024, mode="dense")] for ix in (a, b)]
            same += ctx[0] == ctx[1]
    return statistics.fmean(recalls), same / len(queries)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpora", default="wikitext_md,chroma_general,cmrc2018_trial")
    ap.add_argument("--embedder", default="hash")
    ap.add_argument("--address", default=None, help="a running Milvus server (HOST:PORT) instead of a new one")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="zoomrag-bench-milvus-") as tmp:
        srv, address = (None, args.address) if args.address else start_server(Path(tmp) / "milvus")
        try:
            results = {}
            for corpus in args.corpora.split(","):
                docs, queries = load(corpus)
                file = str(Path(tmp) / f"{corpus}.db")
                name = f"bench_{corpus}_{args.embedder}".replace("-", "_")
                url = f"milvus://{address}/{name}?index={Path(tmp) / (corpus + '-milvus.db')}"
                _drop(address, name)
                row: dict[str, object] = {"units": 0}
                row["build s (sqlite, milvus)"] = (round(build(file, docs, args.embedder), 2),
                                                   round(build(url, docs, args.embedder), 2))
                with Index.open(url, create=False) as ix:
                    row["units"] = ix.stats().units
                row["dense p50/p95 ms (sqlite, milvus)"] = tuple(
                    tuple(round(v, 1) for v in latency(where, queries)) for where in (file, url))
                recall, same = agreement(file, url, queries)
                row["dense recall@10 (milvus vs exact)"] = round(recall, 4)
                row["identical contexts"] = round(same, 4)
                results[corpus] = row
                _drop(address, name)
                print(corpus, json.dumps(row), file=sys.stderr, flush=True)
            print(json.dumps(results, indent=2, ensure_ascii=False))
        finally:
            if srv is not None:
                srv.stop()  # type: ignore[attr-defined]


def _drop(address: str, name: str) -> None:
    from pymilvus import MilvusClient

    client = MilvusClient(uri=f"http://{address}")
    client.drop_collection(name)
    client.close()


if __name__ == "__main__":
    main()
