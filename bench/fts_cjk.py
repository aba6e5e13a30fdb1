"""Chinese BM25: CJK bigram terms against single characters searched as bigram phrases.

    .venv/bin/python bench/fts_cjk.py

cmrc2018_trial is chunked with the default profile (through an index with the ``hash``
embedder); its embedded units then fill two contentless FTS5 tables held in memory: one of
overlapping CJK bigrams (FTS format ``bigram-1``, schema 2) and one of single characters
queried with two-character phrases (``cjk-unigram-1``, what the store writes now). Each of the
1,002 questions is an OR query of its terms ("chosen terms": only those that
``search.bm25.select_terms`` keeps, as ``Index.search`` does; the time then includes counting
each term's rows); "hit@k" is the share of questions whose evidence span overlaps one of the
first k units. Prints the FTS size / corpus UTF-8 bytes (segments merged, pages counted by
dbstat), hit@1/3/10 and per-query latency, wall and CPU.
"""

from __future__ import annotations

import json
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from zoomrag.embed import get_embedder
from zoomrag.index import Index
from zoomrag.model import Document
from zoomrag.search.bm25 import MAX_ROWS, match_expression, query_terms, select_terms
from zoomrag.store import fts

CORPUS = ROOT.parent / "shared" / "data" / "cmrc2018_trial"


def bigram_terms(text: str) -> list[str]:
    """The schema-2 analyzer: words, and each CJK run as overlapping bigrams.

    That is exactly what today's query side produces, so the old index is rebuilt from it.
    """
    return fts.query_terms(text)


def bigram_query(text: str) -> str | None:
    terms = list(dict.fromkeys(bigram_terms(text)))[:64]
    parts = ['"' + t.replace('"', '""') + '"' + ("*" if len(t) == 1 and fts.is_cjk(t) else "") for t in terms]
    return " OR ".join(parts) or None


def chosen_query(c: sqlite3.Connection, text: str, units: int) -> str | None:
    """The MATCH of ``Index.search``: the terms ``select_terms`` keeps, rows counted as the store does."""
    terms = query_terms(text)
    df = {t: c.execute("SELECT count(*) FROM (SELECT 1 FROM f WHERE f MATCH ? LIMIT ?)",
                       (fts.expression(t), MAX_ROWS + 1)).fetchone()[0] for t in terms}
    if len(terms) > 1 and all(n > MAX_ROWS for n in df.values()):
        df = {t: c.execute("SELECT count(*) FROM f WHERE f MATCH ?", (fts.expression(t),)).fetchone()[0]
              for t in terms}
    return match_expression(select_terms(terms, df, units) if len(terms) > 1 else terms)


def load_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def units_of_default_profile(tmp: Path) -> list[tuple[str, int, int, str]]:
    docs = load_jsonl(CORPUS / "corpus.jsonl")
    with Index.open(tmp / "zh.db", embedder=get_embedder("hash", dimension=64), ann="off") as ix:
        ix.add([Document.from_text(d["text"], id=d["id"], source=d["id"]) for d in docs])
        out = []
        for d in docs:
            tree = ix.tree(d["id"])
            out.extend((d["id"], u.start, u.end, u.text) for u in tree.nodes if u.is_leaf)
    return out


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        units = units_of_default_profile(Path(tmp))
    text_bytes = sum(len(d["text"].encode()) for d in load_jsonl(CORPUS / "corpus.jsonl"))
    queries = load_jsonl(CORPUS / "queries.jsonl")
    print(f"{len(units)} units, {len(queries)} questions\n")
    print("| index terms | query | FTS / text | hit@1 | hit@3 | hit@10 | ms / query p50 / p95 (cpu total s) |")
    print("|---|---|---|---|---|---|---|")
    variants = [
        ("CJK bigrams", "bigram terms", lambda t: " ".join(bigram_terms(t)), lambda c, t: bigram_query(t)),
        ("CJK characters", "bigram phrases", fts.body, lambda c, t: match_expression(query_terms(t))),
        ("CJK characters", "bigram phrases, chosen terms", fts.body, lambda c, t: chosen_query(c, t, len(units))),
    ]
    for label, qlabel, body, query in variants:
        c = sqlite3.connect(":memory:", isolation_level=None)
        c.execute("CREATE VIRTUAL TABLE f USING fts5(body, content='', tokenize='unicode61 remove_diacritics 2')")
        c.execute("BEGIN")
        c.executemany("INSERT INTO f(rowid, body) VALUES (?, ?)", [(i, body(u[3])) for i, u in enumerate(units)])
        c.execute("COMMIT")
        c.execute("INSERT INTO f(f) VALUES ('optimize')")
        size = sum(s for n, s in c.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name") if n.startswith("f"))
        hits = [0, 0, 0]
        wall: list[float] = []
        cpu0 = time.process_time()
        for q in queries:
            ev = q["evidence"][0]
            t0 = time.perf_counter()
            expr = query(c, q["query"])
            rows = c.execute("SELECT rowid FROM f WHERE f MATCH ? ORDER BY bm25(f) LIMIT 10",
                             (expr,)).fetchall() if expr else []
            wall.append(time.perf_counter() - t0)
            ok = [units[r][0] == ev["doc_id"] and units[r][1] < ev["end"] and ev["start"] < units[r][2]
                  for (r,) in rows]
            for j, k in enumerate((1, 3, 10)):
                hits[j] += any(ok[:k])
        cpu = time.process_time() - cpu0
        wall.sort()
        n = len(queries)
        print(f"| {label} | {qlabel} | {size / text_bytes:.2f}x | {hits[0] / n:.3f} | {hits[1] / n:.3f} | "
              f"{hits[2] / n:.3f} | {wall[n // 2] * 1e3:.2f} / {wall[int(n * 0.95)] * 1e3:.2f} ({cpu:.2f}) |")


if __name__ == "__main__":
    main()
