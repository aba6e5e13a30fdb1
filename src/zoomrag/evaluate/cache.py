"""Finished work survives interruption: retrieval results cached per query in one SQLite file.

A row is keyed by a :class:`RunKey` (everything that changes a result: the corpus as read, the
configuration's name and settings — strategy and its parameters, policy and its parameters,
search mode, reranker —, the embedder and its version, the token counter, the budget and the
zoomrag version with a digest of its source) and the query id; it holds the spans returned for that query and how long it
took. Metrics are recomputed from the spans on every run (cheap), so a fix to a metric never
needs a re-run; a changed query text (checked by hash) misses the cache. Writes are SQLite
transactions: a run killed mid-way loses at most the unflushed batch, never leaves half a row.
A cache written by another schema is emptied (it only holds what can be computed again).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import Any

from ..errors import EvalError
from .dataset import EvalQuery
from .results import BuildStats
from .spans import DocSpan

SCHEMA_VERSION = "2"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS runs (run TEXT PRIMARY KEY, key TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS results (
    run TEXT NOT NULL, query_id TEXT NOT NULL, query_hash TEXT NOT NULL,
    returned TEXT NOT NULL, seconds REAL NOT NULL,
    PRIMARY KEY (run, query_id)
);
CREATE TABLE IF NOT EXISTS builds (build TEXT PRIMARY KEY, payload TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS judgments (
    run TEXT NOT NULL, query_id TEXT NOT NULL, judge TEXT NOT NULL, payload TEXT NOT NULL,
    PRIMARY KEY (run, query_id, judge)
);
"""
_TABLES = ("meta", "runs", "results", "builds", "judgments")


def source_digest(package: Path) -> str:
    """A hash of every ``.py`` file under ``package`` (names and bytes).

    The release number alone is not enough: a checkout or an edited install chunks and ranks
    with its own code under the same number, and its cached figures must not be served for it.
    """
    h = hashlib.blake2b(digest_size=8)
    for path in sorted(package.rglob("*.py")):
        h.update(path.relative_to(package).as_posix().encode("utf-8") + b"\0")
        h.update(path.read_bytes() + b"\0")
    return h.hexdigest()


@functools.cache
def _own_digest() -> str:
    return source_digest(Path(__file__).resolve().parents[1])


def _version() -> str:
    from .. import __version__

    return f"{__version__}+{_own_digest()}"


