"""Filtered search benchmark: latency and ANN recall with filters of 0.1 %, 10 % and 90 % (run by hand).

    nohup .venv/bin/python bench/filters.py --units 100000 &

The synthetic corpus of bench/index_speed.py (Zipf words, a line is a unit, embedding-like
384-d vectors seeded by each line's text), with ``bucket`` metadata 0..999 spread over the
documents, so ``{"bucket": {"$lt": N}}`` keeps N per mille of them. For each filter:

- p50 / p95 of ``Index.query`` (budget 2048, parent expansion), dense and hybrid, with the ANN
  graph (``ann="auto"``) and exactly (``ann="off"``);
- recall@10 of filtered dense search with the graph (``ann="auto"``) against exact search on the
  same subset;
- the two ways dense search answers a filter on a graph, timed alone at each subset size:
  scanning the int8 copies of the kept units (then rescoring the best in float32) and searching
  the graph for enough candidates (:meth:`AnnIndex.search_within`), which set
  :func:`~zoomrag.search.ann.scan_within`.

The index is built once under bench/out/filters-N.db and reused while the schema matches.
Results are printed as Markdown and saved to bench/out/filters.json.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType

import numpy as np

ROOT = Path(__file__).resolve().parent
sys.path.insert(0, str(ROOT.parent / "src"))
sys.path.insert(0, str(ROOT))

from index_speed import Clock, Lines, SyntheticEmbedder, synthetic_documents  # noqa: E402

from zoomrag.index import Index  # noqa: E402
from zoomrag.search import ann  # noqa: E402
from zoomrag.search.filters import RowRanges  # noqa: E402
from zoomrag.text.tokens import ApproxCounter  # noqa: E402

OUT = ROOT / "out"
SHARES = {"0.1 %": 1, "10 %": 100, "90 %": 900, "none": None}


def build(n: int) -> tuple[Path, list]:
    from zoomrag.store.schema import SCHEMA_VERSION

    path, marker = OUT / f"filters-{n}.db", OUT / f"filters-{n}.json"
    docs = [replace(d, metadata=MappingProxyType({"bucket": (i * 7919) % 1000}))
            for i, d in enumerate(synthetic_documents(n))]
    want = {"units": n, "schema": SCHEMA_VERSION}
    try:
        info = json.loads(marker.read_text())
    except (OSError, ValueError):
        info = {}
    if path.exists() and {k: info.get(k) for k in want} == want:
        with Index.open(path, embedder=SyntheticEmbedder(), counter=ApproxCounter()) as ix:
            ix.refresh_ann()  # a graph saved by an older zoomrag gets what this one keeps beside it
        return path, docs
    for old in OUT.glob(f"filters-{n}.db*"):
        old.unlink()
    OUT.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with Index.open(path, embedder=SyntheticEmbedder(), strategy=Lines(), counter=ApproxCounter(),
                    batch_size=2048) as ix:
        ix.add(docs)
    marker.write_text(json.dumps({**want, "build_s": time.perf_counter() - t0}))
    return path, docs


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--units", type=int, default=100_000)
    ap.add_argument("--queries", type=int, default=60)
    args = ap.parse_args()
    path, docs = build(args.units)
    emb = SyntheticEmbedder()
    rng = np.random.default_rng(7)
    texts = [" ".join(docs[rng.integers(len(docs))].text.split()[:rng.integers(4, 12)]) for _ in range(args.queries)]
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                            cwd=ROOT).stdout.strip()
    print(f"\n{args.units:,} units, {len(docs):,} documents; {os.cpu_count()} cores, {platform.processor() or platform.machine()}, "
          f"commit {commit}\n")
    print("| filter | units kept | dense query, graph | dense query, exact | hybrid query, graph | "
          "recall@10 vs exact | load |")
    print("|---|---|---|---|---|---|---|")
    rows = []
    with Index.open(path, embedder=emb, counter=ApproxCounter(), ann="auto") as ix, \
            Index.open(path, embedder=emb, counter=ApproxCounter(), ann="off") as exact:
        ix.query(texts[0], mode="hybrid", expand="parent")
        exact.query(texts[0], mode="dense", expand="parent")
        for label, per_mille in SHARES.items():
            where = None if per_mille is None else {"bucket": {"$lt": per_mille}}
            kept = sum(1 for d in docs if per_mille is None or d.metadata["bucket"] < per_mille) * (
                args.units // len(docs))
            dense, dense_exact, hybrid = Clock(), Clock(), Clock()
            recalls = []
            load = [os.getloadavg()[0]]
            for q in texts:
                with dense:
                    ix.query(q, mode="dense", expand="parent", budget=2048, where=where)
            for q in texts:
                with dense_exact:
                    exact.query(q, mode="dense", expand="parent", budget=2048, where=where)
            for q in texts:
                with hybrid:
                    ix.query(q, mode="hybrid", expand="parent", budget=2048, where=where)
            for q in texts[:40]:
                got = {h.node_id for h in ix.search(q, mode="dense", k=10, where=where)}
                truth = {h.node_id for h in exact.search(q, mode="dense", k=10, where=where)}
                recalls.append(len(got & truth) / max(1, len(truth)))
            load.append(os.getloadavg()[0])
            recall = float(np.mean(recalls))
            rows.append({"filter": label, "units": kept, "dense_graph": dense.summary(),
                         "dense_exact": dense_exact.summary(), "hybrid_graph": hybrid.summary(),
                         "recall_at_10": recall, "load": load})
            print(f"| {label} | {kept:,} | {dense.cell()} | {dense_exact.cell()} | {hybrid.cell()} | "
                  f"{recall:.3f} | {min(load):.1f}-{max(load):.1f} |", flush=True)
        switch = bench_switch(ix, emb, texts)
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "filters.json").write_text(json.dumps({"units": args.units, "commit": commit, "rows": rows,
                                                 "switch": switch}, indent=2))


def bench_switch(ix: Index, emb: SyntheticEmbedder, texts: list[str]) -> list[dict]:
    """The int8 scan of a subset against the graph's candidate search, k = 100 (a query's dense
    search asks for 2 x 50), on subsets of whole 100-unit documents."""
    # the graph the handle searches, fresh or saved before the last small writes (bench only:
    # not part of the API)
    graph = ix._dense._graph_at(ix.store.generation())[0]
    if graph is None or graph.codes is None:
        print("\n(no ANN graph at this size: the switch point is not measured)")
        return []
    print("\n| subset units | int8 scan + rescoring | graph, candidates filtered | load |")
    print("|---|---|---|---|")
    out = []
    n = len(graph)
    rng = np.random.default_rng(3)
    queries = [emb.embed_query(t) for t in texts[:30]]
    for size in (1_000, 10_000, 50_000, 100_000, 200_000, 300_000, 500_000):
        if size >= n:
            break
        docs = np.sort(rng.choice(n // 100, size // 100, replace=False))
        within = RowRanges(docs * 100, docs * 100 + 100)
        clocks: dict[str, Clock] = {}
        for name, limit in (("scan", 10**15), ("graph", 0)):
            if name == "graph" and size < 50_000:
                continue  # seconds a query: the graph must return ~k / share candidates
            old, ann.SCAN_WITHIN = ann.SCAN_WITHIN, limit
            try:
                c = clocks[name] = Clock()
                for q in queries:
                    with c:
                        graph.search_within(q, 100, within)
            finally:
                ann.SCAN_WITHIN = old
        out.append({"units": size, **{k: v.summary() for k, v in clocks.items()}, "load": os.getloadavg()[0]})
        cells = [clocks[k].cell() if k in clocks else "-" for k in ("scan", "graph")]
        print(f"| {size:,} | {cells[0]} | {cells[1]} | {os.getloadavg()[0]:.1f} |", flush=True)
    return out


if __name__ == "__main__":
    main()
