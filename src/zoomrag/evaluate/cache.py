"""Finished work survives interruption: retrieval results cached per query in one SQLite file.

A row is keyed by (corpus hash, configuration, embedder, token counter, budget, query id) and
holds the spans returned for that query and how long it took. Metrics are recomputed from the
spans on every run (cheap), so a fix to a metric never needs a re-run; a changed query text
(checked by hash) or corpus (its hash is in the key) misses the cache. Writes are SQLite
transactions: a run killed mid-way loses at most the unflushed batch, never leaves half a row.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..errors import EvalError
from .dataset import EvalQuery
from .results import BuildStats
from .spans import DocSpan

SCHEMA_VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS results (
    corpus TEXT NOT NULL, config TEXT NOT NULL, embedder TEXT NOT NULL, counter TEXT NOT NULL,
    budget INTEGER NOT NULL, query_id TEXT NOT NULL, query_hash TEXT NOT NULL,
    returned TEXT NOT NULL, seconds REAL NOT NULL,
    PRIMARY KEY (corpus, config, embedder, counter, budget, query_id)
);
CREATE TABLE IF NOT EXISTS builds (
    corpus TEXT NOT NULL, config TEXT NOT NULL, embedder TEXT NOT NULL, payload TEXT NOT NULL,
    PRIMARY KEY (corpus, config, embedder)
);
"""


@dataclass(frozen=True, slots=True)
class RunKey:
    """Which results a row belongs to."""

    corpus: str
    config: str
    embedder: str
    counter: str
    budget: int


@dataclass(frozen=True, slots=True)
class CachedResult:
    returned: tuple[DocSpan, ...]
    seconds: float


def query_hash(q: EvalQuery) -> str:
    """What retrieval depends on: the query text and its document scope (not the evidence)."""
    key = json.dumps([q.query, q.doc_scope], ensure_ascii=False)
    return hashlib.blake2b(key.encode("utf-8"), digest_size=12).hexdigest()


def default_cache_path() -> Path:
    """``$ZOOMRAG_CACHE_DIR/eval.sqlite``, else the XDG cache folder."""
    base = os.environ.get("ZOOMRAG_CACHE_DIR")
    if base:
        return Path(base) / "eval.sqlite"
    xdg = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(xdg) / "zoomrag" / "eval.sqlite"


class ResultCache:
    """Cached retrieval results. ``ResultCache(None)`` keeps them in memory only."""

    def __init__(self, path: str | os.PathLike[str] | None, *, batch: int = 50):
        self.path = None if path is None else Path(path)
        self._batch = batch
        self._pending: list[tuple] = []
        try:
            if self.path is not None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(":memory:" if self.path is None else str(self.path), timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(_SCHEMA)
            row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is None:
                with self._db:
                    self._db.execute("INSERT INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
            elif row[0] != SCHEMA_VERSION:
                raise EvalError(f"{self.path}: evaluation cache has schema {row[0]}, this zoomrag writes "
                                f"{SCHEMA_VERSION}; delete the file or point --cache elsewhere")
        except sqlite3.DatabaseError as e:
            raise EvalError(f"{self.path}: cannot use it as an evaluation cache ({e}); "
                            "delete the file or point --cache elsewhere") from None

    # -- results ----------------------------------------------------------------------
    def get(self, key: RunKey, queries: Iterable[EvalQuery]) -> dict[str, CachedResult]:
        """Cached results for these queries (those whose text changed are left out)."""
        wanted = {q.id: query_hash(q) for q in queries}
        rows = self._db.execute(
            "SELECT query_id, query_hash, returned, seconds FROM results "
            "WHERE corpus=? AND config=? AND embedder=? AND counter=? AND budget=?",
            (key.corpus, key.config, key.embedder, key.counter, key.budget))
        out: dict[str, CachedResult] = {}
        for qid, qh, returned, seconds in rows:
            if wanted.get(qid) == qh:
                spans = tuple((str(d), int(s), int(e)) for d, s, e in json.loads(returned))
                out[qid] = CachedResult(spans, float(seconds))
        return out

    def put(self, key: RunKey, query: EvalQuery, result: CachedResult) -> None:
        """Queue one result; written with the next :meth:`flush` (automatic every batch)."""
        self._pending.append((key.corpus, key.config, key.embedder, key.counter, key.budget, query.id,
                              query_hash(query), json.dumps([list(r) for r in result.returned],
                                                            ensure_ascii=False), result.seconds))
        if len(self._pending) >= self._batch:
            self.flush()

    def flush(self) -> None:
        if not self._pending:
            return
        with self._db:  # one transaction: all of the batch or none of it
            self._db.executemany("INSERT OR REPLACE INTO results VALUES (?,?,?,?,?,?,?,?,?)", self._pending)
        self._pending.clear()

    def count(self) -> int:
        self.flush()
        return self._db.execute("SELECT COUNT(*) FROM results").fetchone()[0]

    # -- builds -----------------------------------------------------------------------
    def get_build(self, corpus: str, config: str, embedder: str) -> BuildStats | None:
        row = self._db.execute("SELECT payload FROM builds WHERE corpus=? AND config=? AND embedder=?",
                               (corpus, config, embedder)).fetchone()
        return None if row is None else BuildStats.from_dict(json.loads(row[0]))

    def put_build(self, corpus: str, config: str, embedder: str, stats: BuildStats) -> None:
        with self._db:
            self._db.execute("INSERT OR REPLACE INTO builds VALUES (?,?,?,?)",
                             (corpus, config, embedder, json.dumps(stats.to_dict())))

    def close(self) -> None:
        self.flush()
        self._db.close()

    def __enter__(self) -> ResultCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