def _digest(value: Any) -> str:
    raw = json.dumps(value, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.blake2b(raw.encode("utf-8"), digest_size=16).hexdigest()


@dataclass(frozen=True, slots=True)
class RunKey:
    """Which results a row belongs to: everything that changes what a configuration returns.

    ``settings`` is the configuration's own description (strategy, policy and their parameters,
    search mode, reranker...): two configurations with one name but other settings never share
    a row. ``version`` is the zoomrag version and a digest of its source (other code may chunk or
    rank differently).
    """

    corpus: str
    config: str
    embedder: str
    counter: str
    budget: int
    settings: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    version: str = field(default_factory=_version)

    def to_dict(self) -> dict[str, Any]:
        return {"corpus": self.corpus, "config": self.config, "embedder": self.embedder,
                "counter": self.counter, "budget": self.budget, "settings": dict(self.settings),
                "version": self.version}

    @property
    def digest(self) -> str:
        """The row key: a hash of every field."""
        return _digest(self.to_dict())

    @property
    def build_digest(self) -> str:
        """The key of the build these results came from (the budget does not change an index)."""
        d = self.to_dict()
        del d["budget"]
        return _digest(d)


@dataclass(frozen=True, slots=True)
class CachedResult:
    returned: tuple[DocSpan, ...]
    seconds: float
    #: The rank (from 1) of the context each returned span is part of; empty: each span its own.
    ranks: tuple[int, ...] = ()


def query_hash(q: EvalQuery) -> str:
    """What retrieval depends on: the query text and its document scope (not the evidence)."""
    key = json.dumps([q.query, q.doc_scope], ensure_ascii=False)
    return hashlib.blake2b(key.encode("utf-8"), digest_size=12).hexdigest()


class ResultCache:
    """Cached retrieval results. ``ResultCache(None)`` keeps them in memory only."""

    def __init__(self, path: str | os.PathLike[str] | None, *, batch: int = 50):
        self.path = None if path is None else Path(path)
        self._batch = batch
        self._pending: list[tuple] = []
        self._runs: dict[str, str] = {}
        try:
            if self.path is not None:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(":memory:" if self.path is None else str(self.path), timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
            row = self._db.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
            if row is not None and row[0] != SCHEMA_VERSION:
                # Another schema's rows cannot be keyed correctly: start afresh (all recomputable).
                with self._db:
                    for t in _TABLES:
                        self._db.execute(f"DROP TABLE IF EXISTS {t}")
                row = None
            self._db.executescript(_SCHEMA)
            if row is None:
                with self._db:
                    self._db.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (SCHEMA_VERSION,))
        except sqlite3.DatabaseError as e:
            raise EvalError(f"{self.path}: cannot use it as an evaluation cache ({e}); "
                            "delete the file or point --cache elsewhere") from None

    # -- results ----------------------------------------------------------------------
    def get(self, key: RunKey, queries: Iterable[EvalQuery]) -> dict[str, CachedResult]:
        """Cached results for these queries (those whose text changed are left out)."""
        wanted = {q.id: query_hash(q) for q in queries}
        rows = self._db.execute(
            "SELECT query_id, query_hash, returned, seconds FROM results WHERE run=?", (key.digest,))
        out: dict[str, CachedResult] = {}
        for qid, qh, returned, seconds in rows:
            if wanted.get(qid) == qh:
                items = [tuple(r) for r in json.loads(returned)]
                spans = tuple((str(r[0]), int(r[1]), int(r[2])) for r in items)
                ranks = tuple(int(r[3]) for r in items) if items and all(len(r) == 4 for r in items) else ()
                out[qid] = CachedResult(spans, float(seconds), ranks)
        return out

    def put(self, key: RunKey, query: EvalQuery, result: CachedResult) -> None:
        """Queue one result; written with the next :meth:`flush` (automatic every batch)."""
        run = key.digest
        if run not in self._runs:
            self._runs[run] = json.dumps(key.to_dict(), sort_keys=True, ensure_ascii=False, default=str)
        self._pending.append((run, query.id, query_hash(query),
                              json.dumps([[*r, k] for r, k in zip(result.returned, result.ranks)]
                                         if result.ranks else [list(r) for r in result.returned],
                                         ensure_ascii=False),
                              result.seconds))
        if len(self._pending) >= self._batch:
            self.flush()

    def flush(self) -> None:
        if not self._pending:
            return
        with self._db:  # one transaction: all of the batch or none of it
            self._db.executemany("INSERT OR IGNORE INTO runs VALUES (?,?)", list(self._runs.items()))
            self._db.executemany("INSERT OR REPLACE INTO results VALUES (?,?,?,?,?)", self._pending)
        self._pending.clear()

    def count(self) -> int:
        self.flush()
        return self._db.execute("SELECT COUNT(*) FROM results").fetchone()[0]

    # -- builds -----------------------------------------------------------------------
    def get_build(self, key: RunKey) -> BuildStats | None:
        row = self._db.execute("SELECT payload FROM builds WHERE build=?", (key.build_digest,)).fetchone()
        return None if row is None else BuildStats.from_dict(json.loads(row[0]))

    def put_build(self, key: RunKey, stats: BuildStats) -> None:
        with self._db:
            self._db.execute("INSERT OR REPLACE INTO builds VALUES (?,?)",
                             (key.build_digest, json.dumps(stats.to_dict())))

    # -- judged answers ---------------------------------------------------------------
    def get_judgment(self, key: RunKey, query: EvalQuery, judge: str) -> dict[str, Any] | None:
        """A cached judgment of this query's answer (``judge`` names the judge and what it saw)."""
        row = self._db.execute("SELECT payload FROM judgments WHERE run=? AND query_id=? AND judge=?",
                               (key.digest, query.id, judge)).fetchone()
        return None if row is None else json.loads(row[0])

    def put_judgment(self, key: RunKey, query: EvalQuery, judge: str, payload: Mapping[str, Any]) -> None:
        with self._db:
            self._db.execute("INSERT OR REPLACE INTO judgments VALUES (?,?,?,?)",
                             (key.digest, query.id, judge, json.dumps(dict(payload), ensure_ascii=False)))

    def close(self) -> None:
        self.flush()
        self._db.close()

    def __enter__(self) -> ResultCache:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
