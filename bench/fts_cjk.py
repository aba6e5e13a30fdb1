"""Chinese BM25: CJK bigram terms, single characters searched as bigram phrases, and single
characters without positions searched as pairs.

    .venv/bin/python bench/fts_cjk.py

cmrc2018_trial is chunked with the default profile (through an index with the ``hash``
embedder). Its embedded units then fill two contentless FTS5 tables (``detail=full``) held in
memory, ranked by FTS5's bm25(): one of overlapping CJK bigrams (FTS format ``bigram-1``,
schema 2) and one of single characters queried with two-character phrases (``cjk-unigram-1``,
schema 3). The last row is the index itself (schema 4, ``cjk-unigram-none-1``: single
characters, ``detail=none``, each pair of adjacent characters searched as the units holding
both, ranked by zoomrag's BM25 through ``Index.search(mode="bm25")``). Each of the 1,002
questions is an OR query of its terms ("chosen terms": only those that
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
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

from zoomrag.embed import get_embedder
from zoomrag.index import Index
from zoomrag.model import Document
from zoomrag.search.bm25 import MAX_ROWS, query_terms, select_terms
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


def unigram_body(text: str) -> str:
    """Schema 3's body: the index terms alone."""
    return " ".join(fts.terms(text))


def phrase(term: str) -> str:
    """Schema 3's FTS5 query for a term: a CJK bigram as the phrase of its two characters."""
    text = " ".join(term) if fts.is_phrase(term) else term
    return '"' + text.replace('"', '""') + '"'


def phrase_query(terms: list[str]) -> str | None:
    return " OR ".join(phrase(t) for t in terms) or None


def chosen_query(c: sqlite3.Connection, text: str, units: int) -> str | None:
    """Schema 3's MATCH in ``Index.search``: the terms ``select_terms`` keeps, rows counted as the store did."""
    terms = query_terms(text)
    df = {t: c.execute("SELECT count(*) FROM (SELECT 1 FROM f WHERE f MATCH ? LIMIT ?)",
                       (phrase(t), MAX_ROWS + 1)).fetchone()[0] for t in terms}
    if len(terms) > 1 and all(n > MAX_ROWS for n in df.values()):
        df = {t: c.execute("SELECT count(*) FROM f WHERE f MATCH ?", (phrase(t),)).fetchone()[0]
              for t in terms}
    return phrase_query(select_terms(terms, df, units) if len(terms) > 1 else terms)


def load_jsonl(path: Path) -> list[dict]:
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f]


def default_profile_index(tmp: Path) -> Index:
    docs = load_jsonl(CORPUS / "corpus.jsonl")
    ix = Index.open(tmp / "zh.db", embedder=get_embedder("hash", dimension=64), ann="off")
    ix.add([Document.from_text(d["text"], id=d["id"], source=d["id"]) for d in docs])
    return ix


def units_of(ix: Index) -> list[tuple[str, int, int, str]]:
    out = []
    for d in load_jsonl(CORPUS / "corpus.jsonl"):
        tree = ix.tree(d["id"])
        out.extend((d["id"], u.start, u.end, u.text) for u in tree.nodes if u.is_leaf)
    return out


def time_questions(queries: list[dict], search: Callable[[str], list[tuple[str, int, int]]],
                   ) -> tuple[list[int], list[float], float]:
    """Hits at 1, 3 and 10 (a found unit overlapping the first evidence span), each question's
    wall time, and the CPU time of all: one loop for every variant, so they are timed alike."""
    hits = [0, 0, 0]
    wall: list[float] = []
    cpu0 = time.process_time()
    for q in queries:
        ev = q["evidence"][0]
        t0 = time.perf_counter()
        found = search(q["query"])
        wall.append(time.perf_counter() - t0)
        ok = [doc == ev["doc_id"] and start < ev["end"] and ev["start"] < end for doc, start, end in found]
        for j, k in enumerate((1, 3, 10)):
            hits[j] += any(ok[:k])
    return hits, wall, time.process_time() - cpu0


def print_row(label: str, qlabel: str, size: float, hits: list[int], wall: list[float], cpu: float) -> None:
    wall = sorted(wall)
    n = len(wall)
    print(f"| {label} | {qlabel} | {size:.2f}x | {hits[0] / n:.3f} | {hits[1] / n:.3f} | "
          f"{hits[2] / n:.3f} | {wall[n // 2] * 1e3:.2f} / {wall[int(n * 0.95)] * 1e3:.2f} ({cpu:.2f}) |")


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        ix = default_profile_index(Path(tmp))
        try:
            units = units_of(ix)
            text_bytes = sum(len(d["text"].encode()) for d in load_jsonl(CORPUS / "corpus.jsonl"))
            queries = load_jsonl(CORPUS / "queries.jsonl")
            print(f"{len(units)} units, {len(queries)} questions\n")
            print("| index terms | query | FTS / text | hit@1 | hit@3 | hit@10 | ms / query p50 / p95 (cpu total s) |")
            print("|---|---|---|---|---|---|---|")
            fts5_variants(units, queries, text_bytes)
            store_variant(ix, queries, text_bytes)
        finally:
            ix.close()


def store_variant(ix: Index, queries: list[dict], text_bytes: int) -> None:
    """The index as the store writes it, searched as ``zoomrag query --mode bm25`` does."""
    ix.store.conn.execute("INSERT INTO fts(fts) VALUES ('optimize')")
    size = sum(v for k, v in ix.store.table_bytes().items() if k.startswith("fts"))

    def search(text: str) -> list[tuple[str, int, int]]:
        return [(h.doc_id, h.start, h.end) for h in ix.search(text, mode="bm25", k=10)]

    print_row("CJK characters, no positions", "pairs of characters, chosen terms, zoomrag BM25 (the index now)",
              size / text_bytes, *time_questions(queries, search))


def fts5_variants(units: list[tuple[str, int, int, str]], queries: list[dict], text_bytes: int) -> None:
    """Positional FTS5 tables in memory, ranked by FTS5's bm25() (schemas 2 and 3)."""
    variants = [
        ("CJK bigrams", "bigram terms", lambda t: " ".join(bigram_terms(t)), lambda c, t: bigram_query(t)),
        ("CJK characters", "bigram phrases", unigram_body, lambda c, t: phrase_query(query_terms(t))),
        ("CJK characters", "bigram phrases, chosen terms", unigram_body,
         lambda c, t: chosen_query(c, t, len(units))),
    ]
    for label, qlabel, body, query in variants:
        c = sqlite3.connect(":memory:", isolation_level=None)
        c.execute("CREATE VIRTUAL TABLE f USING fts5(body, content='', tokenize='unicode61 remove_diacritics 2')")
        c.execute("BEGIN")
        c.executemany("INSERT INTO f(rowid, body) VALUES (?, ?)", [(i, body(u[3])) for i, u in enumerate(units)])
        c.execute("COMMIT")
        c.execute("INSERT INTO f(f) VALUES ('optimize')")
        size = sum(s for n, s in c.execute("SELECT name, sum(pgsize) FROM dbstat GROUP BY name") if n.startswith("f"))

        def search(text: str, c: sqlite3.Connection = c, query=query) -> list[tuple[str, int, int]]:
            expr = query(c, text)
            rows = c.execute("SELECT rowid FROM f WHERE f MATCH ? ORDER BY bm25(f) LIMIT 10",
                             (expr,)).fetchall() if expr else []
            return [units[r][:3] for (r,) in rows]

        print_row(label, qlabel, size / text_bytes, *time_questions(queries, search))


if __name__ == "__main__":
    main()
